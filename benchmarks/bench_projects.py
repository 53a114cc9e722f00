"""Benchmark: open a project of about 1M records with 3 branches of 10 steps.

Goal: opening takes under 2 s until a branch's data are asked for (steps are replayed lazily).

Run: ``python benchmarks/bench_projects.py [n_households]`` (default 300,000 households ≈ 1M
records). Builds the session (3 branches × 10 steps: recodes, groupings, global recodes, top
codes, rounding, noise, PRAM), saves it with the data embedded and, for comparison, without;
then opens it in a fresh Python process (no data cached; compiled modules cached as in an
installed package, after one warm-up run) and prints the time of
``sdc.open_project`` alone (``import sdcsession`` is timed apart), of the first access to one
branch's data (its 10 steps replayed and checked against their fingerprints) and of the same
with ``data=`` given instead of the embedded copy.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import sdcsession as sdc  # noqa: E402

KEYS = ["region", "urbrur", "sex", "age5", "marstat", "educ"]
NUM = ["income", "expend", "savings"]

OPEN = """
import sys, time
sys.path.insert(0, {root!r})
t0 = time.perf_counter()
import pandas as pd, sdcsession as sdc
t_import = time.perf_counter() - t0
data = pd.read_parquet({data!r}) if {given!r} else None
t0 = time.perf_counter()
s = sdc.open_project({path!r}, data=data)
t_open = time.perf_counter() - t0
pending = sum(not st.state.ready for st in s.steps)
t0 = time.perf_counter()
n = len(s.scenarios["b"].data)
t_branch = time.perf_counter() - t0
print(f"{{t_import:.2f}} {{t_open:.2f}} {{pending}} {{t_branch:.2f}} {{n}}")
"""


def branch_steps(s: sdc.SdcSession, df, variant: int) -> None:
    """Ten cheap steps on ~1M records (they differ a little between branches)."""
    cats = [str(c) for c in df["age5"].cat.categories]
    s.group_categories("age5", {"60+": cats[12:]})
    s.global_recode("expend", [-1, 10000, 20000, 40000, 80000, 1e12])
    s.top_bottom_code("income", 80000 + 10000 * variant, 80000 + 10000 * variant)
    s.round_values(["savings"], base=100 * (variant + 1))
    s.add_noise(["income"], noise=0.1 + 0.05 * variant)
    s.pram(["water"], pd=0.8)
    s.recode("urbrur", {"rural": "urban"} if variant == 1 else {"urban": "rural"})
    s.group_categories("marstat", {"other": [str(c) for c in df["marstat"].cat.categories][2:]})
    s.add_noise(["savings"], noise=0.05)
    s.top_bottom_code("income", 5000, 5000, kind="bottom")


def run(code: str, pycache: str) -> list[str]:
    """``code`` in a fresh process, with compiled modules cached in ``pycache`` as an installed
    package has them (the first run compiles them and is not reported)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = pycache
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT, env=env)
    return out.stdout.split()


def main(n_households: int = 300_000) -> None:
    t0 = time.perf_counter()
    df = sdc.datasets.synthetic_survey(n_households, seed=2024)
    print(f"data: {len(df):,} records × {df.shape[1]} columns ({time.perf_counter() - t0:.1f} s)")
    t0 = time.perf_counter()
    s = sdc.SdcSession(df, keys=KEYS, numeric=NUM, pram=["water"], weight="w",
                       household="hid", seed=1)
    b, c = s.branch("b"), s.branch("c")
    for i, x in enumerate((s, b, c)):
        branch_steps(x, df, i)
    print(f"session: {len(s.steps) - 1} steps in 3 branches ({time.perf_counter() - t0:.1f} s)")
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        path = s.save_project(Path(d) / "survey.sdcproj", include_data=True)
        t_save = time.perf_counter() - t0
        t0 = time.perf_counter()
        bare = s.save_project(Path(d) / "bare.sdcproj")
        t_bare = time.perf_counter() - t0
        print(f"save (data embedded): {t_save:.2f} s, {path.stat().st_size / 2**20:.1f} MiB; "
              f"without the data (fingerprints cached): {t_bare:.2f} s, "
              f"{bare.stat().st_size / 2**10:.0f} KiB")
        data = Path(d) / "survey.parquet"
        df.to_parquet(data)
        pycache = str(Path(d) / "pycache")
        run(OPEN.format(root=str(ROOT), path=str(path), data=str(data), given=False), pycache)
        for label, p, given in (("embedded copy", path, False), ("data= given", bare, True)):
            t_import, t_open, pending, t_branch, n = run(OPEN.format(
                root=str(ROOT), path=str(p), data=str(data), given=given), pycache)
            print(f"open ({label}): {t_open} s (import sdcsession {t_import} s); {pending} "
                  f"steps pending; first access to branch 'b' ({n} records, 10 steps "
                  f"replayed): {t_branch} s")
    print("goal: open under 2 s until a branch's data are asked for")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300_000)
