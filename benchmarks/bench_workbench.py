"""Benchmark: the workbench on a ~100,000-record session — creating it, and the time from a step
applied in code to the redrawn live panel (risk figures, riskiest combinations, information loss,
R-U map of all scenarios), the numeric disclosure risk the panel shows beside the key risk, the
R-U map of both risks, and the Views tab's SUDA2 and comparison.

Goal: the live panel follows a step in well under a second beyond the step's own
computation; undo redraws from the caches (no measure recomputed).

Run: ``python benchmarks/bench_workbench.py [n_households]`` (default 31,250 ≈ 100,000 records).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sdcsession as sdc  # noqa: E402

KEYS = ["region", "urbrur", "hhsize", "sex", "age5", "marstat"]


def main(n_households: int = 31_250) -> None:
    df = sdc.datasets.synthetic_survey(n_households, seed=2024)
    s = sdc.SdcSession(df, keys=KEYS, numeric=["income", "expend", "savings"], weight="w",
                       household="hid", seed=1)
    t0 = time.perf_counter()
    wb = s.workbench(background=False)
    t_create = time.perf_counter() - t0
    t0 = time.perf_counter()
    s.local_suppression(k=3)
    t_step_total = time.perf_counter() - t0
    t_step = s.head.seconds
    shown = wb.figures["k_violations"]
    t0 = time.perf_counter()
    s.undo()
    t_undo = time.perf_counter() - t0
    t0 = time.perf_counter()
    s.redo()
    t_redo = time.perf_counter() - t0
    alt = s.branch("alt")
    t0 = time.perf_counter()
    alt.pram("water")
    t_pram_total = time.perf_counter() - t0
    t_pram = alt.head.seconds
    print(f"records: {len(df):,}")
    print(f"create workbench (imports, first risk, first R-U map): {t_create:.2f} s")
    print(f"local suppression step {t_step:.2f} s + live panel {t_step_total - t_step:.2f} s")
    print(f"k-violations the panel shows after the step: {shown} (session: "
          f"{s.risk.k_violations(3)})")
    print(f"undo (cached redraw): {t_undo:.2f} s; redo: {t_redo:.2f} s")
    print(f"PRAM on a branch {t_pram:.2f} s + live panel {t_pram_total - t_pram:.2f} s")
    t0 = time.perf_counter()
    s.microaggregation(["income", "expend", "savings"], k=3)
    t_mdav_total = time.perf_counter() - t0
    t_mdav = s.head.seconds
    print(f"MDAV step {t_mdav:.2f} s + live panel with the numeric risk "
          f"{t_mdav_total - t_mdav:.2f} s (interval disclosure "
          f"{wb.figures['numeric.interval_disclosure']:.4f})")
    t0 = time.perf_counter()
    wb.live.ru_risk.value = "both"
    print(f"R-U map of both risks (key and numeric): {time.perf_counter() - t0:.2f} s")
    for what, button in (("SUDA2", wb.views.suda_button), ("comparison of all scenarios",
                                                           wb.views.compare_button)):
        t0 = time.perf_counter()
        button.click()
        print(f"Views tab, {what}: {time.perf_counter() - t0:.2f} s")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:2]))
