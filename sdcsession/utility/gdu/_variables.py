"""Data model of the global data utility (GDU) model: one variable of the model (its measurement
level, shared integer codes and ordinal values on the original and protected side) and the
preparation helpers (type inference, normality test, shared label space, applying or deriving a
global recoding). Used by `sdcsession.utility.gdu.model`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError

TYPES = ("nominal", "ordinal", "continuous", "normal", "nonnormal")
_LEVEL = {"nominal": 0, "ordinal": 1, "nonnormal": 2, "normal": 3}
_LEVEL_NAME = {v: k for k, v in _LEVEL.items()}


# --------------------------------------------------------------------------------------------
# variable preparation
# --------------------------------------------------------------------------------------------


@attrs.define
class _Side:
    codes: np.ndarray  # int, -1 missing (label space shared between the sides where possible)
    values: np.ndarray  # float, NaN missing (for ordinal/continuous use)


@attrs.define
class _Var:
    name: str
    type_o: str
    level_o: int
    level_p: int
    k: int  # size of the shared code space
    o: _Side
    p: _Side | None  # None: removed
    d: _Side | None  # original side for direction matching (recoded variables), else None
    recoded: bool = False
    recoding: Any = None
    ldu_gr: float = 1.0
    gr_variant: str | None = None

    @property
    def level(self) -> int:
        return min(self.level_o, self.level_p)


def _infer_type(s: pd.Series) -> str:
    if isinstance(s.dtype, pd.CategoricalDtype):
        return "ordinal" if s.dtype.ordered else "nominal"
    if pd.api.types.is_bool_dtype(s.dtype):
        return "nominal"
    if pd.api.types.is_numeric_dtype(s.dtype):
        return "continuous"
    return "nominal"


def _is_numeric(s: pd.Series) -> bool:
    return (
        pd.api.types.is_numeric_dtype(s.dtype)
        and not pd.api.types.is_bool_dtype(s.dtype)
        and not isinstance(s.dtype, pd.CategoricalDtype)
    )


def _ordinal_values(s: pd.Series) -> np.ndarray:
    if isinstance(s.dtype, pd.CategoricalDtype):
        c = s.cat.codes.to_numpy().astype(float)
        c[c < 0] = np.nan
        return c
    if _is_numeric(s):
        return s.to_numpy(dtype=float, na_value=np.nan)
    raise MeasureError(
        f"column {s.name!r}: declared ordinal but neither numeric nor an ordered categorical"
    )


def _normal(x: np.ndarray, alpha: float) -> bool:
    x = x[~np.isnan(x)]
    if len(x) < 3 or np.std(x) == 0:
        return False
    from ._dist import ks_rejects_for_sure

    mean, sd = x.mean(), x.std(ddof=1)
    if ks_rejects_for_sure(x, mean, sd, alpha):  # far from normal: no exact p-value needed
        return False
    from scipy import stats

    p = stats.kstest(x, "norm", args=(mean, sd)).pvalue
    return bool(p >= alpha)


def _joint_codes(a: pd.Series, b: pd.Series) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    """Integer codes (-1 missing) of two columns in one shared label space. Labels are compared
    as values when both columns are numeric, else as their string forms."""
    ca, la = pd.factorize(a)
    cb, lb = pd.factorize(b)
    numeric = _is_numeric(a) and _is_numeric(b)
    ka = pd.Index(la if numeric else [str(v) for v in la], dtype=object)
    kb = pd.Index(lb if numeric else [str(v) for v in lb], dtype=object)
    labels = ka.append(kb[~kb.isin(ka)]).unique()
    ma = labels.get_indexer(ka)
    mb = labels.get_indexer(kb)
    oa = np.where(ca >= 0, ma[np.maximum(ca, 0)] if len(ma) else -1, -1).astype(np.int64)
    ob = np.where(cb >= 0, mb[np.maximum(cb, 0)] if len(mb) else -1, -1).astype(np.int64)
    return oa, ob, labels


def _apply_recoding(s: pd.Series, rec: Any) -> pd.Series:
    if callable(rec):
        out = rec(s)
        return out if isinstance(out, pd.Series) else pd.Series(np.asarray(out), index=s.index)
    if isinstance(rec, Mapping):
        return s.map(lambda v: rec.get(v, np.nan) if pd.notna(v) else np.nan)
    if isinstance(rec, Sequence) and not isinstance(rec, str):
        if not _is_numeric(s):
            raise MeasureError(f"recoded[{s.name!r}]: breaks need a numeric original column")
        return pd.cut(s, bins=list(rec), right=True, include_lowest=True)
    raise ParameterError(
        f"recoded[{s.name!r}]: expected a mapping, a list of breaks, a callable or None, got {rec!r}"
    )


def _derive_recoding(o: pd.Series, m: pd.Series) -> pd.Series:
    """Recoded original derived by pairing records: each original value goes to its modal masked
    label. Needs the same number of records in both files."""
    if len(o) != len(m):
        raise MeasureError(
            f"variable {o.name!r} looks globally recoded but the files differ in records "
            f"({len(o)} vs {len(m)}); pass recoded={{{o.name!r}: mapping or breaks}}"
        )
    oc, ol = pd.factorize(o.reset_index(drop=True))
    mc, ml = pd.factorize(m.reset_index(drop=True))
    ok = (oc >= 0) & (mc >= 0)
    if not ok.any():
        return pd.Series(np.nan, index=o.index, dtype=object)
    tab = np.bincount(oc[ok] * len(ml) + mc[ok], minlength=len(ol) * len(ml)).reshape(
        len(ol), len(ml)
    )
    best = tab.argmax(1)
    has = tab.max(1) > 0
    lab = np.asarray(ml, dtype=object)[best]
    mapped = np.where((oc >= 0) & has[np.maximum(oc, 0)], lab[np.maximum(oc, 0)], None)
    return pd.Series(mapped, index=o.index, dtype=object)


def _looks_recoded(o: pd.Series, m: pd.Series) -> bool:
    if not m.notna().any():  # all missing, whatever its dtype: nothing was recoded into
        return False
    if _is_numeric(o) and not _is_numeric(m):
        return True
    if _is_numeric(o) and _is_numeric(m):
        return False
    ov = {str(v) for v in pd.unique(o.dropna())}
    mv = {str(v) for v in pd.unique(m.dropna())}
    return not mv <= ov
