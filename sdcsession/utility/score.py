"""A combined utility score of a protected file: suppressions, lost categories and numeric loss.

sdcMicro 5.8.1's ``ai_utility_score`` (the score its anonymisation assistant minimises). For the
``p`` key variables (n records) and the ``q`` numeric variables:

- **suppression rate** ``s = max(0, M' − M) / (n p)``: the missing key values added by the
  protection (M, M' the missing key cells of the original and the protected file);
- **category loss** ``c = (1/p) Σ_j (1 − L'_j / L_j)``: per key variable, the distinct values
  ``L_j`` of the original and ``L'_j`` of the protected file, both counted on the records whose
  protected value is not missing (so suppressions do not count twice; a missing original value
  counts as one value), and ``1 − L'_j / L_j`` taken as 0 when ``L_j = 0``;
- **IL1s** ``i = Σ_j Σ_i |x_ij − z_ij| / (√2 S_j) / (n q)``: the published, normalised IL1s of the
  numeric variables (`sdcsession.utility.il1s`; 0 without numeric variables).

``total = w_1 s + w_2 c + w_3 i`` with the weights rescaled to sum to 1 (default ``(1/3, 1/3,
1/3)``). Lower is better; 0 means the two files agree on all three components.

Reference: sdcMicro 5.8.1, ``ai_utility_score`` (Templ); Yancey, Winkler & Creecy (2002) for
IL1s.

Example
-------
>>> import pandas as pd
>>> o = pd.DataFrame({"a": ["x", "y", "z", "z"], "v": [1.0, 2.0, 3.0, 4.0]})
>>> m = pd.DataFrame({"a": ["x", "y", None, "y"], "v": [1.0, 2.0, 3.0, 4.0]})
>>> r = utility_score(o, m, keys=["a"], numeric=["v"])
>>> r.suppression_rate, round(r.category_loss, 4), r.il1, round(r.total, 4)
(0.25, 0.3333, 0.0, 0.1944)
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from numbers import Real
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError

__all__ = ["UtilityScore", "utility_score"]


@attrs.frozen
class UtilityScore:
    """Result of `utility_score` (sdcMicro's ``ai_utility_score`` list).

    ``total``, ``suppression_rate``, ``category_loss``, ``il1`` and the normalised ``weights``.

    >>> UtilityScore(0.1, 0.3, 0.0, 0.0, (1.0, 0.0, 0.0)).to_dict()["total"]
    0.1
    """

    total: float
    suppression_rate: float
    category_loss: float
    il1: float
    weights: tuple[float, float, float]

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        return {"total": self.total, "suppression_rate": self.suppression_rate,
                "category_loss": self.category_loss, "il1": self.il1,
                "weights": list(self.weights)}


def _weights(weights: Any) -> tuple[float, float, float]:
    if isinstance(weights, (str, bytes)) or not isinstance(weights, Sequence) or \
            len(weights) != 3:
        raise ParameterError(f"weights: expected three numbers (suppression rate, category "
                             f"loss, IL1s), got {weights!r:.60}")
    if any(isinstance(w, bool) or not isinstance(w, Real) or not np.isfinite(w) or w < 0
           for w in weights):
        raise ParameterError(f"weights: expected three finite numbers >= 0, got {weights!r:.60}")
    total = float(sum(weights))
    if total <= 0:
        raise ParameterError("weights: at least one weight must be > 0")
    return tuple(float(w) / total for w in weights)  # type: ignore[return-value]


def _names(value: Any, what: str, frames: tuple[pd.DataFrame, pd.DataFrame]) -> list[Hashable]:
    from ._align import column_list

    names = column_list(value, "utility_score", what)
    if len(set(names)) != len(names):
        raise ParameterError(f"utility_score: {what} names a column twice: {names!r:.80}")
    for frame, label in zip(frames, ("original", "masked")):
        absent = [c for c in names if c not in frame.columns]
        if absent:
            raise MeasureError(f"utility_score: {what} {absent} not in the {label} data")
    return names


def utility_score(original: pd.DataFrame, masked: pd.DataFrame, *,
                  keys: Iterable[Hashable] | str,
                  numeric: Iterable[Hashable] | str = (),
                  weights: Sequence[float] = (1 / 3, 1 / 3, 1 / 3)) -> UtilityScore:
    """sdcMicro 5.8.1's combined utility score (see the module docstring for the formulas).

    Parameters
    ----------
    original, masked : the data before and after protection, the same records in the same order.
    keys : the key variables (suppression rate and category loss).
    numeric : the numeric variables (IL1s); none gives ``il1 = 0``.
    weights : three weights >= 0 (not all 0) of suppression rate, category loss and IL1s,
        rescaled to sum to 1.

    Missing values: a missing key value of the protected file that is not missing in the
    original counts as a suppression; category loss counts distinct values only on the records
    whose protected value is observed; IL1s leaves out cells missing in either file (sdcMicro's
    ``na.rm = TRUE``).

    Example
    -------
    >>> o = pd.DataFrame({"a": ["x", "y", "z", "z"]})
    >>> utility_score(o, o, keys="a").total
    0.0
    """
    from ._align import check_cells, check_frames
    from .continuous.measures import il1s

    check_frames(original, masked, "utility_score")
    if len(original) != len(masked):
        raise MeasureError(f"utility_score: the original and masked files differ in length "
                           f"({len(original)} and {len(masked)} records)")
    w = _weights(weights)
    key_names = _names(keys, "keys", (original, masked))
    if not key_names:
        raise ParameterError("keys: expected at least one key variable")
    num_names = _names(numeric, "numeric", (original, masked))
    for frame, label in ((original, "original"), (masked, "masked")):
        check_cells(frame, key_names + num_names, label, "utility_score")
    n, p = len(original), len(key_names)
    o_miss = int(original[key_names].isna().to_numpy().sum())
    m_miss = int(masked[key_names].isna().to_numpy().sum())
    cells = n * p
    supp = max(0, m_miss - o_miss) / cells if cells else 0.0
    losses = []
    for c in key_names:
        observed = masked[c].notna().to_numpy()
        lo = original[c].to_numpy()[observed]
        lm = masked[c].to_numpy()[observed]
        n_o = pd.Series(lo).nunique(dropna=False)
        n_m = pd.Series(lm).nunique(dropna=False)
        losses.append(1 - n_m / n_o if n_o > 0 else 0.0)
    cat = float(np.mean(losses))
    il = 0.0
    if num_names and n:
        il = il1s(original.reset_index(drop=True), masked.reset_index(drop=True),
                  columns=num_names)
    total = w[0] * supp + w[1] * cat + w[2] * il
    return UtilityScore(total=float(total), suppression_rate=float(supp),
                        category_loss=cat, il1=float(il), weights=w)
