"""The generalisation lattice: node evaluation by rolling up class tables, optimal and heuristic
search.

A node is one level per quasi-identifier. Evaluating it: generalise the codes of a class table
of a finer node (a direct predecessor kept in a cache, else the level-0 table) to the node's
levels, combine them (mixed radix) into class keys, group (hash factorisation), and add up the
class sizes, the sensitive-value count matrices and the subset counts. The records in classes
violating a class-level model are suppressed (left out of every model's check); release-level
models (average risk) are checked on the remaining classes. The node is *feasible* when the
newly suppressed records are at most ``max_suppression · n`` and every model holds.

``search="optimal"`` (best-first branch and bound, in the spirit of OLA, El Emam et al. 2009,
and Flash, Kohlmayer et al. 2012): the metrics "precision", "height", "loss" and "entropy"
have a lower bound — the loss of the node with no record suppressed, since a suppressed record
costs at least as much as any level — that is monotone in the lattice. Nodes are visited in
increasing bound (predecessors first, so every node can roll up a predecessor's table); the
search stops at the first node whose bound is not below the best feasible loss found. That
node's successors have larger bounds, so the result is a feasible node of least loss over the
whole lattice, also with suppression (where the loss itself is not monotone). Monotone models
(k-anonymity, distinct l-diversity, k-map) are used for tagging: a node infeasible for them alone
makes all its predecessors infeasible, and when every model is monotone a feasible node makes
all its successors feasible (both tags are recorded for the lattice plot). "discernibility" and
"aecs" have a bound from the class structure (``metrics.Metrics.table_bound``, with its proof):
an a-priori one from the levels, raised for every node above an evaluated node to that node's
bound (a node popped with an outdated key is pushed back with the raised one). "kl" has no
bound: every node is evaluated.

``search="heuristic"``: greedy ascent from the bottom node: evaluate the direct successors of
the current node and move to the one with the fewest suppressed records (ties: least loss),
until a feasible node is reached; at most Σ H_i steps.

``baseline="datafly"`` (the default): the result is never worse than the node of the Datafly
heuristic (Sweeney 1998; the greedy rule of anjana's ``k_anonymity``): starting from the bottom
node, while the node is infeasible, raise by one level the quasi-identifier with the most
distinct values at its current level (ties: the first in column order; a quasi-identifier at
the top of its hierarchy is skipped). Its node D (found in at most Σ H_i evaluations, which the
search then reuses) bounds the search: only nodes X with ``suppressed(X) ≤ suppressed(D)`` and
``Σ_i l_i(X)/H_i ≤ Σ_i l_i(D)/H_i`` are accepted, and D itself is one. Both inequalities imply
the precision loss of X is at most D's: with f the level fraction,
``nq·(P(X) − P(D)) = (n − s_X)(f_X − f_D) + (s_X − s_D)(q − f_D) ≤ 0``. Among those nodes the
optimal search returns the one of least ``metric`` (the bounds stay valid: a smaller feasible
set only raises the best loss). ``baseline=None`` searches the whole lattice.

Examples
--------
>>> import pandas as pd
>>> from sdcsession.utility.hierarchy import Hierarchy
>>> from sdcsession.privacy.models import KAnonymity
>>> df = pd.DataFrame({"zip": ["12", "13", "12", "22"]})
>>> r = search(df, {"zip": Hierarchy.masking(2)}, [KAnonymity(2)], max_suppression=0.25)
>>> r.levels, r.suppressed
({'zip': 1}, 1)
"""

from __future__ import annotations

import heapq
import itertools
from collections import OrderedDict
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ..errors import ParameterError, TreatmentError
from ..methods.params import check_choice, check_int, check_number
from ..utility.hierarchy import Hierarchy
from .check import check_inputs
from .encoding import Base, encode, joint_key
from .metrics import BOUNDED, METRICS, ROLLED, Metrics
from .models import ClassTable, PrivacyModel
from .population import violation_matrix

__all__ = ["search", "SearchResult", "NodeResult", "evaluate_node", "Engine", "check_levels",
           "datafly", "BASELINES"]

#: values of ``baseline``: the reference heuristic whose node the search never does worse than
BASELINES = ("datafly", None)

#: elements kept in the table cache (about 8 bytes each)
CACHE_BUDGET = 40_000_000


@attrs.define(eq=False)
class Table:
    """Class table of a node: codes (q × G) at ``levels``, sizes, sensitive counts, universe."""

    levels: tuple[int, ...]
    codes: np.ndarray
    sizes: np.ndarray
    sensitive: dict[Hashable, np.ndarray]
    universe: np.ndarray | None

    @property
    def weight(self) -> int:
        g = len(self.sizes)
        return g * (self.codes.shape[0] + 2 + sum(s.shape[1] for s in self.sensitive.values()))


@attrs.frozen
class NodeResult:
    """Evaluation of one node: ``suppressed`` (records newly suppressed), ``monotone_suppressed``
    (by the monotone models alone), ``feasible``, ``loss`` (None if not computed), ``classes``
    and ``bound`` (a lower bound of the loss at this node and every generalisation of it)."""

    levels: tuple[int, ...]
    suppressed: int
    monotone_suppressed: int
    feasible: bool
    loss: float | None
    classes: int
    bound: float = 0.0


@attrs.frozen
class SearchResult:
    """Result of `search`: the chosen ``levels`` ({column: level}), ``metric`` and its
    ``value``, ``suppressed`` records, ``nodes_checked`` / ``nodes_total``, ``search`` and
    ``lattice`` (a DataFrame: one row per node, the levels, ``status`` in "chosen", "feasible",
    "infeasible", "tagged feasible", "tagged infeasible", "not checked", and the ``loss``);
    ``baseline``: the Datafly node's ``levels`` and ``suppressed`` records (None without a
    baseline or when no node on its path is feasible)."""

    levels: dict[Hashable, int]
    metric: str
    value: float
    suppressed: int
    nodes_checked: int
    nodes_total: int
    search: str
    lattice: pd.DataFrame
    baseline: dict[str, Any] | None = None


class Engine:
    """Evaluates nodes of one lattice (see the module docstring)."""

    def __init__(self, data: pd.DataFrame, hierarchies: Mapping[Hashable, Hierarchy],
                 models: Sequence[PrivacyModel], *, max_suppression: float = 0.0,
                 metric: str = "precision") -> None:
        hierarchies, models = check_inputs(data, hierarchies, models)
        max_suppression = check_number("max_suppression", max_suppression, 0.0, 1.0)
        check_choice("metric", metric, METRICS)
        self.base: Base = encode(data, hierarchies, models)
        self.models = list(models)
        self.names = list(hierarchies)
        self.heights = tuple(qi.height for qi in self.base.qis)
        self.n = self.base.n
        self.n_records = self.base.n_records
        self.limit = int(np.floor(max_suppression * self.n + 1e-9))
        self.metric = Metrics(self.base, metric)
        self.all_monotone = all(m.monotone and m.scope == "class" for m in self.models)
        self.cache: OrderedDict[tuple[int, ...], Table] = OrderedDict()
        self.cached = 0
        self.results: dict[tuple[int, ...], NodeResult] = {}
        b = self.base
        self.root = Table(tuple(0 for _ in b.qis), b.codes, b.sizes, b.sensitive, b.universe)

    # ------------------------------------------------------------------ tables
    def _source(self, levels: tuple[int, ...]) -> Table:
        best = self.root
        for i in range(len(levels)):
            if levels[i] > 0:
                p = levels[:i] + (levels[i] - 1,) + levels[i + 1:]
                t = self.cache.get(p)
                if t is not None and len(t.sizes) < len(best.sizes):
                    best = t
        return best

    def table(self, levels: tuple[int, ...]) -> tuple[Table, np.ndarray]:
        """The node's class table, and the map from the source table's classes to it."""
        src = self._source(levels)
        qis = self.base.qis
        gen = np.empty_like(src.codes)
        for i, qi in enumerate(qis):
            gen[i] = qi.lift[(src.levels[i], levels[i])][src.codes[i]]
        key = joint_key(gen, [qi.n_codes[levels[i]] for i, qi in enumerate(qis)])
        ids, uniq = pd.factorize(key)
        g = len(uniq)
        codes = np.empty((len(qis), g), dtype=np.int64)
        codes[:, ids] = gen
        sizes = np.bincount(ids, weights=src.sizes, minlength=g).astype(np.int64)
        sens = {}
        for c, s in src.sensitive.items():
            m = s.shape[1]
            idx = (ids[:, None] * m + np.arange(m)).ravel()
            sens[c] = np.bincount(idx, weights=s.ravel(), minlength=g * m).reshape(g, m)
        sub = None if src.universe is None else np.bincount(ids, weights=src.universe,
                                                            minlength=g)
        t = Table(levels, codes, sizes, sens, sub)
        return t, ids if src is self.root else np.empty(0, dtype=np.int64)

    def _remember(self, t: Table) -> None:
        self.cache[t.levels] = t
        self.cached += t.weight
        while self.cached > CACHE_BUDGET and len(self.cache) > 1:
            _, old = self.cache.popitem(last=False)
            self.cached -= old.weight

    def _population(self, t: Table) -> np.ndarray | None:
        b = self.base
        if b.pop_codes is None:
            return None
        radices = [qi.n_codes[t.levels[i]] for i, qi in enumerate(b.qis)]
        gen = np.stack([qi.lift[(0, t.levels[i])][b.pop_codes[i]] for i, qi in enumerate(b.qis)])
        pk = joint_key(gen, radices)
        ck = joint_key(t.codes, radices)
        u, inv = np.unique(pk, return_inverse=True)
        tot = np.bincount(inv, weights=b.pop_counts, minlength=len(u))
        pos = np.searchsorted(u, ck)
        hit = pos < len(u)
        hit[hit] = u[pos[hit]] == ck[hit]
        out = np.zeros(len(ck))
        out[hit] = tot[pos[hit]]
        return out

    def violations(self, t: Table) -> tuple[np.ndarray, np.ndarray]:
        """Per class: violating any class-level model, violating a monotone one."""
        ct = ClassTable(t.sizes, t.sensitive, self._population(t), t.universe)
        v = violation_matrix(self.models, ct, self.base.ctx, fixpoint=True)
        mono = [i for i, m in enumerate(self.models) if m.monotone and m.scope == "class"]
        return v.any(axis=1), v[:, mono].any(axis=1)

    # ---------------------------------------------------------------- evaluate
    def evaluate(self, levels: tuple[int, ...], *, keep: bool = True) -> NodeResult:
        """Evaluate a node (results are memoised)."""
        if levels in self.results:
            return self.results[levels]
        t, _ = self.table(levels)
        bad, mono = self.violations(t)
        s = int(t.sizes[bad].sum())
        feasible = s <= self.limit and all(
            m.holds_release(t.sizes[~bad]) for m in self.models if m.scope == "release")
        loss = self.metric.value(self, t, bad, s) if feasible else None
        r = NodeResult(levels, s, int(t.sizes[mono].sum()), feasible, loss,
                       int(((~bad) & (t.sizes > 0)).sum()), self.metric.table_bound(t))
        self.results[levels] = r
        if keep:
            self._remember(t)
        return r

    def record_suppression(self, levels: tuple[int, ...]) -> np.ndarray:
        """Boolean per record: suppressed at this node (violating classes, and records whose
        quasi-identifiers were all missing already)."""
        t, ids0 = self._root_table(levels)
        bad, _ = self.violations(t)
        cls = self.base.class_of
        out = np.ones(self.n_records, dtype=bool)
        kept = cls >= 0
        out[kept] = bad[ids0[cls[kept]]]
        return out

    def _root_table(self, levels: tuple[int, ...]) -> tuple[Table, np.ndarray]:
        saved, self.cache = self.cache, OrderedDict()
        try:
            return self.table(levels)
        finally:
            self.cache = saved


def _nodes(heights: Sequence[int]) -> list[tuple[int, ...]]:
    return list(itertools.product(*[range(h + 1) for h in heights]))


def _tags(eng: Engine, nodes: np.ndarray) -> np.ndarray:
    """Monotone tags of ``nodes`` (an array of levels) from the evaluated nodes: "tagged
    infeasible" below a node infeasible for the monotone models alone, "tagged feasible" above a
    feasible node when every model is monotone, else "not checked"."""
    out = np.full(len(nodes), "not checked", dtype=object)
    res = list(eng.results.values())
    bad = np.array([r.levels for r in res if r.monotone_suppressed > eng.limit], dtype=np.int64)
    good = np.array([r.levels for r in res if r.feasible], dtype=np.int64) \
        if eng.all_monotone else np.zeros((0, nodes.shape[1]), dtype=np.int64)
    step = max(1, 2_000_000 // max(len(bad) + len(good), 1) // max(nodes.shape[1], 1))
    for i in range(0, len(nodes), step):
        chunk = nodes[i:i + step]
        if len(good):
            up = (chunk[:, None, :] >= good[None, :, :]).all(axis=2).any(axis=1)
            out[i:i + step][up] = "tagged feasible"
        if len(bad):
            down = (chunk[:, None, :] <= bad[None, :, :]).all(axis=2).any(axis=1)
            out[i:i + step][down] = "tagged infeasible"
    return out


def _level_fraction(levels: Sequence[int], heights: Sequence[int]) -> float:
    return float(sum(lv / h for lv, h in zip(levels, heights, strict=True) if h > 0))


def datafly(eng: Engine) -> NodeResult | None:
    """The node of the Datafly heuristic (Sweeney 1998), as anjana's ``k_anonymity`` walks it:
    from the bottom node, while the node is infeasible (more than the suppression limit in
    violating classes, or a release-level model failing), raise by one level the
    quasi-identifier with the most distinct values at its current level (ties: the first in
    column order; one at the top of its hierarchy is skipped). None when the top node is
    infeasible too. At most Σ H_i + 1 evaluations (memoised in ``eng``).

    Missing values: a missing value counts as one distinct value of its quasi-identifier.

    >>> from sdcsession.privacy.models import KAnonymity
    >>> df = pd.DataFrame({"zip": ["12", "13", "12", "22"], "sex": ["m", "m", "m", "f"]})
    >>> hs = {"zip": Hierarchy.masking(2), "sex": Hierarchy.from_nested({"*": ["m", "f"]})}
    >>> datafly(Engine(df, hs, [KAnonymity(2)], max_suppression=0.25)).levels  # zip first
    (1, 0)
    """
    b = eng.base
    has = b.sizes > 0
    distinct = [[len(np.unique(qi.lift[(0, j)][b.codes[i][has]])) for j in range(qi.height + 1)]
                for i, qi in enumerate(b.qis)]
    cur = [0] * len(eng.heights)
    while True:
        r = eng.evaluate(tuple(cur))
        if r.feasible:
            return r
        open_ = [i for i in range(len(cur)) if cur[i] < eng.heights[i]]
        if not open_:
            return None
        i = max(open_, key=lambda j: (distinct[j][cur[j]], -j))
        cur[i] += 1


def _dominates(r: NodeResult, ref: NodeResult, heights: Sequence[int]) -> bool:
    """``r`` suppresses no more records than ``ref`` and generalises no more (level fraction)."""
    return (r.feasible and r.suppressed <= ref.suppressed
            and _level_fraction(r.levels, heights)
            <= _level_fraction(ref.levels, heights) + 1e-12)


def search(data: pd.DataFrame, hierarchies: Mapping[Hashable, Hierarchy],
           models: Sequence[PrivacyModel], *, max_suppression: float = 0.0,
           metric: str = "loss", search: str = "optimal", baseline: str | None = "datafly",
           engine: Engine | None = None) -> SearchResult:
    """Search the lattice of ``hierarchies`` for a feasible node of least ``metric`` (see the
    module docstring). With ``baseline="datafly"`` (default) only nodes that suppress no more
    records and generalise no more than the Datafly node (`datafly`) are accepted, so the result
    is never worse than that heuristic in suppressed records nor in precision; ``None`` searches
    the whole lattice. The default metric is "loss" (Iyengar's, ARX's default quality model; see
    the docs page on privacy models for the comparison). Raises `TreatmentError` when no node is
    feasible, naming the least suppression any evaluated node would need.

    Missing values: a missing quasi-identifier stays missing at every level (a value of its own);
    a record whose quasi-identifiers are all missing counts as suppressed already.

    >>> from sdcsession.privacy.models import KAnonymity
    >>> df = pd.DataFrame({"zip": ["12", "13", "12", "22", "22"]})
    >>> search(df, {"zip": Hierarchy.masking(2)}, [KAnonymity(2)], max_suppression=0).levels
    {'zip': 1}
    """
    search = check_choice("search", search, ("optimal", "heuristic"))
    if baseline is not None and not (isinstance(baseline, str) and baseline in BASELINES):
        raise ParameterError(f"baseline: expected 'datafly' or None, got {baseline!r:.40}")
    if engine is not None and not isinstance(engine, Engine):
        raise ParameterError(f"engine: expected None or an Engine, got {type(engine).__name__}")
    eng = engine or Engine(data, hierarchies, models, max_suppression=max_suppression,
                           metric=metric)
    nodes = _nodes(eng.heights)
    ref = datafly(eng) if baseline == "datafly" else None
    best: NodeResult | None = None
    if search == "heuristic":
        cur = tuple(0 for _ in eng.heights)
        r = eng.evaluate(cur)
        while not r.feasible:
            succ = [cur[:i] + (cur[i] + 1,) + cur[i + 1:] for i in range(len(cur))
                    if cur[i] < eng.heights[i]]
            if not succ:
                break
            rs = [eng.evaluate(s) for s in succ]
            r = min(rs, key=lambda x: (not x.feasible, x.suppressed,
                                       x.loss if x.loss is not None else eng.metric.bound(x.levels)))
            cur = r.levels
        best = r if r.feasible else None
        if ref is not None and (best is None or not _dominates(best, ref, eng.heights)):
            best = ref
    else:
        best = _optimal(eng, nodes, ref)
    if best is None:
        worst = min(eng.results.values(), key=lambda x: (x.suppressed, sum(x.levels)))
        need = worst.suppressed
        lv = dict(zip(eng.names, worst.levels, strict=True))
        raise TreatmentError(
            f"generalize: no node of the lattice satisfies the privacy models with at most "
            f"{eng.limit} suppressed records (max_suppression={max_suppression}); the least "
            f"suppression any checked node needs is {need} records "
            f"({100.0 * need / max(eng.n, 1):.3g} % of {eng.n}, at levels {lv}); allow "
            f"max_suppression >= {need / max(eng.n, 1):.4g} or relax the models")
    frame = _lattice_frame(eng, nodes, best)
    base = None if ref is None else {"levels": dict(zip(eng.names, ref.levels, strict=True)),
                                     "suppressed": ref.suppressed}
    return SearchResult(dict(zip(eng.names, best.levels, strict=True)), eng.metric.name,
                        float(best.loss), best.suppressed, len(eng.results), len(nodes),
                        search, frame, base)


def _optimal(eng: Engine, nodes: list[tuple[int, ...]], ref: NodeResult | None = None
             ) -> NodeResult | None:
    """Best-first branch and bound (module docstring). ``lb`` holds each node's bound: the
    metric's a-priori bound, raised to the ``bound`` of every evaluated node below it (valid:
    NodeResult.bound bounds the node and all its generalisations). A node popped with an
    outdated key goes back with its raised key; the search stops when the least key is not
    below the best loss, since no node left can then beat it. With a baseline node ``ref``,
    only nodes dominating it are accepted, and ``ref`` is the first incumbent."""
    m = eng.metric
    bounded = m.name in BOUNDED
    lv = np.array(nodes, dtype=np.int64).reshape(len(nodes), len(eng.heights))
    lb = np.array([m.bound(nd) if bounded else 0.0 for nd in nodes])
    rolled = bounded and m.name in ROLLED
    heap = [(lb[i], sum(nd), i) for i, nd in enumerate(nodes)]
    heapq.heapify(heap)
    best: NodeResult | None = ref
    cap = np.inf if ref is None else _level_fraction(ref.levels, eng.heights) + 1e-12
    while heap:
        key, depth, i = heapq.heappop(heap)
        if lb[i] > key:
            heapq.heappush(heap, (lb[i], depth, i))
            continue
        if bounded and best is not None and key >= best.loss - 1e-12 * max(1.0, abs(best.loss)):
            break
        if _level_fraction(nodes[i], eng.heights) > cap:
            continue  # generalises more than the baseline node: cannot be accepted
        r = eng.evaluate(nodes[i])
        if rolled:
            up = (lv >= lv[i]).all(axis=1)
            lb[up] = np.maximum(lb[up], r.bound)
        if r.feasible and (best is None or r.loss < best.loss) and (  # type: ignore[operator]
                ref is None or _dominates(r, ref, eng.heights)):
            best = r
    return best


def _lattice_frame(eng: Engine, nodes: list[tuple[int, ...]], best: NodeResult
                   ) -> pd.DataFrame:
    lv = np.array(nodes, dtype=np.int64).reshape(len(nodes), len(eng.names))
    frame = pd.DataFrame(lv, columns=eng.names)
    status = _tags(eng, lv)
    loss = np.full(len(nodes), np.nan)
    sup = np.full(len(nodes), np.nan)
    index = {nd: i for i, nd in enumerate(nodes)}
    for nd, r in eng.results.items():
        i = index[nd]
        status[i] = "feasible" if r.feasible else "infeasible"
        loss[i] = np.nan if r.loss is None else r.loss
        sup[i] = r.suppressed
    status[index[best.levels]] = "chosen"
    frame["status"] = status
    frame["loss"] = loss
    frame["suppressed"] = sup
    return frame


def check_levels(levels: Any, hierarchies: Mapping[Hashable, Any], *,
                 all_columns: bool = True) -> dict[Hashable, int]:
    """``{column: level}`` checked against ``hierarchies`` (objects with a ``height``): a
    mapping of columns with a hierarchy (every one of them when ``all_columns``) to integers in
    ``[0, height]``; `ParameterError` otherwise.

    >>> check_levels({"zip": 1}, {"zip": Hierarchy.masking(2)})
    {'zip': 1}
    """
    if not isinstance(levels, Mapping):
        raise ParameterError(f"levels: expected a mapping {{column: level}}, got "
                             f"{type(levels).__name__} {levels!r:.40}")
    unknown = [c for c in levels if c not in hierarchies]
    missing = [c for c in hierarchies if c not in levels] if all_columns else []
    if unknown or missing:
        raise ParameterError(f"levels: expected a level for each of {list(hierarchies)}; "
                             f"unknown {unknown}, missing {missing}")
    return {c: check_int(f"levels[{c!r}]", v, 0, hierarchies[c].height)
            for c, v in levels.items()}


def evaluate_node(data: pd.DataFrame, hierarchies: Mapping[Hashable, Hierarchy],
                  models: Sequence[PrivacyModel], levels: Mapping[Hashable, int], *,
                  max_suppression: float = 0.0, metric: str = "precision") -> NodeResult:
    """Evaluate one node ({column: level}) from the records (no roll-up, no search); the loss
    is computed for every node, feasible or not.

    >>> from sdcsession.privacy.models import KAnonymity
    >>> df = pd.DataFrame({"zip": ["12", "13", "12", "22"]})
    >>> r = evaluate_node(df, {"zip": Hierarchy.masking(2)}, [KAnonymity(2)], {"zip": 1})
    >>> r.suppressed, r.feasible, r.loss     # classes 1* (3) and 2* (1): 1 suppressed
    (1, False, 0.625)
    """
    eng = Engine(data, hierarchies, models, max_suppression=max_suppression, metric=metric)
    chosen = check_levels(levels, dict(zip(eng.names, eng.base.qis, strict=True)))
    lv = tuple(chosen[c] for c in eng.names)
    t, _ = eng._root_table(lv)
    bad, mono = eng.violations(t)
    s = int(t.sizes[bad].sum())
    feasible = s <= eng.limit and all(
        m.holds_release(t.sizes[~bad]) for m in eng.models if m.scope == "release")
    return NodeResult(lv, s, int(t.sizes[mono].sum()), feasible,
                      eng.metric.value(eng, t, bad, s), int(((~bad) & (t.sizes > 0)).sum()),
                      eng.metric.table_bound(t))
