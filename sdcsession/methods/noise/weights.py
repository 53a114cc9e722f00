"""Noise on the sampling weights, keeping their total (and stratum totals): `perturb_weights`.

Released sampling weights can reveal the design strata, or single out a record whose weight
value is rare (a weight shared by fewer than k records links back to its stratum/cell). μ-ARGUS
offers noise on the weights for this reason. Here each weight is multiplied by a log-normal
factor with mean 1 and then calibrated back to its stratum total:

    u_i = w_i · exp(σ·z_i − σ²/2),   z_i ~ N(0, 1) independent,
    w'_i = u_i · (Σ_{j in s} w_j) / (Σ_{j in s} u_j)     for the stratum s of record i,

with σ = ``noise`` (the coefficient of variation of the factor is about σ for small σ, e.g.
σ = 0.1 moves weights by roughly ±10 %). Properties: every w'_i > 0 (a product of positive
numbers), the total of the weights is kept exactly in every stratum of ``by`` (in the whole file
without ``by``) up to floating-point rounding, and the expected ratio ``w'_i / w_i`` is close to
1. With ``household=True`` all members of a household share one factor ``z`` (household weights
stay equal within a household when they were). The draws come from the step's seeded generator:
replaying the step gives the same weights.

Missing values: a missing or non-positive weight is refused (`TreatmentError`): the weights
must be finite and > 0; a missing value of a ``by`` column forms a stratum of its own.

References: Hundepool, A. et al. (2014), μ-ARGUS version 5.1 user's manual, Statistics
Netherlands (noise added to the weights); Hundepool et al. (2012), *Statistical Disclosure
Control*, Wiley, sec. 3.5 (sampling weights and disclosure); Deville & Särndal (1992),
J. Am. Stat. Assoc. 87, 376–382 (calibration to known totals).

Example
-------
>>> import numpy as np, pandas as pd
>>> df = pd.DataFrame({"w": [10.0, 10.0, 20.0, 40.0], "r": ["a", "a", "b", "b"]})
>>> out, notes = perturb_weights(df, "w", noise=0.2, by=["r"], rng=np.random.default_rng(1))
>>> out.groupby("r")["w"].sum().round(9).tolist(), bool((out["w"] > 0).all())
([20.0, 60.0], True)
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd

from ...errors import TreatmentError
from ...roles import Roles
from ..base import Result, Treatment, check_bool, check_number, param_names, require_columns

__all__ = ["perturb_weights", "PerturbWeights"]


def perturb_weights(data: pd.DataFrame, column: str, *, noise: float = 0.1,
                    by: list[str] | tuple[str, ...] | None = None,
                    household: str | None = None,
                    rng: np.random.Generator) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Multiply the weights in ``column`` by log-normal noise of size ``noise`` and calibrate
    them back to the total of each stratum of ``by`` (module docstring for the formula).

    Returns the new DataFrame and notes: ``noise``, ``by``, ``strata`` (number of strata),
    ``total`` (before = after), ``max_relative_change`` (max |w'/w − 1|), ``distinct_before`` /
    ``distinct_after`` (number of distinct weight values).

    Missing values: missing or non-positive weights are refused; a missing ``by`` value is a
    stratum of its own.

    Example
    -------
    >>> df = pd.DataFrame({"w": [5.0] * 4 + [50.0] * 4})
    >>> out, notes = perturb_weights(df, "w", noise=0.1, rng=np.random.default_rng(0))
    >>> round(float(out["w"].sum()), 6), notes["distinct_before"], notes["distinct_after"]
    (220.0, 2, 8)
    """
    noise = check_number("noise", noise, 0, 5)
    by = param_names(by, "by")
    require_columns(data, [column, *by] + ([household] if household else []), "perturb_weights")
    if column in by:
        raise TreatmentError(f"by: the weight column {column!r} cannot be a stratum")
    w = pd.to_numeric(data[column], errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
    if not np.isfinite(w).all() or (w <= 0).any():
        bad = int((~np.isfinite(w) | (w <= 0)).sum())
        raise TreatmentError(f"perturb_weights: column {column!r} has {bad} missing, non-numeric "
                             "or non-positive weight(s); sampling weights must be finite and > 0")
    if by:
        key = pd.MultiIndex.from_frame(data[list(by)].astype(object)) if len(by) > 1 \
            else data[by[0]]
        sid, _ = pd.factorize(key, use_na_sentinel=False)
        sid = sid.astype(np.int64)
    else:
        sid = np.zeros(len(data), dtype=np.int64)
    n_st = int(sid.max()) + 1 if len(sid) else 0
    if household:
        hid, _ = pd.factorize(data[household], use_na_sentinel=False)
        z = rng.standard_normal(int(hid.max()) + 1 if len(hid) else 0)[hid]
    else:
        z = rng.standard_normal(len(data))
    u = w * np.exp(noise * z - noise * noise / 2.0)
    tot_w = np.bincount(sid, weights=w, minlength=n_st)
    tot_u = np.bincount(sid, weights=u, minlength=n_st)
    new = u * (tot_w / tot_u)[sid]
    out = data.copy()
    out[column] = new if data[column].dtype.kind == "f" else new.astype("float64")
    notes = {"noise": noise, "by": list(by), "strata": n_st, "total": float(w.sum()),
             "max_relative_change": float(np.max(np.abs(new / w - 1.0))) if len(w) else 0.0,
             "distinct_before": int(pd.unique(w).size),
             "distinct_after": int(pd.unique(new).size)}
    return out, notes


@attrs.frozen
class PerturbWeights(Treatment):
    """Noise on the sampling weights (tag ``"perturb_weights"``), keeping the total of the
    weights in every stratum of ``by`` (the whole file without ``by``); see `perturb_weights`.
    The weight column is the session's weight role. ``household=True``: one factor per
    household (needs the household role).

    >>> PerturbWeights(noise=0.05, by=["region"]).params()["by"]
    ['region']
    """

    type: ClassVar[str] = "perturb_weights"
    random: ClassVar[bool] = True

    noise: float = attrs.field(default=0.1, converter=lambda v: check_number("noise", v, 0, 5))
    by: tuple[str, ...] = attrs.field(default=(), converter=lambda v: param_names(v, "by"))
    household: bool = attrs.field(default=False,
                                  validator=lambda _s, a, v: check_bool(a.name, v))

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        if roles.weight is None:
            raise TreatmentError("perturb_weights: no weight variable in the roles (weight=...)")
        if self.household and roles.household is None:
            raise TreatmentError("perturb_weights: household=True needs a household role")
        require_columns(data, [roles.weight, *self.by], "perturb_weights")
        if roles.weight in self.by:
            raise TreatmentError(f"by: the weight column {roles.weight!r} cannot be a stratum")

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        out, notes = perturb_weights(data, roles.weight, noise=self.noise, by=self.by,
                                     household=roles.household if self.household else None,
                                     rng=rng)
        return Result(out, notes=notes)
