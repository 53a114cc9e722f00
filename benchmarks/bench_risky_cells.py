"""Benchmark of μ-ARGUS risky cells (``sdcsession.risk.risky_cells``) on ~1,000,000 records.

Run: ``python benchmarks/bench_risky_cells.py [n_households]`` (default 300,000 households ≈ 1.0 M
records of :func:`sdcsession.datasets.synthetic_survey`), 8 categorical keys, ``max_dim=3``: 8 + 28 +
56 = 92 tables, thresholds ``{1: 5, 2: 3, 3: 3}``. Prints best-of-3 wall times for the per-table
summary (``by_table=True``) and for the full list of unsafe cells.
Goal: < 10 s.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdcsession.datasets import synthetic_survey  # noqa: E402
from sdcsession.risk import risky_cells  # noqa: E402

KEYS = ["region", "urbrur", "hhsize", "sex", "age5", "marstat", "educ", "occup"]
THRESHOLD = {1: 5, 2: 3, 3: 3}


def best(fn, repeat: int = 3) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    n_hh = int(sys.argv[1]) if len(sys.argv) > 1 else 300_000
    df = synthetic_survey(n_hh, seed=1)
    print(f"records: {len(df):,}, keys: {len(KEYS)}, max_dim 3 (92 tables)")
    for label, data in (("categorical keys", df),
                        ("object-dtype keys", df.assign(**{k: df[k].astype(object)
                                                           for k in KEYS}))):
        t_tab, tab = best(lambda d=data: risky_cells(d, KEYS, threshold=THRESHOLD, max_dim=3,
                                                     by_table=True))
        t_cells, cells = best(lambda d=data: risky_cells(d, KEYS, threshold=THRESHOLD, max_dim=3))
        print(f"{label:>18}: by_table {t_tab:6.2f} s ({len(tab)} tables, "
              f"{int(tab['unsafe_cells'].sum()):,} unsafe cells); cells {t_cells:6.2f} s "
              f"({len(cells):,} rows)   goal < 10 s")


if __name__ == "__main__":
    main()
