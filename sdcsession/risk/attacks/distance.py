"""Distance to closest record (DCR) and nearest-neighbour distance ratio (NNDR) of a release.

For every released record r, with the Gower distance d on mixed data (numbers scaled by their
range over all files compared, categories 0/1; `sdcsession.risk.attacks._neighbours`):

    DCR(r)  = min_o d(r, o)                      over the original records o
    NNDR(r) = d(r, o_(1)) / d(r, o_(2))          nearest over second-nearest original record

A DCR of 0 is an exact copy of an original record; an NNDR near 0 means the release record is
much closer to one original record than to any other. With a ``holdout`` (original records not
used for the release), the DCR to the holdout is computed too, and the share of release records
closer to the original than to the holdout (ties count one half) is compared with what a release
unrelated to its originals would give, ``n_original / (n_original + n_holdout)`` (0.5 for equal
sizes): a share well above it means the release copies its originals.

References: Park, Mohammadi, Gorde, Jajodia, Park & Kim (2018), "Data synthesis based on
generative adversarial networks", PVLDB 11(10) (DCR); Zhao, Kunar, Birke & Chen (2021), "CTAB-GAN"
(DCR and NNDR); Gower (1971), Biometrics 27, 857-871.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ...errors import MeasureError
from ._common import check_inputs, encode_frames
from ._neighbours import gower_ranges, nearest

__all__ = ["dcr", "DCRResult"]


@attrs.frozen(eq=False)
class DCRResult:
    """Result of `dcr`.

    Attributes
    ----------
    dcr, nndr : pd.Series
        Per release record (indexed like the release). NNDR is 1 when the two nearest distances
        are both 0 and NaN with a single original record.
    dcr_holdout : pd.Series or None
        DCR to the holdout records.
    exact_matches : int
        Release records with DCR 0 (copies of an original record on the compared columns).
    share_closer_to_original, expected_share : float
        Share of release records closer to the original than to the holdout (ties one half) and
        its value for a release unrelated to its originals (NaN without holdout).
    """

    dcr: pd.Series
    nndr: pd.Series
    dcr_holdout: pd.Series | None
    exact_matches: int
    share_closer_to_original: float
    expected_share: float
    columns: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """Summary figures: median and 5th percentile of DCR and NNDR, exact matches, shares."""
        out = {"dcr_median": float(self.dcr.median()), "dcr_p05": float(self.dcr.quantile(0.05)),
               "nndr_median": float(self.nndr.median()),
               "nndr_p05": float(self.nndr.quantile(0.05)),
               "exact_matches": self.exact_matches,
               "share_closer_to_original": self.share_closer_to_original,
               "expected_share": self.expected_share}
        if self.dcr_holdout is not None:
            out["dcr_holdout_median"] = float(self.dcr_holdout.median())
        return out


def dcr(original: pd.DataFrame, release: pd.DataFrame, holdout: pd.DataFrame | None = None, *,
        columns: Sequence[str] | None = None) -> DCRResult:
    """DCR and NNDR of every release record against ``original`` (and ``holdout``), exact.

    Parameters
    ----------
    original : the records behind the release.
    release : the released file.
    holdout : original records not used for the release (optional).
    columns : the compared columns (default: every column of ``original``).

    Algorithm: exact nearest neighbours, `scipy.spatial.cKDTree` (L1 on range-scaled values)
    when every column is a number and nothing is missing, brute force in blocks otherwise;
    O(n_release · n_original · p) in the worst case.

    Missing values: two missing values are equal (distance 0 on that column), a missing value
    is at distance 1 from a present one.

    Example
    -------
    >>> import pandas as pd
    >>> o = pd.DataFrame({"age": [20.0, 40.0, 60.0], "sex": ["m", "f", "m"]})
    >>> r = dcr(o, pd.DataFrame({"age": [20.0, 50.0], "sex": ["m", "f"]}))
    >>> r.dcr.round(4).tolist(), r.nndr.round(4).tolist(), r.exact_matches
    ([0.0, 0.125], [0.0, 0.2], 1)
    """
    o, r, h, cols = check_inputs(original, release, holdout, columns, "dcr",
                                 min_control=1)
    (xo, xr, xh), numeric = encode_frames([o, r, h], cols)
    ranges = gower_ranges([xo, xr, xh], numeric)
    k = 2 if len(xo) >= 2 else 1
    d, _ = nearest(xr, xo, numeric, ranges, k)
    d1 = d[:, 0]
    if k == 2:
        with np.errstate(invalid="ignore", divide="ignore"):
            nndr = np.where(d[:, 1] == 0, 1.0, d1 / d[:, 1])
    else:
        nndr = np.full(len(xr), np.nan)
    idx = r.index
    dh = None
    share = float("nan")
    expected = float("nan")
    if xh is not None:
        if not len(xh):
            raise MeasureError("dcr: the holdout has no record")
        dh_arr = nearest(xr, xh, numeric, ranges, 1)[0][:, 0]
        dh = pd.Series(dh_arr, index=idx, name="dcr_holdout")
        share = float(np.mean((d1 < dh_arr) + 0.5 * (d1 == dh_arr)))
        expected = len(xo) / (len(xo) + len(xh))
    return DCRResult(pd.Series(d1, index=idx, name="dcr"), pd.Series(nndr, index=idx, name="nndr"),
                     dh, int((d1 == 0).sum()), share, expected, tuple(cols))
