"""Benchmark of the singling-out attack (``sdcsession.risk.attacks.singling_out``).

Run: ``python benchmarks/bench_attacks.py [n_records] [n_attacks]`` (defaults 100,000 and
10,000). Original, release and control: three disjoint draws of
`sdcsession.datasets.synthetic_survey` (ids dropped; 12 categorical and 6 numeric columns), the
release masked with multiplicative noise on income, expend and savings (log-scale sd 0.1).
Prints the wall time of the multivariate attack (``n_cols`` columns per predicate, default 7:
with 3 columns fewer than 10,000 distinct predicates single out a record of this file at all;
generation on the release, evaluation on original and control, baseline) and of the univariate
one; the first call also compiles the counting kernel (numba, cached on disk), so it is timed
separately. Run: ``python benchmarks/bench_attacks.py [n_records] [n_attacks] [n_cols]``.
Goal: 10,000 attacks on 100,000 records in under 10 s. The CPU time is printed beside the wall
time: on a shared machine the wall time also counts the time other processes had the core.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdcsession.datasets import synthetic_survey  # noqa: E402
from sdcsession.risk.attacks import singling_out  # noqa: E402


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    n_attacks = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
    n_cols = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    df = synthetic_survey(3 * n, seed=11).drop(columns=["hid", "pid"]).reset_index(drop=True)
    ori, ctrl = df.iloc[:n], df.iloc[n:2 * n]
    rng = np.random.default_rng(11)
    rel = ori.copy()
    for c in ("income", "expend", "savings"):
        rel[c] = rel[c] * np.exp(rng.normal(0, 0.1, n))
    small = ori.iloc[:2000]
    t = time.perf_counter()
    singling_out(small, small, ctrl.iloc[:2000], n_attacks=50, seed=0)
    print(f"warm-up (compiles the kernel on a first run): {time.perf_counter() - t:.2f} s")
    for mode in ("multivariate", "univariate"):
        t, cpu = time.perf_counter(), time.process_time()
        r = singling_out(ori, rel, ctrl, n_attacks=n_attacks, n_cols=n_cols, mode=mode, seed=1)
        dt, dcpu = time.perf_counter() - t, time.process_time() - cpu
        label = f"{mode} ({n_cols} columns)" if mode == "multivariate" else mode
        print(f"{label}: {n_attacks:,} attacks on {n:,} records ({df.shape[1]} columns): "
              f"{dt:.2f} s wall, {dcpu:.2f} s CPU; queries {r.details['queries']:,} of {r.details['attempts']:,} tried;"
              f" risk {r.risk:.4f} CI {r.ci[0]:.4f}-{r.ci[1]:.4f}")


if __name__ == "__main__":
    main()
