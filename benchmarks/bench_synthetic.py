"""Benchmark: time to generate the synthetic survey (target: >= 1,000,000 records in a few seconds).

Run: ``python benchmarks/bench_synthetic.py``
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdcsession.datasets import synthetic_survey  # noqa: E402


def main() -> None:
    for n_households in (10_000, 100_000, 310_000, 620_000):
        t0 = time.perf_counter()
        df = synthetic_survey(n_households, seed=1)
        dt = time.perf_counter() - t0
        mb = df.memory_usage(deep=True).sum() / 2**20
        print(
            f"synthetic_survey({n_households:>7,d}): {len(df):>9,d} records in {dt:6.2f} s "
            f"({len(df) / dt / 1e6:5.2f} M records/s, {mb:6.1f} MiB)"
        )


if __name__ == "__main__":
    main()
