"""Data shuffling (Muralidhar & Sarathy 2006) of numeric confidential variables.

Algorithm (normal-copula version of Muralidhar & Sarathy):

1. Normal scores: every confidential column X_j (``columns``) and every non-confidential column
   S_l (``by``) is replaced by ``Φ⁻¹((rank − 0.5)/n)`` (average ranks for ties).
2. Their correlation matrix C is split into ``C_XX, C_XS, C_SS``. Perturbed normal scores are
   drawn from the conditional distribution given S:
   ``Y* = S*·B + E``, ``B = C_SS⁻¹·C_SX``, ``E ~ N(0, C_XX − C_XS·C_SS⁻¹·C_SX)``
   (with no ``by`` columns: ``Y* ~ N(0, C_XX)``).
3. Reverse mapping: for each column j, the record with the r-th smallest ``Y*_j`` receives the
   r-th smallest *original* value of X_j.

Properties: every released column is a permutation of the original values (marginal
distributions exactly preserved); rank correlations among the X and between X and S are preserved
approximately (through the copula); the released value of a record is not a function of its own
confidential value given S (disclosure risk is that of S alone). Sound as implemented for
continuous data; heavy ties in a column (e.g. many zeros) make the normal-score step coarse and the
rank-correlation preservation approximate.

Other methods (``method="mvn" | "mlm" | "mlm_ds"``) and the estimators ``covmethod``
(``"pearson"``, ``"spearman"``, ``"mcd"``) and ``regmethod`` (``"lm"``, ``"mm"``) are described in
`sdcsession.methods.swapping.shuffling_models`. The default (``method="ds"``, Pearson correlations of the
normal scores) is the algorithm above; sdcMicro's default ``covmethod="spearman"`` is
``covmethod="spearman"`` here.

Missing values: only records complete on ``columns`` and ``by`` are shuffled; the others are left
as they are (counted in the notes).

Reference: Muralidhar, K. & Sarathy, R. (2006) Data shuffling — a new masking approach for
numerical data, Management Science 52(5), 658–670.

Example
-------
>>> import numpy as np, pandas as pd
>>> rng = np.random.default_rng(0)
>>> s = rng.normal(size=500)
>>> df = pd.DataFrame({"s": s, "x": s + rng.normal(size=500)})
>>> out, notes = shuffle(df, ["x"], by=["s"], rng=np.random.default_rng(1))
>>> sorted(out["x"]) == sorted(df["x"]), bool(out["x"].corr(df["s"]) > 0.5)
(True, True)
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd

from ...errors import ParameterError, TreatmentError
from ...roles import Roles
from ..base import Result, Treatment, check_choice, param_names
from ..noise.addition import _names, numeric_block
from .rank_swapping import _restore
from .shuffling_models import (
    COV_METHODS,
    REG_METHODS,
    SHUFFLE_METHODS,
    correlation,
    perturbed_values,
)

__all__ = ["shuffle", "Shuffle"]


def _normal_scores(x: np.ndarray) -> np.ndarray:
    from scipy import stats

    n = len(x)
    r = stats.rankdata(x, axis=0, method="average")
    return stats.norm.ppf((r - 0.5) / n)


def _check_options(columns: tuple[str, ...], by: tuple[str, ...], method: Any, covmethod: Any,
                   regmethod: Any) -> None:
    """`ParameterError` for an unknown method name or an option the method does not use."""
    if set(columns) & set(by):
        raise ParameterError(f"by: column(s) {sorted(set(columns) & set(by))} cannot be both "
                             "shuffled and conditioning variables")
    check_choice("method", method, SHUFFLE_METHODS)
    if covmethod is not None:
        check_choice("covmethod", covmethod, COV_METHODS)
        if method == "mlm":
            raise ParameterError("covmethod: method 'mlm' draws no perturbation, so covmethod "
                                 "does not apply (use method='mlm_ds')")
    if regmethod is not None:
        check_choice("regmethod", regmethod, REG_METHODS)
        if method not in ("mvn", "mlm", "mlm_ds"):
            raise ParameterError(f"regmethod: applies to methods 'mvn', 'mlm' and 'mlm_ds' "
                                 f"only, not {method!r}")
    if method in ("mlm", "mlm_ds") and not by:
        raise ParameterError(f"by: method {method!r} regresses the confidential variables on "
                             "the non-confidential ones; give at least one 'by' column")


def shuffle(data: pd.DataFrame, columns: list[str] | tuple[str, ...], *,
            by: list[str] | tuple[str, ...] | None = None, method: str = "ds",
            covmethod: str | None = None, regmethod: str | None = None,
            rng: np.random.Generator) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Shuffle the confidential ``columns`` given the non-confidential ``by`` columns.

    ``method``: ``"ds"`` (default; the normal-copula algorithm of the module docstring),
    ``"mvn"``, ``"mlm"`` or ``"mlm_ds"``; ``covmethod``: ``"pearson"`` (default),
    ``"spearman"`` or ``"mcd"``; ``regmethod`` (``"mlm"``, ``"mlm_ds"``; ``"mvn"`` when given): ``"lm"``
    (default) or ``"mm"``. See `sdcsession.methods.swapping.shuffling_models` for each method's formula. Returns the
    new DataFrame and notes: ``changed`` per column, ``shuffled_records``,
    ``untouched_incomplete``, ``rank_correlation`` (Spearman between original and released
    values, per column).

    Reference: Muralidhar & Sarathy (2006).

    Example
    -------
    >>> df = pd.DataFrame({"x": np.arange(20.0), "y": np.arange(20.0) ** 2})
    >>> out, notes = shuffle(df, ["x", "y"], rng=np.random.default_rng(0))
    >>> sorted(out["y"]) == sorted(df["y"])
    True
    """
    from scipy import stats

    columns = tuple(columns)
    by = tuple(by or ())
    _check_options(columns, by, method, covmethod, regmethod)
    cov = covmethod or "pearson"
    x = numeric_block(data, columns, "shuffle")
    s = numeric_block(data, by, "shuffle (by)") if by else np.empty((len(data), 0))
    complete = ~(np.isnan(x).any(axis=1) | np.isnan(s).any(axis=1))
    idx = np.flatnonzero(complete)
    n = len(idx)
    regresses = method in ("mlm", "mlm_ds") or (method == "mvn" and regmethod is not None)
    reg = regmethod or "lm" if method in ("mlm", "mlm_ds") else regmethod
    need = 3 + len(by) if regresses else 3  # a regression needs n > q + 1
    if n < need:
        raise TreatmentError(f"shuffle: need at least {need} complete records, got {n}")
    out = x.copy()
    tie = None
    if method == "ds":
        y = _ds(x[idx], s[idx], cov, rng)
    else:
        y = perturbed_values(x[idx], s[idx], method=method, covmethod=cov,
                             regmethod=reg, rng=rng)
        if method == "mlm":
            tie = rng.random(n)  # tied fitted values in random order
    notes: dict[str, Any] = {"by": list(by), "method": method, "covmethod": cov,
                             "regmethod": reg, "shuffled_records": int(n),
                             "untouched_incomplete": int(len(data) - n), "changed": {},
                             "rank_correlation": {}}
    for j, col in enumerate(columns):
        sorted_vals = np.sort(x[idx, j])
        order = np.argsort(y[:, j], kind="stable") if tie is None else np.lexsort((tie, y[:, j]))
        ranks = np.argsort(order, kind="stable")
        out[idx, j] = sorted_vals[ranks]
        notes["changed"][col] = int((out[idx, j] != x[idx, j]).sum())
        notes["rank_correlation"][col] = float(stats.spearmanr(x[idx, j], out[idx, j])[0])
    new = {col: _restore(out[:, j], data[col]) for j, col in enumerate(columns)}
    return data.assign(**new), notes


def _ds(x: np.ndarray, s: np.ndarray, covmethod: str, rng: np.random.Generator) -> np.ndarray:
    """Perturbed normal scores of method ``"ds"`` for complete blocks (module docstring)."""
    p = x.shape[1]
    zx = _normal_scores(x)
    if s.shape[1]:
        zs = _normal_scores(s)
        c = correlation(np.hstack([zx, zs]), covmethod)
        cxx, cxs, css = c[:p, :p], c[:p, p:], c[p:, p:]
        try:
            b = np.linalg.solve(css, cxs.T)  # (q, p)
        except np.linalg.LinAlgError:
            b = np.linalg.lstsq(css, cxs.T, rcond=None)[0]
        cond = cxx - cxs @ b
        cond = (cond + cond.T) / 2
        w, v = np.linalg.eigh(cond)
        e = rng.standard_normal((len(x), p)) @ (v * np.sqrt(np.clip(w, 0, None))).T
        return zs @ b + e
    c = correlation(zx, covmethod)
    w, v = np.linalg.eigh(c)
    return rng.standard_normal((len(x), p)) @ (v * np.sqrt(np.clip(w, 0, None))).T


@attrs.frozen
class Shuffle(Treatment):
    """Data shuffling treatment (tag ``"shuffle"``); see `shuffle`.

    ``method``: ``"ds"`` | ``"mvn"`` | ``"mlm"`` | ``"mlm_ds"``; ``covmethod``: ``"pearson"`` |
    ``"spearman"`` | ``"mcd"`` (None: pearson); ``regmethod``: ``"lm"`` | ``"mm"`` (None: lm; for
    the regression methods ``"mlm"`` and ``"mlm_ds"``, which need ``by``, and for ``"mvn"``,
    where it gives the conditional mean).

    >>> Shuffle(["income"], by=["age"]).to_dict()
    {'type': 'shuffle', 'columns': ['income'], 'by': ['age'], 'method': 'ds', 'covmethod': None, 'regmethod': None}
    """

    type: ClassVar[str] = "shuffle"
    random: ClassVar[bool] = True

    columns: tuple[str, ...] = attrs.field(converter=lambda v: _names(v, "columns"))
    by: tuple[str, ...] = attrs.field(default=(), converter=lambda v: param_names(v, "by"))
    method: str = attrs.field(default="ds")
    covmethod: str | None = attrs.field(default=None)
    regmethod: str | None = attrs.field(default=None)

    def __attrs_post_init__(self) -> None:
        _check_options(self.columns, self.by, self.method, self.covmethod, self.regmethod)

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        numeric_block(data, self.columns, "shuffle")
        if self.by:
            numeric_block(data, self.by, "shuffle (by)")

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        out, notes = shuffle(data, self.columns, by=self.by, method=self.method,
                             covmethod=self.covmethod, regmethod=self.regmethod, rng=rng)
        return Result(out, notes=notes)
