"""Robust-distance (RMD) disclosure risk of masked numeric data (sdcMicro ``dRiskRMD``).

Interval disclosure whose intervals grow with a record's outlyingness (Templ & Meindl 2008):
outliers are easier to re-identify, so an intruder's tolerance around them is wider. Definitions
(n records, p variables, records matched by index):

1. Each original variable and each masked variable is standardised by its own mean and standard
   deviation (n − 1): z = scale(x), z' = scale(x'); the masked file uses the masked moments.
2. Σ is the reweighted MCD covariance of z exactly as R's ``robustbase::covMcd`` returns it
   (h = ⌊(n + p + 1)/2⌋, consistency and finite-sample factors; ``sdcsession.risk.robust.minimum_covariance.mcd``
   with ``consistency="robustbase-0.95"``). The distance uses the *column means* of z (≈ 0),
   not the MCD location:  d²_i = (z_i − z̄)' Σ⁻¹ (z_i − z̄), and r_i = 0.05 √d²_i.
3. RMDID1: record i is at risk when for at least one variable j the masked value lies strictly
   inside the interval z_ij ± k·r_i. W₁ = the records at risk.
4. RMDID2: a record of W₁ stays at risk when no other masked record lies within Euclidean distance
   k2 of its masked record (min_{l≠i} ‖z'_i − z'_l‖ > k2). W₂ ⊆ W₁.
5. risk1 = |W₁|/n, risk2 = |W₂|/n, wrisk1 = |W₁| · Σ_{i∈W₁} r_i / n and
   wrisk2 = |W₂| · Σ_{i∈W₂} r_i / n (sdcMicro multiplies the count by the *sum* of the distances,
   so the weighted figures are not shares and can exceed 1). ``riskvec1``/``riskvec2`` hold r_i
   for the records of W₁/W₂ and 0 elsewhere.

Missing values: a missing masked value (or a masked variable that is constant, which standardising
turns into 0/0) never lies in an interval, and the nearest-neighbour distance of step 4 follows R's
``dist``: the squared differences over the variables present in both records, scaled up by
p / (number present); a record with no comparable neighbour has distance +∞ (stays at risk).
Missing *original* values make sdcMicro's result degenerate: the column means are NA, every
distance is NA and all four measures are 0. ``missing="error"`` (the default) refuses such data
with a ``sdcsession.errors.MeasureError``; ``missing="sdcmicro"`` returns sdcMicro's zeros.

Agreement with sdcMicro 5.8.1: covMcd is a random approximation (R's random number stream, 500
starts, subsamples for n ≥ 600, at most 10 … 1 final C-steps when n·p > 100,000 and only one
candidate when n > 5000), so two runs of dRiskRMD on the same files may return different figures
when the data have several local MCD optima, as heavy-tailed income data often do (on the CASC
test pair covMcd returned one h-subset for 116 of 200 seeds and 14 others for the rest; on
sdcMicro's testdata income/expend/savings nearly every seed gives another subset, and risk1 moves
by about ±2 %). This function runs the same search (Rousseeuw & Van Driessen's FastMCD with
covMcd's settings, ``search="fastmcd"``) up to ``runs`` times and keeps the h-subset returned
most often, which is covMcd's most frequent outcome whenever there is a clear one; when the
first three searches return the same subset it is kept without further searches (three
independent searches agreeing: in simulated vote sequences the chance of keeping covMcd's modal
subset moved by at most 0.01 against the vote of all ten, at half the searches on data with one
clear optimum). When both end in the same subset every figure agrees to rounding (the
covariance to ~1e-14). With one variable the
MCD is exact and there is no randomness. The result's ``mcd.log_det`` equals covMcd's ``crit``:
compare them to see whether two runs found the same subset. robustbase 0.99-0 changed the
reweighting factor (``mcd_factors="robustbase"``); the sdcMicro 5.8.1 reference uses robustbase
0.95-0.

Cost: the ``runs`` FastMCD searches dominate (a few milliseconds each at 10,000 records); their
random-start stages run in the calling thread and a helper thread, which share the groups of
records of each search, and the fit is cached per original and settings
(`sdcsession.risk.numeric._rmd_mcd`). RMDID2 only asks whether another masked record lies within
k2, which a grid of cells of side k2 answers without nearest-neighbour distances
(`sdcsession.risk.numeric._rmd_near`; the same answer as the k-d tree's distances, bit for bit).
The search begins as soon as the original is standardised: the masked file is read while the
helper starts on it (its errors are raised as before, and the search is then abandoned), and
the work that needs no fit (the grid's answer for every record, of which RMDID2 takes the
records at risk; the centring of the distances) is handed to the threads' idle moments at the
end of the search, as is the reweighted fit of the subset the first runs agree on. None of it
changes a bit of the result.

References: Templ, M. & Meindl, B. (2008) Robust statistics meets SDC: new disclosure risk
measures for continuous microdata masking, Privacy in Statistical Databases, LNCS 5262, 113–126;
Rousseeuw, P. J. & Van Driessen, K. (1999) A fast algorithm for the minimum covariance determinant
estimator, Technometrics 41, 212–223; sdcMicro ``dRiskRMD``.

Example
-------
>>> import numpy as np, pandas as pd
>>> rng = np.random.default_rng(1)
>>> x = pd.DataFrame(rng.lognormal(size=(300, 3)), columns=["a", "b", "c"])
>>> same = rmd_risk(x, x)
>>> same.risk1, round(same.risk2, 4)  # RMDID2: no other masked record within k2 = 0.05
(1.0, 0.8833)
>>> noisy = rmd_risk(x, x + rng.normal(scale=5.0, size=x.shape))
>>> noisy.risk1 < 0.1
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import attrs
import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError
from .._codes import as_keys, check_columns, check_frame, check_number
from ..robust.minimum_covariance import MCD
from .disclosure import _paired

__all__ = ["RMDRisk", "rmd_risk"]

#: r_i = RMD_SCALE · √d²_i (sdcMicro's constant)
RMD_SCALE = 0.05
#: elements of one block of the nearest-neighbour search with missing masked values
_BLOCK = 4_000_000


@attrs.frozen(eq=False)
class RMDRisk:
    """Result of ``rmd_risk``; per-record Series carry the index of ``original``.

    ``risk1``, ``risk2``, ``wrisk1``, ``wrisk2``: sdcMicro's four figures (see the module
    docstring). ``at_risk1`` / ``at_risk2``: boolean Series (W₁, W₂). ``riskvec1`` /
    ``riskvec2``: r_i on W₁ / W₂, else 0. ``distance``: r_i = 0.05 √d²_i for every record (NaN with
    ``missing="sdcmicro"`` on incomplete originals). ``mcd``: the MCD fit (None when not computed).

    Example
    -------
    >>> import pandas as pd
    >>> x = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6, 7, 30], "b": [2.0, 1, 4, 3, 6, 5, 8, 7]})
    >>> r = rmd_risk(x, x)
    >>> r.to_dict()["risk1"], list(r.index_risk1) == list(x.index)
    (1.0, True)
    """

    risk1: float
    risk2: float
    wrisk1: float
    wrisk2: float
    at_risk1: pd.Series
    at_risk2: pd.Series
    riskvec1: pd.Series
    riskvec2: pd.Series
    distance: pd.Series
    k: float
    k2: float
    columns: tuple[str, ...]
    mcd: MCD | None

    @property
    def index_risk1(self) -> pd.Index:
        """Index labels of the records at risk by RMDID1 (sdcMicro's ``indexRisk1``)."""
        return self.at_risk1.index[self.at_risk1.to_numpy()]

    @property
    def index_risk2(self) -> pd.Index:
        """Index labels of the records at risk by RMDID2 (sdcMicro's ``indexRisk2``)."""
        return self.at_risk2.index[self.at_risk2.to_numpy()]

    def to_dict(self) -> dict[str, float]:
        """The four scalar figures."""
        return {"risk1": self.risk1, "risk2": self.risk2, "wrisk1": self.wrisk1,
                "wrisk2": self.wrisk2}


def rmd_risk(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    k: float = 0.01,
    k2: float = 0.05,
    columns: str | Iterable[str] | None = None,
    missing: Literal["error", "sdcmicro"] = "error",
    n_starts: int = 500,
    runs: int = 10,
    seed: int = 0,
    mcd_factors: Literal["robustbase-0.95", "robustbase"] = "robustbase-0.95",
) -> RMDRisk:
    """Robust-Mahalanobis-distance disclosure risk of a masked file (sdcMicro ``dRiskRMD``).

    Record i is at risk (RMDID1) when some masked value lies strictly inside
    z_ij ± k · 0.05 · √d²_i, with z the standardised original, z' the standardised masked file and
    d²_i the squared Mahalanobis distance from the column means under the reweighted MCD
    covariance; RMDID2 keeps those with no other masked record within distance k2. risk1 = |W₁|/n,
    risk2 = |W₂|/n, wrisk1 = |W₁| Σ_{W₁} r_i / n, wrisk2 = |W₂| Σ_{W₂} r_i / n (module docstring).

    Missing values: missing original values are refused (``missing="error"``) or give sdcMicro's
    all-zero result (``missing="sdcmicro"``); missing masked values are handled as sdcMicro does
    (left out of the comparisons); an all-missing variable is a MeasureError.

    Parameters
    ----------
    original, masked : DataFrames with the same index (masked is aligned to the original's order)
        and, unless ``columns`` is given, the same numeric columns.
    k : width factor of the intervals (> 0 for a non-empty interval; sdcMicro default 0.01).
    k2 : radius of the RMDID2 neighbourhood in standardised units (sdcMicro default 0.05).
    columns : the variables (default: all columns of ``original``).
    missing : ``"error"`` refuses missing original values; ``"sdcmicro"`` returns sdcMicro's
        all-zero result for them. Missing masked values are handled as sdcMicro does.
    n_starts, runs, seed : the MCD is the subset returned most often by ``runs`` FastMCD searches
        with ``n_starts`` random starts each (seeds ``seed``, ``seed + 1``, …; ties: the smallest
        determinant, then the first run), or the subset of the first three searches when they
        all return it. covMcd runs one search with 500 starts. The searches stop as soon as no
        other subset can overtake the leading one, ties included (the result is the same as
        after all runs), or when the first three agree. The searches' random-start stages run
        in the calling thread and a helper thread (the result does not depend on it; the
        masked file is read, and the work needing no fit done, while they run), and the last
        four MCD fits are cached under a SHA-256 digest of the standardised original and these
        settings: a session computing the risk after every step against the same original
        pays the search once (about 0.025 s of CPU at 10,000 records; a repeat call about
        0.003 s). Neither changes any result (a cached fit is handed out as a copy).
    mcd_factors : robustbase's reweighting factor of version 0.95 (sdcMicro 5.8.1 reference) or of
        0.99 and later.

    Returns an ``RMDRisk``.

    Reference: Templ & Meindl (2008), PSD 2008, LNCS 5262; sdcMicro ``dRiskRMD``.

    Example
    -------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> x = pd.DataFrame(rng.normal(size=(200, 2)), columns=["a", "b"])
    >>> r = rmd_risk(x, x + rng.normal(scale=0.001, size=x.shape), k=0.5)
    >>> 0.5 < r.risk1 <= 1 and r.risk2 <= r.risk1
    True
    """
    _check_search(n_starts, runs, seed)
    kk = _number(k, "k", 0.0)
    kk2 = _number(k2, "k2", 0.0)
    if not isinstance(missing, str) or missing not in ("error", "sdcmicro"):
        raise ParameterError(f"missing: expected 'error' or 'sdcmicro', got {missing!r}")
    if not isinstance(mcd_factors, str) or mcd_factors not in ("robustbase-0.95", "robustbase"):
        raise ParameterError(
            f"mcd_factors: expected 'robustbase-0.95' or 'robustbase', got {mcd_factors!r}")
    cols, paired = _checked(original, masked, columns)
    index = original.index
    x = _array(original, cols, "original")
    n, p = x.shape
    incomplete = bool(np.isnan(x).any())
    sd = z = search = None
    if not incomplete:
        sd = x.std(axis=0, ddof=1) if n > 1 else np.zeros(p)
        if (sd > 0).all():  # the search begins (its helper starts) while the masked file is read
            from ._rmd_mcd import begin

            z = (x - x.mean(axis=0)) / sd
            search = begin(z, n_starts, runs, seed, mcd_factors)
    try:
        xm = _array(paired, cols, "masked")
        if incomplete:
            if missing == "error":
                bad = {c: int(v) for c, v in zip(cols, np.isnan(x).sum(axis=0)) if v}
                raise MeasureError(
                    f"original: missing values {bad}; sdcMicro's dRiskRMD then returns 0 for "
                    "every measure (its column means are NA). Drop or impute those records, or "
                    "pass missing='sdcmicro' for sdcMicro's result")
            zero = pd.Series(np.zeros(n), index=index)
            no = pd.Series(np.zeros(n, dtype=bool), index=index)
            return RMDRisk(0.0, 0.0, 0.0, 0.0, no, no.copy(), zero, zero.copy(),
                           pd.Series(np.full(n, np.nan), index=index), kk, kk2, tuple(cols),
                           None)
        if search is None:
            bad = [c for c, s in zip(cols, sd) if not s > 0]
            raise MeasureError(
                f"original: constant variable(s) {bad}; they cannot be standardised")
        zm = _scale_masked(xm)
        # work for the search's idle helper (none without one): what the distances and
        # RMDID2 need besides the fit
        centred = search.idle(lambda: z - z.mean(axis=0), caller=True)
        grid = search.idle(lambda: _isolated_all(zm, kk2)) if not np.isnan(zm).any() else None
        fit = search.result()
    except BaseException:
        if search is not None:
            search.close()
        raise
    r = _robust_distance(z, fit, None if centred is None else centred.result())
    half = kk * r[:, None]
    with np.errstate(invalid="ignore"):
        hit = (zm > z - half) & (zm < z + half)  # NaN compares False
    at1 = hit.any(axis=1)
    at2 = np.zeros(n, dtype=bool)
    if at1.any():
        rows = np.flatnonzero(at1)
        every = grid.result() if grid is not None else None
        at2[at1] = every[rows] if every is not None else _isolated(zm, rows, kk2)
    elif grid is not None:
        grid.drop()
    n1, n2 = int(at1.sum()), int(at2.sum())
    return RMDRisk(
        risk1=n1 / n, risk2=n2 / n,
        wrisk1=n1 * float(r[at1].sum()) / n, wrisk2=n2 * float(r[at2].sum()) / n,
        at_risk1=pd.Series(at1, index=index), at_risk2=pd.Series(at2, index=index),
        riskvec1=pd.Series(np.where(at1, r, 0.0), index=index),
        riskvec2=pd.Series(np.where(at2, r, 0.0), index=index),
        distance=pd.Series(r, index=index), k=kk, k2=kk2, columns=tuple(cols), mcd=fit)


# ------------------------------------------------------------------------------------ internals
def _check_search(n_starts: object, runs: object, seed: object) -> None:
    """ParameterError unless the MCD search settings are usable integers (bounded: each run and
    start costs time, so 10**30 of them is refused rather than run)."""
    for name, v, low, high in (("runs", runs, 1, 1000), ("n_starts", n_starts, 0, 100_000),
                               ("seed", seed, 0, 2**32 - 1)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) \
                or not low <= v <= high:
            raise ParameterError(f"{name}: expected an integer in [{low}, {high}], got {v!r:.60}")


def _modal_mcd(z: np.ndarray, n_starts: int, runs: int, seed: int, factors: str) -> MCD:
    """The reweighted MCD whose h-subset the most of ``runs`` FastMCD searches return.

    The same result as calling ``mcd(z, seed=seed + i, search="fastmcd", ...)`` for every run
    and keeping the most frequent subset (ties: the smallest determinant, then the first run),
    or the subset of the first ``AGREE`` = 3 runs when they all return it,
    computed with less work: each run is only the search (the reweighted estimate is formed once,
    for the subset chosen); the converged last-stage C-steps are shared between runs that reach
    the same start (``memo`` of `sdcsession.risk.robust._fastmcd.fastmcd`); the runs stop
    as soon as no other subset (seen or not) can still overtake the leading one, the tie rule
    included (`sdcsession.risk.numeric._rmd_runs.certain`); the runs' start stages run in the
    calling thread and a helper thread (decided in run order); and the last few
    fits are cached by a digest of z and the settings (`sdcsession.risk.numeric._rmd_mcd`).
    """
    from ._rmd_mcd import modal_mcd

    _check_search(n_starts, runs, seed)
    return modal_mcd(z, n_starts, runs, seed, factors)


def _robust_distance(z: np.ndarray, fit: MCD, centred: np.ndarray | None = None
                     ) -> np.ndarray:
    """r_i = 0.05 √d²_i from the column means of z under the reweighted MCD covariance
    (``centred``: z minus its column means when already computed)."""
    try:
        chol = np.linalg.cholesky(fit.scatter)
    except np.linalg.LinAlgError:
        raise MeasureError("original: the reweighted MCD covariance is singular (the records "
                           "kept lie on a hyperplane); the robust distances are undefined") from None
    y = np.linalg.solve(chol, (z - z.mean(axis=0) if centred is None else centred).T)
    return RMD_SCALE * np.sqrt(np.einsum("ij,ij->j", y, y))


def _number(v: object, name: str, low: float) -> float:
    x = check_number(v, name, f"a finite number >= {low:g}")
    if x < low:
        raise ParameterError(f"{name}: expected a finite number >= {low:g}, got {v!r}")
    return x


def _aligned(original: pd.DataFrame, masked: pd.DataFrame, columns: str | Iterable[str] | None
             ) -> tuple[np.ndarray, np.ndarray, list[str], pd.Index]:
    """Float arrays of both files in the original's record order, the columns and the index."""
    cols, paired = _checked(original, masked, columns)
    return (_array(original, cols, "original"), _array(paired, cols, "masked"), cols,
            original.index)


def _checked(original: pd.DataFrame, masked: pd.DataFrame, columns: str | Iterable[str] | None
             ) -> tuple[list[str], pd.DataFrame]:
    """The checks of both frames that come before their values are read (`_aligned`): the
    columns and ``masked`` paired with the original's records by index."""
    check_frame(original, "original")
    check_frame(masked, "masked")
    if columns is None:
        cols = [str(c) for c in original.columns]
        other = sorted(set(map(str, masked.columns)) ^ set(cols))
        if other:
            raise MeasureError(
                f"masked: its columns differ from the original's (not in both: {other}); give "
                "columns=[...] to compare a subset")
    else:
        cols = as_keys(columns, "columns")
    check_columns(original, cols, "columns (original)")
    check_columns(masked, cols, "columns (masked)")
    return cols, _paired(original, masked)  # records paired by index, as every numeric risk


def _array(frame: pd.DataFrame, cols: list[str], name: str) -> np.ndarray:
    """The float array of ``frame``'s columns ``cols`` (checked: numeric, finite, not all
    missing; ``name`` in the messages)."""
    dtypes = frame.dtypes  # unique column names (check_frame): one dtype per name
    bad = [c for c in cols if not pd.api.types.is_numeric_dtype(dtypes[c])
           or pd.api.types.is_bool_dtype(dtypes[c])]
    if bad:
        raise MeasureError(f"{name}: column(s) {bad} are not numeric")
    if list(frame.columns) == cols:  # the same array (values, layout) without the selection
        a = frame.to_numpy(dtype=np.float64, na_value=np.nan, copy=True)
    else:
        a = frame[cols].to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isinf(a).any():
        raise MeasureError(f"{name}: infinite values in {cols}")
    empty = [c for c, e in zip(cols, np.isnan(a).all(axis=0)) if e]
    if empty:
        raise MeasureError(f"{name}: variable(s) {empty} have only missing values")
    return a


def _scale_masked(xm: np.ndarray) -> np.ndarray:
    """Standardise by the masked moments, ignoring missing values (R's ``scale``).

    A variable with fewer than two values or no spread becomes all-NaN (R's 0/0).
    """
    ok = ~np.isnan(xm)
    cnt = ok.sum(axis=0)
    mean = np.where(ok, xm, 0.0).sum(axis=0) / cnt
    dev = np.where(ok, xm - mean, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt((dev * dev).sum(axis=0) / (cnt - 1))
        sd = np.where(sd > 0, sd, np.nan)
        return (xm - mean) / sd


def _isolated(zm: np.ndarray, rows: np.ndarray, k2: float) -> np.ndarray:
    """RMDID2's test for the records in ``rows``: no other masked record within k2, i.e.
    ``_nearest_other(zm, rows) > k2``. Complete data take the grid of
    `sdcsession.risk.numeric._rmd_near` (the same answer without the nearest distances)."""
    if not np.isnan(zm).any():
        from ._rmd_near import isolated

        out = isolated(zm, rows, k2)
        if out is not None:
            return out
    return _nearest_other(zm, rows) > k2


def _isolated_all(zm: np.ndarray, k2: float) -> np.ndarray | None:
    """`_isolated` for every record of the complete array zm by the grid, None when the grid
    cannot be used (computed by the search's idle helper: the records at risk index it)."""
    from ._rmd_near import isolated

    return isolated(zm, np.arange(len(zm)), k2)


def _nearest_other(zm: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Euclidean distance from each record in ``rows`` to its nearest other masked record.

    Complete data: a k-d tree (the second nearest point of a record is its nearest other one).
    Missing values: R's ``dist`` rule in blocks of rows (+∞ when nothing is comparable).
    """
    from scipy.spatial import cKDTree

    n, p = zm.shape
    if n < 2:
        return np.full(len(rows), np.inf)
    nan = np.isnan(zm)
    if not nan.any():
        d, _ = cKDTree(zm).query(zm[rows], k=2)
        return d[:, 1]
    out = np.empty(len(rows))
    step = max(1, _BLOCK // (n * p))
    for b in range(0, len(rows), step):  # blocks of records, vectorised within
        blk = rows[b:b + step]
        diff = zm[blk][:, None, :] - zm[None, :, :]
        both = (~np.isnan(diff)).sum(axis=2)
        sq = np.nansum(diff * diff, axis=2)
        with np.errstate(invalid="ignore", divide="ignore"):
            d = np.sqrt(sq * p / both)
        d[both == 0] = np.inf
        d[np.arange(len(blk)), blk] = np.inf
        out[b:b + len(blk)] = d.min(axis=1)
    return out
