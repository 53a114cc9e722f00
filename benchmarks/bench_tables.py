"""Benchmark: a 3-way frequency table of 10,000 cells from 1,000,000 records with the cell-key
method (goal: under 2 s), and the same table with margins and a magnitude table.

Run: ``nice -n 5 /work/venv/bin/python benchmarks/bench_tables.py``
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdcsession.tables import build_ptable, tabulate  # noqa: E402


def main() -> None:
    rng = np.random.default_rng(1)
    n = 1_000_000
    df = pd.DataFrame({
        "area": rng.integers(0, 100, n),      # 100 areas
        "age": rng.integers(0, 20, n),        # 20 age groups
        "sex": rng.integers(0, 5, n),         # 5 categories -> 100 × 20 × 5 = 10,000 cells
        "income": rng.gamma(2.0, 15_000.0, n),
    })
    keys = rng.integers(0, 256, n)
    pt = build_ptable(D=3, V=1.0, js=2)  # built once (cached), as a session reuses it
    for label, kw in [
        ("3-way, 10,000 cells, no margins", {"margins": "none"}),
        ("3-way with margins (microdata)", {"margins": "microdata"}),
        ("3-way magnitude (sum of income), no margins", {"margins": "none", "value": "income"}),
    ]:
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            t = tabulate(df, ["area", "age"], "sex", keys=keys, modulus=256, ptable=pt,
                         threshold=10, **kw)
            best = min(best, time.perf_counter() - t0)
        print(f"{label}: {len(t):,} cells, best of 3: {best:.3f} s")
    # the same table from a session (record keys as a step, then the view)
    import sdcsession as sdc

    s = sdc.SdcSession(df, keys=["area", "age", "sex"], numeric=["income"], seed=3)
    s.add_record_keys()
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        t = s.tabulate(["area", "age"], "sex", ptable=pt, threshold=10, margins="none")
        best = min(best, time.perf_counter() - t0)
    print(f"session s.tabulate, 3-way, no margins: {len(t):,} cells, best of 3: {best:.3f} s")


if __name__ == "__main__":
    main()
