"""Speed and memory of targeted record swapping.

Run: ``python benchmarks/bench_record_swap.py`` (``--quick``: 100,000 persons).

Data: a synthetic census of 1,000,000 persons in 400,000 households, geography nested
region (12) > district (120) > municipality (2,400) as categories, household size, tenure,
persons with sex, age, age group and income. Swapping: similar = household size, risk variables
sex × age group with k = 3, swap rate 5 %.

Goals: < 30 s; peak memory of the call < 3 × the data's size in memory. The peak is
measured with ``tracemalloc`` (numpy and pandas report their buffers to it) in a second run, so
the timing run is not slowed down by tracing.
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdcsession.methods.swapping.record_swapping import record_swap  # noqa: E402


def census(n_households: int, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n_reg, n_dis, n_mun = 12, 10, 20  # districts per region, municipalities per district
    reg = rng.integers(0, n_reg, n_households)
    dis = reg * n_dis + rng.integers(0, n_dis, n_households)
    mun = dis * n_mun + rng.integers(0, n_mun, n_households)
    hsize = rng.choice([1, 2, 3, 4, 5, 6], n_households, p=[0.3, 0.28, 0.16, 0.16, 0.07, 0.03])
    idx = np.repeat(np.arange(n_households), hsize)
    n = idx.size
    age = rng.integers(0, 100, n)
    return pd.DataFrame({
        "hid": idx.astype(np.int64) + 1,
        "region": pd.Categorical.from_codes(reg[idx], [f"R{i:02d}" for i in range(n_reg)]),
        "district": pd.Categorical.from_codes(dis[idx], [f"D{i:03d}" for i in range(n_reg * n_dis)]),
        "municipality": pd.Categorical.from_codes(
            mun[idx], [f"M{i:04d}" for i in range(n_reg * n_dis * n_mun)]),
        "hsize": hsize[idx].astype(np.int64),
        "tenure": pd.Categorical.from_codes(rng.integers(0, 3, n_households)[idx],
                                            ["own", "rent", "other"]),
        "sex": pd.Categorical.from_codes(rng.integers(0, 2, n), ["m", "f"]),
        "age": age.astype(np.int64),
        "age5": pd.Categorical.from_codes(age // 5, [f"{5 * i}-{5 * i + 4}" for i in range(20)]),
        "income": rng.gamma(2.0, 1500.0, n).round(2),
    })


def run(df: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    return record_swap(df, household="hid", hierarchy=["region", "district", "municipality"],
                       similar=["hsize"], swaprate=0.05, k_anonymity=3,
                       risk_variables=["sex", "age5"], rng=np.random.default_rng(7))


def main() -> None:
    n_h = 40_000 if "--quick" in sys.argv else 400_000
    df = census(n_h)
    size = df.memory_usage(deep=True, index=True).sum()
    print(f"data: {len(df):,} persons in {df['hid'].nunique():,} households, "
          f"{size / 2**20:.1f} MiB in memory")
    t = time.perf_counter()
    out, notes = run(df)
    seconds = time.perf_counter() - t
    print(f"record_swap: {seconds:.2f} s (goal < 30 s)")
    print(f"  at risk {notes['selected_at_risk']:,}, drawn {notes['selected_random']:,}, "
          f"swapped {notes['swapped_households']:,} households "
          f"({notes['swap_rate']:.1%}), without donor {notes['without_donor']}")
    print(f"  swaps by level {notes['swaps_by_level']}")
    del out
    tracemalloc.start()
    out, _ = run(df)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"peak memory of the call: {peak / 2**20:.1f} MiB = {peak / size:.2f} x the data "
          "(goal < 3 x; includes the new geography columns of the result)")


if __name__ == "__main__":
    main()
