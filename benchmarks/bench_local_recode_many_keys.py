"""Benchmark: local recoding (`local_recode`) with many keys (15 keys, k = 3).

Run: ``nice -n 5 python benchmarks/bench_local_recode_many_keys.py [--cap C] [--progressive]
[--timeout S] [sizes...]`` (default sizes 10,000 / 100,000 / 1,000,000). Data: the census-like
generated file of ``bench_suppression_many_keys.py`` (`census_keys`: 15 keys, half with 2-5
categories, half with 10-100, Zipf-like and correlated). Per size it prints the engine that
``engine="auto"`` takes with 15 keys, the hub trie (`sdcsession.methods.suppression._hub_trie`,
cap ``max_suppressed_per_record`` = C, default floor(15 / 2) = 7): wall and CPU time, values
suppressed, the most values one record lost, fallback records (the only ones allowed beyond
the cap), and the records still below k by the project's own counts
(`sdcsession.risk.k_violations`; must be 0); beside it the figures of the progressive local
recoding (``engine="progressive"``, the engine before) recorded on this machine, or with
``--progressive`` measured again in a child process killed after the timeout (default
120 s). Goal: 1,000,000 records x 15 keys under 60 s, with fewer suppressions than the
progression where it finishes. The machine may be shared with other jobs (compare CPU).

The hub trie (see `local_recode` and the module above): records sorted on the keys (fewest
categories first) form a trie; a node of m >= k records is made safe by k - 1 hub records
blanked on the keys varying inside it (missing = wildcard), at most ``cap`` values per record
(a node varying on up to 2 cap keys splits the blanking between its hubs and its other
records); a bottom-up dynamic programme picks per node the cheaper of its hubs and its
children. O(n p^2) time, O(n p) memory, one sort.

Figures measured on this machine (2 cores shared with other jobs; ``nice -n 5``, command
``... bench_local_recode_many_keys.py``), hub trie, cap 7, against the progression:

* 10,000: 25,781 suppressed (2.58/record; progression 35,069: 74 %), 0.05 s CPU, at most 7
  values per record, 0 fallback records, 0 violations;
* 100,000: 129,947 suppressed (1.30/record; progression 197,395: 66 %), 0.45 s CPU, at most
  7, 0 fallback, 0 violations;
* 1,000,000: 201,600 suppressed (0.20/record), 5.3 s CPU (8.2 s wall, shared), at most 7,
  0 fallback, 0 violations; the progression did not finish in 420 s.

Progression (recorded; ``--progressive --timeout 420``): 10,000: 35,069 suppressed, 3.5 s CPU;
100,000: 197,395, 32.9 s CPU (58 s wall); 1,000,000: did not finish in 420 s (3.4 GB).
"""

from __future__ import annotations

import multiprocessing as mp
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_suppression_many_keys import CARDS, census_keys  # noqa: E402

#: records -> (suppressed, CPU s) of the progressive local recoding (None: not finished in 420 s)
PROGRESSIVE = {10_000: (35_069, 3.5), 100_000: (197_395, 32.9), 1_000_000: None}


def _one(n: int, engine: str, cap: int | None, queue: mp.Queue) -> None:
    from sdcsession.methods.recoding.local_recoding import local_recode
    from sdcsession.risk import k_violations

    keys = [f"k{j}" for j in range(len(CARDS))]
    df = census_keys(n)
    t, c = time.perf_counter(), time.process_time()
    out, notes = local_recode(df, keys, k=3, engine=engine, max_suppressed_per_record=cap)
    sec, cpu = time.perf_counter() - t, time.process_time() - c
    lost = (out[keys].isna() & df[keys].notna()).sum(axis=1)
    queue.put((sec, cpu, sum(notes["recoded"].values()), sum(notes["suppressed"].values()),
               int(lost.max()), notes.get("fallback_records", 0), k_violations(out, keys, 3),
               notes.get("engine", "progressive")))


def _run(n: int, engine: str, cap: int | None, timeout: float) -> tuple | None:
    q: mp.Queue = mp.Queue()
    p = mp.Process(target=_one, args=(n, engine, cap, q))
    p.start()
    p.join(timeout)
    if p.is_alive():
        p.terminate()
        p.join()
        return None
    return q.get()


def main() -> None:
    argv = sys.argv[1:]
    timeout, cap = 120.0, None
    if "--timeout" in argv:
        i = argv.index("--timeout")
        timeout = float(argv[i + 1])
        del argv[i:i + 2]
    if "--cap" in argv:
        i = argv.index("--cap")
        cap = int(argv[i + 1])
        del argv[i:i + 2]
    progressive = "--progressive" in argv
    argv = [a for a in argv if a != "--progressive"]
    sizes = [int(a) for a in argv] or [10_000, 100_000, 1_000_000]
    for n in sizes:
        r = _run(n, "auto", cap, max(timeout, 600.0))
        if r is None:
            print(f"n={n:>9,}  hub trie did not finish", flush=True)
            continue
        sec, cpu, _, sup, most, fb, viol, eng = r
        print(f"n={n:>9,}  keys={len(CARDS)}  k=3  {eng} (cap {cap or len(CARDS) // 2}): "
              f"{sec:7.2f} s wall  {cpu:7.2f} s CPU  suppressed {sup:>9,} ({sup / n:.3f}/record)"
              f"  most per record {most}  fallback records {fb}  violations {viol}", flush=True)
        if progressive:
            r = _run(n, "progressive", None, timeout)
            if r is None:
                print(f"    progressive: did not finish in {timeout:.0f} s", flush=True)
            else:
                print(f"    progressive: {r[0]:7.2f} s wall  {r[1]:7.2f} s CPU  suppressed "
                      f"{r[3]:>9,}  recoded {r[2]:,}  most per record {r[4]}  violations {r[6]}",
                      flush=True)
        ref = PROGRESSIVE.get(n, "n/a")
        if ref is None:
            print("    progressive (recorded): did not finish in 420 s", flush=True)
        elif ref != "n/a":
            print(f"    progressive (recorded): suppressed {ref[0]:>9,}  {ref[1]:.1f} s CPU  -> "
                  f"hub trie {sup / ref[0]:.0%} of the suppressions", flush=True)


if __name__ == "__main__":
    main()
