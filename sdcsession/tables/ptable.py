"""Perturbation tables (ptables) of the cell-key method: the `PTable` value, its lookup, and the
maximum-entropy construction from the parameters of the ``ptable`` method.

What a ptable is
----------------
Row ``i`` of a ptable belongs to the original cell value ``i`` (a count). It splits the unit
interval [0, 1) into consecutive intervals ``[lb, ub)``, each with a perturbation ``v``: a cell of
value ``n`` whose cell key, as a fraction of the key range, is ``u`` gets ``n + v`` with ``v``
the perturbation of the interval of row ``n`` holding ``u`` (``lb <= u < ub``). Since cell keys
are uniform, ``v`` is drawn from row ``n``'s distribution; since the key of a cell is a function
of its records only, the same cell always gets the same ``v``.

Cells of values beyond the last row ``M`` reuse rows: with ``cycle = P`` the last ``P`` rows
repeat periodically (row ``M − P + 1 + (n − (M − P + 1)) mod P``); ``P = 1`` (the ``ptable`` /
``cellKey`` convention) uses row ``M`` for every larger value. The ONS ``ptable_10_5_rule``
(rows 1..750, ``cycle = 250``) reuses rows 501..750, as its package does.

Construction (`build_ptable`)
-----------------------------
For each original count ``i`` the transition probabilities ``p(v)`` to ``i + v`` maximise the
entropy ``−Σ p(v) log p(v)`` subject to (Giessing 2016; the ``ptable`` package of Enderle, Giessing
and Tent):

- ``|v| <= D`` (maximum deviation) and ``i + v >= 0``;
- no perturbed count in ``1..js``: ``i + v`` is 0 or above ``js`` (blocking of small counts);
- ``Σ p(v) = 1``, ``Σ v·p(v) = 0`` (unbiased) and ``Σ v²·p(v) <= V`` (variance at most V);
- monotony: ``p`` does not increase as ``|v|`` grows on either side of 0;
- optionally ``p(0) = pstay``.

Where blocking leaves no unbiased perturbation of variance ``V`` (an original count ``i <= js``
must move to 0 or above ``js``), the row takes the least variance possible: the two perturbations
``a < 0 < b`` nearest to 0, with ``p(a) = b/(b − a)`` (variance ``−a·b``).

Rows from ``i = D`` (``js = 0``) or ``i = D + js + 1`` on are symmetric: their variance is
exactly ``V`` (the entropy grows with the spread, so the variance bound holds with equality) and
every larger count uses the last row. Row 0 keeps 0 (an empty cell stays empty). Rows near 0 may
have a smaller variance where the constraints leave no room. The intervals of a row are ordered
from ``v = −D`` to ``v = D``.

References: Giessing, S. (2016) Computational issues in the design of transition probabilities
and disclosure risk estimation for additive noise. PSD 2016, LNCS 9867, 237–251. Fraser, B. &
Wooton, J. (2006) A proposed method for confidentialising tabular output to protect against
differencing. Marley, J. K. & Leaver, V. L. (2011) A method for confidentialising user-defined
tables: statistical properties and a risk-utility analysis. ISI 58th session.

Missing values: a ptable has none (every row is a complete distribution).

Example
-------
>>> pt = build_ptable(D=2, V=1)
>>> [round(x, 4) for x in pt.probabilities(1).values()]
[0.3665, 0.3665, 0.1676, 0.0995]
>>> pt.lookup([5, 5], [0.0, 0.999]).tolist()
[-2, 2]
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import attrs
import numpy as np

from ..errors import ParameterError

__all__ = ["PTable", "build_ptable", "noise_ptable", "MAX_ROWS"]

#: the most rows (original values) a ptable may have
MAX_ROWS = 100_000
_TOL = 1e-9


def _frozen_rows(rows: Any) -> tuple[tuple[tuple[float, ...], tuple[float, ...]], ...]:
    out = []
    for v, ub in rows:
        out.append((tuple(float(x) for x in v), tuple(float(x) for x in ub)))
    return tuple(out)


@attrs.frozen(eq=True)
class PTable:
    """A perturbation table: per original value ``i`` (row), perturbations ``v`` and the upper
    ends ``ub`` of their intervals of [0, 1) (ascending, the last one 1).

    Attributes
    ----------
    rows : ``((v_0, ub_0), (v_1, ub_1), ...)``: row ``i`` has perturbations ``v_i`` on the
        intervals ``[ub_i[k−1], ub_i[k])`` (``ub_i[−1] = 1``).
    cycle : how many of the last rows repeat for values beyond the last row (1: the last row).
    js : the blocking threshold it was built or checked with (perturbed counts 1..js never occur),
        or None when unknown.
    label : a short description (``"D3 V1 js0"``, a file name).

    Missing values: none (see `lookup` for the rule on cells).

    Example
    -------
    >>> pt = PTable(rows=(((0,), (1.0,)), ((-1, 0, 1), (0.25, 0.75, 1.0))))
    >>> pt.lookup([1, 1, 1, 7], [0.1, 0.5, 0.8, 0.8]).tolist()
    [-1, 0, 1, 1]
    """

    rows: tuple[tuple[tuple[float, ...], tuple[float, ...]], ...] = attrs.field(
        converter=_frozen_rows)
    cycle: int = 1
    js: int | None = None
    label: str = ""

    def __attrs_post_init__(self) -> None:
        if not self.rows:
            raise ParameterError("ptable: no rows")
        if len(self.rows) > MAX_ROWS:
            raise ParameterError(f"ptable: more than {MAX_ROWS} rows")
        if isinstance(self.cycle, bool) or not isinstance(self.cycle, (int, np.integer)) \
                or not 1 <= self.cycle <= len(self.rows) - (1 if len(self.rows) > 1 else 0):
            raise ParameterError(f"ptable cycle: expected a whole number from 1 to the number of "
                                 f"rows above 0 ({max(1, len(self.rows) - 1)}), got {self.cycle!r}")
        for i, (v, ub) in enumerate(self.rows):
            if len(v) != len(ub) or not v:
                raise ParameterError(f"ptable row {i}: perturbations and intervals differ in "
                                     "length or are empty")
            u = np.asarray(ub)
            if not np.all(np.isfinite(u)) or np.any(np.diff(u) < -_TOL) or u[0] < -_TOL:
                raise ParameterError(f"ptable row {i}: interval ends must rise from 0 to 1")
            if abs(u[-1] - 1.0) > 1e-6:
                raise ParameterError(
                    f"ptable row {i}: its probabilities sum to {u[-1]:.8g}, not 1")

    # ------------------------------------------------------------------ queries
    @property
    def max_value(self) -> int:
        """The last row (original value) of the table."""
        return len(self.rows) - 1

    def row_of(self, values: Sequence[int] | np.ndarray) -> np.ndarray:
        """The row used for each original value (values beyond the table reuse rows by `cycle`).

        >>> PTable(rows=[((0,), (1.0,))] * 6, cycle=2).row_of([0, 3, 5, 6, 7, 8]).tolist()
        [0, 3, 5, 4, 5, 4]
        """
        n = np.asarray(values, dtype=np.int64)
        m, p = self.max_value, self.cycle
        start = m - p + 1
        return np.where(n > m, start + (n - start) % p, n)

    def probabilities(self, i: int) -> dict[int | float, float]:
        """``{v: p(v)}`` of the row used for the original value ``i`` (merged by ``v``)."""
        v, ub = self.rows[int(self.row_of([i])[0])]
        p = np.diff(np.concatenate([[0.0], ub]))
        out: dict[Any, float] = {}
        for vv, pp in zip(v, p, strict=True):
            key = int(vv) if float(vv).is_integer() else float(vv)
            out[key] = out.get(key, 0.0) + float(pp)
        return dict(sorted(out.items()))

    def lookup(self, values: Sequence[int] | np.ndarray,
               u: Sequence[float] | np.ndarray) -> np.ndarray:
        """The perturbation of cells with original ``values`` and cell keys ``u`` in [0, 1).

        Row ``r`` of each value (see `row_of`); the interval ``lb <= u < ub`` of that row. The
        perturbations are integers when every ``v`` of the table is whole (count tables).

        Missing values: none allowed (a cell always has a value and a key).
        """
        n = np.asarray(values, dtype=np.int64)
        uu = np.asarray(u, dtype=np.float64)
        if n.shape != uu.shape:
            raise ParameterError("lookup: values and cell keys differ in length")
        if n.size and (n.min() < 0):
            raise ParameterError("lookup: cell values must be counts >= 0")
        if uu.size and (np.isnan(uu).any() or uu.min() < 0 or uu.max() >= 1):
            raise ParameterError("lookup: cell keys must lie in [0, 1)")
        ub, vv = self._dense()
        r = self.row_of(n)
        idx = np.zeros(len(n), dtype=np.int64)
        for k in range(ub.shape[1] - 1):  # the last interval needs no test (ub = 1 > u)
            idx += ub[r, k] <= uu
        out = vv[r, idx]
        return out.astype(np.int64) if self._whole() else out

    def _dense(self) -> tuple[np.ndarray, np.ndarray]:
        return _dense(self)

    def _whole(self) -> bool:
        return all(float(x).is_integer() for v, _ in self.rows for x in v)

    def variance(self, i: int) -> float:
        """The variance ``Σ v²·p(v) − (Σ v·p(v))²`` of the perturbation of original value ``i``."""
        pr = self.probabilities(i)
        v = np.array(list(pr), dtype=float)
        p = np.array(list(pr.values()))
        m = float(p @ v)
        return float(p @ v**2 - m * m)

    def __repr__(self) -> str:
        return f"PTable({self.label or 'custom'}: rows 0..{self.max_value}, cycle {self.cycle})"


@lru_cache(maxsize=64)
def _dense(pt: PTable) -> tuple[np.ndarray, np.ndarray]:
    """Rows padded to one width: ``ub`` (padding 2.0 never reached) and ``v``."""
    width = max(len(v) for v, _ in pt.rows)
    ub = np.full((len(pt.rows), width), 2.0)
    vv = np.zeros((len(pt.rows), width))
    for i, (v, u) in enumerate(pt.rows):
        ub[i, : len(u)] = u
        ub[i, len(u) - 1] = 2.0  # the last interval reaches 1 and takes every key above
        vv[i, : len(v)] = v
        vv[i, len(v):] = v[-1]
    return ub, vv


# -------------------------------------------------------------------------- construction
def _allowed(i: int, D: int, js: int) -> np.ndarray:
    v = np.arange(-D, D + 1)
    j = i + v
    return v[(j >= 0) & ((j == 0) | (j > js))]


def _max_entropy(v: np.ndarray, V: float, pstay: float | None, mono: bool) -> np.ndarray:
    """Probabilities on the perturbations ``v`` maximising the entropy under the constraints of
    the module docstring (SLSQP; scipy imported here)."""
    from scipy.optimize import minimize

    k = len(v)
    vf = v.astype(float)
    if k == 1:
        if v[0] != 0:
            raise ParameterError("no unbiased perturbation exists")
        return np.ones(1)
    if not (v < 0).any() or not (v > 0).any():
        raise ParameterError("no unbiased perturbation exists")
    if not (v == 0).any():  # the least variance of an unbiased perturbation: two points a < 0 < b
        a, b = float(v[v < 0].max()), float(v[v > 0].min())
        if -a * b >= V - 1e-12:  # no room for more: the two-point distribution, variance −a·b
            p = np.zeros(k)
            p[v == a], p[v == b] = b / (b - a), -a / (b - a)
            return p
    cons = [{"type": "eq", "fun": lambda p: p.sum() - 1.0, "jac": lambda p: np.ones(k)},
            {"type": "eq", "fun": lambda p: p @ vf, "jac": lambda p: vf},
            {"type": "ineq", "fun": lambda p: V - p @ vf**2, "jac": lambda p: -(vf**2)}]
    zero = np.flatnonzero(v == 0)
    if pstay is not None and zero.size:
        z = int(zero[0])
        e = np.zeros(k)
        e[z] = 1.0
        cons.append({"type": "eq", "fun": lambda p, z=z: p[z] - pstay, "jac": lambda p, e=e: e})
    if mono:  # p does not increase away from 0 on either side
        order_pos = [i for i in np.argsort(vf) if vf[i] >= 0]
        order_neg = [i for i in np.argsort(-vf) if vf[i] <= 0]
        for side in (order_pos, order_neg):
            for a, b in zip(side, side[1:], strict=False):
                g = np.zeros(k)
                g[a], g[b] = 1.0, -1.0
                cons.append({"type": "ineq", "fun": lambda p, a=a, b=b: p[a] - p[b],
                             "jac": lambda p, g=g: g})

    def neg_entropy(p: np.ndarray) -> float:
        q = np.clip(p, 1e-300, None)
        return float(q @ np.log(q))

    def grad(p: np.ndarray) -> np.ndarray:
        return np.log(np.clip(p, 1e-300, None)) + 1.0

    x0 = np.exp(-0.5 * vf**2 / max(V, 1e-6))
    x0 /= x0.sum()
    res = minimize(neg_entropy, x0, jac=grad, method="SLSQP", bounds=[(0.0, 1.0)] * k,
                   constraints=cons, options={"maxiter": 1000, "ftol": 1e-14})
    p = np.clip(res.x, 0.0, 1.0)
    p /= p.sum()
    if (abs(p @ vf) > 1e-6 or p @ vf**2 > V + 1e-6
            or (pstay is not None and zero.size and abs(p[zero[0]] - pstay) > 1e-6)):
        raise ParameterError("the constraints have no solution")
    return p


def _intervals(v: np.ndarray, p: np.ndarray) -> tuple[list[float], list[float]]:
    order = np.argsort(v, kind="stable")
    vs, ps = v[order], p[order]
    keep = ps > 1e-12
    vs, ps = vs[keep], ps[keep]
    ub = np.cumsum(ps)
    ub[-1] = 1.0
    return [float(x) for x in vs], [float(x) for x in ub]


def build_ptable(D: int = 3, V: float = 1.0, js: int = 0, pstay: float | None = None,
                 mono: bool = True) -> PTable:
    """A count ptable by maximum entropy from the parameters of the ``ptable`` method.

    ``D`` the maximum deviation (a whole number >= 1), ``V`` the variance (> 0), ``js`` the
    blocking threshold (perturbed counts ``1..js`` never occur; 0 = none), ``pstay`` an optional
    fixed probability of no change, ``mono`` the monotony condition. See the module docstring
    for the optimisation problem (Giessing 2016). Rows ``0 .. D`` (``js = 0``) or
    ``0 .. D + js + 1``; larger counts use the last row.

    Missing values: not applicable (parameters only).

    Example
    -------
    >>> pt = build_ptable(D=3, V=1, js=2)
    >>> round(pt.variance(100), 6), max(abs(v) for v in pt.probabilities(100))
    (1.0, 3)
    """
    from ..methods.params import check_bool, check_int, check_number

    D = check_int("D", D, 1, 1000)
    V = check_number("V", V, 0, None, lo_open=True)
    js = check_int("js", js, 0, 10_000)
    mono = check_bool("mono", mono)
    if pstay is not None:
        pstay = check_number("pstay", pstay, 0, 1, lo_open=True, hi_open=True)
    return _build_ptable(D, V, js, pstay, mono)


@lru_cache(maxsize=32)
def _build_ptable(D: int, V: float, js: int, pstay: float | None, mono: bool) -> PTable:
    """`build_ptable` of checked parameters (cached: the same parameters give the same table)."""
    if V > D * D:
        raise ParameterError(f"V: a variance of {V} is impossible with a maximum deviation D = "
                             f"{D} (at most D² = {D * D})")
    last = D if js == 0 else D + js + 1
    rows: list[tuple[list[float], list[float]]] = [([0.0], [1.0])]
    for i in range(1, last + 1):
        v = _allowed(i, D, js)
        try:
            p = _max_entropy(v, V, pstay, mono)
        except ParameterError as e:
            raise ParameterError(
                f"ptable D={D}, V={V}, js={js}: {e} for original count {i} (possible "
                f"perturbations {v.tolist()}); raise D or V, or lower js") from None
        rows.append(_intervals(v, p))
    return PTable(rows=rows, cycle=1, js=js,
                  label=f"D{D} V{V:g} js{js}" + (f" pstay{pstay:g}" if pstay is not None else ""))


def noise_ptable(D: float = 2.0, V: float = 1.0, step: int = 1) -> PTable:
    """A one-row ptable of symmetric noise for magnitude tables: perturbations on the grid
    ``{−D, −D + 1/step, ..., D}`` with maximum entropy and variance ``V`` (the
    ``create_num_ptable`` idea of the ``ptable`` package: ``p(v) ∝ exp(−λ v²)``, λ found by
    bisection so that the variance is V).

    Missing values: not applicable (parameters only).

    Example
    -------
    >>> pt = noise_ptable(2, 1)
    >>> round(pt.variance(0), 6), sorted(pt.probabilities(0))
    (1.0, [-2, -1, 0, 1, 2])
    """
    from ..methods.params import check_int, check_number

    D = check_number("D", D, 0, 1000, lo_open=True)
    V = check_number("V", V, 0, None, lo_open=True)
    step = check_int("step", step, 1, 1000)
    return _noise_ptable(D, V, step)


@lru_cache(maxsize=32)
def _noise_ptable(D: float, V: float, step: int) -> PTable:
    """`noise_ptable` of checked parameters (cached)."""
    grid = np.arange(-round(D * step), round(D * step) + 1) / step
    if grid.size < 3:
        raise ParameterError(f"D: a noise table needs D >= 1/step, got D={D}, step={step}")
    uniform_var = float(np.mean(grid**2))
    if V >= uniform_var:
        raise ParameterError(f"V: the variance must be below {uniform_var:.6g} (the uniform "
                             f"noise on [−{D:g}, {D:g}]), got {V}")

    def var(lam: float) -> float:
        w = np.exp(-lam * grid**2)
        return float((w @ grid**2) / w.sum())

    lo, hi = 0.0, 1.0
    while var(hi) > V:
        hi *= 2
        if hi > 1e12:
            raise ParameterError(f"V: a variance of {V} is too small for this grid")
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if var(mid) > V else (lo, mid)
    w = np.exp(-hi * grid**2)
    p = w / w.sum()
    v, ub = _intervals(grid, p)
    return PTable(rows=[(v, ub)], cycle=1, js=None, label=f"noise D{D:g} V{V:g} step{step}")
