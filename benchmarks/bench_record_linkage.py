"""Benchmark of global record linkage (``sdcsession.risk.record_linkage``), 5,000 x 5,000 records.

Run: ``python benchmarks/bench_record_linkage.py [n_records]`` (default 5,000). Original: the first
n records of :func:`sdcsession.datasets.synthetic_survey`; masked: income / expend / savings with
multiplicative noise (log-scale sd 0.3), age shifted by -3..3 years, 10 % of region and marstat
values redrawn. Mixed Gower linkage on 3 numeric + 1 integer + 3 categorical (one ordered) + 1
boolean variables; then euclidean and manhattan on the 3 numeric variables. Prints wall time and
the process's peak resident memory (ru_maxrss: a high-water mark of the whole process, so an upper
bound of the linkage's own memory).
Goal: mixed variables < 20 s and < 2 GB.

Note: the Hungarian step (scipy's ``linear_sum_assignment``) is O(n^3) in the worst case; on
raw heavy-tailed numeric variables with strong noise it can dominate (tens of seconds at 5,000).
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdcsession.datasets import synthetic_survey  # noqa: E402
from sdcsession.risk import record_linkage  # noqa: E402


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5_000
    df = synthetic_survey(n, seed=7).iloc[:n].reset_index(drop=True)
    rng = np.random.default_rng(7)
    x = df[["income", "expend", "savings", "age", "region", "marstat", "educ", "sex"]].copy()
    x["female"] = (x.pop("sex") == "f").to_numpy()
    y = x.copy()
    for c in ("income", "expend", "savings"):
        y[c] = y[c] * np.exp(rng.normal(0, 0.3, n))
    y["age"] = y["age"] + rng.integers(-3, 4, n)
    for c in ("region", "marstat"):
        redraw = rng.random(n) < 0.1
        y.loc[redraw, c] = rng.choice(x[c].cat.categories, int(redraw.sum()))
    print(f"records: {n:,} x {n:,}; baseline peak RSS {peak_mb():.0f} MB")
    for distance, variables in (("gower", list(x.columns)),
                                ("euclidean", ["income", "expend", "savings"]),
                                ("manhattan", ["income", "expend", "savings"])):
        t = time.perf_counter()
        r = record_linkage(x, y, variables=variables, distance=distance)
        dt = time.perf_counter() - t
        goal = "   goal < 20 s, < 2 GB" if distance == "gower" else ""
        print(f"{distance:>9} ({len(variables)} vars): {dt:6.2f} s, peak RSS {peak_mb():6.0f} MB, "
              f"correct {r.correct_match_rate:.4f}, tied {r.n_tied}{goal}")


if __name__ == "__main__":
    main()
