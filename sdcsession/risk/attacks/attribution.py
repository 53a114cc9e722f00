"""Correct attribution probability of a target variable from key variables (TCAP and its baseline).

An intruder who knows a person's key values (``keys``) looks up the released records with the same
keys. Where all of them share one value of the ``target`` (the release's *within-equivalence-class
attribution probability* is 1), the intruder attributes that value to everybody with those keys.
TCAP, the targeted correct attribution probability, is how often that attribution is right in the
original data (Taub, Elliot, Pampaka & Smith 2018; Taub, Elliot & Sakshaug 2020):

    WEAP_i = #{release j: K_j = K_i, T_j = T_i} / #{release j: K_j = K_i}      (release record i)
    CAP_i  = #{original j: K_j = K_i, T_j = T_i} / #{original j: K_j = K_i}
    TCAP   = mean of CAP_i over the release records with WEAP_i = 1 whose keys occur in the original

The baseline is the correct attribution probability of an intruder who knows only the target's
distribution in the original and draws a value from it: ``Σ_t p_t²`` (``p_t`` the share of value
t). DCAP (the differential CAP of Taub et al. 2018) is the mean over original records whose keys
occur in the release of the share of those release records having the record's target.

Missing values: a missing key or target value is a value of its own (it matches a missing value).

References: Taub, Elliot, Pampaka & Smith (2018), "Differential Correct Attribution Probability for
Synthetic Data: An Exploration", PSD 2018, LNCS 11126, 122-137; Taub, Elliot & Sakshaug (2020),
"The impact of synthetic data generation on data utility with application to the 2011 UK Census
microdata", Journal of Survey Statistics and Methodology.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError
from .._codes import as_keys, check_frame

__all__ = ["tcap", "TCAPResult"]


@attrs.frozen
class TCAPResult:
    """Result of `tcap`: ``tcap`` (NaN when no release record is targeted), ``baseline``,
    ``n_targeted`` (release records with WEAP = 1 whose keys occur in the original),
    ``n_unmatched`` (targeted records whose keys do not occur in the original), ``dcap`` and
    ``n_dcap`` (original records whose keys occur in the release)."""

    tcap: float
    baseline: float
    n_targeted: int
    n_unmatched: int
    dcap: float
    n_dcap: int
    keys: tuple[str, ...]
    target: str

    def to_dict(self) -> dict[str, Any]:
        """The figures as a dict."""
        return {"tcap": self.tcap, "baseline": self.baseline, "n_targeted": self.n_targeted,
                "n_unmatched": self.n_unmatched, "dcap": self.dcap, "n_dcap": self.n_dcap}


def _codes(pooled: pd.DataFrame) -> np.ndarray:
    """One dense code per row of ``pooled`` (missing values are values)."""
    out = np.zeros(len(pooled), dtype=np.int64)
    for c in pooled.columns:
        try:
            codes, uniq = pd.factorize(pooled[c].astype("object"), use_na_sentinel=False)
        except TypeError:
            raise MeasureError(f"tcap: column {c!r} holds values that are not categories") \
                from None
        out = out * (len(uniq) + 1) + codes
        out = pd.factorize(out)[0].astype(np.int64)
    return out


def tcap(original: pd.DataFrame, release: pd.DataFrame, *, keys: Sequence[str] | str,
         target: str) -> TCAPResult:
    """TCAP, its baseline and DCAP of ``target`` given ``keys`` (see the module for the formulas).

    Formula: ``TCAP = mean{CAP_i : WEAP_i = 1}``, ``baseline = Σ_t p_t²`` (Taub et al. 2018).

    Missing values: a missing key or target value is a value of its own.

    A target with a single value in the original is a `MeasureError`.

    Example
    -------
    >>> import pandas as pd
    >>> o = pd.DataFrame({"sex": ["m", "m", "f", "f"], "ill": ["y", "n", "y", "y"]})
    >>> r = tcap(o, o.iloc[[0, 2, 3]], keys=["sex"], target="ill")
    >>> round(r.tcap, 4), r.baseline
    (0.8333, 0.625)
    """
    o = check_frame(original, "tcap: original")
    r = check_frame(release, "tcap: release")
    ks = as_keys(keys, "keys")
    if not isinstance(target, str):
        raise ParameterError(f"target: expected one column name, got {target!r}")
    if target in ks:
        raise ParameterError(f"target: {target!r} is also a key variable")
    for name, df in (("original", o), ("release", r)):
        missing = [c for c in [*ks, target] if c not in df.columns]
        if missing:
            raise MeasureError(f"tcap: mismatched columns: the {name} lacks {missing}")
    if o[target].nunique(dropna=False) < 2:
        raise MeasureError(f"tcap: the target {target!r} is constant in the original: every "
                           "attribution is right, there is nothing to measure")
    pooled = pd.concat([o[[*ks, target]], r[[*ks, target]]], ignore_index=True)
    key = _codes(pooled[ks])
    kt = _codes(pooled[[*ks, target]])
    tg = _codes(pooled[[target]])
    n_o = len(o)
    ko, kr, kto, ktr = key[:n_o], key[n_o:], kt[:n_o], kt[n_o:]
    nk, nkt = int(key.max()) + 1, int(kt.max()) + 1
    o_k, o_kt = np.bincount(ko, minlength=nk), np.bincount(kto, minlength=nkt)
    r_k, r_kt = np.bincount(kr, minlength=nk), np.bincount(ktr, minlength=nkt)
    weap = r_kt[ktr] / r_k[kr]
    targeted = weap == 1.0
    in_orig = o_k[kr] > 0
    sel = targeted & in_orig
    cap = o_kt[ktr[sel]] / o_k[kr[sel]]
    value = float(cap.mean()) if sel.any() else float("nan")
    p = np.bincount(tg[:n_o]) / n_o
    baseline = float((p * p).sum())
    matched = r_k[ko] > 0
    dcap = float((r_kt[kto[matched]] / r_k[ko[matched]]).mean()) if matched.any() \
        else float("nan")
    return TCAPResult(value, baseline, int(sel.sum()), int((targeted & ~in_orig).sum()), dcap,
                      int(matched.sum()), tuple(ks), target)
