"""The measures of a scenario comparison and the risk–utility frontier, on states.

`compare` (presentation layer) and `SdcSession.sweep` both show one row per scenario with the
same measure columns; the columns are `MeasureSpec` objects (`DEFAULT_MEASURES`, chosen per set of
states by `default_measures`, or given by the user and resolved by `measure_specs`). Every value is
read through `State.measure`, i.e. computed once per state and cached there.

The frontier (`frontier_positions`) is the set of scenarios not dominated on (risk, loss): a
dominates b when ``risk_a <= risk_b`` and ``loss_a <= loss_b`` with at least one strict
inequality (both lower-is-better).

Example
-------
>>> frontier_positions([5.0, 3.0, 4.0, 1.0], [0.0, 0.1, 0.2, 0.5]).tolist()
[0, 1, 3]
"""

from __future__ import annotations

import contextlib
import inspect
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError
from ..measures import MEASURES, cache_key

if TYPE_CHECKING:  # pragma: no cover
    from ..state import State

__all__ = ["MeasureSpec", "DEFAULT_MEASURES", "OPTIONAL_MEASURES", "RISK_COLUMNS", "LOSS_COLUMNS", "GDU_MAX_RECORDS",
           "default_measures", "measure_specs", "measure_block", "scalar", "measure_value",
           "frontier_positions",
           "pick_loss"]


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


#: Measures a comparison shows only when named (they are slow): the attacks without a control
#: set (their risk is then the success rate on the original records; `sdcsession.risk.attacks`),
#: TCAP of the first sensitive variable, the share of exact copies (DCR 0), and the model-utility
#: ratio (train on the scenario, test on the original; needs scikit-learn). Name them in
#: ``compare(..., measures=[...])``, e.g. ``measures=["k3_violations", "singling_out_risk"]``.
OPTIONAL_MEASURES: tuple[MeasureSpec, ...] = (
    MeasureSpec("singling_out_risk", "attack.singling_out", attr="risk"),
    MeasureSpec("linkability_risk", "attack.linkability", attr="risk"),
    MeasureSpec("inference_risk", "attack.inference", attr="risk"),
    MeasureSpec("tcap", "attack.tcap", attr="tcap"),
    MeasureSpec("dcr_exact_matches", "attack.dcr", attr="exact_matches"),
    MeasureSpec("ml_ratio", "utility.ml", role="utility", attr="ratio"),
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


def params_of(name: str, params: Any) -> tuple[tuple[str, Any], ...]:
    """``params`` of a ``(name, params)`` pair, checked against the measure's signature.

    >>> params_of("k_violations", {"k": 7})
    (('k', 7),)
    """
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


def measure_specs(measures: Any, states: Sequence[State]) -> list[MeasureSpec]:
    """The `MeasureSpec` columns for ``measures`` (``None``: `default_measures` of ``states``;
    else names of the defaults' columns or of `OPTIONAL_MEASURES`, registered measure names,
    ``(name, params)`` pairs, `MeasureSpec` or utility contracts, shown as ``"contract: <name>"``
    with their margin, see `sdcsession.utility.contracts`); a `ParameterError` names what is not a
    measure.

    >>> [m.column for m in measure_specs(["k3_violations"], [])]
    ['k3_violations']
    """
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
    by_col = {m.column: m for m in (*DEFAULT_MEASURES, *OPTIONAL_MEASURES)}
    for m in measures:
        if isinstance(m, MeasureSpec):
            out.append(m)
        elif type(m).__module__.startswith("sdcsession.utility.contracts"):  # a contract
            out.append(MeasureSpec(f"contract: {m.name}", "contract",
                                   (("contract", m.to_dict()),), role="utility", attr="margin"))
        elif isinstance(m, str) and m in by_col:
            out.append(by_col[m])
        elif isinstance(m, str) and m in MEASURES:
            out.append(MeasureSpec(m, m, role=MEASURES[m].kind))
        elif isinstance(m, tuple) and len(m) == 2 and isinstance(m[0], str) and m[0] in MEASURES:
            params = params_of(m[0], m[1])
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


# ---------------------------------------------------------------------------- values
def measure_block() -> contextlib.AbstractContextManager:
    """A block for reading many measures of a few states (a comparison): within it the
    numeric matrix of a frame and its standard deviations are built once and shared by IL1s,
    eigen and γ (`sdcsession.utility.continuous._numeric.reuse_matrices`; the same figures,
    dropped when the block ends).

    >>> with measure_block():
    ...     pass
    """
    from ...utility.continuous._numeric import reuse_matrices

    return reuse_matrices()


def scalar(v: Any) -> Any:
    """A measure value as a table cell: ``None`` → NaN, integers stay integers, an object with
    ``overall`` gives it; anything else that is not a number is a `MeasureError`.

    >>> scalar(None), scalar(np.int64(3)), scalar(0.5)
    (nan, 3, 0.5)
    """
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


def measure_value(m: MeasureSpec, state: State, name: str, failed: dict[str, str]) -> Any:
    """``m`` on ``state`` as a table cell (`scalar`); a `MeasureError` gives NaN and is noted in
    ``failed`` under ``"<column> (<name>)"``.

    >>> import pandas as pd
    >>> from sdcsession.roles import Roles
    >>> from sdcsession.session.state import State
    >>> df = pd.DataFrame({"sex": ["m", "f", "m"]})
    >>> st = State(df, Roles(keys=("sex",)), original=df, original_roles=Roles(keys=("sex",)))
    >>> measure_value(DEFAULT_MEASURES[2], st, "a", {})
    1
    """
    try:
        return scalar(m.value(state))
    except MeasureError as e:
        failed.setdefault(f"{m.column} ({name})", str(e))
        return np.nan


# ---------------------------------------------------------------------------- frontier
def _floats(values: Any) -> np.ndarray:
    s = values if isinstance(values, pd.Series) else pd.Series(np.asarray(values, dtype=object))
    return pd.to_numeric(s, errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def frontier_positions(risk: Any, loss: Any) -> np.ndarray:
    """Positions of the non-dominated scenarios on (risk, loss), sorted by increasing loss.

    Scenario a dominates b when ``risk_a <= risk_b`` and ``loss_a <= loss_b`` with at least one
    strict inequality (both measures: lower is better). Positions with a missing value in either
    array are left out. Algorithm: sort by (loss, risk) and keep every position whose risk is
    strictly below the minimum risk of all positions before it (O(n log n)).

    >>> frontier_positions([2.0, 2.0, np.nan], [0.1, 0.1, 0.0]).tolist()
    [0]
    """
    r, lo = _floats(risk), _floats(loss)
    if r.shape != lo.shape:
        raise ParameterError(f"frontier: risk and loss differ in length ({len(r)} and {len(lo)})")
    ok = np.flatnonzero(~np.isnan(r) & ~np.isnan(lo))
    order = ok[np.lexsort((r[ok], lo[ok]))]
    keep = []
    best = math.inf
    for i in order:  # loop over scenarios, not records
        if r[i] < best:
            keep.append(int(i))
            best = r[i]
    return np.asarray(keep, dtype=np.int64)


def pick_loss(df: pd.DataFrame) -> str:
    """The first loss column of a comparison with at least one value (λ, IL1s, suppressions…).

    >>> pick_loss(pd.DataFrame({"il1s": [0.2], "lambda": [np.nan]}))
    'il1s'
    """
    for c in ("lambda", "il1s", "suppressions", "eigen", "il_correl"):
        if c in df.columns and pd.to_numeric(df[c], errors="coerce").notna().any():
            return c
    roles = df.attrs.get("roles", {})
    for c, role in roles.items():
        if role == "loss" and c in df.columns:
            return c
    raise ParameterError("loss: the comparison has no information-loss column; give loss=")

