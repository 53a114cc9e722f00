"""Local suppression on chosen key subsets, each with its own k: suppressions and seconds.

Prints, per problem, the suppressions of ``local_suppression(subsets=..., k=[...])`` beside
those of the same engine applied subset by subset in sequence (what sdcMicro's
``kAnon(combs=...)`` does for each combination), and the violations left (must be 0).
Data: the conformance files testdata and free1 (``SDCSESSION_CONFORMANCE``), else synthetic.

    SDCSESSION_CONFORMANCE=/work/shared/conformance python benchmarks/bench_suppression_subsets.py
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pandas as pd

from sdcsession.methods.suppression.local import local_suppression
from sdcsession.risk import frequencies

SHARED = Path(os.environ.get("SDCSESSION_CONFORMANCE")
              or Path(__file__).resolve().parents[2] / "shared" / "conformance")

PROBLEMS = {
    "testdata": (["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"],
                 [["roof", "walls", "water"], ["water", "electcon", "relat", "sex"],
                  ["urbrur", "relat", "sex", "roof"]], [3, 2, 5]),
    "free1": (["REGION", "SEX", "AGE", "MARSTAT", "KINDPERS", "EDUC1"],
              [["REGION", "SEX", "AGE"], ["AGE", "MARSTAT", "KINDPERS"],
               ["REGION", "EDUC1", "SEX"]], [3, 3, 5]),
}


def main() -> None:
    for name, (keys, subs, ks) in PROBLEMS.items():
        path = SHARED / "data" / f"{name}.csv"
        if not path.exists():
            print(f"{name}: {path} not found, skipped")
            continue
        df = pd.read_csv(path)[keys].astype("string")
        t0 = time.perf_counter()
        out, notes = local_suppression(df, keys, k=ks, subsets=subs, progress=False)
        t1 = time.perf_counter()
        cur = df
        for s, k in zip(subs, ks, strict=True):
            cur, _ = local_suppression(cur, s, k=k, progress=False)
        t2 = time.perf_counter()
        seq = int((cur.isna() & df.notna()).to_numpy().sum())
        viol = [int((frequencies(out, s)["fk"] < k).sum()) for s, k in zip(subs, ks, strict=True)]
        print(f"{name} (n={len(df):,}) subsets k={ks}: ours {notes['total']:,} suppressions "
              f"({t1 - t0:.2f} s), subset by subset {seq:,} ({t2 - t1:.2f} s); "
              f"violations left {viol}")


if __name__ == "__main__":
    main()
