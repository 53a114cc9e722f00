"""Information loss for categorical variables: missing values, changed records, contingency tables,
direct comparison distances.

All functions take ``(original, masked)`` DataFrames. Record-level measures (missing values added,
records changed, direct distances) need the files paired by index and raise
`MeasureError` otherwise; table measures compare distributions and work
on files of different lengths. In tables a missing value is, by default, a category of its own
(``missing="category"``) so that a suppression moves a record from its category to "missing"; with
``missing="drop"`` records missing on any table variable are left out.

The record-level measures are defined here; the table measures (``contingency_table``, ``ut``,
``ut2``, ``aad``, ``hellinger``, ``ctbil``, ``contingency_loss``) in the private module
``_contingency`` and Cramér's V (``cramers_v``, ``cramers_v_loss``) in ``_cramers_v``, re-exported
here.

References: Templ, *Advanced Survey Statistics: Disclosure Control, part 6* (missing values m_j,
mp_j; UT, UT2); Domingo-Ferrer & Torra (2001) (direct comparison, CTBIL); Gomatam & Karr (2003) and
Shlomo (2010) (AAD, Hellinger distance, Cramér's V information loss) — as summarised in the
handbook chapter *Measurement of information loss* and the global data utility paper
(``shared/literature``).

Example
-------
>>> import pandas as pd
>>> o = pd.DataFrame({"sex": ["m", "f", "m", "f"], "reg": ["a", "a", "b", "b"]})
>>> m = o.assign(sex=["m", None, "m", "f"])
>>> int(suppressions(o, m)["suppressions"]["sex"])
1
>>> ctbil(o, m, columns=["sex"], max_dim=1)   # 1-d table distance = 2 x suppressions
2.0
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError
from .._align import (
    check_frames,
    check_named,
    encode_pair,
    is_numeric_column,
    mapping_arg,
    paired,
    resolve_columns,
    shares_values,
)
from ._contingency import (
    Missing,  # noqa: F401  (the type alias, importable from here as before)
    aad,
    contingency_loss,
    contingency_table,
    ctbil,
    hellinger,
    ut,
    ut2,
)
from ._cramers_v import cramers_v, cramers_v_loss

__all__ = [
    "missing_values",
    "suppressions",
    "records_changed",
    "contingency_table",
    "ut",
    "ut2",
    "aad",
    "hellinger",
    "ctbil",
    "cramers_v",
    "cramers_v_loss",
    "contingency_loss",
    "direct_distance",
]


# ------------------------------------------------------------------------ missing / changes
def missing_values(
    original: pd.DataFrame, masked: pd.DataFrame, *, columns: Iterable[Hashable] | None = None
) -> pd.DataFrame:
    """Missing values per variable before and after masking, and the additional missings.

    With indicator matrices r^X, r^Y (1 = missing) the additional missings of variable j are
    ``m_j = Σ_i [r^X_ij = 0 and r^Y_ij = 1]`` and ``mp_j = 100 · m_j / n`` (Templ 2019, part 6).
    Direction: higher = more loss; range 0 ≤ m_j ≤ n, 0 ≤ mp_j ≤ 100. Needs pairing.

    Returns a DataFrame indexed by variable: ``missing_original``, ``missing_masked``, ``m`` (m_j),
    ``mp`` (mp_j, percent).

    Missing values: this measure counts them: m_j counts values present in the original and missing
    in the masked file, for numeric variables too.

    Example
    -------
    >>> o = pd.DataFrame({"a": [1, None, 3, 4]}); m = pd.DataFrame({"a": [None, None, 3, None]})
    >>> missing_values(o, m).loc["a"].tolist()
    [1.0, 3.0, 2.0, 50.0]
    """
    name = "missing_values"
    check_frames(original, masked, name)
    cols = resolve_columns(original, masked, columns, name)
    masked = paired(original, masked, name)
    n = len(original)
    mo, mm, m = [], [], []
    for c in cols:
        ro = original[c].isna().to_numpy()
        mo.append(int(np.count_nonzero(ro)))
        if shares_values(original[c], masked[c]):  # the same values: nothing missing anew
            mm.append(mo[-1])
            m.append(0)
            continue
        rm = masked[c].isna().to_numpy()
        mm.append(int(np.count_nonzero(rm)))
        m.append(int(np.count_nonzero(rm & ~ro)) if mm[-1] else 0)
    m = np.array(m)
    return pd.DataFrame(
        {
            "missing_original": mo,
            "missing_masked": mm,
            "m": m,
            "mp": 100.0 * m / n if n else np.zeros(len(cols)),
        },
        index=pd.Index(cols, name="variable"),
    )


def suppressions(
    original: pd.DataFrame, masked: pd.DataFrame, *, keys: Iterable[Hashable] | None = None
) -> pd.DataFrame:
    """Suppressions per key variable, as sdcMicro prints them (``print(sdc, "ls")``).

    A suppression is a value present in the original and missing in the masked file (m_j of
    `missing_values`); the percentage is ``100 · m_j / n``. Direction: higher = more loss;
    range [0, n] and [0, 100]. Needs pairing.

    Missing values: counts values present in the original and missing in the masked file (numeric
    variables too).

    Example
    -------
    >>> o = pd.DataFrame({"k": ["a", "b", "c", "d"]}); m = o.assign(k=["a", None, "c", "d"])
    >>> suppressions(o, m).loc["k"].tolist()
    [1.0, 25.0]
    """
    mv = missing_values(original, masked, columns=keys)
    return suppressions_frame(list(mv.index), mv["m"].to_numpy(), len(original))


def suppressions_frame(keys: list[Hashable], m: np.ndarray, n: int) -> pd.DataFrame:
    """The table of `suppressions` from the counts ``m`` of ``n`` records (shared with the Dask
    session, which adds the counts over the partitions).

    Missing values: ``m`` counts them (values missing now, present in the original).

    >>> suppressions_frame(["k"], np.array([1]), 4).loc["k"].tolist()
    [1.0, 25.0]
    """
    m = np.asarray(m, dtype=np.int64)
    return pd.DataFrame({"suppressions": m,
                         "suppressions_pct": 100.0 * m / n if n else np.zeros(len(keys))},
                        index=pd.Index(keys, name="key"))


def _changed_vector(o: pd.Series, m: pd.Series) -> np.ndarray:
    if is_numeric_column(o) and is_numeric_column(m):
        a = o.to_numpy(dtype=np.float64, na_value=np.nan)
        b = m.to_numpy(dtype=np.float64, na_value=np.nan)
        na_a, na_b = np.isnan(a), np.isnan(b)
        return ((a != b) & ~(na_a & na_b)) | (na_a != na_b)
    enc = encode_pair(o, m)
    return enc.codes_o != enc.codes_m


def records_changed(
    original: pd.DataFrame, masked: pd.DataFrame, *, columns: Iterable[Hashable] | None = None
) -> pd.DataFrame:
    """Number and share of records whose value changed, per variable.

    ``changed_j = Σ_i [x_ij ≠ x'_ij]`` with two missing values counted as equal and a value
    versus a missing value as a change (so suppressions count); ``share_j = changed_j / n``.
    Reference: Benschop, Machingauta & Welch, *SDC Practice Guide*, "Number of records changed".
    Direction: higher = more loss; range [0, n] and [0, 1]. Needs pairing.

    Missing values: two missing values are equal; a value against a missing one is a change.

    Example
    -------
    >>> o = pd.DataFrame({"k": ["a", "b", "c", "d"]}); m = o.assign(k=["a", "x", None, "d"])
    >>> records_changed(o, m).loc["k"].tolist()
    [2.0, 0.5]
    """
    name = "records_changed"
    check_frames(original, masked, name)
    cols = resolve_columns(original, masked, columns, name)
    masked = paired(original, masked, name)
    n = len(original)
    ch = np.array([int(_changed_vector(original[c], masked[c]).sum()) for c in cols])
    return pd.DataFrame(
        {"changed": ch, "share": ch / n if n else np.zeros(len(cols))},
        index=pd.Index(cols, name="variable"),
    )


# ------------------------------------------------------------------------ direct comparison
def direct_distance(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Iterable[Hashable] | None = None,
    scales: dict[Hashable, str] | None = None,
) -> pd.Series:
    """Mean direct-comparison distance per variable (Domingo-Ferrer & Torra 2001).

    Nominal: ``d(c, c') = 0 if c = c' else 1``. Ordinal: ``d(c, c') = |{c'': min(c, c') ≤ c'' <
    max(c, c')}| / |D(V)|`` — the number of categories between, over the size of the range D(V)
    (the union of categories; an ordered categorical keeps its order, numbers are sorted).
    Missing values: nominal — a category of its own; ordinal — two missings are at distance 0, a
    suppressed (or imputed) value is put at the far end of the range from the other value.
    ``scales`` maps a variable to "nominal" or "ordinal"; by default ordered categoricals are
    ordinal and everything else nominal. Result: Series of means over records. Direction: higher
    = more loss; range [0, 1]. Needs pairing.

    Example
    -------
    >>> o = pd.DataFrame({"g": pd.Categorical(["a", "b", "c", "d"], ordered=True)})
    >>> m = o.assign(g=pd.Categorical(["a", "a", "d", "d"], categories=list("abcd"), ordered=True))
    >>> float(direct_distance(o, m)["g"])   # (0 + 1/4 + 1/4 + 0) / 4
    0.125
    """
    name = "direct_distance"
    check_frames(original, masked, name)
    cols = resolve_columns(original, masked, columns, name)
    masked = paired(original, masked, name)
    scales = mapping_arg(scales, name, "scales")
    check_named(scales, cols, name, "scales names")
    out = {}
    for c in cols:
        o, m = original[c], masked[c]
        default = "ordinal" if (isinstance(o.dtype, pd.CategoricalDtype) and o.cat.ordered) \
            else "nominal"
        sc = scales.get(c, default)
        if sc not in ("nominal", "ordinal"):
            raise ParameterError(f"{name}: scale of {c!r} must be 'nominal' or 'ordinal', got {sc!r}")
        enc = encode_pair(o, m)
        if sc == "nominal":
            d = (enc.codes_o != enc.codes_m).astype(np.float64)
        else:
            if not enc.ordered and not (is_numeric_column(o) and is_numeric_column(m)):
                raise MeasureError(
                    f"{name}: {c!r} is declared ordinal but has no order (give an ordered "
                    "categorical with the same categories in both files, or numbers)"
                )
            d = _ordinal_steps(enc.codes_o, enc.codes_m, enc.n_categories)
            d = d / max(enc.n_categories, 1)
        out[c] = float(d.mean()) if len(d) else 0.0
    return pd.Series(out, name="direct_distance", dtype=np.float64).rename_axis("variable")


def _ordinal_steps(co: np.ndarray, cm: np.ndarray, r: int) -> np.ndarray:
    """|rank difference| with the far-end rule for a missing value on one side."""
    d = np.abs(co - cm).astype(np.float64)
    na_o, na_m = co < 0, cm < 0
    far_from_o = np.maximum(co, (r - 1) - co)
    far_from_m = np.maximum(cm, (r - 1) - cm)
    d = np.where(na_m & ~na_o, far_from_o, d)
    d = np.where(na_o & ~na_m, far_from_m, d)
    d = np.where(na_o & na_m, 0.0, d)
    return d
