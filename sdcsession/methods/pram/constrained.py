"""Constrained PRAM matrices: ``given`` (no impossible combinations) and ``bandwidth``.

``given`` — PRAM of a variable X within the strata defined by the ``given`` variables G (on top
of ``strata``). In each stratum the matrix is restricted to the categories of X present there:

- invariant PRAM (default): the invariant matrix ``R = P·Q`` of the stratum already gives
  probability 0 to every category absent from the stratum (``Q[l, j] ∝ f_j``), and
  ``f_s·M_s = f_s`` holds per stratum, so the expected table of X *by G* is kept (hence X's
  overall table too). Invariance is therefore always kept; what it costs is that a stratum with
  one category of X leaves its records unchanged.
- ``invariant=False``: the columns of absent categories are set to 0 and every row is
  renormalised (a row left with no mass keeps its category); the matrix is then not invariant
  (it was not before either).

Hence PRAM never creates a combination of X with G that has zero frequency in the original
(sdcMicro#358: "student" among the over-60s).

``bandwidth = b`` — for ordered categories (a categorical's order, else the sorted values),
a category moves at most b steps: the base matrix keeps ``pd`` on the diagonal and spreads
``1 − pd`` evenly over the categories within b steps (μ-ARGUS's PRAM bandwidth: transitions
only to neighbouring categories); a user ``matrix`` must put no probability outside the band.
The invariant ``P·Q`` could move 2b steps, so with a bandwidth the invariant matrix is the
reversible (Metropolis–Hastings) one built from P:

    M[i, j] = min(P[i, j], f_j·P[j, i] / f_i)   (j ≠ i),   M[i, i] = 1 − Σ_{j≠i} M[i, j],

which satisfies detailed balance ``f_i·M[i, j] = f_j·M[j, i]`` and therefore ``f·M = f``
exactly, moves at most b steps (M[i, j] = 0 wherever P[i, j] = 0) and never into a category of
frequency 0. The blend with ``alpha`` is as for `invariant_matrix`.

References: Gouweleeuw, Kooiman, Willenborg & de Wolf (1998), J. Off. Stat. 14(4), 463–478
(invariant PRAM); Hastings (1970), Biometrika 57(1), 97–109 (detailed balance);
Hundepool et al. (2014), μ-ARGUS manual, PRAM specification (bandwidth).

Example
-------
>>> import numpy as np
>>> p = band_matrix(4, 0.6, 1)
>>> p.round(2).tolist()[0], bool((np.abs(np.subtract.outer(range(4), range(4))) > 1)[p > 0].any())
([0.6, 0.4, 0.0, 0.0], False)
>>> f = np.array([10.0, 30.0, 0.0, 5.0])
>>> m = reversible_matrix(p, f, 1.0)
>>> bool(np.allclose(f @ m, f)), float(m[f > 0][:, 2].sum())
(True, 0.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TreatmentError
from ..params import check_int

__all__ = ["check_bandwidth", "band_matrix", "check_band", "reversible_matrix", "restrict"]


def check_bandwidth(value: Any) -> int | None:
    """``bandwidth``: None (no limit) or an integer >= 1 (`ParameterError` otherwise)."""
    return None if value is None else check_int("bandwidth", value, 1)


def band_matrix(k: int, pd: float, b: int) -> np.ndarray:
    """``pd`` on the diagonal, ``1 − pd`` spread evenly over the categories within ``b`` steps."""
    if k == 1:
        return np.ones((1, 1))
    d = np.abs(np.subtract.outer(np.arange(k), np.arange(k)))
    near = (d > 0) & (d <= b)
    p = near * ((1.0 - pd) / near.sum(axis=1, keepdims=True))
    np.fill_diagonal(p, pd)
    return p


def check_band(p: np.ndarray, b: int, cats: list[Any], column: str) -> None:
    """`TreatmentError` when the matrix ``p`` moves a category more than ``b`` steps."""
    k = len(p)
    far = np.abs(np.subtract.outer(np.arange(k), np.arange(k))) > b
    bad = np.argwhere(far & (p > 0))
    if len(bad):
        i, j = bad[0]
        raise TreatmentError(f"bandwidth: the matrix for {column!r} moves {cats[i]!r} to "
                             f"{cats[j]!r}, {abs(int(i) - int(j))} steps (bandwidth {b})")


def reversible_matrix(p: np.ndarray, freq: np.ndarray, alpha: float) -> np.ndarray:
    """The Metropolis–Hastings matrix of ``p`` for frequencies ``freq`` (module docstring),
    blended ``alpha·M + (1 − alpha)·I``; rows of categories with frequency 0: identity."""
    f = np.asarray(freq, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        m = np.where(f[:, None] > 0, np.minimum(p, (f[None, :] * p.T) / f[:, None]), 0.0)
    np.fill_diagonal(m, 0.0)
    np.fill_diagonal(m, np.maximum(0.0, 1.0 - m.sum(axis=1)))
    m[f == 0] = np.eye(len(f))[f == 0]
    return alpha * m + (1.0 - alpha) * np.eye(len(f))


def restrict(m: np.ndarray, present: np.ndarray) -> np.ndarray:
    """``m`` with the columns of absent categories set to 0 and rows renormalised (a row left
    with no mass keeps its category)."""
    out = np.where(present[None, :], m, 0.0)
    s = out.sum(axis=1)
    empty = s <= 0
    out[empty] = np.eye(len(m))[empty]
    s[empty] = 1.0
    return out / s[:, None]
