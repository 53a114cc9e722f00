"""Fixed cost of the MCD-based steps: ``mv_top_code`` and ``rmd_risk`` on small files.

Run: ``nice -n 5 python benchmarks/bench_mcd_fixed_cost.py``. Data: ``synthetic_survey``
persons, income/expend (many zeros: many singular random starts). Prints the best and median
wall time and the best CPU time (``time.process_time``: all threads) of 9 calls after a warm-up
call (numba compiled and cached), beside the goal (under 20 ms at 10,000 records). For
``rmd_risk`` it prints the first call (the cache of MCD fits emptied before each call: the real
fixed cost), the same with one thread, and a repeat call (the fit from the cache).

The FastMCD search (robustbase's covMcd settings: 500 random starts, nested subsamples) runs the
C-steps of all its starts in one compiled loop (numba, ``sdcsession.risk.robust._fastmcd_jit``):
no Python, BLAS or LAPACK call per start or step. ``rmd_risk`` runs the search ``runs=10`` times
(the subset most of them return, to reproduce covMcd's most frequent outcome; bare searches, one
reweighting, shared converged last stages, stopping once the modal subset is certain, ties
included: 7 runs on this file, 8 before the tie rule counted; now also stopping when the
first three runs agree: 3 runs on this file, ``benchmarks/bench_rmd_vote.py`` for what that
costs in the chance of keeping covMcd's modal subset). The last two lines time each
step's first call in a fresh process (three processes): it also imports numba and scipy.special
and loads the compiled code from numba's disk cache, which the lines above leave to their
warm-up call.

History at 10,000 records (CPU): mv_top_code 0.14 s, then 0.05 s, then 0.016-0.020 s; rmd_risk
0.38-0.66 s, then 0.15-0.17 s, then 0.12-0.16 s. Then the C-step's distances ran in one fused
loop for two variables (blocks of 256 records for more); its selection of the h smallest
distances counts instead of sorting (sampled bracket, interpolated counting passes, a quickselect
on the last few values: ``_fastmcd_select``); the random starts' extension takes the few
smallest keys instead of sorting all; and the repeated searches of ``rmd_risk`` share converged
C-step paths (``_fastmcd_shared``: the last stage of the 8 runs 14 ms -> 6 ms). Every subset and
figure is the same bit for bit. A/B against the previous code in the same run (CPU, best of 9,
machine shared with ~5 other jobs, load 4-5 on 2 cores; the previous commit exported beside
this one, the two timed alternately): mv_top_code 0.017-0.022 s -> 0.009 s; rmd_risk runs=10
0.130-0.143 s -> 0.069 s; runs=1 0.025 s -> 0.019 s. This script, same conditions:
mv_top_code 0.010-0.012 s, rmd_risk runs=10 0.075-0.080 s, runs=1 0.021-0.023 s.

Then (every subset and figure again the same bit for bit, checked by tests against the previous
paths): RMDID2 asks a grid of cells of side k2 whether another masked record lies within k2
(``risk.numeric._rmd_near``; the k-d tree's nearest distances took 9 ms, the grid 0.7-1 ms);
the random-start stages of a search run in one compiled call that releases the GIL
(``risk.robust._fastmcd_stages``; 5.9 -> 5.6 ms per search: the C-steps, not Python, were the
cost), so ``rmd_risk`` runs the start stages of the next searches in two threads while the
calling thread finishes each run in run order (same votes, same early stop, same shared
memo); and the last four modal fits are cached under a SHA-256 digest of the standardised
original and the settings (``risk.numeric._rmd_mcd``). Components on a quiet moment (load
below 1, CPU): one search 5.5-5.9 ms of start stages (500 x 2 C-steps on 5 groups of 300
records 2.6 ms, their 150,000 random keys and fits 0.9 ms, 50 x 2 on 1,500 records 0.8 ms,
10 x 1 on all records 0.5 ms) and 0.4-1.7 ms of last stage; 8 searches make about 50 ms of CPU;
outside the search about 4 ms (reading and checking the frames 1.2 ms, RMDID2 0.7-1 ms, the
robust distances 0.4 ms, standardising 0.3 ms, the result 0.3 ms). So the first call cannot
reach 20 ms wall on 2 cores (about 25 ms of search per core when both are free); a repeat call
(the session case: the same original after every step) is 4-6 ms.
This script at 10,000 records, machine shared with ~5 other jobs (four runs at load 2-8 on 2
cores): rmd_risk runs=10 first call best wall 0.069 / 0.133 / 0.226 / 0.059 s, CPU 0.061 /
0.091 / 0.092 / 0.059 s (one thread: wall 0.096 / 0.176 / 0.166 / 0.060 s, CPU 0.057 / 0.089 /
0.065 / 0.060 s); repeat call wall 0.004-0.009 s, CPU 0.004-0.006 s; runs=1 wall 0.012-0.030
s, CPU 0.012-0.017 s; mv_top_code wall 0.010-0.023 s, CPU 0.009-0.014 s. The two threads
rarely ran at once: while another job kept one core busy, two processes took as long as one
each on the other core, and two threads of a bare numba loop as long as one; so their wall is
about their CPU. The threads then ran the searches in a pipeline, and the run started ahead and
abandoned cost 5-20 % more CPU than one thread; now the runs go in batches of two (at most one
run in vain; none on this file: the 8 runs end a batch), and with the batches (load 2):
first call wall 0.110 s, CPU 0.062 s; one thread wall 0.105 s, CPU 0.060 s; repeat call wall
0.004 s, CPU 0.004 s. On a free second core the threads overlap the searches (once, at load 5:
1,000 records 0.034 s wall with two threads, 0.047 s with one).

Then (every subset and figure again the same bit for bit; the vote checked against every
completion of the remaining runs, the scheduled runs against the plain loop of all runs for
1-3 threads, the selection against the stable order, the compiled random numbers against
numpy's): the vote stops as soon as no other subset can overtake the leader with the tie rule
(smaller log det, then first run) counted (``risk.numeric._rmd_runs.certain``: 8 -> 7 runs);
the start stages of the runs the vote needs in any case (6 of 10 at first, then the fewest
before it can be decided; none speculative) are claimed in run order by the calling thread and
one kept pool thread, the calling thread finishing each run as soon as its stages are there
(no batches, no run in vain, no thread started per call); the C-step's
selection takes a sample of m/32 values (16 to 44) whose order statistics, and those of the
last few values, are found by counting instead of a quickselect (m = 300: -10 %, m = 1,500:
-45 %); the distances for two variables form L^-1 without loops; and the 150,000 random keys
of a search are numpy's PCG64 numbers drawn by compiled code into a buffer kept per thread
(``risk.robust._pcg64``: 0.6-0.8 -> 0.4 ms). A/B against the previous commit in the same
run (exported beside it, the two run alternately, 4 rounds, best of 9 each, machine shared with
other jobs, load 3.7-5.1 on 2 cores): rmd_risk runs=10 first call at 10,000 records, CPU
0.058-0.085 s -> 0.041-0.061 s; best wall with two threads 0.051-0.085 s -> 0.042-0.061 s.
This script in the same conditions: first call wall 0.042 s best / 0.077 s median, CPU 0.045 s;
one thread 0.069 / 0.078 s, CPU 0.046 s; repeat call 0.009 s (CPU 0.005 s); runs=1 0.024 s
(CPU 0.012 s). Components under that load: one search's start stages 4-5 ms (groups 2.5 ms,
keys and start fits 1.1-1.3 ms, merged 0.7-1.0 ms, full 0.6-0.8 ms), its last stage with the
memo about 1 ms; 7 searches are 35-45 ms of CPU, so the 20 ms goal needs both cores free and
still about a third less work per search. Outside the searches about 5 ms at 10,000 records
(all records at risk here): reading and checking the frames 1.0 ms, RMDID2's grid 1.4 ms, the
robust distances 0.7 ms (LAPACK's solve, kept for the same bits), the rest 1.5 ms. A first
call in a fresh process costs about 1 s more (the last two lines): importing numba 0.25 s and
scipy.special 0.28 s, loading the compiled kernels from numba's disk cache 0.45-0.7 s.

Then (every subset and figure again the same bit for bit: the selection against the stable
order on skewed shapes, the smallest keys against the stable order, the scheduled runs against
the plain loop for 1-3 threads, the compiled stages against the staged code, the frames'
arrays and layout against the column selection). Profiled first, per C-step (numba loops over
the distances the C-steps meet on this file, CPU): at 300 records distances 0.2 us, the
selection's threshold 1.0 us (sample 0.12, counting passes 0.28, gathering 0.16, last pick
0.11), taking the subset 0.2-0.26 us, the fit 0.26 us; at 10,000 records 3.5, 31-33, 8-16 and
10 us. The counting passes dominated: their guesses interpolated linearly between the bounds,
and the distances are skewed with far outliers, so the upper guess crept down one pass at a
time (4.5 passes on average at 300 records, 7.2 at 10,000). The guesses now interpolate in
log d2 (2.7 and 3.1 passes; the threshold 0.98 -> 0.67 us at 300 records, 31 -> 15 us at
10,000), and only the first pass looks for NaN. Tried and left: interpolating on the int64
bit patterns (as many passes), a larger first sample (no fewer passes), two interleaved
compactions for the subset or the gather (slower), a fit gathering both variables in one
loop (slower at 300 records), PCG64 with a 128-bit multiply (slower), skipping repeated
subsets (none: 98 of 100 starts distinct after two C-steps). The random starts' smallest keys
keep their cut in a local (31 -> 18 us per 100 starts). The two threads share the runs group
by group (``risk.robust._fastmcd.Stages``: an open run's groups go to whichever thread is
free, the one finishing the last group runs the merged and full stages): handed out whole,
the helper sat idle while the calling thread computed the run the vote needed last (a
simulation of this file's vote, A A A B A B A, with 3.5 ms per run's stages and 0.6 ms per
last stage: 18.2 ms of searches with a third of it one core idle; by groups about 16 ms).
The groups and the last stages are parts of the one compiled ``stages`` (one kernel to load
in a fresh process, as before; two separate kernels took 0.05-0.09 s more to load), and a
run's random keys go to a buffer reused once its groups are done (at most four kept). The
frames are read without a column selection when they hold just those columns (0.21 -> 0.007
ms each). A/B against the previous commit (exported beside it, run alternately, 3
rounds, best CPU of 21 first calls, machine shared with other jobs at load 7.5-8.4 on 2
cores, so the wall times say nothing): rmd_risk runs=10 at 10,000 records CPU 42.9 / 45.9 /
63.1 ms -> 41.0 / 41.8 / 41.4 ms (two threads), 41.7 / 44.2 / 67.6 -> 40.6 / 41.1 / 41.0 ms
(one); at 1,000 records 24.6 / 25.4 / 40.9 -> 23.3 / 30.8 / 25.3 ms. One search's start stages
4.0-5.0 -> 3.6-3.7 ms (CPU, best of 60; the 2 C-steps of a group's 100 starts 0.34-0.41 ->
0.29-0.30 ms, their start fits 0.07-0.09 -> 0.05 ms). This script (load 5.7-6.5): rmd_risk
runs=10 first call best wall 0.063 s / median 0.084 s, CPU 0.041 s; one thread 0.065 / 0.087
s, CPU 0.041 s; repeat call 0.003 s (CPU 0.003 s; 0.008 / 0.004 s before: the frames'
reading); runs=1 0.014 s (CPU 0.009 s); mv_top_code 0.014 s (CPU 0.008 s); at 1,000 records
first call 0.034 / 0.041 s, CPU 0.024 s. Fresh process: rmd_risk 1.35-1.7 s, mv_top_code
2.8-3.6 s (load 6-7). At load 9.7-10.2 the same script gave first call 0.086 / 0.106 s, CPU
0.052 s (one thread 0.116 / 0.146 s, CPU 0.057 s): CPU time too grows with the load.
What remains: 7 searches of about 4 ms of CPU each (the 1,000 C-steps on the groups of 300
records about 1.4 ms, their random keys and start fits 0.5 ms, the merged stage 0.6 ms, the
screen on all records 0.5 ms, the last stage 0.4-1 ms) and about 4.5 ms outside (RMDID2's
grid 0.9 ms, the robust distances 0.4 ms with LAPACK's solve kept for its bits, the
reweighted fit 0.5 ms, the rest in pandas and numpy calls): 41 ms of CPU measured here
(the parts timed alone add up to about 33 ms), so 20 ms of wall needs both cores free and
still a fifth less work; on this machine (load 5-9 on 2 cores throughout) the second core was
never free and the wall time was the CPU time or more. A C-step at 300 records is now about
1.5 us with its start's share (1.7-2.0 before), its parts each within a
factor of two of a single pass over the records (the branch-free compaction that takes the
subset costs 0.6-0.8 ns per record, four times a counting pass). A first call in a fresh
process (last lines) is mostly imports: numba, the scipy.linalg that numba's own array code
imports for its BLAS check when its compiler starts (``numba.np.arraymath``: not avoidable
from this package), scipy.special for the chi-squared quantiles of the consistency factors,
and the cached kernels' loads.

Then the vote ends when the first three searches return the same subset (3 searches instead
of 7 on this file; the result differs from the vote of all ten only when the first three agree
on a subset the others would outvote: ``benchmarks/bench_rmd_vote.py``): first call best /
median 0.035 / 0.042 s -> 0.019 / 0.023 s, CPU 0.057 -> 0.028 s (load 1-2). Then (every
subset, fit and figure again the same bit for bit; tests compare the scheduled
paths with the plain ones for 1-3 threads): with the vote ending after three agreeing
searches, about 7 of the 17.6 ms of a first call ran in the calling thread alone while the
other core idled (reading the frames and standardising before the search; after it, the
reweighted fit, the robust distances and RMDID2's grid). Now the search begins as soon as the
original is standardised (the helper draws and computes the first groups while the calling
thread reads and standardises the masked file; a bad masked file raises the same error and
abandons the search), and the work that needs no fit goes to the threads' idle moments at the
end of the search (``risk.numeric._rmd_runs.Runs.idle``): the grid's answer for every record
(RMDID2 takes the records at risk from it) and the centring of the distances, and, once two
runs agree, the reweighted fit of their subset, used when the vote chooses it. Work needed
first is also taken by the calling thread while it waits for a run. Tried and left: splitting
a run's merged and full stages into two halves that both threads share (candidates the same
bit for bit, but medians no better: the extra hand-overs cost what the overlap saved). A/B
against the previous commit (exported beside it, run alternately, 10 rounds of 11 first calls
each, machine shared with other jobs, load 0.5-0.9 on 2 cores): rmd_risk runs=10 at 10,000
records best wall 16.3 -> 13.2 ms, median 21.1 -> 18.1 ms, best CPU 25.0 -> 23.0 ms. This
script (same load, twice, alternating with the previous commit's copy): first call best /
median 0.016 / 0.017 s and 0.012 / 0.016 s, CPU 0.029 / 0.021 s (previous: 0.018 / 0.020 s and
0.017 / 0.018 s, CPU 0.028 / 0.026 s); repeat call 0.004-0.005 s.

A first mv_top_code in a fresh process also imported scipy.stats (0.6-0.9 s) for chi2.ppf in
``mcd``, though its robustbase path never used it: the quantiles now come from scipy.special
(``risk.robust._mcd_factors.chi2_ppf``, the same floats), and the fresh-process line went from
1.5-2.1 s to 0.65-0.8 s (mv_top_code) at load 1-2; rmd_risk's stays about 1.0 s (numba 0.5 s
with the scipy.linalg of its BLAS check, the cached kernels' loads).

sdcMicro (from the side-by-side review, where ours were 0.6x and 0.5x its speed at 0.1 s and 1 s):
mvTopCoding about 0.06 s, dRiskRMD about 0.5 s; printed beside the figures.
"""

from __future__ import annotations

import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdcsession.datasets import synthetic_survey  # noqa: E402
from sdcsession.methods.recoding.mv_top_coding import mv_top_code  # noqa: E402
from sdcsession.risk.numeric import _rmd_mcd  # noqa: E402
from sdcsession.risk.numeric.rmd import rmd_risk  # noqa: E402

REPS = 9


def best(f, reps=REPS, first=False):
    """Best wall, median wall and best CPU (all threads) of ``reps`` calls; ``first``: the
    cache of modal fits is emptied before each call (the cost of a first call)."""
    w, c = [], []
    for _ in range(reps):
        if first:
            _rmd_mcd.clear_cache()
        time.sleep(0.02)  # an abandoned run ahead of a previous call has ended
        w0, c0 = time.perf_counter(), time.process_time()
        f()
        w.append(time.perf_counter() - w0)
        c.append(time.process_time() - c0)
    return min(w), statistics.median(w), min(c)


def line(step, n, times, goal, ref):
    w, wm, c = times
    print(f"{step:<34}{n:>8,}{w:>9.3f}{wm:>9.3f}{c:>8.3f}  {goal:<10}{ref}")


def main() -> None:
    warnings.simplefilter("ignore")
    print(f"machine shared with other jobs; times in s: best and median wall, best CPU (all "
          f"threads) of {REPS}; threads for the searches: {_rmd_mcd.WORKERS}")
    print(f"{'step':<34}{'records':>8}{'wall':>9}{'median':>9}{'cpu':>8}  {'goal':<10}sdcMicro")
    for n in (1_000, 10_000, 100_000):
        d = synthetic_survey(n // 3 + 1, seed=1).iloc[:n].reset_index(drop=True)
        goal = "< 0.020" if n == 10_000 else ""
        mv_top_code(d, ["income", "expend"])  # warm-up: imports, compiled code
        line("mv_top_code income,expend", n, best(lambda d=d: mv_top_code(
            d, ["income", "expend"])), goal, "mvTopCoding ~0.06 s")
        if n > 10_000:
            continue
        num = d[["income", "expend"]].fillna(0.0)
        masked = num * 1.01
        rmd_risk(num, masked)  # warm-up

        def call(runs=10, num=num, masked=masked):
            return rmd_risk(num, masked, runs=runs)

        line("rmd_risk runs=10, first call", n, best(call, first=True), goal,
             "dRiskRMD ~0.5 s")
        workers = _rmd_mcd.WORKERS
        _rmd_mcd.WORKERS = 1
        line("rmd_risk runs=10, first, 1 thread", n, best(call, first=True), goal, "")
        _rmd_mcd.WORKERS = workers
        call()
        line("rmd_risk runs=10, repeat call", n, best(call), goal, "")
        line("rmd_risk runs=1, first call", n, best(lambda: call(1), first=True), goal, "")
    for step, name in (("rmd", "rmd_risk"), ("mv", "mv_top_code")):
        w = [fresh(step) for _ in range(3)]
        line(f"{name}, fresh process", 10_000, (min(w), statistics.median(w), float("nan")),
             "", "(imports + numba cache loads)")


FRESH = """
import sys, time, warnings
sys.path.insert(0, {root!r})
warnings.simplefilter("ignore")
from sdcsession.datasets import synthetic_survey
d = synthetic_survey(3334, seed=1).iloc[:10_000].reset_index(drop=True)
num = d[["income", "expend"]].fillna(0.0)
t0 = time.perf_counter()
if {step!r} == "rmd":
    from sdcsession.risk.numeric.rmd import rmd_risk
    rmd_risk(num, num * 1.01)
else:
    from sdcsession.methods.recoding.mv_top_coding import mv_top_code
    mv_top_code(d, ["income", "expend"])
print(time.perf_counter() - t0)
"""


def fresh(step: str) -> float:
    """Wall time of the step's first call in a new process (imports, numba's cache loads)."""
    import subprocess

    code = FRESH.format(root=str(Path(__file__).resolve().parents[1]), step=step)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return float(out.stdout.split()[-1])


if __name__ == "__main__":
    main()
