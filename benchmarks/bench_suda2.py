"""Benchmark of SUDA2 (``sdcsession.risk.suda2``); prints its figures, asserts nothing.

Targets (sdcMicro's C++ needs ~0.03 s on free1 and ~0.3 s on 84,000 records x 6 keys):
free1 (4,000 records, 5 keys) < 0.1 s; 84,000 records x 6 keys < 1 s.

Run: ``python benchmarks/bench_suda2.py``
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sdcsession.risk.suda2 import suda2  # noqa: E402

CONFORMANCE = Path(os.environ.get("SDCSESSION_CONFORMANCE") or ROOT.parent / "shared" / "conformance")


def best_of(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def random_categoricals(n: int, cards: list[int], seed: int = 1) -> pd.DataFrame:
    """Skewed random categoricals (Zipf-like category probabilities) with given cardinalities."""
    rng = np.random.default_rng(seed)
    cols = {}
    for j, c in enumerate(cards):
        p = 1.0 / np.arange(1, c + 1) ** 0.8
        cols[f"k{j}"] = pd.Categorical(rng.choice(c, size=n, p=p / p.sum()))
    return pd.DataFrame(cols)


def main() -> None:
    rows = []
    free1 = CONFORMANCE / "data" / "free1.csv"
    if free1.exists():
        df = pd.read_csv(free1)
        keys = ["REGION", "SEX", "AGE", "MARSTAT", "KINDPERS"]
        for k in keys:
            df[k] = df[k].astype("category")
        r = suda2(df, keys)
        rows.append(("free1 (4,000 x 5 keys)", best_of(lambda: suda2(df, keys), 5), 0.1,
                     int((r.score > 0).sum())))

    try:
        from sdcsession.datasets import synthetic_survey

        big = synthetic_survey(26_250, seed=1)
        big = pd.concat([big] * (84_000 // len(big) + 1), ignore_index=True) if len(big) < 84_000 \
            else big
        big = big.iloc[:84_000]
        keys6 = ["region", "urbrur", "hhsize", "sex", "age5", "marstat"]
        r = suda2(big, keys6)
        rows.append((f"synthetic_survey ({len(big):,} x 6 keys)",
                     best_of(lambda: suda2(big, keys6), 2), 1.0, int((r.score > 0).sum())))
        keys8 = ["region", "urbrur", "hhsize", "sex", "age5", "marstat", "educ", "occup"]
        r = suda2(big, keys8)
        rows.append((f"synthetic_survey ({len(big):,} x 8 keys, with missing)",
                     best_of(lambda: suda2(big, keys8), 1), None, int((r.score > 0).sum())))
    except ImportError:
        pass

    rnd = random_categoricals(84_000, [12, 2, 9, 2, 18, 5])
    k = list(rnd.columns)
    r = suda2(rnd, k)
    rows.append(("random categoricals (84,000 x 6 keys, cards 12 2 9 2 18 5)",
                 best_of(lambda: suda2(rnd, k), 2), 1.0, int((r.score > 0).sum())))
    rnd10 = random_categoricals(84_000, [12, 2, 9, 2, 18, 5, 6, 4, 8, 3])
    k10 = list(rnd10.columns)
    r = suda2(rnd10, k10)
    rows.append(("random categoricals (84,000 x 10 keys)", best_of(lambda: suda2(rnd10, k10), 1),
                 None, int((r.score > 0).sum())))

    print(f"{'case':<62} {'seconds':>8} {'target':>7} {'records with MSU':>17}")
    for name, t, target, nmsu in rows:
        tgt = f"< {target:g}" if target else "-"
        print(f"{name:<62} {t:8.3f} {tgt:>7} {nmsu:>17,}")


if __name__ == "__main__":
    main()
