"""Benchmark and scale-out check: a census-size session on Dask equals the pandas session.

Builds a synthetic census of ``--n`` records (default 6,000,000) in memory and writes it as a
Parquet dataset with ``dd.from_pandas(df, npartitions=...).to_parquet(path)`` (the index
included, as Dask writes it by default). Starts a `distributed.LocalCluster` of ``--workers``
worker processes (default 2) with a ``--memory-limit`` each (default 1 GiB, less than the
data), opens the dataset with `SdcSession.from_parquet` and runs the risk (global risk,
expected re-identifications, k-violations, fk and Fk per record), a recode and the export to
partitioned Parquet, timing every phase. The same steps run on a pandas session over the same
data and seed, and the figures, the recoded data and the exported records must be equal (the
script fails otherwise). After the run the cluster must still have all its workers, with the
same processes, and the scheduler's event log must hold no ``remove-worker`` event (no worker
lost, e.g. killed for memory). The resident memory of every worker process is sampled every
0.1 s (psutil, the workers run on this machine) and the peak of each phase is printed, as a
share of the memory limit (the nanny restarts a worker above 95 %).

Run: ``nice -n 5 python benchmarks/bench_dask_census.py [--n 6_000_000] [--workers 2]
[--memory-limit 1GiB] [--npartitions 96] [--dir DIR]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
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
ROLES = {"keys": KEYS, "numeric": ["income", "age"], "weight": "w", "seed": 1}


def roles(extra: int) -> dict[str, object]:
    """The roles: the further variables are numeric (released unperturbed, so the release
    check warns; as role variables they are not scanned as undeclared linked variables)."""
    return {**ROLES, "numeric": [*ROLES["numeric"], *[f"x{j:02d}" for j in range(1, extra + 1)]]}
RECODE = ("marstat", {"divorced": "single", "widowed": "single"})


def census(n: int, extra: int = 32, seed: int = 2026) -> pd.DataFrame:
    """``n`` synthetic census records: the key, numeric and weight variables and ``extra``
    further numeric variables (``x01``...; released as they are)."""
    rng = np.random.default_rng(seed)
    out: dict[str, object] = {"id": np.arange(n, dtype=np.int64)}
    for c, cats in CATS.items():
        p = rng.dirichlet(np.ones(len(cats)) * 2)
        out[c] = np.asarray(cats, dtype=object)[rng.choice(len(cats), n, p=p)]
    out["hhsize"] = rng.integers(1, 11, n).astype(np.int64)
    out["age"] = rng.integers(0, 100, n).astype(np.int64)
    out["income"] = rng.lognormal(10, 1, n)
    out["w"] = rng.uniform(10, 200, n)
    for j in range(1, extra + 1):
        out[f"x{j:02d}"] = rng.normal(j, 1.0, n).round(3)
    return pd.DataFrame(out)


def _same(a: pd.Series, b: pd.Series) -> bool:
    """Equal values in the same order (numbers as float64 bit for bit, text as Python objects:
    Dask reads text as Arrow strings, pandas as its own string dtype)."""
    if len(a) != len(b):
        return False
    if pd.api.types.is_numeric_dtype(a.dtype) and pd.api.types.is_numeric_dtype(b.dtype):
        return bool(np.array_equal(a.to_numpy(np.float64, na_value=np.nan),
                                   b.to_numpy(np.float64, na_value=np.nan), equal_nan=True))
    x = a.astype(object).where(a.notna(), None).to_numpy()
    y = b.astype(object).where(b.notna(), None).to_numpy()
    return bool((x == y).all())


def _same_files(dask_dir: Path, pandas_file: Path) -> tuple[int, list[str]]:
    """Records of the two exports and the columns that differ (read column by column)."""
    import pyarrow.parquet as pq

    cols = [f.name for f in pq.read_schema(pandas_file) if not f.name.startswith("__")]
    bad, n = [], 0
    for c in cols:
        a = pd.read_parquet(dask_dir, columns=[c])[c]
        b = pd.read_parquet(pandas_file, columns=[c])[c]
        n = len(b)
        if not _same(a, b):
            bad.append(c)
    return n, bad


def _gather(obj):  # noqa: ANN001, ANN202
    """A Dask collection brought to the client partition by partition (``.compute()`` would
    concatenate all partitions in one task on one worker first: 6M records of a text column
    do not fit a 1 GiB worker); pandas objects as they are."""
    if not hasattr(obj, "to_delayed"):
        return obj
    import dask

    return pd.concat(dask.compute(*obj.to_delayed()))


def _risk(s: sdc.SdcSession) -> dict[str, object]:
    r = s.risk
    f = _gather(r.frequencies)
    return {"global_risk": r.global_risk, "expected": r.expected_reidentifications,
            "k2": r.k_violations(2), "k3": r.k_violations(3), "k5": r.k_violations(5),
            "fk": f["fk"].to_numpy(), "Fk": f["Fk"].to_numpy()}


def _removals(client) -> int:  # noqa: ANN001
    """``remove-worker`` events in the scheduler's event log (a lost or killed worker)."""
    return sum(1 for events in client.get_events().values() for _, msg in events
               if isinstance(msg, dict) and msg.get("action") == "remove-worker")


class PeakMemory:
    """The peak resident memory of the worker processes, sampled every ``interval`` seconds in
    a thread; `phase` returns the peak since the previous call and starts a new phase."""

    def __init__(self, client, interval: float = 0.1) -> None:  # noqa: ANN001
        import psutil

        self._procs = [psutil.Process(pid) for pid in client.run(os.getpid).values()]
        self._peak = 0
        self._total = 0
        self._stop = threading.Event()
        self._interval = interval
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            for p in self._procs:
                try:
                    rss = p.memory_info().rss
                except Exception:  # noqa: BLE001 - a worker that is gone (restarted)
                    continue
                self._peak = max(self._peak, rss)
            self._stop.wait(self._interval)

    def phase(self) -> int:
        peak, self._peak = self._peak, 0
        self._total = max(self._total, peak)
        return peak

    def close(self) -> int:
        self._stop.set()
        self._thread.join()
        return max(self._total, self._peak)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=lambda v: int(v.replace("_", "")), default=6_000_000)
    ap.add_argument("--npartitions", type=int, default=96)
    ap.add_argument("--extra", type=int, default=32, help="further numeric columns")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="1GiB", help="per worker")
    ap.add_argument("--dir", default=None, help="where to write (default: a temporary folder)")
    a = ap.parse_args()
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    base = Path(a.dir) if a.dir else Path(tempfile.mkdtemp(prefix="sdc_census_"))
    src, out, pout = base / "census", base / "release", base / "release_pandas.parquet"
    for p in (src, out, pout):
        if p.exists():
            shutil.rmtree(p) if p.is_dir() else p.unlink()
    t0 = time.perf_counter()
    df = census(a.n, a.extra)
    size = float(df.memory_usage(deep=True, index=True).sum())
    dd.from_pandas(df, npartitions=a.npartitions).to_parquet(src)  # index included
    t_write = time.perf_counter() - t0
    disk = sum(f.stat().st_size for f in src.iterdir())
    cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                           memory_limit=a.memory_limit, dashboard_address=None)
    client = Client(cluster)
    pids0 = client.run(os.getpid)
    limit_bytes = min(w["memory_limit"] for w in client.scheduler_info()["workers"].values())
    print(f"records {a.n:,} x {df.shape[1]} columns; written by dd.from_pandas(npartitions={a.npartitions})"
          f".to_parquet (index included): {len(list(src.glob('*.parquet')))} files, "
          f"{disk / 2**20:,.0f} MiB on disk; data in memory (pandas) {size / 2**20:,.0f} MiB; "
          f"{a.workers} workers x {limit_bytes / 2**20:,.0f} MiB (limit "
          f"{'below' if limit_bytes < size else 'NOT below'} the data); cores {os.cpu_count()}; "
          f"built and written in {t_write:.1f} s")
    times: dict[str, float] = {}
    peaks: dict[str, int] = {}
    mem = PeakMemory(client)
    t0 = time.perf_counter()
    s = sdc.SdcSession.from_parquet(src, **roles(a.extra))
    times["open"], peaks["open"] = time.perf_counter() - t0, mem.phase()
    t0 = time.perf_counter()
    rd = _risk(s)
    times["risk"], peaks["risk"] = time.perf_counter() - t0, mem.phase()
    t0 = time.perf_counter()
    s.recode(*RECODE)
    times["recode"], peaks["recode"] = time.perf_counter() - t0, mem.phase()
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s.export(out, force=True)
    times["export"], peaks["export"] = time.perf_counter() - t0, mem.phase()
    got_recoded = _gather(s.data[RECODE[0]])
    peak = mem.close()
    pids1 = client.run(os.getpid)
    workers = len(client.scheduler_info()["workers"])
    removed = _removals(client)

    # the pandas path: the same data, roles and seed
    tp = {}
    t0 = time.perf_counter()
    p = sdc.SdcSession(df, **roles(a.extra))
    del df  # the session holds its own copy
    rp = _risk(p)
    tp["risk"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    p.recode(*RECODE)
    tp["recode"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p.export(pout, force=True)
    tp["export"] = time.perf_counter() - t0

    problems = []
    for name in rp:
        same = (np.array_equal(rd[name], rp[name]) if isinstance(rp[name], np.ndarray)
                else rd[name] == rp[name])
        if not same:
            problems.append(f"risk {name}")
    if not _same(got_recoded, p.data[RECODE[0]]):
        problems.append("recoded column")
    if s.history[-1].notes != p.history[-1].notes:
        problems.append("recode notes")
    n_out, bad = _same_files(out, pout)
    if bad:
        problems.append(f"exported columns {bad}")
    print(f"global risk {rd['global_risk']!r} (pandas {rp['global_risk']!r}); expected "
          f"re-identifications {rd['expected']!r}; 3-anonymity violations {rd['k3']:,}; "
          f"recode changed {s.history[-1].notes['changed']['marstat']:,} values; exported "
          f"{n_out:,} records, equal column by column")
    for name, t in times.items():
        print(f"  dask   {name:<8} {t:8.2f} s   {a.n / t:,.0f} records/s   peak worker memory "
              f"{peaks[name] / 2**20:,.0f} MiB ({peaks[name] / limit_bytes:.0%} of the limit)")
    for name, t in tp.items():
        print(f"  pandas {name:<8} {t:8.2f} s   {a.n / t:,.0f} records/s")
    lost = pids0 != pids1 or workers != a.workers or removed
    print(f"equal to the pandas path: {'yes' if not problems else 'NO: ' + ', '.join(problems)}; "
          f"workers at the end {workers} of {a.workers}, same processes "
          f"{'yes' if pids0 == pids1 else 'NO'}, remove-worker events {removed}; peak worker "
          f"memory {peak / 2**20:,.0f} MiB of {limit_bytes / 2**20:,.0f} MiB "
          f"({peak / limit_bytes:.0%})")
    client.close()
    cluster.close()
    if not a.dir:
        shutil.rmtree(base, ignore_errors=True)
    if problems or lost:
        raise SystemExit("FAILED: " + ", ".join(problems + (["a worker was lost or restarted"]
                                                             if lost else [])))


if __name__ == "__main__":
    main()
