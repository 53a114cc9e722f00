"""Benchmark of every microaggregation method on 100,000 × 3 (k = 3).

Run: ``nice -n 10 python benchmarks/bench_microaggregation_methods.py [n]`` (default 100,000).
Goal: < 20 s per method. Data: 3 log-normal variables with correlated logs. Prints
the wall time and the within-group sum of squares of the standardised variables (SSE) per method.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdcsession.methods.microaggregation.treatment import (  # noqa: E402
    MICROAGGREGATION_METHODS,
    microaggregation,
)


def main(n: int) -> None:
    rng = np.random.default_rng(1)
    cov = [[1, .5, .2], [.5, 1, .3], [.2, .3, 1]]
    df = pd.DataFrame(np.exp(rng.multivariate_normal([0, 0, 0], cov, n)), columns=list("abc"))
    for m in MICROAGGREGATION_METHODS:
        t = time.perf_counter()
        _, notes = microaggregation(df, list("abc"), k=3, method=m, progress=False)
        dt = time.perf_counter() - t
        print(f"{m:20s} n={n:,}: {dt:6.2f} s  sse_std={notes['sse_std']:12.2f}  (goal < 20 s)",
              flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
