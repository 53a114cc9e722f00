"""RMD microaggregation at census size: O(n log n) grouping on the compiled tree.

Run: ``nice -n 5 python benchmarks/bench_rmd_microaggregation.py [n ...]`` (default 100,000 and
1,000,000 records × 3 log-normal variables, k = 3). Goal: 1M × 3 under 20 s, with a within-group
sum of squares (SSE of the standardised variables) no worse than the scipy-tree grouping, which is
timed beside it up to 100,000 records (it took 230 s at 1M). Prints wall time and SSE per path.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdcsession.methods.microaggregation import robust  # noqa: E402
from sdcsession.methods.microaggregation.treatment import microaggregation  # noqa: E402


def main(sizes: list[int]) -> None:
    for n in sizes:
        rng = np.random.default_rng(1)
        cov = [[1, .5, .2], [.5, 1, .3], [.2, .3, 1]]
        df = pd.DataFrame(np.exp(rng.multivariate_normal([0, 0, 0], cov, n)), columns=list("abc"))
        paths = [("compiled", 0)] + ([("scipy tree", 10**12)] if n <= 100_000 else [])
        for name, threshold in paths:
            robust.COMPILED_FROM = threshold
            t = time.perf_counter()
            _, notes = microaggregation(df, list("abc"), k=3, method="rmd", progress=False)
            dt = time.perf_counter() - t
            print(f"rmd {name:10s} n={n:>9,}: {dt:7.2f} s  sse_std={notes['sse_std']:14.4f}"
                  + ("  (goal < 20 s)" if n >= 1_000_000 else ""), flush=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [100_000, 1_000_000])
