"""Association of two categorical variables: Cramér's V in one file and its relative change between
the original and the masked file (the information loss of Shlomo 2010).

Records with a missing value on either variable are left out; counts may be weighted. Both
functions are re-exported and documented by `sdcsession.utility.categorical.measures`.

Reference: Shlomo, N. (2010) Releasing microdata: disclosure risk estimation, data masking and
assessing utility, Journal of Privacy and Confidentiality 2(1) (``shared/literature``).

Example
-------
>>> import pandas as pd
>>> d = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "v", "v"]})
>>> round(cramers_v(d, columns=["a", "b"]), 4)
0.5774
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError
from .._align import (
    EncodedPair,
    check_frame,
    check_frames,
    encode_pair,
    resolve_columns,
    weights_of,
)
from ._contingency import _weights_pair

__all__ = ["cramers_v", "cramers_v_loss"]


def _cramers_v_table(t: np.ndarray) -> float:
    t = t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0]
    n = t.sum()
    r, c = t.shape
    if min(r, c) < 2 or n <= 0:
        return float("nan")
    e = np.outer(t.sum(axis=1), t.sum(axis=0)) / n
    chi2 = float(((t - e) ** 2 / e).sum())
    return float(np.sqrt(chi2 / (n * (min(r, c) - 1))))


def _two_way(encs: Sequence[EncodedPair], w_o, w_m) -> tuple[np.ndarray, np.ndarray]:
    a, b = encs
    out = []
    for ca, cb, w in ((a.codes_o, b.codes_o, w_o), (a.codes_m, b.codes_m, w_m)):
        keep = (ca >= 0) & (cb >= 0)
        j = ca[keep] * b.n_categories + cb[keep]
        t = np.bincount(j, weights=None if w is None else w[keep],
                        minlength=a.n_categories * b.n_categories)
        out.append(t.reshape(a.n_categories, b.n_categories).astype(np.float64))
    return out[0], out[1]


def cramers_v(
    data: pd.DataFrame, *, columns: Sequence[Hashable], weight: Hashable | None = None
) -> float:
    """Cramér's V of two categorical variables of one file (records with a missing value dropped).

    ``V = sqrt( χ² / (N · (min(r, c) − 1)) )`` on the r × c table without empty rows/columns;
    optionally weighted. Range [0, 1]. MeasureError when a variable has fewer than 2 categories.

    Missing values: records with a missing value in either variable are dropped (listwise).

    Example
    -------
    >>> d = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "u", "v", "v"]})
    >>> cramers_v(d, columns=["a", "b"])
    1.0
    """
    name = "cramers_v"
    check_frame(data, "data", name)
    cols = resolve_columns(data, None, columns, name, min_columns=2)
    if len(cols) != 2:
        raise ParameterError(f"{name}: columns must be two variables, got {cols}")
    w = weights_of(data, weight, name)
    encs = [encode_pair(data[c], data[c]) for c in cols]
    t, _ = _two_way(encs, w, w)
    v = _cramers_v_table(t)
    if np.isnan(v):
        raise MeasureError(f"{name}: {cols} need at least two observed categories each")
    return v


def cramers_v_loss(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Sequence[Hashable],
    weight: Hashable | None = None,
) -> float:
    """Relative change of Cramér's V in percent — the information loss of Shlomo (2010).

    ``RCV = 100 · (CV(D_pert) − CV(D_orig)) / CV(D_orig)`` for the two variables ``columns``
    (records with a missing value dropped). Negative = the association was attenuated, positive =
    strengthened; |RCV| is the loss (0 = no change). MeasureError when CV(D_orig) = 0. Does not
    need pairing. (The adjusted, squared and bounded version of the global data utility model is
    in `sdcsession.utility.gdu.model`.)

    Missing values: records with a missing value are dropped in each file (see `cramers_v`).

    Example
    -------
    >>> o = pd.DataFrame({"a": list("xxyy"), "b": list("uuvv")})
    >>> m = o.assign(b=list("uvvv"))
    >>> round(cramers_v_loss(o, m, columns=["a", "b"]), 3)
    -42.265
    """
    name = "cramers_v_loss"
    check_frames(original, masked, name)
    cols = resolve_columns(original, masked, columns, name, min_columns=2)
    if len(cols) != 2:
        raise ParameterError(f"{name}: columns must be two variables, got {cols}")
    w_o, w_m = _weights_pair(original, masked, weight, name)
    encs = [encode_pair(original[c], masked[c]) for c in cols]
    t_o, t_m = _two_way(encs, w_o, w_m)
    v_o, v_m = _cramers_v_table(t_o), _cramers_v_table(t_m)
    if np.isnan(v_o) or v_o == 0:
        raise MeasureError(
            f"{name}: Cramér's V of {cols} in the original is {v_o}; the relative change is "
            "undefined"
        )
    if np.isnan(v_m):
        v_m = 0.0
    return float(100.0 * (v_m - v_o) / v_o)
