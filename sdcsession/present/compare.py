"""Scenarios side by side: :func:`compare`, the risk–utility :func:`frontier`, the history :func:`tree`.

A *scenario* is a session (its HEAD) or any step of a history tree. :func:`compare` gives one row per
scenario with the measures chosen by the roles; every figure is read through
:meth:`State.measure <sdcsession.session.state.State.measure>`, so it is computed once per state and cached
there (comparing the same scenarios again, or a scenario that shares a state with another one,
recomputes nothing).

The columns a comparison can show are :class:`MeasureSpec` objects (:data:`DEFAULT_MEASURES`,
chosen per scenario set by :func:`default_measures`). The history tree view (:func:`tree`,
:class:`TreeView`, :func:`steps_text`) lives in `sdcsession.present.steps` and the estimates with
confidence intervals (:func:`estimates`) in `sdcsession.present.estimates`; both are importable
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

import math
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError, SdcWarning
from ..session.measures import MEASURES
from .estimates import estimates
from .steps import TreeView, scenarios, steps_text, tree
from .steps import _is_session as _is_session  # re-exported (report.py imports it from here)
from .steps import step_text as step_text  # re-exported

if TYPE_CHECKING:  # pragma: no cover
    from ..session.state import State

__all__ = ["MeasureSpec", "DEFAULT_MEASURES", "compare", "default_measures", "frontier", "tree",
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
    :data:`GDU_MAX_RECORDS` records.

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


def _specs(measures: Any, states: Sequence[State]) -> list[MeasureSpec]:
    if measures is None:
        return default_measures(states)
    if isinstance(measures, (str, MeasureSpec)):
        measures = [measures]
    out = []
    by_col = {m.column: m for m in DEFAULT_MEASURES}
    for m in measures:
        if isinstance(m, MeasureSpec):
            out.append(m)
        elif isinstance(m, str) and m in by_col:
            out.append(by_col[m])
        elif isinstance(m, str) and m in MEASURES:
            out.append(MeasureSpec(m, m, role=MEASURES[m].kind))
        elif isinstance(m, tuple) and len(m) == 2 and isinstance(m[0], str) \
                and isinstance(m[1], dict) and m[0] in MEASURES:
            label = m[0] + "".join(f"_{k}{v}" for k, v in sorted(m[1].items()))
            out.append(MeasureSpec(label, m[0], tuple(sorted(m[1].items())),
                                   role=MEASURES[m[0]].kind))
        else:
            raise ParameterError(
                f"measures: {m!r} is not a registered measure; give names from "
                f"{sorted(set(by_col) | set(MEASURES))}, (name, params) pairs or MeasureSpec")
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


def compare(*items: Any, measures: Any = None, original: bool = False) -> pd.DataFrame:
    """Scenarios side by side: one row per scenario, one column per measure.

    ``items`` are sessions (their HEAD), steps of any history tree, or iterables of them
    (``compare(s.history)`` compares every step of one scenario). ``measures`` is ``None`` for the
    defaults chosen by the roles (:func:`default_measures`: expected re-identifications,
    k-violations for k = 2, 3, 5, suppressions, IL1s, eigen, γ, λ, GDU when registered), or a list
    of column names of those defaults, registered measure names, ``(name, params)`` pairs or
    :class:`MeasureSpec`. ``original=True`` adds the root of the first scenario's tree as a first
    row named ``"original"``.

    Columns: ``scenario`` (name), ``step`` (id of the step), ``depth``, ``steps`` (the
    treatments as short text), then one column per measure (lower is better for all defaults).
    A measure that cannot be computed on a state (a :class:`~sdcsession.errors.MeasureError`, e.g.
    a constant variable) is NaN with an :class:`~sdcsession.errors.SdcWarning` naming it; a
    measure that does not apply (no numeric variables) is NaN silently. ``df.attrs["original"]``
    holds the measures of the original data (the root of the first scenario's tree) for the R-U
    map anchors, ``df.attrs["roles"]`` maps each measure column to ``"risk"`` or ``"loss"``.

    Every value is read through :meth:`State.measure`, i.e. computed once per state.

    Example
    -------
    >>> import pandas as pd, sdcsession as sdc
    >>> df = pd.DataFrame({"sex": list("mfmf"), "region": list("abab")})
    >>> s = sdc.SdcSession(df, keys=["sex", "region"], seed=1)
    >>> compare(s.history, measures=["k3_violations"]).k3_violations.tolist()
    [4]
    """
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
        if c not in df.columns:
            raise ParameterError(f"{what}: column {c!r} not in the comparison; columns: "
                                 f"{list(df.columns)}")
    r = pd.to_numeric(df[risk], errors="coerce").to_numpy(dtype=float)
    lo = pd.to_numeric(df[loss], errors="coerce").to_numpy(dtype=float)
    ok = np.flatnonzero(~np.isnan(r) & ~np.isnan(lo))
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

<<<<<<< HEAD
=======

# -------------------------------------------------------------------------------------- tree
class TreeView:
    """The whole history tree of a session (every branch), with the HEADs marked.

    ``to_frame()`` (one row per step: parent, depth, treatment, parameters, seed, seconds, heads),
    ``to_text()`` (an indented tree; also ``repr``) and ``to_html()`` (also ``_repr_html_``).
    """

    def __init__(self, root: Step, heads: dict[int, list[str]]) -> None:
        self.root = root
        self.heads = heads

    def _walk(self) -> list[tuple[Step, str, str]]:
        """(step, prefix for the step line, prefix for its children) depth first."""
        out: list[tuple[Step, str, str]] = []
        stack: list[tuple[Step, str, str]] = [(self.root, "", "")]
        while stack:
            st, pre, child_pre = stack.pop()
            out.append((st, pre, child_pre))
            kids = st.children
            for j in range(len(kids) - 1, -1, -1):
                last = j == len(kids) - 1
                stack.append((kids[j], child_pre + ("└─ " if last else "├─ "),
                              child_pre + ("   " if last else "│  ")))
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per step (depth-first order), indexed by step id."""
        rows = []
        for st, _, _ in self._walk():
            t = st.treatment
            rows.append({"step": st.id, "parent": st.parent.id if st.parent else None,
                         "depth": st.depth, "treatment": t.type if t else "original",
                         "parameters": t.params() if t else {},
                         "seed": st.seed if (t is not None and t.random) else None,
                         "seconds": round(st.seconds, 6),
                         "head": ", ".join(self.heads.get(st.id, []))})
        df = pd.DataFrame(rows).set_index("step")
        df["parent"] = pd.array([r["parent"] for r in rows], dtype="Int64")
        df["seed"] = pd.array([r["seed"] for r in rows], dtype="Int64")
        return df

    def to_text(self) -> str:
        """An indented text tree; ``← HEAD name`` marks the HEAD of each live session."""
        lines = []
        for st, pre, _ in self._walk():
            h = self.heads.get(st.id)
            mark = f"  ← HEAD {', '.join(h)}" if h else ""
            lines.append(f"{pre}{st.describe()}{mark}")
        return "\n".join(lines)

    def to_html(self) -> str:
        """HTML (escaped): the text tree in a ``<pre>`` with HEADs in bold, inside a card."""
        lines = []
        for st, pre, _ in self._walk():
            h = self.heads.get(st.id)
            mark = f' <b class="sdc-up">← HEAD {esc(", ".join(h))}</b>' if h else ""
            lines.append(f"{esc(pre)}{esc(st.describe())}{mark}")
        return (CSS + '<div class="sdc-card"><h4>History tree</h4><pre style="margin:0">'
                + "\n".join(lines) + f"</pre><!-- {esc(self.to_text())} --></div>")

    def __repr__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        return self.to_html()


def tree(session: SdcSession) -> TreeView:
    """The history tree shared by ``session`` and every branch made from it, HEADs marked.

    Reads the tree's ``sessions`` (weak references to the live sessions sharing it) for the HEAD
    marks; the steps themselves are never copied or recomputed.

    Example
    -------
    >>> import pandas as pd, sdcsession as sdc
    >>> s = sdc.SdcSession(pd.DataFrame({"a": list("xyxy")}), keys=["a"], seed=1)
    >>> b = s.branch("b").recode("a", {"y": "x"})
    >>> print(tree(s))
    #0 original  ← HEAD main
    └─ #1 recode(column='a', mapping={'y': 'x'})  ← HEAD b
    >>> tree(s).to_frame()["head"].tolist()
    ['main', 'b']
    """
    if not _is_session(session):
        raise ParameterError(f"tree: expected an SdcSession, got {type(session).__name__}")
    t = session._tree
    heads: dict[int, list[str]] = {}
    refs: list[weakref.ref] = getattr(t, "sessions", [])
    live = [r() for r in refs]
    if not any(x is session for x in live):
        live.append(session)
    for x in live:
        if x is not None:
            heads.setdefault(x.head.id, []).append(x.name)
    return TreeView(t.root, heads)


# -------------------------------------------------------------------------------- estimates
def estimates(*items: Any, indicator: Any = None, formula: str | None = None,
              term: str | None = None, weight: str | None = None, level: float = 0.95,
              method: str = "normal", n_boot: int = 200, seed: int = 0,
              original: bool = True) -> pd.DataFrame:
    """Point estimates with confidence intervals across scenarios (for :func:`plotting.ci_plot`).

    Either a benchmark ``indicator`` (``"mean:income"``, see
    :func:`sdcsession.utility.benchmark.indicator_ci`, overall group only) or the coefficient
    ``term`` of a (weighted) least-squares regression ``formula`` (patsy notation, parsed by
    ``sdcsession.utility.formula`` and never evaluated as Python, e.g. ``"income ~ C(sex) + age"``,
    term ``"C(sex)[T.m]"``; Wald interval ``b ± z·SE``).
    ``original=True`` puts the original data first (named ``"original"``).

    Returns ``scenario, estimate, lower, upper`` (one row per scenario).

    Example
    -------
    >>> import pandas as pd, sdcsession as sdc
    >>> df = pd.DataFrame({"x": [1.0, 2, 3, 4, 5, 6], "k": list("ababab")})
    >>> s = sdc.SdcSession(df, keys=["k"], numeric=["x"], seed=1)
    >>> estimates(s, indicator="mean:x", original=False).estimate.tolist()
    [3.5]
    """
    if (indicator is None) == (formula is None):
        raise ParameterError("estimates: give either indicator= or formula= (with term=)")
    if formula is not None and not term:
        raise ParameterError("term: the regression coefficient to show, e.g. 'C(sex)[T.m]'")
    sc = scenarios(*items)
    frames = [(name, st.state.data) for name, st in sc]
    if original and sc:
        frames = [("original", sc[0][1].state.original)] + frames
    rows = []
    for name, data in frames:
        if indicator is not None:
            from ..utility.benchmark import indicator_ci

            ci = indicator_ci(data, indicator, weight=weight, method=method, n_boot=n_boot,
                              level=level, seed=seed)
            est, lo, hi = (float(ci[c].iloc[0]) for c in ("estimate", "lower", "upper"))
        else:
            est, lo, hi = _coefficient(data, formula, term, weight, level)  # type: ignore[arg-type]
        rows.append({"scenario": name, "estimate": est, "lower": lo, "upper": hi})
    return pd.DataFrame(rows, columns=["scenario", "estimate", "lower", "upper"])


def _coefficient(data: pd.DataFrame, formula: str, term: str, weight: str | None,
                 level: float) -> tuple[float, float, float]:
    from scipy import stats

    from ..utility.regression import fit_formula  # the safe formula language, never eval

    fit = fit_formula(data, formula, model="ols" if weight is None else "wls", weight=weight)
    if term not in fit.params.index:
        raise ParameterError(f"term: {term!r} not in the model; terms: {list(fit.params.index)}")
    b, se = float(fit.params[term]), float(fit.bse[term])
    z = float(stats.norm.ppf(0.5 + level / 2))
    return b, b - z * se, b + z * se
>>>>>>> h7
