"""Random orthogonal matrix masking (ROMM) in blocks, the kernel of ``add_noise(method="romm")``.

``Z = A·X`` with A a random orthogonal matrix such that ``A·1 = 1``; then ``1'Z = 1'X`` and
``Z'Z = X'X``: means and the covariance matrix are preserved exactly (Ting, Fienberg & Trottini
2008). The records are split at random into blocks of ``block`` records (the remainder joins the
last block); each block gets its own ``A = H'·diag(1, B)·H``, H the Helmert basis and B a product
of random plane rotations of the contrasts whose strength is ``noise`` (0: B = I; → ∞: B
Haar-distributed on SO(d), Stewart 1980). The full description is in the docstring of
`sdcsession.methods.noise.addition`.

References: Ting, D., Fienberg, S. E. & Trottini, M. (2008) Random orthogonal matrix masking
methodology for microdata release, IJICS 2, 86–105. Stewart, G. W. (1980) The efficient
generation of random orthogonal matrices, SIAM J. Numer. Anal. 17, 403–409.

Example
-------
>>> x = np.arange(30.0).reshape(10, 3) ** 1.5
>>> z = romm(x, 1.0, 5, np.random.default_rng(0))
>>> bool(np.allclose(z.mean(axis=0), x.mean(axis=0)) and np.allclose(z.T @ z, x.T @ x))
True
"""

from __future__ import annotations

import numpy as np

__all__ = ["romm"]


def _rotate_blocks(rng: np.random.Generator, y: np.ndarray, noise: float) -> np.ndarray:
    """``B_i·y_i`` for each block i of ``y`` (m×d×p), B_i = R_1 ⋯ R_{d−1} drawn as in the module
    docstring; the rotations are applied right to left as rank-two updates, vectorised over blocks.

    With ``v = e_k + noise·g`` on coordinates k…d, ``c = v_k/‖v‖``, ``s = ‖v_{k+1:}‖/‖v‖`` and ŵ the
    unit vector of ``v_{k+1:}``, R_k maps ``y_k ↦ c·y_k − s·(ŵ'y)`` and
    ``y_{k+1:} ↦ y_{k+1:} + ŵ·((c − 1)·(ŵ'y) + s·y_k)``: the rotation by arccos c in the plane of e_k
    and ŵ.
    """
    m, d, p = y.shape
    yt = np.ascontiguousarray(np.swapaxes(y, 1, 2))  # (m, p, d): contrasts contiguous
    sizes = np.arange(d, 1, -1)  # dimension of the subspace of R_1 … R_{d−1}
    offs = np.concatenate([[0], np.cumsum(sizes)])
    g = rng.standard_normal((m, int(offs[-1])))
    g *= noise
    for k in range(d - 2, -1, -1):  # loop over the d − 1 rotations, vectorised over blocks
        v = g[:, offs[k]:offs[k + 1]]
        v0 = v[:, 0] + 1.0
        w = v[:, 1:]
        wn2 = np.einsum("ij,ij->i", w, w)
        norm = np.sqrt(wn2 + v0 * v0)
        wn = np.sqrt(wn2)
        c = v0 / norm
        s = wn / norm
        what = w / np.where(wn > 0, wn, 1.0)[:, None]
        yk = yt[:, :, k]
        t = (yt[:, :, k + 1:] @ what[:, :, None])[:, :, 0]
        coef = (c - 1.0)[:, None] * t + s[:, None] * yk
        yt[:, :, k + 1:] += coef[:, :, None] * what[:, None, :]
        yt[:, :, k] = c[:, None] * yk - s[:, None] * t
    return np.swapaxes(yt, 1, 2)


def _helmert(b: int) -> np.ndarray:
    """Orthonormal b×b Helmert matrix; first row 1/sqrt(b)."""
    h = np.zeros((b, b))
    h[0] = 1.0 / np.sqrt(b)
    for i in range(1, b):
        h[i, :i] = 1.0 / np.sqrt(i * (i + 1))
        h[i, i] = -i / np.sqrt(i * (i + 1))
    return h


def romm(x: np.ndarray, noise: float, block: int, rng: np.random.Generator) -> np.ndarray:
    """The n×p block ``x`` (no missing values, n ≥ 3) masked by random orthogonal matrices in
    blocks of ``block`` records (3 ≤ block ≤ n) with rotation strength ``noise`` (see the module
    docstring); the means and ``x'x`` are preserved exactly.

    Example
    -------
    >>> x = np.random.default_rng(1).normal(size=(7, 2))
    >>> bool(np.array_equal(romm(x, 0.0, 3, np.random.default_rng(2)).round(12), x.round(12)))
    True
    """
    n, p = x.shape
    perm = rng.permutation(n)
    out = x.copy()
    nb = n // block
    if nb == 0:
        sizes = [n]
    else:
        sizes = [block] * nb
        sizes[-1] += n - nb * block
    # the regular blocks in one batch, the last (larger) block alone
    regular = sizes.count(block) if sizes[-1] != block else len(sizes)
    if regular:
        idx = perm[: regular * block].reshape(regular, block)
        xb = x[idx]  # (regular, block, p)
        h = _helmert(block)
        y = h @ xb
        y[:, 1:, :] = _rotate_blocks(rng, y[:, 1:, :], noise)
        out[idx] = h.T @ y
    if regular < len(sizes):
        idx = perm[regular * block:]
        b = len(idx)
        h = _helmert(b)
        y = h @ x[idx]
        y[1:] = _rotate_blocks(rng, y[None, 1:], noise)[0]
        out[idx] = h.T @ y
    return out
