"""Fully synthetic numeric data with exactly the means and covariance matrix of the original.

`synthesize` is the method of Mateo-Sanz, Martínez-Ballesté & Domingo-Ferrer (2004), sdcMicro's
``dataGen``, made exact. With x the complete records of the chosen columns (mean vector x̄,
sample covariance C, divisor n − 1) and n' the number of records wanted:

1. draw A (n'×p) standard normal and centre its columns;
2. orthonormalise: ``A_c = Q·R`` (QR), ``W = sqrt(n' − 1)·Q``, so W has column means 0 and
   ``W'W/(n' − 1) = I`` *exactly* (sdcMicro uses the raw draws, whose sample covariance is I
   only in expectation);
3. colour and shift: ``Z = 1·x̄' + W·U`` with ``U'U = C`` (the upper Cholesky factor; the
   symmetric square root when C is singular, e.g. a constant column).

Then ``mean(Z) = x̄`` and ``cov(Z) = U'·I·U = C`` to rounding. The records are multivariate normal
and carry no link to any original record (no original record is released), but non-normal
features (skewness, bounds, integer values, outliers) are not reproduced. Records with a missing
value in any chosen column are left out of x̄ and C (complete-case estimates; sdcMicro's default
``use="everything"`` gives missing covariances instead).

Reference: Mateo-Sanz, J. M., Martínez-Ballesté, A. & Domingo-Ferrer, J. (2004) Fast generation
of accurate synthetic microdata, in Privacy in Statistical Databases, LNCS 3050, 298–306.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [2.0, 1, 4, 3]})
>>> syn = synthesize(df, ["a", "b"], n=50, seed=1)
>>> syn.shape, bool(np.allclose(syn.cov(), df.cov()) and np.allclose(syn.mean(), df.mean()))
((50, 2), True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ParameterError

__all__ = ["synthesize"]

#: most values (records × columns) `synthesize` generates in one call
MAX_CELLS = 100_000_000


def _columns(data: pd.DataFrame, columns: Any) -> list[str]:
    if isinstance(columns, str):
        columns = [columns]
    if not isinstance(columns, Sequence) or not len(columns):
        raise ParameterError(f"columns: expected a non-empty list of column names, got "
                             f"{columns!r:.60}")
    cols = list(columns)
    bad = [c for c in cols if not isinstance(c, str)]
    if bad:
        raise ParameterError(f"columns: expected column names (text), got {bad!r:.60}")
    dup = sorted({c for c in cols if cols.count(c) > 1})
    if dup:
        raise ParameterError(f"columns: {dup} named more than once")
    unknown = [c for c in cols if c not in data.columns]
    twice = sorted({c for c in cols if c in data.columns and (data.columns == c).sum() > 1})
    if twice:
        raise ParameterError(f"columns: the data has several columns named {twice}")
    if unknown:
        raise ParameterError(f"columns: unknown column(s) {unknown}; the data has "
                             f"{list(data.columns)[:20]}")
    for c in cols:
        s = data[c]
        if (not pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype)
                or isinstance(s.dtype, pd.CategoricalDtype)):
            raise ParameterError(f"columns: column {c!r} must be numeric, has dtype {s.dtype}")
    return cols


def _check_n(n: Any, p: int) -> int:
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise ParameterError(f"n: expected a whole number of records, got {n!r:.60}")
    most = MAX_CELLS // p
    if not p + 1 <= n <= most:
        raise ParameterError(f"n: expected a number of records from {p + 1} (one more than the "
                             f"{p} column(s), so the covariance can be matched) to {most}, "
                             f"got {int(n)}")
    return int(n)


def _factor(cov: np.ndarray) -> np.ndarray:
    """U with ``U'U = cov``: the upper Cholesky factor, else the symmetric square root."""
    try:
        return np.linalg.cholesky(cov).T
    except np.linalg.LinAlgError:
        w, v = np.linalg.eigh(cov)
        return (v * np.sqrt(np.clip(w, 0.0, None))) @ v.T


def synthesize(data: pd.DataFrame, columns: Sequence[str] | str, n: int, *,
               seed: int | None = None) -> pd.DataFrame:
    """Synthetic records whose means and covariance equal those of ``data[columns]`` exactly.

    Parameters
    ----------
    data : the original microdata (not modified).
    columns : the numeric columns to synthesise.
    n : number of synthetic records (more than the number of columns).
    seed : seed of the normal draws (``numpy.random.default_rng(seed)``); None: fresh entropy.

    Returns a DataFrame of ``n`` rows (index 0..n-1) with the float64 columns ``columns``. See
    the module docstring for the algorithm; reference: Mateo-Sanz, Martínez-Ballesté &
    Domingo-Ferrer (2004), sdcMicro ``dataGen``.

    Example
    -------
    >>> df = pd.DataFrame({"x": [1.0, 2, 4, 8], "y": [1.0, 0, 1, 0]})
    >>> syn = synthesize(df, ["x", "y"], n=10, seed=0)
    >>> syn.mean().round(12).tolist(), syn.cov().round(9).equals(df.cov().round(9))
    ([3.75, 0.5], True)
    """
    if not isinstance(data, pd.DataFrame):
        raise ParameterError(f"data: expected a pandas DataFrame, got {type(data).__name__}")
    if isinstance(data.columns, pd.MultiIndex) or not data.columns.is_unique:
        raise ParameterError("data: expected unique, flat column names (a MultiIndex or a "
                             "duplicated name cannot be synthesised)")
    cols = _columns(data, columns)
    p = len(cols)
    n = _check_n(n, p)
    if seed is not None and (isinstance(seed, (bool, np.bool_))
                             or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ParameterError(f"seed: expected None or an integer >= 0, got {seed!r:.60}")
    x = data[cols].to_numpy(dtype=np.float64, na_value=np.nan)
    x = x[~np.isnan(x).any(axis=1)]
    if len(x) < 2:
        raise ParameterError(f"data: need at least 2 records complete on {cols} to estimate a "
                             f"covariance, got {len(x)}")
    if not np.isfinite(x).all():
        bad = [c for j, c in enumerate(cols) if not np.isfinite(x[:, j]).all()]
        raise ParameterError(f"data: column(s) {bad} have infinite values")
    mean = x.mean(axis=0)
    cov = np.cov(x, rowvar=False).reshape(p, p)
    rng = np.random.default_rng(None if seed is None else int(seed))
    a = rng.standard_normal((n, p))
    a -= a.mean(axis=0)
    q, r = np.linalg.qr(a)
    q *= np.where(np.diag(r) < 0, -1.0, 1.0)  # a deterministic function of the draws
    z = mean + np.sqrt(n - 1.0) * q @ _factor(cov)
    return pd.DataFrame(z, columns=cols)
