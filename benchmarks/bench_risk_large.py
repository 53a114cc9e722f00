"""Benchmark: frequencies (fk, Fk) and individual risk on 100,000,000 records x 8 keys in memory.

Run: ``nice -n 10 python benchmarks/bench_risk_large.py [--n N] [--missing]``
(default N = 100,000,000; it needs about 12 GB of RAM — give a smaller ``--n`` on a smaller
machine: the time is linear in N, and the projection to 100,000,000 is printed).
Data: the 8 standard keys of ``synthetic_survey`` (as categoricals, int8 codes) and its weight,
resampled with replacement from a 1,000,000-record synthetic survey, built in blocks
(``--missing`` keeps its ~1-2 % missing values in marstat and educ, wildcards; default: recoded
to a category). Prints wall and CPU time (``time.process_time``) of ``frequencies(df, keys,
weight="w")`` and of ``individual_risk_from_freq(fk, Fk)``. Goal: < 60 s for 100,000,000 records.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdcsession.datasets import synthetic_survey  # noqa: E402
from sdcsession.risk import frequencies, individual_risk_from_freq  # noqa: E402

KEYS = ["region", "urbrur", "hhsize", "sex", "age5", "marstat", "educ", "occup"]
GOAL_S = 60.0
FULL = 100_000_000


def fill(s: pd.Series, label: str) -> pd.Series:
    if s.isna().any():
        s = s.cat.add_categories([label]).fillna(label)
    return s


def make(n: int, missing: bool, seed: int = 1) -> pd.DataFrame:
    base = synthetic_survey(310_000, seed=seed).iloc[:1_000_000]
    base = base.assign(hhsize=base["hhsize"].astype("category"), occup=fill(base["occup"], "none"))
    if not missing:
        base = base.assign(marstat=fill(base["marstat"], "unknown"), educ=fill(base["educ"], "unknown"))
    rng = np.random.default_rng(seed)
    codes = {k: np.empty(n, dtype=np.int8) for k in KEYS}
    w = np.empty(n)
    src = {k: base[k].cat.codes.to_numpy() for k in KEYS}
    wsrc = base["w"].to_numpy()
    step = 10_000_000
    for a in range(0, n, step):
        idx = rng.integers(0, len(base), min(step, n - a))
        for k in KEYS:
            codes[k][a:a + len(idx)] = src[k][idx]
        w[a:a + len(idx)] = wsrc[idx]
    cols = {k: pd.Categorical.from_codes(codes[k], dtype=base[k].dtype) for k in KEYS}
    return pd.DataFrame({**cols, "w": w}, copy=False)


def timed(f):
    w, c = time.perf_counter(), time.process_time()
    out = f()
    return time.perf_counter() - w, time.process_time() - c, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=FULL, help="number of records")
    ap.add_argument("--missing", action="store_true", help="keep missing values (wildcards)")
    a = ap.parse_args()
    t0 = time.perf_counter()
    df = make(a.n, a.missing)
    print(f"data: {len(df):,} records x {len(KEYS)} keys "
          f"({df[KEYS].memory_usage(index=False).sum() / 1e9:.2f} GB as categoricals), "
          f"{'with' if a.missing else 'no'} missing key values, built in "
          f"{time.perf_counter() - t0:.1f} s")
    w1, c1, f = timed(lambda: frequencies(df, KEYS, weight="w"))
    w2, c2, r = timed(lambda: individual_risk_from_freq(f["fk"], f["Fk"]))
    wall, cpu = w1 + w2, c1 + c2
    print(f"  frequencies (fk, Fk)          wall {w1:7.2f} s  CPU {c1:7.2f} s")
    print(f"  individual risk from fk, Fk   wall {w2:7.2f} s  CPU {c2:7.2f} s")
    proj = wall * FULL / a.n
    print(f"  total                         wall {wall:7.2f} s  CPU {cpu:7.2f} s"
          + ("" if a.n == FULL else f"  (projected to 100,000,000 records: {proj:.1f} s)")
          + f"  goal < {GOAL_S:.0f} s for 100,000,000: {'meets' if proj < GOAL_S else 'MISSES'}")
    print(f"  fk < 3: {(f['fk'] < 3).sum():,} records; global risk {float(r.mean()):.6f}")


if __name__ == "__main__":
    main()
