"""The treatment methods of `SdcSession` (a mixin).

Each method builds the frozen treatment of the same name (parameters validated at once, raising
`ParameterError`) and applies it as a new step; it returns the session so
calls chain. The formulas, references and parameter meanings are in the treatment classes'
docstrings (``sdcsession.methods``).

Example
-------
>>> import sdcsession as sdc
>>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(300, seed=1),
...                    keys=["region", "sex", "age5"], seed=1)
>>> s.local_suppression(k=3).risk.k_violations(3)
0
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..errors import ParameterError, SdcError
from ..methods.base import TREATMENTS

__all__ = ["TreatmentMethods"]


def _build(tag: str, **params: Any) -> Any:
    """The treatment ``tag`` with ``params``; any failure to build it is a `ParameterError`
    (a parameter a treatment's own checks missed must not surface as a raw Python error)."""
    import sdcsession.methods  # noqa: F401  (registers every treatment)

    try:
        return TREATMENTS[tag](**params)
    except SdcError:
        raise
    except (TypeError, ValueError, ArithmeticError, KeyError, IndexError, AttributeError) as e:
        raise ParameterError(
            f"{tag}: invalid parameters ({type(e).__name__}: {str(e)[:200]})") from e


class TreatmentMethods:
    """Session methods, one per treatment (see ``sdcsession.methods`` for the algorithms)."""

    def apply(self, treatment: Any, *, seed: int | None = None) -> Any:  # pragma: no cover
        raise NotImplementedError

    # ------------------------------------------------------------ non-perturbative
    def global_recode(self, column: str, breaks: Sequence[float] | int | None = None, *,
                      method: str | None = None, n: int | None = None,
                      labels: Sequence[str] | None = None, right: bool = True,
                      include_outside: bool = False) -> Any:
        """Recode a numeric key into intervals: ``breaks`` (right-closed by default; an integer
        means that many equal-width intervals, as sdcMicro's ``globalRecode(breaks=5)``), or
        ``method="equidistant" | "quantile" | "log_equidistant"`` with ``n`` groups
        (``"quantile"`` and ``"log_equidistant"`` are sdcMicro's ``equalAmount`` and ``logEqui``
        intervals; see `GlobalRecode`)."""
        return self.apply(_build("global_recode", column=column, breaks=breaks, method=method,
                                 n=n, labels=labels, right=right,
                                 include_outside=include_outside))

    def group_categories(self, column: str, groups: Mapping[Any, Iterable[Any]]) -> Any:
        """Merge categories: ``{"new": [old, ...], ...}`` (see `GroupCategories`)."""
        return self.apply(_build("group_categories", column=column, groups=groups))

    def top_bottom_code(self, column: str, value: Any, replacement: Any, *,
                        kind: str = "top") -> Any:
        """Replace values above (``kind="top"``) or below (``"bottom"``) ``value`` by ``replacement``."""
        return self.apply(_build("top_bottom_code", column=column, value=value,
                                 replacement=replacement, kind=kind))

    def round_values(self, columns: Iterable[str] | str, *, digits: int | None = None,
                     base: float | None = None) -> Any:
        """Round numeric variables to ``digits`` decimals or to multiples of ``base``."""
        return self.apply(_build("round_values", columns=columns, digits=digits, base=base))

    def local_suppression(self, k: float | Mapping[Any, float] | Sequence[float] = 3, *,
                          importance: Sequence[str] | None = None,
                          strata: Sequence[str] | str | None = None,
                          combinations: int | None = None, weighted: bool = False,
                          household: bool = False) -> Any:
        """Suppress key values until every record's combination has fk ≥ k (missing = wildcard).

        ``importance``: key names, most important first (suppressed last); ``household=True``
        suppresses key variables that are constant within households for all members. ``k`` may
        be given per stratum: ``{stratum: k}`` or a list aligned with the sorted strata levels.
        See `LocalSuppression` for the algorithm.
        """
        return self.apply(_build(
            "local_suppression", k=k, importance=importance, strata=strata,
            combinations=combinations, weighted=weighted, household=household))

    def suppress_by_risk(self, threshold: float = 0.15, *, column: str | None = None,
                         importance: Sequence[str] | None = None) -> Any:
        """Suppress a key value in each record whose individual risk exceeds ``threshold``."""
        return self.apply(_build("suppress_by_risk", threshold=threshold, column=column,
                                 importance=importance))

    # ---------------------------------------------------------------- perturbative
    def pram(self, columns: Iterable[str] | str, *, pd: float = 0.8, alpha: float = 0.5,
             matrix: Any = None, strata: Sequence[str] | str | None = None,
             invariant: bool = True) -> Any:
        """Invariant PRAM of categorical variables (see `Pram`)."""
        return self.apply(_build("pram", columns=columns, pd=pd, alpha=alpha, matrix=matrix,
                                 strata=() if strata is None else strata, invariant=invariant))

    def add_noise(self, columns: Iterable[str] | str, *, method: str = "additive",
                  noise: float = 0.15) -> Any:
        """Add noise to numeric variables (sdcMicro ``noise=150`` is ``noise=1.5`` here);
        ``method="restricted"`` keeps the means and covariance matrix exactly (see `AddNoise`)."""
        return self.apply(_build("add_noise", columns=columns, method=method, noise=noise))

    def microaggregation(self, columns: Iterable[str] | str, *, k: int = 3,
                         method: str = "mdav", strata: Sequence[str] | str | None = None,
                         aggregate: str = "mean", sort_by: str | None = None,
                         weights: str | None = None) -> Any:
        """Replace values by group means of ≥ k similar records (MDAV by default; methods
        ``"rmd"``, ``"onedims"``, ``"single"`` (``sort_by``), ``"pca"``, ``"mcdpca"``,
        ``"pppca"``, ``"influence"``, ``"clustpppca"``, ``"simple"``, ...); ``weights``: a
        sampling-weight column for weighted group means."""
        return self.apply(_build("microaggregation", columns=columns, k=k, method=method,
                                 strata=() if strata is None else strata, aggregate=aggregate,
                                 sort_by=sort_by, weights=weights))

    def rank_swap(self, columns: Iterable[str] | str, *, p: float | None = None,
                  top: float = 0.0, bottom: float = 0.0, r0: float | None = None,
                  k0: float | None = None, seed: int | None = None) -> Any:
        """Rank swapping within ``p`` % of the rank range (Moore 1996), or within the range
        Moore's ``r0`` / ``k0`` allow; ``top`` / ``bottom`` percent grouped by their mean first;
        ``seed``: the step's seed (default: derived from the session seed). See `RankSwap`."""
        return self.apply(_build("rank_swap", columns=columns, p=p, top=top, bottom=bottom,
                                 r0=r0, k0=k0), seed=seed)

    def shuffle(self, columns: Iterable[str] | str, *, by: Iterable[str] | str,
                method: str = "ds", covmethod: str | None = None,
                regmethod: str | None = None) -> Any:
        """Data shuffling keeping the ranks of a model prediction (Muralidhar & Sarathy):
        ``method="ds" | "mvn" | "mlm" | "mlm_ds"``, ``covmethod="pearson" | "spearman" | "mcd"``,
        ``regmethod="lm" | "mm"`` (see `Shuffle`)."""
        return self.apply(_build("shuffle", columns=columns, by=by, method=method,
                                 covmethod=covmethod, regmethod=regmethod))
