"""Benchmark of the frequency-based risk kernels on ~1,000,000 records with 8 categorical keys.

Run: ``python benchmarks/bench_risk.py [n_households]`` (default 300,000 households ≈ 1.0 M records).

Scenarios (data from :func:`sdcsession.datasets.synthetic_survey`, standard benchmark roles):
  A. no missing key values (item non-response recoded to an explicit category);
  B. about 1–2 % missing values in two keys (marstat, educ), treated as wildcards (alpha = 1).
For each: frequencies, individual risk, household risk (the session path: frequencies once, then
risk from the frequencies, then household risk from the individual risks), the public one-call
functions, and the "floor": a bare numpy count of the combined key codes (codes taken from the
categoricals, ``ravel_multi_index`` + ``bincount`` + gather). Prints best-of-3 wall times.
Goals: A < 1 s and B < 3 s for frequencies + individual + household risk.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdcsession.datasets import synthetic_survey  # noqa: E402
from sdcsession.risk import (  # noqa: E402
    frequencies,
    household_risk,
    household_risk_from_individual,
    individual_risk,
    individual_risk_from_freq,
)

KEYS = ["region", "urbrur", "hhsize", "sex", "age5", "marstat", "educ", "occup"]


def best(fn, repeat: int = 3) -> tuple[float, object]:
    times = []
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def fill(s: pd.Series, label: str) -> pd.Series:
    if s.isna().any():
        s = s.cat.add_categories([label]).fillna(label)
    return s


def floor_count(df: pd.DataFrame) -> np.ndarray:
    codes = [df[k].cat.codes.to_numpy().clip(0) for k in KEYS]
    dims = [len(df[k].cat.categories) for k in KEYS]
    g = np.ravel_multi_index(codes, dims)
    return np.bincount(g, minlength=int(np.prod(dims)))[g]


def session_path(df: pd.DataFrame) -> pd.Series:
    f = frequencies(df, KEYS, weight="w")
    r = individual_risk_from_freq(f["fk"], f["Fk"])
    return household_risk_from_individual(r, df["hid"])


def run(label: str, df: pd.DataFrame) -> None:
    print(f"\n{label}")
    codes = [df[k].cat.codes.to_numpy().clip(0) for k in KEYS]
    dims = [len(df[k].cat.categories) for k in KEYS]
    t_floor, _ = best(lambda: floor_count(df))
    t_unique, _ = best(lambda: np.unique(np.ravel_multi_index(codes, dims),
                                         return_inverse=True, return_counts=True))
    t_freq, f = best(lambda: frequencies(df, KEYS, weight="w"))
    t_ind, r = best(lambda: individual_risk_from_freq(f["fk"], f["Fk"]))
    t_hh, _ = best(lambda: household_risk_from_individual(r, df["hid"]))
    t_path, _ = best(lambda: session_path(df))
    t_ind_call, _ = best(lambda: individual_risk(df, KEYS, weight="w"))
    t_hh_call, _ = best(lambda: household_risk(df, KEYS, weight="w", household="hid"))
    print(f"  numpy floor (bincount of combined codes) {t_floor:8.3f} s")
    print(f"  numpy np.unique count (sort-based)       {t_unique:8.3f} s")
    print(f"  frequencies (fk, Fk)                     {t_freq:8.3f} s")
    print(f"  individual risk from fk, Fk              {t_ind:8.3f} s")
    print(f"  household risk from individual risk      {t_hh:8.3f} s")
    print(f"  frequencies + individual + household     {t_path:8.3f} s   "
          f"ratio to floor {t_path / t_floor:5.1f}x")
    print(f"  individual_risk(df, ...) one call        {t_ind_call:8.3f} s")
    print(f"  household_risk(df, ...) one call         {t_hh_call:8.3f} s")
    print(f"  fk < 3: {(f['fk'] < 3).sum():,} records; global risk {r.mean():.5f}")


def main() -> None:
    n_households = int(sys.argv[1]) if len(sys.argv) > 1 else 300_000
    t0 = time.perf_counter()
    base = synthetic_survey(n_households=n_households, seed=1)
    base = base.assign(hhsize=base["hhsize"].astype("category"), occup=fill(base["occup"], "none"))
    print(f"data: {len(base):,} records, {len(KEYS)} categorical keys "
          f"(generated in {time.perf_counter() - t0:.1f} s)")
    scen_a = base.assign(marstat=fill(base["marstat"], "unknown"), educ=fill(base["educ"], "unknown"))
    scen_b = base
    miss = scen_b[KEYS].isna().mean()
    print("scenario B missing shares: "
          + ", ".join(f"{k} {v:.2%}" for k, v in miss.items() if v > 0))
    for label, df in (("A: no missing keys", scen_a), ("B: missing in 2 keys", scen_b)):
        run(label, df)


if __name__ == "__main__":
    main()
