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

import inspect
import math
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError, SdcWarning
from ..session.measures import MEASURES, cache_key
from .compare_view import Comparison
from .estimates import estimates
from .steps import TreeView, scenarios, steps_text, tree
from .steps import _is_session as _is_session  # re-exported (report.py imports it from here)
from .steps import step_text as step_text  # re-exported

if TYPE_CHECKING:  # pragma: no cover
    from ..session.state import State

__all__ = ["MeasureSpec", "DEFAULT_MEASURES", "Comparison", "compare", "default_measures", "frontier", "tree",
           "TreeView", "scenarios", "estimates", "LOSS_COLUMNS", "RISK_COLUMNS"]


# ---------------------------------------------------------------------------- measure specs
@attrs.frozen
class MeasureSpec:
    """One column of a comparison: ``column`` label, registered ``measure`` name and ``params``.

    ``role`` is ``"risk"`` or ``"loss"`` (both: lower is better) or ``"utility"`` (higher is
    better); ``attr`` names the attribute holding the scalar when the measure returns an object
    (e.g. ``"gdu"`` of a GduResult).

    >>> MeasureSpec("k3_violations", "k_violations_3").column
    'k3_violations'
    """

    column: str
    measure: str
    params: tuple[tuple[str, Any], ...] = ()
    role: str = "risk"
    attr: str | None = None

    def value(self, state: State) -> Any:
        """The measure on ``state`` through the state's cache."""
        v = state.measure(self.measure, **dict(self.params))
        return getattr(v, self.attr) if self.attr and v is not None else v


RISK_COLUMNS = ("expected_reidentifications", "household_expected_reidentifications",
                "k2_violations", "k3_violations", "k5_violations")
LOSS_COLUMNS = ("suppressions", "il1s", "eigen", "il_correl", "lambda")

#: GDU is part of the defaults only when every state has at most this many records ("when
#: cheap": the model runs many tests per pair of variables, ~4.5 s for 100,000 records and 11
#: variables on one core).
GDU_MAX_RECORDS = 20_000
#: The parameters UtilitySummary.gdu() passes (same cache entry as ``s.utility.gdu()``).
_GDU_PARAMS = (("alpha", 0.05), ("columns", None), ("recode_variant", "comparisons"),
               ("recoded", None), ("types", None), ("weights", None))

DEFAULT_MEASURES: tuple[MeasureSpec, ...] = (
    MeasureSpec("expected_reidentifications", "expected_reidentifications"),
    MeasureSpec("household_expected_reidentifications", "household_expected_reidentifications"),
    MeasureSpec("k2_violations", "k_violations_2"),
    MeasureSpec("k3_violations", "k_violations_3"),
    MeasureSpec("k5_violations", "k_violations_5"),
    MeasureSpec("suppressions", "suppressions_total", role="loss"),
    MeasureSpec("il1s", "utility.il1s", role="loss"),
    MeasureSpec("eigen", "utility.eigen", role="loss"),
    MeasureSpec("il_correl", "utility.il_correl", role="loss"),
    MeasureSpec("lambda", "lambda_overall", role="loss"),
    MeasureSpec("gdu", "utility.gdu", _GDU_PARAMS, role="utility", attr="gdu"),
)


def default_measures(states: Sequence[State]) -> list[MeasureSpec]:
    """The default measures for these states, chosen by their roles.

    Expected re-identifications and k-violations (k = 2, 3, 5) when there are key variables;
    household expected re-identifications with a household; suppressions in the keys; IL1s
    (numeric variables), eigen and γ (two or more numeric variables); λ always; the global data
    utility GDU (higher = more utility) when cheap: every state has at most
    `GDU_MAX_RECORDS` records.

    >>> [m.column for m in default_measures([])]
    []
    """
    if not states:
        return []
    keys = any(st.roles.keys for st in states)
    hh = any(st.roles.household for st in states)
    nnum = max(len(st.original_roles.numeric) for st in states)
    cheap = max(st.n for st in states) <= GDU_MAX_RECORDS
    keep = []
    for m in DEFAULT_MEASURES:
        c = m.column
        if c in RISK_COLUMNS and not keys:
            continue
        if c == "household_expected_reidentifications" and not hh:
            continue
        if c == "suppressions" and not keys:
            continue
        if c == "il1s" and nnum < 1:
            continue
        if c in ("eigen", "il_correl") and nnum < 2:
            continue
        if c == "gdu" and not (cheap and m.measure in MEASURES):
            continue
        keep.append(m)
    return keep


def _params_of(name: str, params: Any) -> tuple[tuple[str, Any], ...]:
    """``params`` of a ``(name, params)`` pair, checked against the measure's signature."""
    if not isinstance(params, dict) or not all(isinstance(k, str) for k in params):
        raise ParameterError(f"measures: the parameters of {name!r} must be a dict keyed by "
                             f"parameter names, got {params!r}"[:300])
    sig = inspect.signature(MEASURES[name].fn)
    accepted = [p.name for p in list(sig.parameters.values())[1:]
                if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    takes_any = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    unknown = sorted(set(params) - set(accepted))
    if unknown and not takes_any:
        raise ParameterError(f"measures: {name!r} takes no parameter(s) {unknown}; it takes "
                             f"{accepted}")
    try:
        hash(cache_key(name, params))
    except TypeError:
        raise ParameterError(f"measures: the parameters of {name!r} must be plain values "
                             f"(numbers, strings, lists), got {params!r}"[:300]) from None
    return tuple(sorted(params.items()))


def _specs(measures: Any, states: Sequence[State]) -> list[MeasureSpec]:
    if measures is None:
        return default_measures(states)
    if isinstance(measures, (str, MeasureSpec)) or (
            isinstance(measures, tuple) and len(measures) == 2 and isinstance(measures[0], str)
            and isinstance(measures[1], dict)):
        measures = [measures]
    if not isinstance(measures, (list, tuple)):
        raise ParameterError(
            f"measures: expected None, a measure name or a list of names, (name, params) pairs "
            f"or MeasureSpec, got {type(measures).__name__}")
    out = []
    by_col = {m.column: m for m in DEFAULT_MEASURES}
    for m in measures:
        if isinstance(m, MeasureSpec):
            out.append(m)
        elif isinstance(m, str) and m in by_col:
            out.append(by_col[m])
        elif isinstance(m, str) and m in MEASURES:
            out.append(MeasureSpec(m, m, role=MEASURES[m].kind))
        elif isinstance(m, tuple) and len(m) == 2 and isinstance(m[0], str) and m[0] in MEASURES:
            params = _params_of(m[0], m[1])
            label = m[0] + "".join(f"_{k}{v}" for k, v in params)
            out.append(MeasureSpec(label, m[0], params, role=MEASURES[m[0]].kind))
        else:
            raise ParameterError(
                f"measures: {m!r} is not a registered measure; give names from "
                f"{sorted(set(by_col) | set(MEASURES))}, (name, params) pairs or MeasureSpec"[:600])
    cols = [m.column for m in out]
    dup = sorted({c for c in cols if cols.count(c) > 1})
    if dup:
        raise ParameterError(f"measures: column(s) {dup} asked for more than once")
    return out


# ---------------------------------------------------------------------------------- compare
def _scalar(v: Any) -> Any:
    if v is None:
        return np.nan
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    try:
        return float(v)
    except (TypeError, ValueError):
        ov = getattr(v, "overall", None)
        if ov is not None:
            return float(ov)
        raise MeasureError(f"compare: measure value {type(v).__name__} is not a scalar") from None


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
    for name, step in sc:
        row: dict[str, Any] = {"scenario": name, "step": step.id, "depth": step.depth,
                               "steps": steps_text(step)}
        for m in specs:
            row[m.column] = _value(m, step.state, name, failed)
        rows.append(row)
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
                      stacklevel=2)
    if sc:
        root = sc[0][1].path()[0]
        df.attrs["original"] = {m.column: _value(m, root.state, "original", {})
                                for m in specs} if len(roots) == 1 else {}
    df.attrs["roles"] = {m.column: m.role for m in specs}
    return df


def _value(m: MeasureSpec, state: State, name: str, failed: dict[str, str]) -> Any:
    try:
        return _scalar(m.value(state))
    except MeasureError as e:
        failed.setdefault(f"{m.column} ({name})", str(e))
        return np.nan


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

    Algorithm: sort by (loss, risk) and keep every row whose risk is strictly below the minimum
    risk of all rows before it (O(n log n)).

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
    r = pd.to_numeric(df[risk], errors="coerce").to_numpy(dtype=float)
    lo = pd.to_numeric(df[loss], errors="coerce").to_numpy(dtype=float)
    untreated = (pd.to_numeric(df["depth"], errors="coerce").to_numpy(float) == 0
                 if "depth" in df.columns else
                 (df["scenario"].astype(str) == "original").to_numpy(bool)
                 if "scenario" in df.columns else np.zeros(len(df), bool))
    ok = np.flatnonzero(~np.isnan(r) & ~np.isnan(lo) & ~untreated)
    order = ok[np.lexsort((r[ok], lo[ok]))]
    keep = []
    best = math.inf
    for i in order:  # loop over scenarios, not records
        if r[i] < best:
            keep.append(i)
            best = r[i]
    out = df.iloc[keep].copy()
    out["frontier"] = True
    return out


def pick_loss(df: pd.DataFrame) -> str:
    """The first loss column of a comparison with at least one value (λ, IL1s, suppressions…)."""
    for c in ("lambda", "il1s", "suppressions", "eigen", "il_correl"):
        if c in df.columns and pd.to_numeric(df[c], errors="coerce").notna().any():
            return c
    roles = df.attrs.get("roles", {})
    for c, role in roles.items():
        if role == "loss" and c in df.columns:
            return c
    raise ParameterError("loss: the comparison has no information-loss column; give loss=")

