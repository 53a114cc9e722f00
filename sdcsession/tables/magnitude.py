"""The cell-key method for magnitude tables (sums of a numeric variable): noise scaled by the
largest contributions of each cell (``cellKey``'s ``ck_params_nums(type = "top_contr")`` with
the simple magnitude parameters ``ck_simpleparams(p, epsilon)``).

For a cell with sum ``X``, largest absolute contributions ``x(1) >= ... >= x(K)`` (``K = top_k``)
and a noise value ``v`` looked up in a noise ptable with the cell key (the same key for every
contributor: ``cellKey``'s ``same_key = TRUE``), the perturbed sum is built in ``K`` steps from
``X̂_0 = X``:

    X̂_j = X̂_{j−1} + sign(X̂_{j−1}) · ε_j · share · x(j) · v_j,     v_j = sign(v)(|v| + μ_c·s)

where ``share`` is the noise magnitude (cellKey's ``p``: a fraction such as 0.05),
``ε_1 = 1 >= ε_2 >= ... >= 0`` weight the further contributors, ``μ_c`` shifts the noise away
from 0 for cells ``s`` flagged sensitive by a primary rule, and a step never changes the sign of
the sum (it stops at 0). The cell key of a magnitude cell is made of the keys of its records with
a non-zero value (``use_zero_rkeys = FALSE``), so structural zeros do not change it.

References: Giessing, S. & Tent, R. (2019) Concepts for generalising tools implementing the
cell key method to the case of continuous variables. UNECE/Eurostat work session on statistical
data confidentiality, The Hague; Meindl, B. & Enderle, T. (2019) cellKey — consistent
perturbation of statistical tables, same meeting.

Missing values: a record with a missing value contributes nothing to the sum (nor its key).

Example
-------
>>> import numpy as np
>>> from sdcsession.tables.ptable import PTable
>>> noise = PTable(rows=[((-1.0, 1.0), (0.5, 1.0))])
>>> perturb_sums(np.array([100.0, 100.0]), np.array([[60.0], [60.0]]), np.array([0.2, 0.7]),
...              share=0.1, epsilon=(1.0,), mu_c=0.0, noise=noise).tolist()
[94.0, 106.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import ParameterError
from .ptable import PTable

__all__ = ["perturb_sums", "check_epsilon"]


def check_epsilon(epsilon: Sequence[float] | float, top_k: int) -> tuple[float, ...]:
    """``epsilon`` as a tuple of ``top_k`` weights: the first 1, descending, in [0, 1].

    Missing values: refused.

    >>> check_epsilon(1, 1), check_epsilon((1, 0.5), 2)
    ((1.0,), (1.0, 0.5))
    """
    number = (int, float, np.integer, np.floating)
    if isinstance(epsilon, number) and not isinstance(epsilon, (bool, np.bool_)):
        eps: tuple[Any, ...] = (epsilon,)
    elif isinstance(epsilon, (list, tuple, np.ndarray)):
        eps = tuple(np.asarray(epsilon, dtype=object).ravel()) if isinstance(
            epsilon, np.ndarray) else tuple(epsilon)
    else:
        eps = ()
    bad = len(eps) != top_k or any(isinstance(e, (bool, np.bool_)) or not isinstance(e, number)
                                   for e in eps)
    try:
        e = np.asarray(eps, dtype=float)
    except (OverflowError, TypeError, ValueError):
        bad = True
    if bad or not np.isfinite(e).all():
        raise ParameterError(f"epsilon: expected {top_k} number(s) (one per top contributor), "
                             f"got {epsilon!r:.60}")
    if e[0] != 1 or (e < 0).any() or (e > 1).any() or (np.diff(e) > 0).any():
        raise ParameterError(f"epsilon: the first weight must be 1 and the others descending in "
                             f"[0, 1], got {list(eps)}")
    return tuple(float(x) for x in e)


def perturb_sums(total: np.ndarray, top: np.ndarray, u: np.ndarray, *, share: float,
                 epsilon: Sequence[float], mu_c: float, noise: PTable,
                 sensitive: np.ndarray | None = None) -> np.ndarray:
    """The perturbed sums of cells (see the module docstring): ``total`` the sums, ``top`` the
    largest absolute contributions (cells × top_k), ``u`` the cell keys in [0, 1).

    Missing values: none (cells always have a sum, possibly 0).
    """
    v = np.asarray(noise.lookup(np.zeros(len(u), dtype=np.int64), u), dtype=np.float64)
    shift = mu_c * (sensitive.astype(np.float64) if sensitive is not None else 0.0)
    vj = np.sign(v) * (np.abs(v) + shift)
    x = total.astype(np.float64).copy()
    for j, eps in enumerate(epsilon):
        step = np.sign(x) * eps * share * np.abs(top[:, j]) * vj
        flips = (x != 0) & (np.sign(x + step) == -np.sign(x))
        step = np.where(flips, -x, step)
        x = x + step
    return x
