"""Information-loss metrics of a lattice node (full-domain generalisation with suppression).

n is the number of records, q the number of quasi-identifiers, l_i the level of quasi-identifier i
and H_i its hierarchy's height; S the suppressed records (classes violating a model, and records
whose quasi-identifiers were all missing already), E the released equivalence classes.

- ``"precision"`` (Sweeney 2002): ``(Σ_{r∉S} Σ_i l_i/H_i + |S|·q) / (n·q)`` — a suppressed record
  counts the full height for every quasi-identifier; range [0, 1].
- ``"height"``: ``Σ_i l_i`` (suppression ignored).
- ``"loss"`` (Iyengar 2002, LM): ``Σ_i (1/n) Σ_r (M_P − 1)/(M − 1)`` with M the number of
  distinct original values of quasi-identifier i (in the data, and the k-map population) and M_P
  those generalised to the record's value P; a suppressed or missing value costs 1.
- ``"entropy"`` (non-uniform entropy, Gionis & Tassa 2009, as in ARX): ``Σ_i Σ_r −log2(f_i(v_r) /
  f_i(g(v_r)))`` with f_i the frequencies of the original data (g(v) the generalised value, all
  values for a suppressed record); missing values cost 0; in bits.
- ``"discernibility"`` (Bayardo & Agrawal 2005): ``Σ_E |E|² + |S|·n``.
- ``"aecs"`` (average equivalence class size, LeFevre et al. 2006): ``n / #classes``, the
  suppressed records forming one class.
- ``"kl"`` (Kifer & Gehrke 2006): ``Σ_x p1(x) ln(p1(x)/p2(x))`` over the original combinations x,
  p1 their shares among the records not suppressed before, p2 the estimate from the release: each
  class spread uniformly over the combinations of its generalised box (``|E|/(n·|box|)``), the
  suppressed records over the whole domain.

The first four have a lower bound (the loss with nothing suppressed) that grows with the levels:
the optimal search prunes with it (``BOUNDED``). Discernibility and AECS (``ROLLED``) have a bound
from the class structure (proved at `Metrics.table_bound`): a cheap one from the levels alone,
and the bound of any evaluated node, which holds for all its generalisations. KL has none: the
search evaluates every node.

Examples
--------
>>> import pandas as pd
>>> from sdcsession.utility.hierarchy import Hierarchy
>>> from sdcsession.privacy.lattice import evaluate_node
>>> from sdcsession.privacy.models import KAnonymity
>>> df = pd.DataFrame({"z": ["11", "12", "21", "22"]})
>>> evaluate_node(df, {"z": Hierarchy.masking(2)}, [KAnonymity(2)], {"z": 1},
...               metric="discernibility").loss    # 2² + 2²
8.0
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import ParameterError
from .encoding import Base, joint_key

if TYPE_CHECKING:  # pragma: no cover
    from .lattice import Engine, Table

__all__ = ["METRICS", "BOUNDED", "ROLLED", "Metrics"]

METRICS = ("precision", "height", "loss", "entropy", "discernibility", "aecs", "kl")
BOUNDED = frozenset({"precision", "height", "loss", "entropy", "discernibility", "aecs"})
#: metrics whose bound is raised by the evaluated nodes below a node
ROLLED = frozenset({"discernibility", "aecs"})


class Metrics:
    """Precomputed per-level costs of one metric over a `Base` (see the module docstring)."""

    def __init__(self, base: Base, name: str) -> None:
        if name not in METRICS:
            raise ParameterError(f"metric: expected one of {list(METRICS)}, got {name!r:.40}")
        self.name = name
        self.base = base
        b = base
        self.n = b.n
        self.q = len(b.qis)
        self.pre = b.n_presuppressed
        self.n_kept = self.n - self.pre
        # per QI, per level: cost of each level-0 code, its total T over the kept records, and
        # the cost of a suppressed value
        self.costs: list[list[np.ndarray]] = []
        self.sup: list[np.ndarray] = []
        self.totals: list[np.ndarray] = []
        if name in ("loss", "entropy"):
            for i, qi in enumerate(b.qis):
                f = np.bincount(b.codes[i], weights=b.sizes, minlength=qi.n_codes[0])
                f[-1] = 0.0
                per, sup = [], None
                big_m = qi.n_codes[0] - 1
                for j in range(qi.height + 1):
                    mp = qi.maps[j]
                    if name == "loss":
                        c = (qi.leafcount[j][mp] - 1.0) / max(big_m - 1, 1)
                        c[-1] = 1.0
                    else:
                        fg = np.bincount(mp, weights=f, minlength=qi.n_codes[j])[mp]
                        with np.errstate(divide="ignore", invalid="ignore"):
                            c = np.where(f > 0, -np.log2(np.where(f > 0, f, 1.0) /
                                                          np.where(fg > 0, fg, 1.0)), 0.0)
                    per.append(c)
                if name == "loss":
                    sup = np.ones(qi.n_codes[0])
                else:
                    tot = f.sum()
                    with np.errstate(divide="ignore"):
                        sup = np.where(f > 0, -np.log2(np.where(f > 0, f, 1.0) / max(tot, 1.0)),
                                       0.0)
                self.costs.append(per)
                self.sup.append(sup)
                self.totals.append(np.array([float((b.sizes * c[b.codes[i]]).sum())
                                             for c in per]))
        if name in ROLLED:  # distinct level-j codes among the level-0 classes with records
            has = b.sizes > 0
            self.g0 = int(has.sum())
            self.used = [[len(np.unique(qi.lift[(0, j)][b.codes[i][has]]))
                          for j in range(qi.height + 1)] for i, qi in enumerate(b.qis)]
        if name == "kl":
            self.logbox = [[np.log(np.maximum(lc, 1).astype(np.float64)) for lc in qi.leafcount]
                           for qi in b.qis]
            self.logdomain = float(sum(np.log(max(int((np.bincount(b.codes[i], minlength=1)
                                                         > 0).sum()), 1))
                                       for i in range(self.q)))

    # ----------------------------------------------------------------- bounds
    def bound(self, levels: tuple[int, ...]) -> float:
        """Lower bound of the loss at ``levels`` (exact when nothing is suppressed)."""
        if self.name == "height":
            return float(sum(levels))
        if self.name == "precision":
            frac = sum(lv / h for lv, h in zip(levels, self._heights(), strict=True) if h > 0)
            return (self.n_kept * frac + self.pre * self.q) / max(self.n * self.q, 1)
        if self.name == "loss":
            return float(sum(self.totals[i][lv] + self.pre for i, lv in enumerate(levels))
                         / max(self.n, 1))
        if self.name == "entropy":
            return float(sum(self.totals[i][lv] for i, lv in enumerate(levels)))
        if self.name in ROLLED:
            prod = 1.0
            for u, lv in zip(self.used, levels, strict=True):
                prod *= u[lv]
            return self._rolled(min(float(self.g0), prod), None)
        return 0.0

    def _rolled(self, classes: float, square_sum: float | None) -> float:
        """Discernibility or AECS bound from a number of classes with records (and, when known,
        the sum of their squared sizes)."""
        pre, n = self.pre, self.n
        if self.name == "discernibility":
            if square_sum is None:
                square_sum = self.n_kept**2 / classes if classes > 0 else 0.0
            return float(square_sum + pre * n)
        return n / max(classes + (1 if pre > 0 else 0), 1)

    def table_bound(self, t: Table) -> float:
        """Lower bound of the loss at the node of table ``t`` and at every generalisation of it.

        Proof (discernibility). Let E be the node's classes (before suppression; |E| counts the
        released records), S ⊆ E the suppressed ones, pre the records suppressed before and
        n = Σ|E| + pre. DM = Σ_{E∉S}|E|² + (Σ_{E∈S}|E| + pre)·n ≥ Σ_E |E|² + pre·n =: DM0,
        since |E| ≤ n gives |E|·n ≥ |E|² for every suppressed class. A generalisation merges
        classes, and (a + b)² ≥ a² + b² for a, b ≥ 0, so DM0 never decreases upwards in the
        lattice: DM0 of this node bounds DM at this node and at every node above it. Before a
        node is evaluated, Cauchy–Schwarz gives Σ_E|E|² ≥ (Σ_E|E|)²/G with G the number of
        classes with records, and G ≤ min(G0, Π_i u_i(l_i)) (G0 level-0 classes, u_i(l) the
        distinct level-l values of quasi-identifier i): ``bound(levels)``, also non-decreasing.

        Proof (AECS = n / (kept classes + [any record suppressed])). If pre > 0 the denominator
        is at most G + 1; if pre = 0, either nothing is suppressed (denominator = G) or a class
        with records is suppressed (denominator ≤ (G − 1) + 1): AECS ≥ n / (G + [pre > 0]), and
        G never increases upwards in the lattice (classes merge).
        """
        if self.name in ROLLED:
            sz = np.asarray(t.sizes, dtype=np.float64)
            return self._rolled(float(np.count_nonzero(sz)), float((sz**2).sum()))
        return self.bound(t.levels)

    def _heights(self) -> list[int]:
        return [qi.height for qi in self.base.qis]

    # ------------------------------------------------------------------ value
    def value(self, eng: Engine, t: Table, bad: np.ndarray, s: int) -> float:
        """The loss of node table ``t`` whose classes ``bad`` are suppressed (``s`` records)."""
        lv = t.levels
        s_all = s + self.pre
        if self.name == "height":
            return float(sum(lv))
        if self.name == "precision":
            frac = sum(x / h for x, h in zip(lv, self._heights(), strict=True) if h > 0)
            return ((self.n_kept - s) * frac + s_all * self.q) / max(self.n * self.q, 1)
        if self.name == "discernibility":
            keep = t.sizes[~bad].astype(np.float64)
            return float((keep**2).sum() + s_all * self.n)
        if self.name == "aecs":
            k = int(((~bad) & (t.sizes > 0)).sum()) + (1 if s_all > 0 else 0)
            return self.n / max(k, 1)
        b = self.base
        if self.name in ("loss", "entropy"):
            out = self.bound(lv)
            if s == 0:
                return out
            supp0 = bad[self._ids0(t)]
            w = b.sizes[supp0].astype(np.float64)
            extra = 0.0
            for i in range(self.q):
                c0 = b.codes[i][supp0]
                extra += float((w * (self.sup[i][c0] - self.costs[i][lv[i]][c0])).sum())
            return out + (extra / max(self.n, 1) if self.name == "loss" else extra)
        return self._kl(t, bad, s)

    def _ids0(self, t: Table) -> np.ndarray:
        """The node class of every level-0 class."""
        b = self.base
        radices = [qi.n_codes[t.levels[i]] for i, qi in enumerate(b.qis)]
        gen = np.stack([qi.lift[(0, t.levels[i])][b.codes[i]] for i, qi in enumerate(b.qis)]) \
            if self.q else np.zeros((0, len(b.sizes)), dtype=np.int64)
        k0 = joint_key(gen, radices)
        kt = joint_key(t.codes, radices)
        order = np.argsort(kt, kind="stable")
        return order[np.searchsorted(kt[order], k0)]

    def _kl(self, t: Table, bad: np.ndarray, s: int) -> float:
        b = self.base
        if self.n_kept == 0:
            return 0.0
        ids0 = self._ids0(t)
        p1 = b.sizes / self.n_kept
        logbox = np.zeros(len(b.sizes))
        for i, qi in enumerate(b.qis):
            lvl = t.levels[i]
            logbox += self.logbox[i][lvl][qi.lift[(0, lvl)][b.codes[i]]]
        supp0 = bad[ids0]
        cls = np.where(supp0, 0.0, t.sizes[ids0] / self.n_kept * np.exp(-logbox))
        p2 = cls + (s / self.n_kept) * np.exp(-self.logdomain)
        has = p1 > 0  # level-0 classes without released records (research subset) add 0
        return float((p1[has] * np.log(p1[has] / p2[has])).sum())


