"""Benchmark: peak memory of local suppression on 1,000,000 records × 6 keys.

Run: ``nice -n 10 python benchmarks/bench_suppression_memory.py [--n N] [--alt]``
(``--alt``: harder keys — age in years, occupation with missing values — where almost every
record violates k at first).
Measures with ``tracemalloc`` (numpy and pandas report their buffers to it) the peak of the
memory allocated during ``local_suppression(df, keys, k=3)``, relative to the key columns' size,
defined as the memory of the key columns in the DataFrame as integer codes
``n × p × 8`` bytes (int64 codes, the representation the solver starts from —
`sdcsession.risk._codes.encode_keys`); the categorical columns' own size
(``df[keys].memory_usage(deep=True)``) is printed too. Goal: peak ≤ 3× the key columns' size.
Also prints wall and CPU time (``time.process_time``).
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdcsession.datasets import synthetic_survey  # noqa: E402
from sdcsession.methods.suppression.local import local_suppression  # noqa: E402

KEYS = ["region", "urbrur", "sex", "age5", "marstat", "educ"]
ALT_KEYS = ["region", "hhsize", "sex", "age", "educ", "occup"]
GOAL = 3.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="number of records")
    ap.add_argument("--k", type=float, default=3, help="k of k-anonymity")
    ap.add_argument("--alt", action="store_true",
                    help=f"harder keys {ALT_KEYS} (age in years, occupation with missing values)")
    a = ap.parse_args()
    keys = ALT_KEYS if a.alt else KEYS
    df = synthetic_survey(a.n // 3 + 1000, seed=1).iloc[: a.n].reset_index(drop=True)
    df = df[keys + ["hid"]].copy()
    codes_bytes = len(df) * len(keys) * 8
    cat_bytes = int(df[keys].memory_usage(deep=True, index=False).sum())
    tracemalloc.start()
    tracemalloc.reset_peak()
    base, _ = tracemalloc.get_traced_memory()
    w, c = time.perf_counter(), time.process_time()
    out, notes = local_suppression(df, keys, k=a.k, progress=False)
    wall, cpu = time.perf_counter() - w, time.process_time() - c
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    peak -= base
    ratio = peak / codes_bytes
    print(f"local suppression k={a.k:g}, {len(df):,} records x {len(keys)} keys: "
          f"{notes['total']:,} suppressions, violations after {notes['violations_after']}, "
          f"wall {wall:.2f} s, CPU {cpu:.2f} s")
    print(f"  key columns as int64 codes {codes_bytes / 1e6:.1f} MB (as categoricals "
          f"{cat_bytes / 1e6:.1f} MB); peak traced memory {peak / 1e6:.1f} MB = {ratio:.2f}x the "
          f"int64 codes ({peak / cat_bytes:.1f}x the categoricals)  goal <= {GOAL:g}x: "
          f"{'meets' if ratio <= GOAL else 'MISSES'}")


if __name__ == "__main__":
    main()
