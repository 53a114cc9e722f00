"""The demo scenario behind ``sdcsession demo``: a short anonymisation of the synthetic survey.

Example
-------
>>> text = run_demo(n_households=300, seed=1)
>>> "local_suppression" in text
True
"""

from __future__ import annotations

import time

__all__ = ["run_demo", "demo_session"]

KEYS = ["region", "urbrur", "hhsize", "sex", "age", "marstat", "educ"]
NUMERIC = ["income", "expend", "savings"]


def demo_session(n_households: int = 3000, seed: int = 2026):
    """The demo's session: roles declared on ``synthetic_survey(n_households, seed)``."""
    from .datasets import synthetic_survey
    from .session import SdcSession

    df = synthetic_survey(n_households, seed=seed)
    return SdcSession(df, keys=KEYS, numeric=NUMERIC, weight="w", household="hid",
                      sensitive=["health"], seed=seed, name="demo")


def run_demo(n_households: int = 3000, seed: int = 2026) -> str:
    """Apply a short scenario and return a table of the steps with risk and utility after each."""
    t0 = time.perf_counter()
    s = demo_session(n_households, seed)
    scenario = [
        ("age in 15-year groups", lambda: s.global_recode(
            "age", breaks=[-1, 14, 29, 44, 59, 74, 120])),
        ("group households of 6+ persons", lambda: s.top_bottom_code("hhsize", 6, 6, kind="top")),
        ("merge rare marital statuses", lambda: s.group_categories(
            "marstat", {"other": ["widowed", "divorced"]})),
        ("local suppression to 3-anonymity", lambda: s.local_suppression(
            k=3, importance=["region", "sex", "age", "urbrur", "hhsize", "marstat", "educ"])),
        ("PRAM of water source", lambda: s.pram(["water"], pd=0.8, alpha=0.5)),
        ("microaggregation (MDAV, k=3)", lambda: s.microaggregation(NUMERIC, k=3)),
    ]
    lines = [f"sdcsession demo: synthetic survey, {s.state.n:,} records in {n_households:,} "
             f"households; keys {', '.join(KEYS)}; seed {seed}", ""]
    header = (f"{'step':<36}{'seconds':>8}{'exp. re-id':>12}{'hh exp. re-id':>15}"
              f"{'fk<3':>7}{'suppressed':>12}{'IL1s':>9}")
    lines += [header, "-" * len(header)]

    def row(label: str, secs: float | None) -> str:
        r = s.risk
        u = s.utility
        sup = u.suppressions_total
        il = u.il1s
        return (f"{label:<36}{'' if secs is None else f'{secs:.3f}':>8}"
                f"{r.expected_reidentifications:>12.2f}"
                f"{r.household_expected_reidentifications:>15.2f}{r.k_violations(3):>7,}"
                f"{sup:>12,}{'' if il is None else f'{il:.4f}':>9}")

    lines.append(row("original", None))
    for label, fn in scenario:
        fn()
        lines.append(row(label, s.head.seconds))
    lines += ["", f"HEAD: {s.head.describe()}",
              f"undo → {s.undo().head.describe()}; redo → {s.redo().head.describe()}",
              f"recipe: {len(s.to_recipe()['steps'])} steps, replayable with "
              "SdcSession.from_recipe(data, recipe)",
              f"total {time.perf_counter() - t0:.2f} s"]
    return "\n".join(lines)
