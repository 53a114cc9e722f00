"""Compare perturbation methods on one numeric file (sdcMicro ``valTable``).

`val_table` applies each method to the same data (each random method with its own generator
seeded from ``(seed, i)``) and measures the result against the original: one row per method with
the information loss IL1s (published normalisation, `sdcsession.utility.il1s`), the eigenvalue
difference (`sdcsession.utility.eigen_difference`), Młodak's γ of the correlation matrices
(`sdcsession.utility.il_correl`) and the interval-disclosure risk of Domingo-Ferrer and Torra
(sdcMicro ``dRisk``, `sdcsession.risk.numeric.interval_disclosure`). It sits in the session layer
because it composes treatments (methods) and measures (utility, risk), like a sweep, but needs no
key variables, as sdcMicro's ``valTable`` takes a plain data frame.

Method names: a microaggregation method (`MICROAGGREGATION_METHODS`: ``"mdav"``, ``"single"``,
``"onedims"``, ``"simple"``, ``"pca"``, ``"clustpppca"``, ``"influence"``, …), ``"add_noise:<m>"``
for a noise method ``m`` (``"additive"``, ``"correlated"``, ``"correlated2"``, ``"restricted"``,
``"outliers"``, ``"romm"``, …), ``"rank_swap"``; sdcMicro's spellings ``"addNoise:<m>"``,
``"addNoise:restr"``, ``"addNoise:outdect"``, ``"addNoise:ROMM"`` and ``"swappNum"`` are accepted.

Reference: Templ, M. & Meindl, B. (2006), Software development for SDC in R, PSD 2006, LNCS 4302,
347-359 (sdcMicro's ``valTable``).

Example
-------
>>> import numpy as np, pandas as pd
>>> df = pd.DataFrame(np.random.default_rng(0).lognormal(size=(60, 3)), columns=list("abc"))
>>> t = val_table(df, ["mdav", "add_noise:additive", "rank_swap"])
>>> t["method"].tolist(), list(t.columns[1:])
(['mdav', 'add_noise:additive', 'rank_swap'], ['il1s', 'eigen', 'il_correl', 'interval_disclosure'])
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...errors import ParameterError, SdcError

__all__ = ["val_table"]

_ALIASES = {"swappNum": "rank_swap", "addNoise:restr": "add_noise:restricted",
            "addNoise:outdect": "add_noise:outliers", "addNoise:ROMM": "add_noise:romm"}


def _method(name: Any) -> tuple[str, str | None]:
    from ...methods.microaggregation.treatment import MICROAGGREGATION_METHODS
    from ...methods.noise.addition import NOISE_METHODS

    if not isinstance(name, str):
        raise ParameterError(f"val_table: methods: expected method names, got {name!r:.40}")
    n = _ALIASES.get(name.replace(" ", ""), name.replace(" ", ""))
    if n.startswith("addNoise:"):
        n = "add_noise:" + n.split(":", 1)[1]
    if n in MICROAGGREGATION_METHODS:
        return "microaggregation", n
    if n == "rank_swap":
        return "rank_swap", None
    if n.startswith("add_noise:") and n.split(":", 1)[1] in NOISE_METHODS:
        return "add_noise", n.split(":", 1)[1]
    raise ParameterError(
        f"val_table: unknown method {name!r}; expected a microaggregation method "
        f"{list(MICROAGGREGATION_METHODS)}, 'add_noise:<method>' with a method of "
        f"{list(NOISE_METHODS)}, or 'rank_swap'")


def val_table(data: pd.DataFrame,
              methods: Sequence[str] = ("mdav", "single", "onedims", "add_noise:additive",
                                        "rank_swap"), *,
              columns: Iterable[Hashable] | None = None, k: int = 3, aggregate: str = "mean",
              noise: float = 0.15, p: float = 15.0, seed: int = 0) -> pd.DataFrame:
    """One row of information loss and risk per method applied to ``data`` (sdcMicro
    ``valTable``; see the module docstring for the methods and measures).

    Parameters
    ----------
    data : the numeric microdata.
    methods : method names (see the module docstring), each at most once.
    columns : the numeric columns perturbed and measured (default: every numeric column).
    k : group size of microaggregation (sdcMicro's ``aggr``).
    aggregate : the value given to a microaggregation group (``"mean"``, ``"median"``, …;
        sdcMicro's ``measure``).
    noise : noise level of the ``add_noise`` methods (0.15 = 15 %, sdcMicro's ``noise = 15``).
    p : rank range of ``rank_swap``, percent (sdcMicro's ``p``).
    seed : seed of the random methods.

    Returns
    -------
    pd.DataFrame
        ``method``, ``il1s``, ``eigen``, ``il_correl`` (NaN with fewer than two columns) and
        ``interval_disclosure``.

    Missing values: each method and measure applies its own rule (microaggregation and noise
    leave missing values missing; the measures leave out cells missing in either file).

    Example
    -------
    >>> df = pd.DataFrame({"x": [1.0, 2.0, 10.0, 11.0]})
    >>> val_table(df, ["mdav"], k=2)["il1s"].round(4).tolist()
    [0.0676]
    """
    from ...methods.microaggregation.treatment import microaggregation
    from ...methods.noise.addition import add_noise
    from ...methods.swapping.rank_swapping import rank_swap
    from ...risk.numeric.disclosure import interval_disclosure
    from ...utility.continuous.measures import eigen_difference, il1s, il_correl

    if not isinstance(data, pd.DataFrame):
        raise ParameterError(f"val_table: data must be a pandas DataFrame, got "
                             f"{type(data).__name__}")
    from ...methods.params import check_int, check_number, param_names

    methods = list(param_names(methods, "methods", required=True))
    specs = [_method(m) for m in methods]
    k = check_int("k", k, 1)
    if not isinstance(aggregate, str):
        raise ParameterError(f"aggregate: expected the name of a group value ('mean', "
                             f"'median', ...), got {aggregate!r:.40}")
    noise = check_number("noise", noise, 0)
    p = check_number("p (a percentage)", p, 0, 100, lo_open=True)
    seed = check_int("seed", seed, 0)
    if columns is None:
        cols = [c for c in data.columns if pd.api.types.is_numeric_dtype(data[c])
                and not pd.api.types.is_bool_dtype(data[c])]
        bad = [c for c in cols if not isinstance(c, str)]
        if bad:
            raise ParameterError(f"val_table: column names must be text, got {bad[:5]!r:.80}; "
                                 "rename them or name the columns to use with columns=")
    else:
        cols = [columns] if isinstance(columns, str) else list(param_names(columns, "columns"))
    if not cols:
        raise ParameterError("val_table: no numeric columns to compare")
    rows = []
    for i, (name, (family, variant)) in enumerate(zip(methods, specs)):
        rng = np.random.default_rng([seed, i])
        try:
            if family == "microaggregation":
                masked, _ = microaggregation(data, cols, k=k, method=variant,
                                             aggregate=aggregate, progress=False)
            elif family == "add_noise":
                masked, _ = add_noise(data, cols, method=variant, noise=noise,
                                      warn_domain=False, rng=rng)
            else:
                masked, _ = rank_swap(data, cols, p=p, rng=rng)
        except SdcError as e:
            raise type(e)(f"val_table: method {name!r}: {e}") from None
        two = len(cols) >= 2
        rows.append({
            "method": name,
            "il1s": il1s(data, masked, columns=cols),
            "eigen": eigen_difference(data, masked, columns=cols) if two else np.nan,
            "il_correl": il_correl(data, masked, columns=cols) if two else np.nan,
            "interval_disclosure": interval_disclosure(data, masked, columns=cols),
        })
    return pd.DataFrame(rows)
