"""Distance-based record linkage of a masked file to its original (sdcMicro ``recordLinkage``).

The intruder knows the original values ``x_i`` of the linkage variables and links every original
record to one masked record ``y_j``. With a distance ``d(x_i, y_j)`` the *global* (one-to-one)
linkage is the assignment ``pi`` minimising ``sum_i d(x_i, y_pi(i))`` (Herranz, Nin, Rodríguez &
Tassa 2015, "global distance-based record linkage"), solved exactly by the Hungarian method
(``scipy.optimize.linear_sum_assignment``). ``assignment="nearest"`` links every original record to
its nearest masked record instead (classic DBRL; several records may pick the same one). Records
are matched by index: the masked record with the original's index label is the truth.

Distances (as ``cluster::daisy``, which sdcMicro 5.8.1 calls on ``rbind(x, y)``):

- ``"euclidean"``: ``sqrt(sum_k (x_ik - y_jk)^2)`` and ``"manhattan"``: ``sum_k |x_ik - y_jk|`` on
  the *raw* values (no standardisation: daisy's ``stand = FALSE``; standardise the variables
  yourself when their scales differ). Numeric (or boolean, as 0/1) variables only. When values
  are missing the sum runs over the ``q`` variables observed in both records and is scaled by
  ``p / q`` (inside the square root for euclidean).
- ``"gower"``: ``d_ij = sum_k w_k delta_ijk d_ijk / sum_k w_k delta_ijk`` with, per variable,
  numeric: ``d = |x_ik - y_jk| / R_k``, ``R_k`` the range over *both* files (1 when 0);
  ordered categorical: the same on the category codes; nominal (strings, unordered categories):
  ``d = 0`` when equal, else 1; boolean (daisy's asymmetric binary): ``d = 1`` when they differ,
  and a pair of two ``False`` does not count (``delta = 0``). ``delta_ijk = 0`` when either value
  is missing. ``weights`` (``w_k``, default 1) apply to Gower only, as in daisy.

Ties: ``n_best`` counts, for every original record, the masked records within ``tol``
(default ``sqrt(machine eps)``, sdcMicro's) of its smallest distance. When several assignments
have the same (minimal) total distance — common with categorical variables, whose distances take
few values — which one is returned depends on the solver (sdcMicro uses ``clue::solve_LSAP``; we
solve with the masked records as rows, which gives the same optimum and is faster with scipy), and
``correct_matches`` can differ between equally good assignments. With continuous variables exact
ties are rare and the result is sdcMicro's.

Memory: the distance matrix is computed in blocks of original records (at most ~64 MB of
temporaries per block); the n x n cost matrix itself is kept for the assignment (8 n^2 bytes:
200 MB for 5,000 records).

References: Domingo-Ferrer & Torra (2001), "A quantitative comparison of disclosure control
methods for microdata"; Herranz, Nin, Rodríguez & Tassa (2015), Data & Knowledge Engineering 100,
78-93; Gower (1971), Biometrics 27, 857-871; Kaufman & Rousseeuw (1990), *Finding Groups in Data*,
ch. 1 (daisy); Kuhn (1955), the Hungarian method.

Example
-------
>>> import pandas as pd
>>> from sdcsession.risk import record_linkage
>>> x = pd.DataFrame({"age": [23, 40, 35], "sex": ["f", "m", "f"]})
>>> y = pd.DataFrame({"age": [24, 39, 35], "sex": ["f", "m", "m"]})
>>> r = record_linkage(x, y, variables=["age", "sex"], distance="gower")
>>> r.correct_matches, round(r.mean_distance, 4)
(3, 0.1863)
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from numbers import Real

import attrs
import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError, SdcWarning, user_stacklevel
from .._codes import as_keys, check_columns, check_flag, check_frame, check_number

__all__ = ["LinkageResult", "record_linkage"]

_DISTANCES = ("euclidean", "manhattan", "gower")
_ASSIGNMENTS = ("optimal", "nearest")
_NA_ACTIONS = ("ignore", "fail")
#: elements of one block of the (records x records) temporaries
_BLOCK_ELEMENTS = 8_000_000


@attrs.frozen(eq=False)
class LinkageResult:
    """Result of `record_linkage`.

    Attributes
    ----------
    matches : pd.DataFrame
        Indexed like the original ``x``: ``match`` (index label of the linked masked record),
        ``distance``, ``correct`` (bool), ``n_best`` (masked records tied at the smallest distance).
    correct_matches : int
        Number of original records linked to their own masked record.
    correct_match_rate : float
        ``correct_matches / n`` (with id columns: among the links whose ids are both known).
    mean_distance, total_distance : float
        Mean and sum of the distances of the links.
    distance, assignment : str
        The metric and the linkage rule used.
    variables : tuple[str, ...]
        The linkage variables.
    distance_matrix : pd.DataFrame or None
        With ``return_matrix=True``: all distances (rows: ``x`` index, columns: ``y`` index).

    Example
    -------
    >>> import pandas as pd
    >>> r = record_linkage(pd.DataFrame({"a": [1.0, 2.0]}), pd.DataFrame({"a": [2.0, 1.0]}),
    ...                    variables=["a"])
    >>> r.correct_match_rate, r.matches["match"].tolist()
    (0.0, [1, 0])
    """

    matches: pd.DataFrame
    correct_matches: int
    correct_match_rate: float
    mean_distance: float
    total_distance: float
    distance: str
    assignment: str
    variables: tuple[str, ...]
    distance_matrix: pd.DataFrame | None = None

    @property
    def n_tied(self) -> int:
        """Original records with more than one masked record at the smallest distance."""
        return int((self.matches["n_best"].to_numpy() > 1).sum())

    def to_dict(self) -> dict[str, float | int | str]:
        """Scalar figures as a JSON-serialisable dict."""
        return {"correct_matches": self.correct_matches,
                "correct_match_rate": self.correct_match_rate,
                "mean_distance": self.mean_distance, "total_distance": self.total_distance,
                "n_tied": self.n_tied, "distance": self.distance, "assignment": self.assignment}

    def __repr__(self) -> str:
        n = len(self.matches)
        return (f"LinkageResult({self.distance}, {self.assignment}: {self.correct_matches}/{n} "
                f"correct ({100 * self.correct_match_rate:.2f} %), mean distance "
                f"{self.mean_distance:.6g}, {self.n_tied} record(s) with tied best matches)")


def _kind(a: pd.Series, b: pd.Series, v: str, gower: bool) -> str:
    """'num', 'ord', 'nom' or 'bin' for a pair of columns (raise when they do not fit together)."""
    def is_bool(s: pd.Series) -> bool:
        return pd.api.types.is_bool_dtype(s.dtype)

    def is_num(s: pd.Series) -> bool:
        return pd.api.types.is_numeric_dtype(s.dtype) and not is_bool(s)

    if not gower:
        if (is_num(a) or is_bool(a)) and (is_num(b) or is_bool(b)):
            return "num"
        raise MeasureError(
            f"variables: {v!r} is not numeric ({a.dtype} / {b.dtype}); euclidean and manhattan "
            "distances need numeric variables, use distance='gower' for categorical ones")
    if is_bool(a) and is_bool(b):
        return "bin"
    if is_num(a) and is_num(b):
        return "num"
    ordered = [s for s in (a, b) if isinstance(s.dtype, pd.CategoricalDtype) and s.dtype.ordered]
    if ordered:
        return "ord"
    if is_num(a) or is_num(b) or is_bool(a) or is_bool(b):
        raise MeasureError(
            f"variables: {v!r} is {a.dtype} in x but {b.dtype} in y; give it the same type in "
            "both files")
    return "nom"


def _ordinal_codes(a: pd.Series, b: pd.Series, v: str) -> tuple[np.ndarray, np.ndarray]:
    cats = [s.dtype.categories for s in (a, b)
            if isinstance(s.dtype, pd.CategoricalDtype) and s.dtype.ordered]
    if len(cats) == 2 and not cats[0].equals(cats[1]):
        raise MeasureError(
            f"variables: {v!r} is ordered with other categories in x and y "
            f"({list(cats[0])} vs {list(cats[1])})")
    levels = cats[0]
    out = []
    for s, name in ((a, "x"), (b, "y")):
        codes = pd.Categorical(s.astype(object), categories=levels).codes.astype(np.float64)
        lost = (codes < 0) & s.notna().to_numpy()
        if lost.any():
            raise MeasureError(
                f"{name}: {v!r} has values outside the ordered categories {list(levels)}")
        codes[codes < 0] = np.nan
        out.append(codes + 1.0)
    return out[0], out[1]


def _prepare(x: pd.DataFrame, y: pd.DataFrame, variables: list[str], gower: bool):
    """Per variable: kind, x values, y values (float64, NaN = missing), all numeric."""
    cols = []
    for v in variables:
        a, b = x[v], y[v]
        kind = _kind(a, b, v, gower)
        if kind == "ord":
            xa, ya = _ordinal_codes(a, b, v)
        elif kind == "nom":
            codes, _ = pd.factorize(pd.concat([a.astype(object), b.astype(object)],
                                              ignore_index=True), use_na_sentinel=True)
            codes = codes.astype(np.float64)
            codes[codes < 0] = np.nan
            xa, ya = codes[: len(a)], codes[len(a):]
        else:
            xa = a.to_numpy(dtype=np.float64, na_value=np.nan)
            ya = b.to_numpy(dtype=np.float64, na_value=np.nan)
            if np.isinf(xa).any() or np.isinf(ya).any():
                raise MeasureError(f"variables: {v!r} has infinite values")
        both = np.concatenate([xa, ya])
        if np.isnan(both).all():
            raise MeasureError(f"variables: {v!r} is missing in every record of x and y")
        if gower and kind in ("num", "ord", "bin"):
            lo, hi = np.nanmin(both), np.nanmax(both)
            scale = hi - lo if hi > lo else 1.0
            xa, ya = (xa - lo) / scale, (ya - lo) / scale
        cols.append((kind, xa, ya, np.isnan(xa), bool(np.isnan(ya).any())))
    return cols


def _block_distances(cols, rows: slice, weights: np.ndarray, distance: str,
                     any_missing: bool) -> np.ndarray:
    """Distances of the original records ``rows`` to every masked record (a dense block)."""
    from scipy.spatial.distance import cdist

    p = len(cols)
    if distance != "gower" and not any_missing:
        xa = np.column_stack([c[1][rows] for c in cols])
        ya = np.column_stack([c[2] for c in cols])
        return cdist(xa, ya, "euclidean" if distance == "euclidean" else "cityblock")
    m = rows.stop - rows.start
    num = np.zeros((m, cols[0][2].size))
    den: np.ndarray | float = 0.0
    for (kind, xa, ya, nan_x, nan_y), w in zip(cols, weights):
        xv = xa[rows][:, None]
        yv = ya[None, :]
        if distance == "euclidean":
            term = np.subtract(xv, yv)
            np.multiply(term, term, out=term)
        elif distance == "manhattan" or kind in ("num", "ord"):
            term = np.abs(np.subtract(xv, yv))
        else:  # nominal, binary: 1 where different
            term = np.not_equal(xv, yv).astype(np.float64)
        present: np.ndarray | None = None
        if nan_x[rows].any() or nan_y:
            present = ~(np.isnan(xv) | np.isnan(yv))
        if distance == "gower" and kind == "bin":  # two zeros do not count
            nz = (xv != 0) | (yv != 0)
            present = nz if present is None else present & nz
        if present is None:
            if w != 1.0:
                term *= w
            num += term
            den = den + w
        else:
            term[~present] = 0.0
            if w != 1.0:
                term *= w
            num += term
            den = den + present * w
    den = np.broadcast_to(np.asarray(den, dtype=np.float64), num.shape)
    if (den == 0).any():
        i, j = np.argwhere(den == 0)[0]
        raise MeasureError(
            f"variables: original record {rows.start + int(i)} and masked record {int(j)} have no "
            "linkage variable observed in both; their distance is undefined (sdcMicro's "
            "recordLinkage stops here too); drop such records or impute the missing values")
    if distance == "gower":
        num /= den
    else:
        num *= p / den
        if distance == "euclidean":
            np.sqrt(num, out=num)
    return num


def _check_weights(weights, variables: list[str], distance: str) -> np.ndarray:
    if weights is None:
        return np.ones(len(variables))
    if distance != "gower":
        raise ParameterError(
            "weights: variable weights apply to distance='gower' only (as in cluster::daisy)")
    if isinstance(weights, Mapping):
        missing = [v for v in variables if v not in weights]
        extra = [k for k in weights if k not in variables]
        if missing or extra:
            raise ParameterError(
                f"weights: give one weight per linkage variable (missing {missing}, unknown {extra})")
        vals = [weights[v] for v in variables]
    else:
        vals = list(weights)
        if len(vals) != len(variables):
            raise ParameterError(
                f"weights: expected {len(variables)} weights (one per variable), got {len(vals)}")
    for v in vals:
        if isinstance(v, bool) or not isinstance(v, Real) or not np.isfinite(v) or v < 0:
            raise ParameterError(f"weights: expected finite numbers >= 0, got {v!r}")
    w = np.asarray(vals, dtype=np.float64)
    if w.sum() <= 0:
        raise ParameterError("weights: at least one weight must be > 0")
    return w


def record_linkage(
    x: pd.DataFrame,
    y: pd.DataFrame,
    *,
    variables: str | Iterable[str],
    distance: str = "euclidean",
    assignment: str = "optimal",
    weights: Mapping[str, float] | Sequence[float] | None = None,
    tol: float = float(np.sqrt(np.finfo(np.float64).eps)),
    return_matrix: bool = False,
    x_id: str | None = None,
    y_id: str | None = None,
    na_action: str = "ignore",
) -> LinkageResult:
    """Link every original record (``x``) to a masked record (``y``) by distance; count correct links.

    ``assignment="optimal"``: the one-to-one linkage of minimal total distance (Hungarian method;
    sdcMicro ``recordLinkage``); ``"nearest"``: each original record to its nearest masked record
    (first one on ties). See the module docstring for the distances and their missing-value rules.
    Missing values: as sdcMicro (daisy), a distance uses the variables observed in both records;
    a pair with none (or a variable missing everywhere) is a MeasureError, as sdcMicro stops.

    Parameters
    ----------
    x, y : pd.DataFrame
        Original and masked data with the same set of index labels (the truth: a link is correct
        when it joins equal labels), both unique, and the linkage ``variables``.
    variables : str or list of str
        Linkage variables.
    distance : {"euclidean", "manhattan", "gower"}
        The distance; euclidean and manhattan need numeric variables, gower mixes numeric,
        ordered, nominal and boolean variables.
    assignment : {"optimal", "nearest"}
        Global one-to-one assignment or nearest neighbour.
    weights : mapping or sequence, optional
        Gower weight of each variable (default 1).
    tol : float
        Absolute tolerance of the ties counted in ``n_best``.
    return_matrix : bool
        Keep the full distance matrix in the result (``distance_matrix``; 8 n^2 bytes).
    x_id, y_id : str, optional
        Id columns giving the truth (sdcMicro's ``x_id`` / ``y_id``): a link is correct when the
        two records' ids are equal. A side without an id column uses its index labels. With an
        id column the two files need only have the same number of records; ``matches`` then
        also holds ``x_id`` and ``y_id`` (the ids of the linked pair). A link whose ids are not
        both known has ``correct`` missing (pandas ``NA``; an `SdcWarning` says how many):
        ``correct_matches`` counts the correct links, ``correct_match_rate`` is their share
        among the links with both ids known (NaN when there is none).
    na_action : {"ignore", "fail"}
        ``"ignore"`` (default): missing values of the linkage variables are handled as daisy
        does (see above); ``"fail"``: any missing value is a `MeasureError`.

    Returns
    -------
    LinkageResult
        ``correct_matches``, ``correct_match_rate``, ``mean_distance``, ``total_distance``, and
        ``matches`` (per original record: ``match``, ``distance``, ``correct``, ``n_best``).

    Raises
    ------
    MeasureError
        Not DataFrames, other index sets or duplicated labels, missing variables, types that do
        not fit the distance, a variable missing everywhere, a pair with no variable observed.
    ParameterError
        Unknown ``distance`` / ``assignment``, bad ``weights`` or ``tol``.

    References
    ----------
    Herranz, Nin, Rodríguez & Tassa (2015), Data & Knowledge Engineering 100, 78-93; Gower (1971),
    Biometrics 27; sdcMicro 5.8.1 ``recordLinkage``.

    Example
    -------
    >>> import pandas as pd
    >>> x = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [0.0, 1.0, 0.0]}, index=[10, 11, 12])
    >>> y = pd.DataFrame({"a": [3.1, 1.2, 1.9], "b": [0.0, 0.0, 1.0]}, index=[12, 10, 11])
    >>> r = record_linkage(x, y, variables=["a", "b"], distance="manhattan")
    >>> r.correct_matches, r.matches["match"].tolist(), round(r.total_distance, 6)
    (3, [10, 11, 12], 0.4)
    """
    from scipy.optimize import linear_sum_assignment

    check_flag(return_matrix, "return_matrix")
    check_frame(x, "x (the original data)")
    check_frame(y, "y (the masked data)")
    variables = as_keys(variables, "variables")
    if not isinstance(distance, str) or distance not in _DISTANCES:
        raise ParameterError(f"distance: expected one of {list(_DISTANCES)}, got {distance!r}")
    if not isinstance(assignment, str) or assignment not in _ASSIGNMENTS:
        raise ParameterError(
            f"assignment: expected one of {list(_ASSIGNMENTS)}, got {assignment!r}")
    if not check_number(tol, "tol", "a finite number >= 0") >= 0:
        raise ParameterError(f"tol: expected a finite number >= 0, got {tol!r}")
    if not isinstance(na_action, str) or na_action not in _NA_ACTIONS:
        raise ParameterError(f"na_action: expected one of {list(_NA_ACTIONS)}, got {na_action!r}")
    for name, col, frame in (("x_id", x_id, x), ("y_id", y_id, y)):
        if col is not None and not isinstance(col, str):
            raise ParameterError(f"{name}: expected None or a single column name, got {col!r:.40}")
        if col is not None and col not in frame.columns:
            raise MeasureError(f"{name}: column {col!r} not found in {name[0]}")
    check_columns(x, variables, "variables (x)")
    check_columns(y, variables, "variables (y)")
    by_id = x_id is not None or y_id is not None
    for name, frame, col in (("x", x, x_id), ("y", y, y_id)):
        if col is None and not frame.index.is_unique:
            raise MeasureError(f"{name}: the index has duplicated labels; records are matched by index")
    if by_id:
        if len(x) != len(y):
            raise MeasureError(f"y: x and y must have the same number of records for the "
                               f"one-to-one linkage ({len(x)} and {len(y)})")
    elif x.index.nlevels != y.index.nlevels:
        raise MeasureError(f"y: the index has {y.index.nlevels} level(s), x's {x.index.nlevels}; "
                           "records are matched by index label")
    elif len(x) != len(y) or not x.index.isin(y.index).all():
        only_x = x.index.difference(y.index)[:5].tolist()
        only_y = y.index.difference(x.index)[:5].tolist()
        raise MeasureError(
            f"y: the masked file must hold the same records (index labels) as x; only in x: "
            f"{only_x}, only in y: {only_y} (first 5)")
    w = _check_weights(weights, variables, distance)
    if na_action == "fail" and (x[variables].isna().to_numpy().any()
                                or y[variables].isna().to_numpy().any()):
        raise MeasureError("record_linkage: missing values found in the linkage variables and "
                           "na_action='fail'")
    cols = _prepare(x, y, variables, distance == "gower")
    any_missing = any(np.isnan(c[1]).any() or np.isnan(c[2]).any() for c in cols)

    n = len(x)
    block = max(1, _BLOCK_ELEMENTS // (n * max(2, len(variables))))
    need_matrix = assignment == "optimal" or return_matrix
    # kept transposed: rows are the masked records (see the assignment below)
    cost_t = np.empty((n, n), dtype=np.float64) if need_matrix else None
    n_best = np.empty(n, dtype=np.int64)
    nearest = np.empty(n, dtype=np.int64)
    dmins = np.empty(n, dtype=np.float64)
    for start in range(0, n, block):
        rows = slice(start, min(n, start + block))
        d = _block_distances(cols, rows, w, distance, any_missing)
        if np.isinf(d).any():
            raise MeasureError(
                f"record_linkage: the {distance} distances overflow (values beyond about 1e154 "
                "in absolute value); rescale the linkage variables")
        dmin = d.min(axis=1)
        n_best[rows] = (np.abs(d - dmin[:, None]) <= tol).sum(axis=1)
        nearest[rows] = d.argmin(axis=1)
        dmins[rows] = dmin
        if need_matrix:
            cost_t[:, rows] = d.T
    if assignment == "optimal":
        # solved with the masked records as rows (the linkage of masked to original records;
        # the same optimum, and scipy's solver is markedly faster in this orientation)
        ymatch, xrow = linear_sum_assignment(cost_t)
        col = np.empty(n, dtype=np.int64)
        col[xrow] = ymatch
        dist = cost_t[col, np.arange(n)]
    else:
        col = nearest
        dist = dmins
    match = y.index[col]
    if by_id:
        xi = pd.Series(x[x_id].to_numpy() if x_id is not None else x.index.to_numpy(),
                       index=x.index)
        yi = pd.Series((y[y_id].to_numpy() if y_id is not None else y.index.to_numpy())[col],
                       index=x.index)
        known = (xi.notna() & yi.notna()).to_numpy()
        eq = np.zeros(n, dtype=bool)
        eq[known] = xi.to_numpy()[known] == yi.to_numpy()[known]
        correct = pd.array(eq, dtype="boolean")
        correct[~known] = pd.NA
        if not known.all():
            warnings.warn(f"record_linkage: {int((~known).sum())} link(s) without both ids "
                          "(missing x_id or y_id); their correctness is unknown",
                          SdcWarning, stacklevel=user_stacklevel())
        n_correct = int(eq[known].sum())
        rate = float(eq[known].mean()) if known.any() else float("nan")
        matches = pd.DataFrame({"match": match, "x_id": xi.to_numpy(), "y_id": yi.to_numpy(),
                                "distance": dist, "correct": correct, "n_best": n_best},
                               index=x.index)
    else:
        eq = np.asarray(match == x.index, dtype=bool)
        n_correct, rate = int(eq.sum()), float(eq.mean())
        matches = pd.DataFrame({"match": match, "distance": dist, "correct": eq,
                                "n_best": n_best}, index=x.index)
    return LinkageResult(
        matches=matches, correct_matches=n_correct,
        correct_match_rate=rate, mean_distance=float(dist.mean()),
        total_distance=float(dist.sum()), distance=distance, assignment=assignment,
        variables=tuple(variables),
        distance_matrix=pd.DataFrame(cost_t.T, index=x.index, columns=y.index) if return_matrix
        else None)
