"""Scenarios side by side: `compare`, the risk–utility `frontier`, the history `tree`.

A *scenario* is a session (its HEAD) or any step of a history tree. `compare` gives one row per
scenario with the measures chosen by the roles; every figure is read through
`State.measure <sdcsession.session.state.State.measure>`, so it is computed once per state and cached
there (comparing the same scenarios again, or a scenario that shares a state with another one,
recomputes nothing).

The columns a comparison can show are `MeasureSpec` objects (`DEFAULT_MEASURES`,
chosen per scenario set by `default_measures`). The history tree view (`tree`,
`TreeView`, `steps_text`) lives in `sdcsession.present.steps` and the estimates with
confidence intervals (`estimates`) in `sdcsession.present.estimates`; both are importable
from here as well.

Example
-------
>>> import pandas as pd, sdcsession as sdc
>>> df = pd.DataFrame({"sex": list("mfmfmfmf"), "region": list("aabbccdd")})
>>> s = sdc.SdcSession(df, keys=["sex", "region"], seed=1)
>>> alt = s.branch("merged").recode("region", {"b": "a", "d": "c"})
>>> t = compare(s, alt)
>>> t[["scenario", "steps", "k2_violations"]].values.tolist()
[['main', '(original)', 8], ['merged', 'recode(column=region, mapping={2 entries})', 0]]
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ParameterError, SdcWarning, user_stacklevel
from ..session.views.scenario_measures import (  # the measure columns live in the session layer
    DEFAULT_MEASURES,
    GDU_MAX_RECORDS,  # noqa: F401  (re-exported)
    LOSS_COLUMNS,
    RISK_COLUMNS,
    MeasureSpec,
    default_measures,
    frontier_positions,
    measure_block,
    pick_loss,
)
from ..session.views.scenario_measures import measure_specs as _specs
from ..session.views.scenario_measures import measure_value as _value
from .compare_view import Comparison
from .estimates import estimates
from .steps import TreeView, scenarios, steps_text, tree
from .steps import _is_session as _is_session  # re-exported (report.py imports it from here)
from .steps import step_text as step_text  # re-exported

__all__ = ["MeasureSpec", "DEFAULT_MEASURES", "Comparison", "compare", "default_measures", "frontier", "tree",
           "TreeView", "scenarios", "estimates", "LOSS_COLUMNS", "RISK_COLUMNS"]


# ---------------------------------------------------------------------------------- compare
def compare(*items: Any, measures: Any = None, original: bool = False) -> Comparison:
    """Scenarios side by side: one row per scenario, one column per measure.

    ``items`` are sessions (their HEAD), steps of any history tree, or iterables of them
    (``compare(s.history)`` compares every step of one scenario). ``measures`` is ``None`` for the
    defaults chosen by the roles (`default_measures`: expected re-identifications,
    k-violations for k = 2, 3, 5, suppressions, IL1s, eigen, γ, λ, GDU when registered), or a list
    of column names of those defaults, registered measure names, ``(name, params)`` pairs or
    `MeasureSpec`. ``original=True`` adds the root of the first scenario's tree as a first
    row named ``"original"``.

    Columns: ``scenario`` (name), ``step`` (id of the step), ``depth``, ``steps`` (the
    treatments as short text), then one column per measure (lower is better for all defaults).
    A measure that cannot be computed on a state (a `MeasureError`, e.g.
    a constant variable) is NaN with an `SdcWarning` naming it; a
    measure that does not apply (no numeric variables) is NaN silently. ``df.attrs["original"]``
    holds the measures of the original data (the root of the first scenario's tree) for the R-U
    map anchors, ``df.attrs["roles"]`` maps each measure column to ``"risk"`` or ``"loss"``.

    Every value is read through `State.measure`, i.e. computed once per state. The result is a
    `sdcsession.present.compare_view.Comparison`: a DataFrame whose display formats the numbers
    (counts as integers) and shows ``steps`` in full.

    Example
    -------
    >>> import pandas as pd, sdcsession as sdc
    >>> df = pd.DataFrame({"sex": list("mfmf"), "region": list("abab")})
    >>> s = sdc.SdcSession(df, keys=["sex", "region"], seed=1)
    >>> compare(s.history, measures=["k3_violations"]).k3_violations.tolist()
    [4]
    """
    if not isinstance(original, (bool, np.bool_)):
        raise ParameterError(f"original: expected True or False, got {original!r}"[:200])
    sc = scenarios(*items)
    if original and sc:
        root = sc[0][1].path()[0]
        sc = [("original", root)] + sc
    states = [st.state for _, st in sc]
    roots = {id(st.path()[0]) for _, st in sc}
    specs = _specs(measures, states)
    rows = []
    failed: dict[str, str] = {}
    with measure_block():  # one numeric matrix per frame, shared by the measures of a state
        for name, step in sc:
            row: dict[str, Any] = {"scenario": name, "step": step.id, "depth": step.depth,
                                   "steps": steps_text(step)}
            for m in specs:
                row[m.column] = _value(m, step.state, name, failed)
            rows.append(row)
        root = sc[0][1].path()[0] if sc else None
        anchors = {m.column: _value(m, root.state, "original", {}) for m in specs} \
            if root is not None and len(roots) == 1 else {}
    cols = ["scenario", "step", "depth", "steps"] + [m.column for m in specs]
    df = pd.DataFrame(rows, columns=cols)
    for m in specs:  # counts stay integers when every scenario has one
        s = df[m.column]
        if s.notna().all() and s.map(lambda v: isinstance(v, (int, np.integer))).all():
            df[m.column] = s.astype(np.int64)
    df = Comparison(df)
    if failed:
        msg = "; ".join(f"{k}: {v}" for k, v in failed.items())
        warnings.warn(f"compare: some measures could not be computed (NaN): {msg}", SdcWarning,
                      stacklevel=user_stacklevel())
    if sc:
        df.attrs["original"] = anchors
    df.attrs["roles"] = {m.column: m.role for m in specs}
    return df


# ---------------------------------------------------------------------------------- frontier
def frontier(df: pd.DataFrame, *, risk: str = "expected_reidentifications",
             loss: str | None = None) -> pd.DataFrame:
    """The scenarios not dominated on (risk, information loss): the risk–utility frontier.

    Scenario a dominates b when ``risk_a <= risk_b`` and ``loss_a <= loss_b`` with at least one
    strict inequality (both measures: lower is better). Rows with a missing value in either
    column are left out. The result keeps the rows of ``df`` (same index), sorted by increasing
    loss, with a boolean column ``frontier`` set to True. ``loss=None`` takes the first loss
    column of ``df`` that has values (λ, IL1s, suppressions, …).

    The untreated original is not a scenario one could release with a protection and is never on
    the frontier (it has no loss, so it would always be): rows at ``depth`` 0 (the root of a
    history tree, as `compare` with ``original=True`` adds it) and, in a table without a
    ``depth`` column, the row whose ``scenario`` is ``"original"`` are left out.

    Algorithm (`sdcsession.session.views.scenario_measures.frontier_positions`): sort by (loss, risk)
    and keep every row whose risk is strictly below the minimum risk of all rows before it
    (O(n log n)).

    Example
    -------
    >>> t = pd.DataFrame({"scenario": list("abcd"), "r": [5.0, 3.0, 4.0, 1.0],
    ...                   "l": [0.0, 0.1, 0.2, 0.5]})
    >>> frontier(t, risk="r", loss="l").scenario.tolist()
    ['a', 'b', 'd']
    """
    if not isinstance(df, pd.DataFrame):
        raise ParameterError(f"frontier: expected the DataFrame of compare(), got {type(df).__name__}")
    if loss is None:
        loss = pick_loss(df)
    for c, what in ((risk, "risk"), (loss, "loss")):
        if not isinstance(c, str) or c not in df.columns:
            raise ParameterError(f"{what}: column {c!r} not in the comparison; columns: "
                                 f"{list(df.columns)}")
    untreated = (pd.to_numeric(df["depth"], errors="coerce").to_numpy(float) == 0
                 if "depth" in df.columns else
                 (df["scenario"].astype(str) == "original").to_numpy(bool)
                 if "scenario" in df.columns else np.zeros(len(df), bool))
    lo = pd.to_numeric(df[loss], errors="coerce").to_numpy(dtype=float)
    keep = frontier_positions(df[risk], np.where(untreated, np.nan, lo))
    out = df.iloc[keep].copy()
    out["frontier"] = True
    return out
