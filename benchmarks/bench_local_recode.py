"""Benchmark of progressive local recoding (sdcMicro LocalRecProg) on 100,000 records × 5 keys.

Run: ``nice -n 10 python benchmarks/bench_local_recode.py [n ...]`` (default 100,000). Goal:
< 20 s for 100k × 5 keys. Data: (1) the synthetic survey (region, sex, age5, educ,
marstat), k = 3, with and without an ancestor (age5 → 20-year bands), and with 8 keys; (2) five independent
uniform keys of 6..25 categories (many rare combinations), k = 3 and k = 5. Prints the wall
time, the values recoded and suppressed, the rounds, and the records still below k by the
project's own count (must be 0).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdcsession.datasets import synthetic_survey  # noqa: E402
from sdcsession.methods.recoding.local_recoding import local_recode  # noqa: E402
from sdcsession.risk import k_violations  # noqa: E402


def run(name: str, df: pd.DataFrame, keys: list[str], k: int, ancestors=None) -> None:
    t = time.perf_counter()
    out, notes = local_recode(df, keys, k=k, ancestors=ancestors)
    dt = time.perf_counter() - t
    print(f"{name:<34} n={len(df):>8,} p={len(keys)} k={k}: {dt:6.2f} s  "
          f"recoded={sum(notes['recoded'].values()):>6,} "
          f"suppressed={sum(notes['suppressed'].values()):>6,} rounds={notes['rounds']:>2} "
          f"violations={k_violations(out, keys, k)}  (goal < 20 s)", flush=True)


def main(sizes: list[int]) -> None:
    for n in sizes:
        sv = synthetic_survey(max(n // 3, 10), seed=3).iloc[:n].reset_index(drop=True)
        keys = ["region", "sex", "age5", "educ", "marstat"]
        age = sv["age5"].cat.codes.to_numpy()
        sv["age20"] = pd.Series(np.where(age >= 0, age // 4, -1)).map(
            lambda c: f"band{c}" if c >= 0 else None)
        run("survey", sv, keys, 3)
        run("survey, age5 -> age20", sv, keys, 3, {"age5": ["age20"]})
        keys8 = ["region", "urbrur", "hhsize", "sex", "age5", "marstat", "educ", "occup"]
        run("survey, 8 keys", sv, keys8, 3)
        rng = np.random.default_rng(0)
        un = pd.DataFrame({f"v{j}": rng.integers(0, c, n).astype(str)
                           for j, c in enumerate([6, 10, 14, 20, 25])})
        run("uniform 6x10x14x20x25", un, list(un.columns), 3)
        run("uniform 6x10x14x20x25", un, list(un.columns), 5)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [100_000])
