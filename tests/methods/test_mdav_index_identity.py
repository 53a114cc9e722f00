"""The leaf index of MDAV (two levels of boxes) gives exactly the groups of the plain scans."""

import numpy as np
import pytest

from sdcsession import progress
from sdcsession.methods.mdav import _mdav_scan, _mdav_small, _mdav_tree


def _tree_then_scan(z: np.ndarray, k: int) -> np.ndarray:
    lab = np.full(len(z), -1, dtype=np.int64)
    g = _mdav_tree(z, k, lab, progress.Bar(enabled=False), stop=0)
    rest = np.flatnonzero(lab < 0)
    _mdav_scan(z, k, rest, lab, g)
    return lab


def _data(kind: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "lognormal":  # skewed, like incomes
        x = np.exp(rng.normal(size=(n, 3)) * [1.0, 0.5, 1.5])
    elif kind == "zeros":  # many exact zeros and duplicated rows: ties
        x = np.exp(rng.normal(size=(n, 3)))
        x[rng.random((n, 3)) < 0.4] = 0.0
        x[n // 2:] = x[: n - n // 2]
    else:  # integer grid, not standardised (sums exact in both): massive ties of distances
        return rng.integers(0, 6, size=(n, 3)).astype(float)
    return (x - x.mean(axis=0)) / x.std(axis=0)


@pytest.mark.parametrize("kind", ["lognormal", "zeros", "grid"])
@pytest.mark.parametrize("n,k,seed", [(10, 2, 1), (97, 3, 2), (1500, 3, 3), (8000, 4, 4),
                                      (20000, 3, 5)])
def test_index_groups_identical_to_plain_scan(kind, n, k, seed):
    z = _data(kind, n, seed)
    assert np.array_equal(_tree_then_scan(z, k), _mdav_small(z, k))
