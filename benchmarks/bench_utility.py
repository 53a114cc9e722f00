"""Benchmark: the default utility measures on 1,000,000 records x 8 keys + 3 numeric.

Run ``python benchmarks/bench_utility.py [n_records]``. The default set is what the session's
``s.utility`` computes: suppressions, changed records, entropy change, pairwise contingency-table
loss over the 8 keys, lambda (il_variables over keys and numeric), IL1s, eigen and gamma.
Goal: < 3 s in total for 1,000,000 records.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sdcsession.utility as u  # noqa: E402
from sdcsession.datasets import synthetic_survey  # noqa: E402

KEYS = ["region", "urbrur", "hhsize", "sex", "age5", "marstat", "educ", "occup"]
NUMERIC = ["income", "expend", "savings"]


def make_pair(n_records: int, seed: int = 1):
    df = synthetic_survey(max(1, int(n_records / 3.2)), seed=seed)
    df = df.iloc[:n_records]
    rng = np.random.default_rng(seed)
    n = len(df)
    changes = {}
    for k in KEYS:
        s = df[k]
        changes[k] = s.where(rng.random(n) > 0.01)  # 1 % suppressions per key
    for v in NUMERIC:
        x = df[v].to_numpy()
        changes[v] = x + rng.normal(0, 0.1 * np.nanstd(x), n)
    return df, df.assign(**changes)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    t0 = time.perf_counter()
    o, m = make_pair(n)
    print(f"data: {len(o):,} records, built in {time.perf_counter() - t0:.2f} s")
    steps = [
        ("suppressions", lambda: u.suppressions(o, m, keys=KEYS)),
        ("records_changed", lambda: u.records_changed(o, m, columns=KEYS + NUMERIC)),
        ("entropy_change", lambda: u.entropy_change(o, m, columns=KEYS)),
        ("contingency_loss (28 pairs)", lambda: u.contingency_loss(o, m, columns=KEYS)),
        ("il_variables (lambda)", lambda: u.il_variables(o, m, columns=KEYS + NUMERIC)),
        ("il1s", lambda: u.il1s(o, m, columns=NUMERIC)),
        ("eigen_difference", lambda: u.eigen_difference(o, m, columns=NUMERIC)),
        ("il_correl (gamma)", lambda: u.il_correl(o, m, columns=NUMERIC)),
    ]
    total = 0.0
    for name, fn in steps:
        t = time.perf_counter()
        fn()
        dt = time.perf_counter() - t
        total += dt
        print(f"{name:<30s} {dt:7.3f} s")
    print(f"{'TOTAL default set':<30s} {total:7.3f} s   (goal < 3 s)")


if __name__ == "__main__":
    main()
