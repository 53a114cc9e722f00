"""Benchmark: log-linear model risk (``risk.model_risk``) on 1,000,000 records x 6 key variables.

The issue's target: under 10 s per fit. Cells, not records, drive the cost: the records are
aggregated once to the cross-classification of the keys (here 2 x 18 x 10 x 5 x 8 x 12 = 172,800
cells, a 50-column main-effects design) and the Poisson model is fitted to the cells.

Run: ``python benchmarks/bench_model_risk.py``
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from sdcsession.risk import model_risk

N = 1_000_000
CARDS = {"sex": 2, "age": 18, "region": 10, "marital": 5, "educ": 8, "occup": 12}


def make(n: int = N, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cols = {}
    for name, c in CARDS.items():
        p = rng.dirichlet(np.full(c, 0.8))
        cols[name] = rng.choice(np.arange(1, c + 1), size=n, p=p)
    df = pd.DataFrame(cols)
    df["w"] = rng.gamma(2.0, 25.0, size=n) + 1.0
    return df


def main() -> None:
    df = make()
    formula = "~ " + " + ".join(CARDS)
    print(f"{N:,} records x {len(CARDS)} keys, formula {formula!r}")
    for method in ("default", "CE", "PML", "weightedLLM", "IPF"):
        t0 = time.perf_counter()
        r = model_risk(df, formula, weight="w", method=method)
        dt = time.perf_counter() - t0
        print(f"  {method:<12s} {dt:6.2f} s   gr1={r.gr1:.6g} gr2={r.gr2:.6g} cells={r.n_cells:,}"
              f"   {'OK' if dt < 10 else 'SLOW'} (target < 10 s)")


if __name__ == "__main__":
    main()
