"""Point estimates with confidence intervals across scenarios: `estimates` (a benchmark
indicator or a regression coefficient per scenario), the table that
`sdcsession.present.plots.accessor.ci_plot` draws.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..errors import ParameterError
from .steps import scenarios

__all__ = ["estimates"]


def estimates(*items: Any, indicator: Any = None, formula: str | None = None,
              term: str | None = None, weight: str | None = None, level: float = 0.95,
              method: str = "normal", n_boot: int = 200, seed: int = 0,
              original: bool = True) -> pd.DataFrame:
    """Point estimates with confidence intervals across scenarios (for `plotting.ci_plot`).

    Either a benchmark ``indicator`` (``"mean:income"``, see
    `sdcsession.utility.benchmark.indicators.indicator_ci`, overall group only) or the coefficient
    ``term`` of a (weighted) least-squares regression ``formula`` (patsy notation, parsed by
    ``sdcsession.formula`` and never evaluated as Python, e.g. ``"income ~ C(sex) + age"``,
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
            from ..utility.benchmark.indicators import indicator_ci

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
