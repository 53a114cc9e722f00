"""Multivariate top coding: winsorise multivariate outliers onto a robust ellipsoid (sdcMicro
``mvTopCoding``).

Definition (Templ & Meindl 2008; sdcMicro's ``mvTopCoding``, Gussenbauer & Templ). For the p
treated variables:

1. robust location μ and scatter Σ: the reweighted minimum covariance determinant (MCD)
   estimate as robustbase's ``covMcd`` computes it with its defaults (h = ⌊(n + p + 1)/2⌋,
   FastMCD with 500 random starts, consistency and small-sample factors, one reweighting step;
   `sdcsession.risk.robust.minimum_covariance.mcd` with a fixed seed, so the result is a function of the data);
2. the squared robust Mahalanobis distance of every record, ``d²_i = (x_i − μ)' Σ⁻¹ (x_i − μ)``,
   and the limit ``q = χ²_p(1 − alpha)``;
3. every record with ``d²_i > q`` is moved along the line to the centre onto the ellipsoid
   ``{x : (x − μ)' Σ⁻¹ (x − μ) = q}``:  ``x'_i = μ + (x_i − μ) · sqrt(q / d²_i)``, so that its
   distance afterwards is exactly q. Records inside the ellipsoid are unchanged.

Every step is the one of sdcMicro's ``mvTopCoding`` with its defaults: covMcd's reweighted
``center`` and ``cov`` (not the raw ones) of the data on their own scale (no standardising),
q = ``qchisq(1 - alpha, p)`` with alpha = 0.025, the strict ``maha > q``, and the move towards
the centre. The reweighting factor is robustbase 0.95's (c(p, m/n), m the records kept; the
sdcMicro 5.8.1 reference). What can differ is the h-subset: covMcd is random, and above 5,000
records it gives the best candidate of its subsamples only 100 … 1 C-steps on all records (one
when n·p > 1,000,000), where this search iterates it to convergence (from the same candidates:
a lower or equal MCD objective). Up to that subset the records moved are the same.

Missing values: the MCD is fitted on the complete records only, and records with a missing value
in a treated column are left unchanged (they have no distance); the notes count them as
``incomplete``. This is what sdcMicro does: ``covMcd`` drops the incomplete rows, and their
``mahalanobis`` distance is NA, which ``which(maha > d)`` never selects. More than half of the
complete records on a hyperplane (singular MCD scatter, e.g. a variable mostly 0) is a
`TreatmentError`, as in sdcMicro.

References: Templ, M. & Meindl, B. (2008) Robust statistics meets SDC: new disclosure risk
measures for continuous microdata masking, Privacy in Statistical Databases, LNCS 5262, 113–126.
Rousseeuw, P. J. & Van Driessen, K. (1999) A fast algorithm for the minimum covariance
determinant estimator, Technometrics 41, 212–223. sdcMicro ``mvTopCoding`` documentation.

Example
-------
>>> import numpy as np, pandas as pd
>>> rng = np.random.default_rng(0)
>>> df = pd.DataFrame(rng.normal(size=(200, 2)), columns=["a", "b"])
>>> df.loc[0, ["a", "b"]] = [8.0, -8.0]
>>> out, notes = mv_top_code(df, ["a", "b"])
>>> bool(abs(out.loc[0, "a"]) < 4), notes["changed"] < 20
(True, True)
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd

from ...errors import MeasureError, TreatmentError
from ...risk.robust._mcd_factors import chi2_ppf
from ...risk.robust.minimum_covariance import mahalanobis2, mcd
from ...roles import Roles
from ..base import Result, Treatment, check_number
from ..noise.addition import _names, _put, numeric_block

__all__ = ["mv_top_code", "MvTopCode"]


def mv_top_code(data: pd.DataFrame, columns: list[str] | tuple[str, ...], *,
                alpha: float = 0.025) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Pull records whose squared robust Mahalanobis distance exceeds χ²_p(1 − alpha) back onto
    the ellipsoid of that distance (module docstring).

    Parameters
    ----------
    data : the microdata (not modified).
    columns : the p numeric columns (treated jointly).
    alpha : tail probability of the χ²_p limit, 0 < alpha < 1 (sdcMicro default 0.025).

    Returns the new DataFrame (treated columns float64) and notes: ``changed`` (records moved),
    ``limit`` (q), ``incomplete`` (records left unchanged because of missing values),
    ``location`` (μ per column).

    Example
    -------
    >>> df = pd.DataFrame({"x": [float(v) for v in range(1, 20)] + [100.0]})
    >>> out, notes = mv_top_code(df, ["x"])
    >>> notes["changed"], bool(out["x"].iloc[-1] < 100)
    (1, True)
    """
    columns = tuple(columns)
    alpha = check_number("alpha", alpha, 0, 1, lo_open=True, hi_open=True)
    x = numeric_block(data, columns, "mv_top_code")
    n, p = x.shape
    complete = ~np.isnan(x).any(axis=1)
    xc = x[complete]
    if len(xc) <= p + 1:
        raise TreatmentError(f"mv_top_code: the MCD needs more than p + 1 = {p + 1} complete "
                             f"records in {list(columns)}, got {len(xc)}")
    try:
        fit = mcd(xc, n_starts=500, seed=0, search="fastmcd", reweight=True, exact_fit="error",
                  consistency="robustbase-0.95")
        np.linalg.cholesky(fit.scatter)
    except (MeasureError, np.linalg.LinAlgError):
        raise TreatmentError(
            f"mv_top_code: more than half of the complete records lie on a hyperplane in "
            f"{list(columns)} (singular MCD scatter: exact fit), so robust distances are "
            "undefined; treat the variables with a point mass (e.g. many zeros) separately"
        ) from None
    d2 = mahalanobis2(xc, fit.location, fit.scatter)
    limit = chi2_ppf(1.0 - alpha, p)
    far = d2 > limit
    out = x.copy()
    rows = np.flatnonzero(complete)[far]
    shrink = np.sqrt(limit / d2[far])[:, None]
    out[rows] = fit.location + (x[rows] - fit.location) * shrink
    notes: dict[str, Any] = {
        "changed": int(far.sum()), "limit": limit, "incomplete": int((~complete).sum()),
        "location": {c: float(v) for c, v in zip(columns, fit.location, strict=True)},
    }
    return _put(data, columns, out), notes


@attrs.frozen
class MvTopCode(Treatment):
    """Multivariate top coding (tag ``"mv_top_code"``); see `mv_top_code`.

    >>> MvTopCode(["income", "expend"]).describe()
    "mv_top_code(columns=['income', 'expend'], alpha=0.025)"
    """

    type: ClassVar[str] = "mv_top_code"
    random: ClassVar[bool] = False

    columns: tuple[str, ...] = attrs.field(converter=lambda v: _names(v, "columns"))
    alpha: float = attrs.field(default=0.025)

    @alpha.validator
    def _a(self, _a: Any, v: Any) -> None:
        check_number("alpha", v, 0, 1, lo_open=True, hi_open=True)

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        numeric_block(data, self.columns, "mv_top_code")

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        out, notes = mv_top_code(data, self.columns, alpha=self.alpha)
        return Result(out, notes=notes)
