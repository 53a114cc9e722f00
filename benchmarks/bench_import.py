"""What ``import sdcsession`` costs beyond ``import pandas`` (warm cache, fresh processes).

Run: ``python benchmarks/bench_import.py [repeats]`` (default 9). Each sample runs a fresh
interpreter that imports pandas, then sdcsession, timing both with ``time.perf_counter``; the
median of the differences is printed beside the goal (at most 0.3 s), with the heavy modules that
must not be loaded (scipy.stats, numba, matplotlib, statsmodels).
"""

from __future__ import annotations

import statistics
import subprocess
import sys

CODE = """
import time, sys
t0 = time.perf_counter(); import pandas; t1 = time.perf_counter()
import sdcsession; t2 = time.perf_counter()
heavy = [m for m in ("scipy.stats", "numba", "matplotlib", "statsmodels") if m in sys.modules]
print(t1 - t0, t2 - t1, ",".join(heavy) or "-")
"""


def main(repeats: int) -> None:
    subprocess.run([sys.executable, "-c", CODE], check=True, capture_output=True)  # warm caches
    pandas, extra, heavy = [], [], set()
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", CODE], check=True, capture_output=True,
                             text=True).stdout.split()
        pandas.append(float(out[0]))
        extra.append(float(out[1]))
        heavy.update(h for h in out[2].split(",") if h != "-")
    print(f"import pandas                 median {statistics.median(pandas):.3f} s")
    print(f"import sdcsession after it    median {statistics.median(extra):.3f} s  (goal <= 0.300 s)")
    print(f"heavy modules loaded: {sorted(heavy) or 'none'}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 9)
