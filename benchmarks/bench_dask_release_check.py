"""Benchmark: the release check of a Dask session on small and large files (wall and CPU time,
number of Dask ``compute`` calls), beside the pandas session's check on the same data.

Two inputs, each written as a Parquet dataset and opened with `SdcSession.from_parquet`:

- sdcMicro's EU-SILC file (14,827 records, ``/work/shared/conformance/data/eusilc.csv``, or
  ``--eusilc PATH``) in 7 partitions;
- a generated file of ``--n`` records (default 1,000,000) in ``--npartitions`` partitions
  (default 16).

Each session gets the same steps (a recode and a top code of keys, noise on a numeric
variable), then its release check runs ``--repeat`` times on a fresh session (the measures
cached on a state would otherwise make the later runs cheaper): with ``shuffle=True`` (what an
export runs) and with ``shuffle=False`` (the ``order`` finding too). The Dask sessions run on
the synchronous scheduler. Compute calls are counted with a `dask.callbacks.Callback`, whose
``_start`` runs once per scheduler call (``dask.compute``, ``.compute()``, ``persist``), with
the tasks of their graphs; ``--trace`` prints where each call was made and its time. The
script fails when the Dask findings differ from the pandas findings.

Figures (2 shared cores, synchronous scheduler, best of 2): EU-SILC in 7 partitions, before
batching 21 compute calls (5,221 tasks, 3.7 s) with ``shuffle=True`` and 23 (5,960, 4.6 s)
with ``shuffle=False``; after, 9 (1,748, 1.6 s) and 9 (2,260, 2.4 s); pandas 0.05-0.08 s.
The generated 1,000,000 records in 16 partitions: 21 calls (11,454 tasks, 22.5 s) and 23
(12,820, 32.2 s) before; 11 (3,923, 13.4 s) and 11 (4,902, 16.2 s) after; pandas 4.8 and
7.3 s. Of the calls after, three are the release check's rounds; the others count the
records and build the risk model (`sdcsession.scale.freq_tables`), once per state.

Run: ``nice -n 5 python benchmarks/bench_dask_release_check.py [--n 1_000_000]
[--npartitions 16] [--repeat 3] [--skip-large] [--trace]``.
"""

from __future__ import annotations

import argparse
import collections
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dask  # noqa: E402
import dask.dataframe as dd  # noqa: E402
from dask.callbacks import Callback  # noqa: E402

import sdcsession as sdc  # noqa: E402
from sdcsession.scale.parquet import read_parquet  # noqa: E402

EUSILC = Path("/work/shared/conformance/data/eusilc.csv")
SILC_COLUMNS = ["db030", "hsize", "db040", "rb030", "age", "rb090", "pl030", "pb220a",
                "py010n", "eqIncome", "eqSS", "rb050"]


class ComputeCounter(Callback):
    """Counts the scheduler calls (one ``_start`` per ``dask.compute``/``persist``) and, with
    ``trace``, where in sdcsession each one was made."""

    def __init__(self, trace: bool = False) -> None:
        super().__init__()
        self.calls = 0
        self.tasks = 0
        self.trace = trace
        self.sites: collections.Counter[str] = collections.Counter()
        self.seconds: collections.Counter[str] = collections.Counter()
        self._site = ""
        self._t0 = 0.0

    def _finish(self, dsk: object, state: object, errored: bool) -> None:
        if self.trace:
            self.seconds[self._site] += time.perf_counter() - self._t0

    def _start(self, dsk: object) -> None:
        self.calls += 1
        self.tasks += len(dsk)  # type: ignore[arg-type]
        self._t0 = time.perf_counter()
        if self.trace:
            frames = [f for f in traceback.extract_stack()
                      if "sdcsession" in f.filename and "benchmarks" not in f.filename]
            site = " <- ".join(f"{Path(f.filename).name}:{f.lineno}:{f.name}"
                               for f in reversed(frames[-4:]))
            self.sites[site] += 1
            self._site = site


def silc_session(data: object) -> sdc.SdcSession:
    s = sdc.SdcSession(data, keys=["hsize", "db040", "age", "rb090", "pb220a"],
                       numeric=["py010n", "eqIncome"], household="db030", weight="rb050",
                       seed=5)
    s.top_bottom_code("hsize", 6, 6, kind="top")
    s.recode("pb220a", {"EU": "other", "Other": "other"})
    return s.add_noise(["py010n"], noise=0.2)


def large_frame(n: int, seed: int = 2026) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    hh = np.sort(rng.integers(0, n // 3, n))
    age = rng.integers(0, 95, n)
    inc = rng.gamma(2.0, 15000.0, n).round(2)
    return pd.DataFrame({
        "hid": hh.astype(np.int64), "region": rng.choice([f"R{i:02d}" for i in range(40)], n),
        "sex": rng.choice(["m", "f"], n), "age": age, "age5": (age // 5 * 5).astype(np.int64),
        "educ": rng.choice(["none", "primary", "secondary", "tertiary"], n),
        "income": inc, "income_k": (inc / 1000).round(1),
        "w": rng.choice([50.0, 100.0, 150.0, 200.0], n), "rid": np.arange(n, dtype=np.int64),
        "note": rng.integers(0, 1000, n)})


def large_session(data: object) -> sdc.SdcSession:
    s = sdc.SdcSession(data, keys=["region", "sex", "age5", "educ"], numeric=["income"],
                       household="hid", weight="w", seed=3)
    s.recode("educ", {"none": "primary"})
    return s.add_noise(["income"], noise=0.2)


def timed(session: object, shuffle: bool, repeat: int, counter: ComputeCounter | None = None
          ) -> tuple[float, float, tuple[int, int], pd.DataFrame]:
    """The best wall and CPU time of ``repeat`` release checks, each on a fresh session
    ``session()`` (built outside the timing), the computes and the tasks they ran in one check
    and the findings."""
    walls, cpus, calls, tasks, out = [], [], 0, 0, None
    for _ in range(repeat):
        s = session()
        t0, c0 = time.perf_counter(), time.process_time()
        before = counter.calls if counter else 0
        before_tasks = counter.tasks if counter else 0
        if counter:
            counter.sites.clear()
            counter.seconds.clear()
        out = s.release_check(shuffle=shuffle)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        calls = (counter.calls - before) if counter else 0
        tasks = (counter.tasks - before_tasks) if counter else 0
    return min(walls), min(cpus), (calls, tasks), out  # type: ignore[return-value]


def run(name: str, df: pd.DataFrame, make: object, npartitions: int, repeat: int,
        trace: bool, tmp: Path) -> bool:
    path = tmp / f"{name}.parquet"
    with dask.config.set(scheduler="sync"):
        dd.from_pandas(df, npartitions=npartitions).to_parquet(path)
    print(f"\n{name}: {len(df):,} records, {df.shape[1]} columns, {npartitions} partitions "
          "(Parquet, index included)")
    ok = True
    for shuffle in (True, False):
        pw, pc, _, pf = timed(lambda: make(df.copy()), shuffle, repeat)
        counter = ComputeCounter(trace=trace)
        with dask.config.set(scheduler="sync"):
            with counter:
                dw, dc, calls, df_ = timed(lambda: make(read_parquet(path)), shuffle, repeat,
                                           counter)
        cols = ["severity", "check", "records"]
        same = pf[cols].equals(df_[cols]) and pf["variables"].tolist() == df_["variables"].tolist()
        ok &= same
        print(f"  release_check(shuffle={shuffle}): pandas {pw:6.2f} s wall {pc:6.2f} s CPU | "
              f"dask {dw:6.2f} s wall {dc:6.2f} s CPU, {calls[0]} compute calls "
              f"({calls[1]:,} tasks) | "
              f"findings {'equal' if same else 'DIFFER'}: "
              f"{', '.join(sorted(set(pf['check'])))}")
        if trace:
            for site, m in counter.sites.most_common():
                print(f"      {m:3d} x {counter.seconds[site]:5.2f} s  {site}")
    return ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--eusilc", type=Path, default=EUSILC)
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--npartitions", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-large", action="store_true")
    ap.add_argument("--trace", action="store_true", help="print where each compute was made")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench_release_check_"))
    ok = True
    try:
        if a.eusilc.exists():
            silc = pd.read_csv(a.eusilc, usecols=SILC_COLUMNS)
            ok &= run("eusilc", silc, silc_session, 7, a.repeat, a.trace, tmp)
        else:
            print(f"{a.eusilc} not found: EU-SILC skipped")
        if not a.skip_large:
            ok &= run(f"generated_{a.n}", large_frame(a.n), large_session, a.npartitions,
                      max(1, a.repeat // 2), a.trace, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not ok:
        raise SystemExit("the Dask findings differ from the pandas findings")


if __name__ == "__main__":
    main()
