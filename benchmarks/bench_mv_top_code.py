"""Benchmark of multivariate top coding (sdcMicro mvTopCoding) on 1,000,000 × 5.

Run: ``nice -n 10 python benchmarks/bench_mv_top_code.py [n ...]`` (default 1,000,000). Goal
(issue 18): < 10 s for 1M × 5. Data: 5 log-normal variables with correlated logs. Prints the
wall time and the number of records moved onto the ellipsoid.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdcsession.methods.recoding.mv_top_coding import mv_top_code  # noqa: E402


def main(sizes: list[int]) -> None:
    for n in sizes:
        rng = np.random.default_rng(0)
        cov = 0.5 * np.eye(5) + 0.5
        df = pd.DataFrame(np.exp(rng.multivariate_normal(np.full(5, 9.0), cov, n)),
                          columns=[f"v{j}" for j in range(5)])
        t = time.perf_counter()
        _, notes = mv_top_code(df, list(df.columns))
        dt = time.perf_counter() - t
        print(f"mv_top_code n={n:>9,} p=5: {dt:6.2f} s  changed={notes['changed']:,}"
              f"  (goal < 10 s)", flush=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1_000_000])
