"""Młodak's complex information loss λ over variables of mixed measurement scales (nominal,
ordinal, continuous) and its contributions λ_j (sdcMicro ``IL_variables``).

Re-exported and documented by `sdcsession.utility.continuous.measures`.

References (see ``shared/literature``): Młodak (2020) and Młodak, Pietrzak & Józefowski (2022).

Example
-------
>>> import pandas as pd
>>> o = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
>>> il_variables(o, o.assign(x=[0.0, 1.0, 2.0, 4.0])).overall   # (2/π)·arctan(1) / 4 records
0.125
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

import attrs
import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError
from ..risk._codes import check_flag
from ._align import (
    check_frames,
    check_named,
    check_types,
    encode_pair,
    is_numeric_column,
    paired,
    resolve_columns,
    shares_values,
)
from .categorical.measures import _ordinal_steps

__all__ = ["il_variables", "ILVariables"]


@attrs.frozen
class ILVariables:
    """Result of `il_variables`: ``overall`` λ, ``by_variable`` λ_j, and the ``types`` used.

    Example
    -------
    >>> r = ILVariables(0.5, pd.Series({"a": 0.5}), {"a": "nominal"})
    >>> r.overall, float(r.by_variable["a"])
    (0.5, 0.5)
    """

    overall: float
    by_variable: pd.Series
    types: dict

    def __float__(self) -> float:
        return float(self.overall)

    def to_frame(self) -> pd.DataFrame:
        """λ_j with the variable types, one row per variable."""
        return pd.DataFrame({"type": pd.Series(self.types), "lambda": self.by_variable})


def _var_type(s: pd.Series) -> str:
    if isinstance(s.dtype, pd.CategoricalDtype):
        return "ordinal" if s.cat.ordered else "nominal"
    if is_numeric_column(s):
        return "continuous"
    return "nominal"


def il_variables(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Iterable[Hashable] | None = None,
    types: dict[Hashable, str] | None = None,
    sdcmicro: bool = False,
) -> ILVariables:
    """Młodak's complex information loss λ and the contributions λ_j (sdcMicro ``IL_variables``).

    ``λ = Σ_j Σ_i d(x'_ij, x_ij) / (m·n)`` and ``λ_j = Σ_i d(x'_ij, x_ij) / n`` with distances in
    [0, 1] by measurement scale (Młodak 2020; Młodak, Pietrzak & Józefowski 2022):

    - nominal: 0 if equal, else 1 (missing is a category: a suppressed value counts 1);
    - ordinal: |rank difference| / (r_j − 1) over the r_j ordered categories;
    - continuous: (2/π) · arctan |x' − x|.

    Suppressed (missing) masked values, published rule: ordinal — x' is put at the far end
    (category 1 when x is closer to r_j, r_j when closer to 1); continuous — x' := max_h x_hj if
    x ≤ median_h x_hj, else min_h x_hj (over the original). A value missing in the original but
    present in the masked file is treated symmetrically (x := far end from x'); two missings
    are at distance 0. ``sdcmicro=True`` reproduces sdcMicro's IL_variables instead: a missing on
    one side gets the maximal ordinal distance 1 and, for continuous variables, the distance of
    the largest possible difference max(|min x' − max x|, |max x' − min x|).
    ``types`` maps variables to "nominal", "ordinal" or "continuous"; by default ordered
    categoricals are ordinal, other categoricals/strings/bools nominal, numbers continuous.
    Direction: higher = more loss; range [0, 1]. Needs pairing.

    Missing values: see the rules above (published, or sdcMicro's with ``sdcmicro=True``); two
    missing values are at distance 0.

    Example
    -------
    >>> o = pd.DataFrame({"s": ["a", "b", "a", "b"], "x": [0.0, 1.0, 2.0, 3.0]})
    >>> m = o.assign(s=["a", "a", None, "b"])
    >>> r = il_variables(o, m)
    >>> r.overall, r.by_variable.to_dict()
    (0.25, {'s': 0.5, 'x': 0.0})
    """
    name = "il_variables"
    check_flag(sdcmicro, "sdcmicro")
    check_frames(original, masked, name)
    cols = resolve_columns(original, masked, columns, name)
    masked = paired(original, masked, name)
    types = check_types(types, name)
    check_named(types, cols, name, "types names")
    n = len(original)
    if n == 0:
        raise MeasureError(f"{name}: no records")
    used, lam = {}, {}
    for c in cols:
        o, m = original[c], masked[c]
        t = types.get(c, _var_type(o))
        if t not in ("nominal", "ordinal", "continuous"):
            raise ParameterError(
                f"{name}: type of {c!r} must be 'nominal', 'ordinal' or 'continuous', got {t!r}"
            )
        if t != "ordinal" and shares_values(o, m):  # the same values: λ_j = 0 / n
            if t == "continuous":  # checked as below
                _continuous_values(o, c, "original")
            d = np.zeros(1)
        elif t == "continuous":
            d = _lambda_continuous(o, m, c, sdcmicro)
        else:
            enc = encode_pair(o, m)
            if t == "nominal":
                d = (enc.codes_o != enc.codes_m).astype(np.float64)
            else:
                if not enc.ordered:
                    raise MeasureError(
                        f"{name}: {c!r} is ordinal but has no common order (give an ordered "
                        "categorical with the same categories in both files, or numbers)"
                    )
                r = enc.n_categories
                if r < 2:
                    d = (enc.codes_o != enc.codes_m).astype(np.float64)
                else:
                    if sdcmicro:
                        steps = np.abs(enc.codes_o - enc.codes_m).astype(np.float64)
                        one = (enc.codes_o < 0) != (enc.codes_m < 0)
                        steps[one] = r - 1
                        steps[(enc.codes_o < 0) & (enc.codes_m < 0)] = 0
                    else:
                        steps = _ordinal_steps(enc.codes_o, enc.codes_m, r)
                    d = steps / (r - 1)
        used[c] = t
        lam[c] = float(d.sum() / n)
    by_var = pd.Series(lam, name="lambda", dtype=np.float64).rename_axis("variable")
    return ILVariables(float(by_var.mean()), by_var, used)


def _continuous_values(s: pd.Series, col: Hashable, which: str) -> np.ndarray:
    """The values of a continuous column as floats (NaN = missing); MeasureError for a column
    that is not numeric or holds an infinity."""
    if not is_numeric_column(s):
        raise MeasureError(
            f"il_variables: {col!r} is continuous but the {which} column has dtype {s.dtype}"
        )
    x = s.to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isinf(x).any():
        raise MeasureError(f"il_variables: infinite values in {col!r}")
    return x


def _lambda_continuous(o: pd.Series, m: pd.Series, col: Hashable, sdcmicro: bool) -> np.ndarray:
    name = "il_variables"
    for s, which in ((o, "original"), (m, "masked")):
        if not is_numeric_column(s):
            raise MeasureError(
                f"{name}: {col!r} is continuous but the {which} column has dtype {s.dtype}"
            )
    x = _continuous_values(o, col, "original")
    z = _continuous_values(m, col, "masked")
    na_x, na_z = np.isnan(x), np.isnan(z)
    v = x - z
    np.abs(v, out=v)  # in place: the same values, fewer temporaries
    one = na_x != na_z
    if one.any():
        if na_x.all() or na_z.all():
            raise MeasureError(f"{name}: {col!r} is entirely missing in one file")
        if sdcmicro:
            max_diff = max(abs(np.nanmin(z) - np.nanmax(x)), abs(np.nanmax(z) - np.nanmin(x)))
            v[one] = max_diff
        else:
            med, lo, hi = np.nanmedian(x), np.nanmin(x), np.nanmax(x)
            # suppressed in masked: x' := max if x <= median else min
            sm = na_z & ~na_x
            v[sm] = np.abs(np.where(x[sm] <= med, hi, lo) - x[sm])
            # missing in original only: the far end from x' (median/min/max of the masked file)
            so = na_x & ~na_z
            medz, loz, hiz = np.nanmedian(z), np.nanmin(z), np.nanmax(z)
            v[so] = np.abs(np.where(z[so] <= medz, hiz, loz) - z[so])
    if na_x.any():
        v[na_x & na_z] = 0.0
    np.arctan(v, out=v)
    v *= 2.0 / np.pi  # (2/π) · arctan, each product as before
    return v
