"""Prosecutor, journalist and marketer re-identification risk (El Emam; ARX's risk summary).

Three attacker models read the same frequency counts. With ``f_i`` the sample frequency of record
``i``'s key combination (its equivalence class), ``F_i`` its population frequency, ``n`` records,
``J`` equivalence classes (``sum_i 1/f_i = J`` when the classes partition the records) and ``tau``
the highest acceptable probability of re-identification of one record (``threshold``):

Prosecutor (the attacker knows the target is in the released file): record risk ``1/f_i``;

    records at risk = #{i : 1/f_i > tau} / n,   highest risk = max_i 1/f_i,
    success rate = (1/n) sum_i 1/f_i  (= J / n).

Journalist (the target is in the population; the attacker links to the released sample through
a population register): record risk ``1/F_i``;

    records at risk = #{i : 1/F_i > tau} / n,   highest risk = max_i 1/F_i = 1 / min_i F_i,
    success rate = max( J / sum_classes F,  (1/n) sum_i 1/F_i ),

where ``J / sum_classes F = (sum_i 1/f_i) / (sum_i F_i / f_i)`` (ARX takes the larger of El Emam's
two averages).

Marketer (the attacker links as many records as possible, success counts on average):

    success rate = (1/n) sum_i 1/F_i     (= J / n when the released file is the population).

The population frequencies ``F`` come from (in this order) a ``population`` frame (its records are
counted per key combination: an identification database or a census), the sampling ``weight``
(``F_i`` = sum of the weights of the class, sdcMicro's ``Fk``), or the sample itself (``F = f``:
journalist = prosecutor, marketer = J / n).

Counts: without a ``population`` frame, ``f`` and ``F`` are `frequencies`
(sdcMicro's ``fk``/``Fk``, missing key values as wildcards weighted by ``alpha``); with a
``population`` frame classes are exact key combinations in both files (a missing value is a
category of its own) and every sample class must occur in the population at least as often.

Mapping to sdcMicro: without weights sdcMicro's individual risk is ``1/fk`` = the prosecutor record
risk, its global risk (mean) = the prosecutor success rate = the marketer risk with ``F = f``, and
its expected number of re-identifications = ``n`` x that rate. With weights sdcMicro's individual
risk is the Benedetti–Franconi estimate of ``E[1/F | f]``: a model-based journalist record risk, of
which ARX's ``1/F_i`` (``F_i`` = sum of weights) is the plug-in value; sdcMicro's global risk is
then the model-based marketer risk. ``AttackerRisk.sdcmicro_global_risk`` reports it beside the
three models.

References: El Emam, K. (2013), *Guide to the De-Identification of Personal Health Information*,
CRC Press, ch. 14-17; El Emam & Dankar (2008), "Protecting privacy using k-anonymity", JAMIA 15(5);
Prasser & Kohlmayer (2015), "Putting statistical disclosure control into practice: the ARX data
anonymization tool", in *Medical Data Privacy Handbook*, Springer (ARX's ``RiskModelSampleSummary``).

Example
-------
>>> import pandas as pd
>>> from sdcsession.risk import attacker_models
>>> df = pd.DataFrame({"sex": ["m", "m", "m", "f"], "w": [10.0, 10.0, 10.0, 4.0]})
>>> r = attacker_models(df, ["sex"], weight="w", threshold=0.2)
>>> r.prosecutor
{'records_at_risk': 1.0, 'highest_risk': 1.0, 'success_rate': 0.5}
>>> r.journalist["records_at_risk"], r.journalist["highest_risk"], round(r.marketer, 4)
(0.25, 0.25, 0.0875)
"""

from __future__ import annotations

from collections.abc import Iterable
from numbers import Real

import attrs
import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError
from ._codes import as_keys, check_columns, check_frame, combine, encode_column
from .frequencies import frequencies
from .individual import individual_risk_from_freq

__all__ = ["AttackerRisk", "attacker_models"]


@attrs.frozen(eq=False)
class AttackerRisk:
    """Result of `attacker_models`.

    Attributes
    ----------
    prosecutor, journalist : dict
        ``records_at_risk`` (share of records with record risk > threshold), ``highest_risk``,
        ``success_rate`` (expected share of records re-identified).
    marketer : float
        Expected share of records re-identified by a marketer attacker.
    record_risk : pd.DataFrame
        Per record: ``prosecutor`` (1/f) and ``journalist`` (1/F), aligned to the data's index.
    threshold : float
        The threshold tau of ``records_at_risk``.
    population : str
        Where F came from: ``"population"`` (a frame), ``"weights"`` or ``"sample"`` (F = f).
    sdcmicro_global_risk : float
        sdcMicro's global risk on the same counts (mean Benedetti–Franconi risk; mean 1/f without
        weights; NaN with a population frame).

    Example
    -------
    >>> import pandas as pd
    >>> r = attacker_models(pd.DataFrame({"a": [1, 1, 2]}), ["a"])
    >>> r.prosecutor["success_rate"], r.marketer, r.population
    (0.6666666666666666, 0.6666666666666666, 'sample')
    """

    prosecutor: dict
    journalist: dict
    marketer: float
    record_risk: pd.DataFrame
    threshold: float
    population: str
    sdcmicro_global_risk: float

    def to_frame(self) -> pd.DataFrame:
        """One row per model, columns ``records_at_risk``, ``highest_risk``, ``success_rate``."""
        rows = [self.prosecutor, self.journalist,
                {"records_at_risk": np.nan, "highest_risk": np.nan, "success_rate": self.marketer}]
        out = pd.DataFrame(rows, index=pd.Index(["prosecutor", "journalist", "marketer"],
                                                name="model"))
        return out[["records_at_risk", "highest_risk", "success_rate"]]

    def to_dict(self) -> dict[str, float]:
        """Flat JSON-serialisable figures (``prosecutor_highest_risk``, ..., ``marketer``)."""
        out = {f"prosecutor_{k}": float(v) for k, v in self.prosecutor.items()}
        out.update({f"journalist_{k}": float(v) for k, v in self.journalist.items()})
        out["marketer"] = float(self.marketer)
        return out

    def __repr__(self) -> str:
        p, j = self.prosecutor, self.journalist
        return (f"AttackerRisk(threshold={self.threshold:g}, F from {self.population}: "
                f"prosecutor highest {p['highest_risk']:.4g} success {p['success_rate']:.4g}; "
                f"journalist highest {j['highest_risk']:.4g} success {j['success_rate']:.4g}; "
                f"marketer {self.marketer:.4g})")


def _exact_counts(sample: pd.DataFrame, population: pd.DataFrame,
                  keys: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Sample and population counts of each sample record's exact key combination."""
    check_frame(population, "population")
    check_columns(population, keys, "keys (population)")
    ns = len(sample)
    codes = []
    cards = []
    for k in keys:
        both = pd.concat([sample[k].astype(object), population[k].astype(object)],
                         ignore_index=True)
        c, m = encode_column(both)
        codes.append(np.where(c < 0, m, c))  # missing: a category of its own
        cards.append(m + 1)
    g, size = combine(codes, cards)
    f = np.bincount(g[:ns], minlength=size)
    big_f = np.bincount(g[ns:], minlength=size)
    fi = f[g[:ns]].astype(np.float64)
    Fi = big_f[g[:ns]].astype(np.float64)
    short = Fi < fi
    if short.any():
        raise MeasureError(
            f"population: {int(short.sum())} sample record(s) have a key combination that occurs "
            "less often in the population than in the sample (the sample must be part of the "
            "population)")
    return fi, Fi


def attacker_models(
    data: pd.DataFrame,
    keys: str | Iterable[str],
    *,
    weight: str | None = None,
    population: pd.DataFrame | None = None,
    threshold: float = 0.2,
    alpha: float = 1.0,
) -> AttackerRisk:
    """Prosecutor, journalist and marketer risk of a release (formulas in the module docstring).

    Missing values: missing key values are wildcards weighted by ``alpha`` (see `frequencies`).

    Parameters
    ----------
    data : pd.DataFrame
        The released (sample) microdata.
    keys : str or list of str
        Key variables (quasi-identifiers), read as categories.
    weight : str, optional
        Sampling weight column: F = sum of the weights of the class (used without ``population``).
    population : pd.DataFrame, optional
        Population microdata (or an identification database) with the key columns: F = its count
        of the class.
    threshold : float
        Highest acceptable re-identification probability of one record, in (0, 1] (default 0.2,
        i.e. classes of at least 5).
    alpha : float
        Weight of wildcard matches for missing key values (see
        `frequencies`; not used with ``population``).

    Returns
    -------
    AttackerRisk
        ``.prosecutor``, ``.journalist`` (dicts), ``.marketer``, ``.record_risk``, ``.to_frame()``.

    Raises
    ------
    MeasureError
        Missing columns, bad weights, or a population smaller than the sample in some class.
    ParameterError
        Bad ``keys``, ``threshold`` or ``alpha``.

    References
    ----------
    El Emam (2013), *Guide to the De-Identification of Personal Health Information*; ARX
    (Prasser & Kohlmayer 2015).

    Example
    -------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"a": ["x", "x", "y"]})
    >>> pop = pd.DataFrame({"a": ["x"] * 4 + ["y"] * 2})
    >>> r = attacker_models(s, "a", population=pop, threshold=0.4)
    >>> r.journalist, r.marketer
    ({'records_at_risk': 0.3333333333333333, 'highest_risk': 0.5, 'success_rate': 0.3333333333333333}, 0.3333333333333333)
    """
    df = check_frame(data)
    keys = as_keys(keys)
    check_columns(df, keys, "keys")
    if isinstance(threshold, (bool, np.bool_)) or not isinstance(threshold, Real) or not (
            0 < threshold <= 1):
        raise ParameterError(
            f"threshold: expected a probability in (0, 1] (e.g. 0.2 = classes of 5), got "
            f"{threshold!r}")
    tau = float(threshold)
    sdc_global = np.nan
    if population is not None:
        if not isinstance(population, pd.DataFrame):
            raise MeasureError(
                f"population: expected a pandas DataFrame, got {type(population).__name__}")
        f, big_f = _exact_counts(df, population, keys)
        source = "population"
    else:
        fr = frequencies(df, keys, weight=weight, alpha=alpha)
        f = fr["fk"].to_numpy(dtype=np.float64)
        big_f = fr["Fk"].to_numpy(dtype=np.float64) if weight is not None else f
        source = "weights" if weight is not None else "sample"
        r = individual_risk_from_freq(f, big_f if weight is not None else None, warn=False)
        sdc_global = float(np.mean(r))
    n = f.size
    rp = 1.0 / f
    rj = 1.0 / big_f
    prosecutor = {"records_at_risk": float((rp > tau).sum() / n), "highest_risk": float(rp.max()),
                  "success_rate": float(rp.mean())}
    marketer = float(rj.mean())
    journalist = {"records_at_risk": float((rj > tau).sum() / n), "highest_risk": float(rj.max()),
                  "success_rate": max(float(rp.sum() / (big_f / f).sum()), marketer)}
    return AttackerRisk(
        prosecutor=prosecutor, journalist=journalist, marketer=marketer,
        record_risk=pd.DataFrame({"prosecutor": rp, "journalist": rj}, index=df.index),
        threshold=tau, population=source, sdcmicro_global_risk=sdc_global)
