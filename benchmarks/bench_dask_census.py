"""Benchmark: a census-size session on Dask (issue 21).

Writes a synthetic census as a partitioned Parquet dataset (default 20,000,000 records, one file
per ``--rows-per-file`` records, written chunk by chunk so the data are never all in memory),
starts a `distributed.LocalCluster` whose workers each have a memory limit smaller than the
data, and runs on a Dask session: the risk (fk/Fk tables, global risk, k-violations), a recode,
PRAM and the export to partitioned Parquet. Prints the time and records per second of every
phase, the in-memory size of the data against the workers' memory limit, and checks that no
worker was killed (same worker processes at the start and the end).

Run: ``nice -n 10 python benchmarks/bench_dask_census.py [--n 20_000_000] [--workers 2]
[--memory-limit 1GiB] [--rows-per-file 1_000_000] [--dir DIR]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sdcsession as sdc  # noqa: E402

KEYS = ["region", "sex", "age5", "marstat", "educ", "hhsize"]
CATS = {
    "region": [f"R{i:02d}" for i in range(1, 41)],
    "sex": ["m", "f"],
    "age5": [f"{a}-{a + 4}" for a in range(0, 90, 5)] + ["90+"],
    "marstat": ["single", "married", "cohabiting", "divorced", "widowed"],
    "educ": ["none", "primary", "lower secondary", "upper secondary", "tertiary"],
    "water": ["piped", "well", "surface", "other"],
}


def chunk(n: int, start: int, seed: int) -> pd.DataFrame:
    """``n`` synthetic census records (ids from ``start``)."""
    rng = np.random.default_rng([seed, start])
    out = {"id": np.arange(start, start + n, dtype=np.int64)}
    for c, cats in CATS.items():
        p = rng.dirichlet(np.ones(len(cats)) * 2)
        out[c] = pd.Categorical.from_codes(rng.choice(len(cats), n, p=p), categories=cats)
    out["hhsize"] = rng.integers(1, 11, n).astype(np.int64)
    out["age"] = rng.integers(0, 100, n).astype(np.int64)
    out["income"] = rng.lognormal(10, 1, n)
    out["w"] = rng.uniform(10, 200, n)
    return pd.DataFrame(out)


def write_dataset(path: Path, n: int, rows_per_file: int) -> float:
    """Write the dataset; return its in-memory size in bytes."""
    path.mkdir(parents=True)
    size = 0.0
    for i, start in enumerate(range(0, n, rows_per_file)):
        df = chunk(min(rows_per_file, n - start), start, seed=2026)
        size += float(df.memory_usage(deep=True, index=False).sum())
        df.to_parquet(path / f"part.{i:05d}.parquet", index=False)
    return size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=lambda v: int(v.replace("_", "")), default=20_000_000)
    ap.add_argument("--rows-per-file", type=lambda v: int(v.replace("_", "")),
                    default=1_000_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default=None,
                    help="per worker (default: 90%% of the data's in-memory size, at least 600MiB)")
    ap.add_argument("--dir", default=None, help="where to write (default: a temporary folder)")
    a = ap.parse_args()
    from distributed import Client, LocalCluster

    base = Path(a.dir) if a.dir else Path(tempfile.mkdtemp(prefix="sdc_census_"))
    src, out = base / "census", base / "release"
    for p in (src, out):
        if p.exists():
            shutil.rmtree(p)
    t0 = time.perf_counter()
    size = write_dataset(src, a.n, a.rows_per_file)
    t_write = time.perf_counter() - t0
    limit = a.memory_limit or f"{max(int(0.9 * size / 2**20), 600)}MiB"
    cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                           memory_limit=limit, dashboard_address=None)
    client = Client(cluster)
    pids0 = client.run(os.getpid)
    limit_bytes = min(w["memory_limit"] for w in client.scheduler_info()["workers"].values())
    print(f"records {a.n:,}; files {len(list(src.iterdir()))}; data in memory "
          f"{size / 2**20:,.0f} MiB; {a.workers} workers x {limit_bytes / 2**20:,.0f} MiB "
          f"(limit {'below' if limit_bytes < size else 'NOT below'} the data); "
          f"cores {os.cpu_count()}; written in {t_write:.1f} s")
    times = {}
    t0 = time.perf_counter()
    s = sdc.SdcSession.from_parquet(src, keys=KEYS, numeric=["income", "age"], weight="w",
                                    seed=1)
    times["open"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    gr, k3 = s.risk.global_risk, s.risk.k_violations(3)
    times["risk"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    s.recode("marstat", {"divorced": "single", "widowed": "single"})
    times["recode"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    s.pram(["water"], pd=0.8, alpha=0.5)
    times["pram"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s.export(out, force=True)
    times["export"] = time.perf_counter() - t0
    pids1 = client.run(os.getpid)
    killed = pids0 != pids1
    print(f"global risk {gr:.6g}; records violating 3-anonymity {k3:,}; "
          f"PRAM changed {s.history[-1].notes['changed']['water']:,} values")
    for name, t in times.items():
        rate = f"{a.n / t:,.0f} records/s" if t > 0 else "-"
        print(f"  {name:<7} {t:8.2f} s   {rate}")
    total = sum(times.values())
    print(f"  total   {total:8.2f} s   {a.n / total:,.0f} records/s; workers killed: "
          f"{'YES' if killed else 'none'}")
    client.close()
    cluster.close()
    if not a.dir:
        shutil.rmtree(base, ignore_errors=True)
    if killed:
        raise SystemExit("a worker was killed (out of memory?)")


if __name__ == "__main__":
    main()
