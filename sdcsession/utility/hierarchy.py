"""Value generalisation hierarchies with levels (ARX style) and taxonomy trees (Iyengar's LM).

A hierarchy of height H maps every original value v (level 0) to a value ``g_j(v)`` at each level
j = 0..H; level H is usually the single root ``"*"``. Full-domain generalisation replaces every value
of a column by its level-j value. Generalisation must be a function level by level: a value of
level j − 1 has exactly one parent at level j (else `ParameterError` "not a function").

Constructors:

- `Hierarchy.from_frame`: ARX's tabular format, column 0 the original values, column j the
  value at level j (height = number of columns − 1);
- `Hierarchy.from_nested` / `Hierarchy.from_parents`: a taxonomy tree; a leaf at depth d is
  generalised to its ancestor j steps up, and to the root once j ≥ d (height = deepest leaf);
- `Hierarchy.intervals`: numeric intervals, one list of edges per level, the top level ``"*"``;
- `Hierarchy.masking`: codes masked from the right (12345 → 1234* → 123** → … → *****);
- `Hierarchy.dates`: dates to month, quarter, year (…), the top level ``"*"``.

Missing values are not generalised: they stay missing at every level.

Reference: Sweeney, L. (2002) Achieving k-anonymity privacy protection using generalization and
suppression, IJUFKS 10(5); Prasser, F. & Kohlmayer, F. (2015) Putting statistical disclosure
control into practice: the ARX data anonymization tool (hierarchy formats).

Examples
--------
>>> import pandas as pd
>>> h = Hierarchy.masking(5)
>>> h.height, h.generalize(["12345", "12399"], 2).tolist()
(5, ['123**', '123**'])
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError
from ._align import as_values

__all__ = ["Hierarchy", "DATE_LEVELS"]

#: date levels from fine to coarse (a `Hierarchy.dates` uses an increasing subsequence)
DATE_LEVELS = ("month", "quarter", "year", "decade")
MAX_HEIGHT = 256  #: most levels of nested dicts / parent links (checked as they are walked)
_KINDS = ("table", "intervals", "masking", "dates")


def _show(values: Sequence[Any], n: int = 10) -> str:
    vals = list(values)
    more = f" and {len(vals) - n} more" if len(vals) > n else ""
    return f"{vals[:n]!r}{more}"


def _missing(values: np.ndarray) -> np.ndarray:
    return np.asarray(pd.isna(values), dtype=bool)


@attrs.frozen(eq=False)
class Hierarchy:
    """A value generalisation hierarchy with levels (see the module docstring for the kinds).

    ``leaves[node]`` is the number of original values under node (Iyengar's loss metric,
    ``loss(node) = (M_P − 1)/(M − 1)``); ``root`` the top node; ``kind`` and ``params`` describe
    the levels (``to_dict``/``from_dict`` give a JSON form for recipes). Build it with a
    constructor, not directly.

    Examples
    --------
    >>> h = Hierarchy.from_nested({"Any": {"Gov": ["Fed", "State"], "Private": None}})
    >>> h.leaves["Gov"], h.n_leaves, h.loss("Gov"), h.height
    (2, 3, 0.5, 2)
    >>> h.generalize(["Fed", "Private", None], 1).tolist()
    ['Gov', 'Any', None]
    """

    leaves: Mapping[Any, int] = attrs.field(factory=dict)
    root: Any = "*"
    kind: str = "table"
    params: tuple[Any, ...] = ()

    # ------------------------------------------------------------------ basics
    @property
    def n_leaves(self) -> int:
        """Number of original (level-0) values."""
        return int(self.leaves[self.root])

    @property
    def height(self) -> int:
        """Number of generalisation levels above the original values."""
        if self.kind == "table":
            return len(self.params[0]) - 1 if self.params else 0
        if self.kind == "masking":
            return int(self.params[0])
        return len(self.params) + 1  # intervals / dates: the given levels and "*"

    def loss(self, node: Any) -> float:
        """``LM = (M_P − 1) / (M − 1)`` for the generalised value (node) P."""
        if node not in self.leaves:
            raise MeasureError(f"loss_metric: value {node!r} is not a node of the hierarchy")
        m = self.n_leaves
        return 0.0 if m <= 1 else (self.leaves[node] - 1) / (m - 1)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hierarchy) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(json.dumps(self.to_dict(), sort_keys=True, default=repr))

    # ----------------------------------------------------------- construction
    @classmethod
    def _from_rows(cls, rows: list[tuple[Any, ...]], where: str) -> Hierarchy:
        if not rows:
            raise ParameterError(f"{where}: the hierarchy has no values")
        width = len(rows[0])
        frame = pd.DataFrame(rows, dtype=object).drop_duplicates()
        for j in range(1, width):
            par = frame.iloc[:, [j - 1, j]].drop_duplicates()
            dup = par.iloc[:, 0][par.iloc[:, 0].duplicated()]
            if len(dup):
                raise ParameterError(
                    f"{where}: not a function: value(s) {_show(pd.unique(dup))} of level {j - 1} "
                    f"have two or more parents at level {j}")
        if frame.isna().to_numpy().any():
            raise ParameterError(f"{where}: the hierarchy has missing cells; every level needs a "
                                 "value")
        rows = [tuple(r) for r in frame.itertuples(index=False)]
        top = pd.unique(frame.iloc[:, -1])
        leaves: dict[Any, int] = {}
        for j in range(width):
            for node, cnt in frame.iloc[:, j].value_counts(sort=False).items():
                leaves[node] = max(leaves.get(node, 0), int(cnt))
        root = top[0] if len(top) == 1 else "*"
        if len(top) != 1:
            leaves["*"] = len(frame)
        return cls(leaves, root, "table", tuple(rows))

    @classmethod
    def from_frame(cls, frame: pd.DataFrame | Sequence[Sequence[Any]]) -> Hierarchy:
        """From ARX's tabular format: column 0 the original values, column j the level-j value.

        Height = number of columns − 1. A value of level j − 1 with two parents at level j is a
        `ParameterError` ("not a function"); data values absent from column 0 are reported when
        the hierarchy is used (`generalize`). A data value not found as it is is matched by its
        text (a table read from a CSV file holds "31" for the number 31).

        Examples
        --------
        >>> t = pd.DataFrame([["31", "30-39", "*"], ["35", "30-39", "*"], ["42", "40-49", "*"]])
        >>> h = Hierarchy.from_frame(t)
        >>> h.height, h.generalize(["35", "42"], 1).tolist()
        (2, ['30-39', '40-49'])
        """
        if isinstance(frame, pd.DataFrame):
            rows = [tuple(r) for r in frame.itertuples(index=False)]
        elif isinstance(frame, (list, tuple)) and all(isinstance(r, (list, tuple)) for r in frame):
            rows = [tuple(r) for r in frame]
        else:
            raise ParameterError(f"hierarchy: expected a DataFrame or a list of rows, got "
                                 f"{type(frame).__name__}")
        if rows and (len({len(r) for r in rows}) != 1 or len(rows[0]) < 1):
            raise ParameterError("hierarchy: every row needs the same number of levels")
        return cls._from_rows(rows, "hierarchy")

    @classmethod
    def from_nested(cls, tree: Mapping | Sequence) -> Hierarchy:
        """From a nested dict with a single root (leaves: None, {} or list items).

        Examples
        --------
        >>> Hierarchy.from_nested({"*": ["a", "b"]}).generalize(["a"], 1).tolist()
        ['*']
        """
        counts: dict[Any, int] = {}
        paths: list[list[Any]] = []

        def walk(node: Any, children: Any, path: list[Any]) -> int:
            if len(path) >= MAX_HEIGHT:
                raise ParameterError(f"hierarchy: more than {MAX_HEIGHT} levels deep")
            try:
                seen = node in counts
            except TypeError:
                raise ParameterError(f"hierarchy: node of type {type(node).__name__} is not a "
                                     "single value") from None
            if seen:
                raise ParameterError(f"hierarchy: node {node!r} appears twice")
            if children is None or (isinstance(children, (Mapping, list, tuple)) and
                                    len(children) == 0):
                counts[node] = 1
                paths.append([node, *path])
                return 1
            if isinstance(children, Mapping):
                total = sum(walk(k, v, [node, *path]) for k, v in children.items())
            elif isinstance(children, (list, tuple)):
                total = sum(walk(k, None, [node, *path]) for k in children)
            else:
                raise ParameterError(f"hierarchy: children of {node!r} must be a dict or list")
            counts[node] = total
            return total

        if isinstance(tree, Mapping) and len(tree) == 1:
            root, children = next(iter(tree.items()))
        else:
            root, children = "*", tree
        walk(root, children, [])
        height = max(len(p) for p in paths) - 1
        rows = [tuple(p[min(j, len(p) - 1)] for j in range(height + 1)) for p in paths]
        if height == 0:  # a lone root: the identity
            rows = [(root,)]
        h = cls._from_rows(rows, "hierarchy")
        return cls(counts, root, "table", h.params)

    @classmethod
    def from_parents(cls, parents: Mapping[Any, Any]) -> Hierarchy:
        """From child → parent links; the one node without a parent is the root."""
        if not isinstance(parents, Mapping) or not parents:
            raise ParameterError(f"parents: expected a non-empty mapping {{child: parent}}, got "
                                 f"{type(parents).__name__} {parents!r:.40}")
        try:
            nodes = set(parents) | set(parents.values())
        except TypeError:
            raise ParameterError("parents: every parent must be a single value") from None
        roots = [v for v in nodes if v not in parents]
        if len(roots) != 1:
            raise ParameterError(f"hierarchy: expected exactly one root, found {roots}")
        children: dict[Any, list] = {}
        for ch, pa in parents.items():
            children.setdefault(pa, []).append(ch)

        reached = {roots[0]}

        def build(node: Any, depth: int) -> Any:
            if depth >= MAX_HEIGHT:
                raise ParameterError(f"hierarchy: more than {MAX_HEIGHT} levels deep")
            ks = children.get(node)
            reached.update(ks or ())
            return None if not ks else {k: build(k, depth + 1) for k in ks}

        tree = {roots[0]: build(roots[0], 0)}
        if len(reached) != len(nodes):  # links that never reach the root go round in a cycle
            lost = [v for v in parents if v not in reached]
            raise ParameterError(f"parents: the links of {_show(lost, 5)} form a cycle and never "
                                 f"reach the root {roots[0]!r}")
        return cls.from_nested(tree)

    @classmethod
    def intervals(cls, edges_per_level: Sequence[Sequence[float]]) -> Hierarchy:
        """Numeric intervals: level j (1 ≤ j ≤ L) bins values by ``edges_per_level[j − 1]``
        into ``[e_i, e_{i+1})`` (the last bin closed); level L + 1 is ``"*"``.

        Every level's edges must be a subset of the previous level's, with the same first and
        last edge (so that generalisation is a function). Values outside [first, last edge] are a
        `ParameterError` when generalised.

        Examples
        --------
        >>> h = Hierarchy.intervals([[0, 10, 20, 30, 40], [0, 20, 40]])
        >>> h.height, h.generalize([5, 25, 40], 1).tolist(), h.generalize([5], 3).tolist()
        (3, ['[0, 10)', '[20, 30)', '[30, 40]'], ['*'])
        """
        if isinstance(edges_per_level, (str, bytes, Mapping)) or not isinstance(
                edges_per_level, Sequence) or len(edges_per_level) == 0:
            raise ParameterError("edges_per_level: expected a non-empty list of edge lists")
        levels: list[tuple[float, ...]] = []
        for j, edges in enumerate(edges_per_level, start=1):
            try:
                e = np.asarray(edges, dtype=np.float64)
            except (TypeError, ValueError):
                raise ParameterError(f"edges_per_level[{j - 1}]: expected numbers, got "
                                     f"{edges!r:.60}") from None
            if e.ndim != 1 or len(e) < 2 or not np.isfinite(e).all() or (np.diff(e) <= 0).any():
                raise ParameterError(f"edges_per_level[{j - 1}]: expected at least two finite, "
                                     f"strictly increasing edges, got {edges!r:.60}")
            if levels:
                prev = levels[-1]
                if e[0] != prev[0] or e[-1] != prev[-1] or not set(e.tolist()) <= set(prev):
                    raise ParameterError(
                        f"edges_per_level[{j - 1}]: not a function of level {j - 1}: the edges "
                        "must be a subset of the previous level's with the same first and last edge")
            levels.append(tuple(float(x) for x in e))
        return cls({"*": 0}, "*", "intervals", tuple(levels))

    @classmethod
    def masking(cls, width: int) -> Hierarchy:
        """Codes of ``width`` characters masked from the right: level j replaces the last j
        characters by ``*`` (height = width). Values are compared as text and must have exactly
        ``width`` characters (pass text to keep leading zeros).

        Examples
        --------
        >>> Hierarchy.masking(3).generalize([123, "045"], 1).tolist()
        ['12*', '04*']
        """
        if isinstance(width, bool) or not isinstance(width, (int, np.integer)) or not \
                1 <= width <= 64:
            raise ParameterError(f"width: expected an integer in [1, 64], got {width!r:.40}")
        return cls({"*": 0}, "*" * int(width), "masking", (int(width),))

    @classmethod
    def dates(cls, levels: Sequence[str] = ("month", "quarter", "year")) -> Hierarchy:
        """Dates generalised to ``levels`` (an increasing subsequence of "month", "quarter",
        "year", "decade"; labels "2020-03", "2020Q1", "2020", "2020s"), then ``"*"``.

        Examples
        --------
        >>> Hierarchy.dates().generalize(pd.to_datetime(["2020-03-15"]), 2).tolist()
        ['2020Q1']
        """
        if isinstance(levels, str) or not isinstance(levels, Sequence) or not levels:
            raise ParameterError(f"levels: expected a non-empty list of {list(DATE_LEVELS)}, "
                                 f"got {levels!r:.60}")
        bad = [v for v in levels if not isinstance(v, str) or v not in DATE_LEVELS]
        if bad:
            raise ParameterError(f"levels: unknown date level(s) {bad!r:.60}; expected "
                                 f"{list(DATE_LEVELS)}")
        pos = [DATE_LEVELS.index(v) for v in levels]
        if any(b <= a for a, b in zip(pos, pos[1:], strict=False)):
            raise ParameterError(f"levels: expected levels from fine to coarse in the order "
                                 f"{list(DATE_LEVELS)}, got {list(levels)}")
        return cls({"*": 0}, "*", "dates", tuple(levels))

    # ---------------------------------------------------------------- JSON form
    def to_dict(self) -> dict[str, Any]:
        """JSON-able description (``{"kind": ..., ...}``); `from_dict` inverts it.

        Examples
        --------
        >>> Hierarchy.masking(2).to_dict()
        {'kind': 'masking', 'width': 2}
        """
        if self.kind == "table":
            return {"kind": "table", "rows": [list(r) for r in self.params]}
        if self.kind == "intervals":
            return {"kind": "intervals", "edges": [list(e) for e in self.params]}
        if self.kind == "masking":
            return {"kind": "masking", "width": int(self.params[0])}
        return {"kind": "dates", "levels": list(self.params)}

    @classmethod
    def from_dict(cls, d: Any) -> Hierarchy:
        """Inverse of `to_dict`; also accepts a `Hierarchy`, a DataFrame (ARX table) or a
        nested dict (taxonomy tree)."""
        if isinstance(d, Hierarchy):
            return d
        if isinstance(d, pd.DataFrame):
            return cls.from_frame(d)
        if not isinstance(d, Mapping):
            raise ParameterError(f"hierarchy: expected a Hierarchy, an ARX table (DataFrame) or a "
                                 f"nested dict, got {type(d).__name__}")
        kind = d.get("kind") if "kind" in d and len(d) == 2 else None
        if kind == "table":
            return cls.from_frame(d["rows"])
        if kind == "intervals":
            return cls.intervals(d["edges"])
        if kind == "masking":
            return cls.masking(d["width"])
        if kind == "dates":
            return cls.dates(d["levels"])
        return cls.from_nested(d)

    # ---------------------------------------------------------- generalisation
    def _check_level(self, level: Any) -> int:
        if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or not \
                0 <= level <= self.height:
            raise ParameterError(f"level: expected an integer in [0, {self.height}], got "
                                 f"{level!r:.40}")
        return int(level)

    def generalize(self, values: Any, level: int, *, column: str = "values") -> pd.Series:
        """The level-``level`` value of every one of ``values`` (vectorised over the distinct
        values); missing values stay missing. Values the hierarchy does not cover raise a
        `ParameterError` naming them (and ``column``).

        Examples
        --------
        >>> Hierarchy.from_frame([["a", "ab", "*"], ["b", "ab", "*"]]).generalize(["b"], 1).tolist()
        ['ab']
        """
        level = self._check_level(level)
        s = as_values(values, column)
        if level == 0:
            self._labels(np.asarray(pd.unique(s.dropna()), dtype=object), 0, column)  # every value must be covered
            return s.astype(object)
        codes, uniq = pd.factorize(s, use_na_sentinel=True)
        lab = self._labels(np.asarray(uniq, dtype=object), level, column)
        out = np.full(len(s), None, dtype=object)
        ok = codes >= 0
        out[ok] = lab[codes[ok]]
        return pd.Series(out, index=s.index, name=s.name, dtype=object)

    def _labels(self, uniq: Any, level: int, column: str) -> np.ndarray:
        """Level-``level`` labels of distinct non-missing values (an object array)."""
        if self.kind == "table":
            col0 = pd.Index([r[0] for r in self.params])
            idx = col0.get_indexer(pd.Index(uniq, dtype=object))
            if (idx < 0).any():
                # a table read from text (ARX CSV) matches numbers of the data by their text
                by_text = pd.Index([str(v) for v in col0])
                if by_text.is_unique:
                    alt = by_text.get_indexer(pd.Index([str(u) for u in uniq], dtype=object))
                    idx = np.where(idx < 0, alt, idx)
            if (idx < 0).any():
                miss = [u for u, i in zip(uniq, idx, strict=True) if i < 0]
                raise ParameterError(f"hierarchy of {column!r}: value(s) {_show(miss)} of the data "
                                     f"are not in the hierarchy's column 0")
            lab = np.array([r[level] for r in self.params], dtype=object)
            return lab[idx]
        if level == self.height and self.kind != "masking":
            return np.full(len(uniq), "*", dtype=object)
        if self.kind == "intervals":
            return self._interval_labels(uniq, level, column)
        if self.kind == "masking":
            return self._mask_labels(uniq, level, column)
        return self._date_labels(uniq, level, column)

    def _interval_labels(self, uniq: Any, level: int, column: str) -> np.ndarray:
        try:
            x = np.asarray(pd.to_numeric(pd.Series(uniq, dtype=object)), dtype=np.float64)
        except (TypeError, ValueError):
            raise ParameterError(f"hierarchy of {column!r}: interval hierarchies need numeric "
                                 f"values, got {_show(uniq[:5])}") from None
        edges = np.asarray(self.params[0 if level == 0 else level - 1])
        out_of = (x < edges[0]) | (x > edges[-1]) | np.isnan(x)
        if out_of.any():
            raise ParameterError(f"hierarchy of {column!r}: value(s) {_show(list(uniq[out_of]))} "
                                 f"of the data are outside the intervals [{edges[0]:g}, "
                                 f"{edges[-1]:g}]")
        if level == 0:
            return np.asarray(uniq, dtype=object)
        b = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, len(edges) - 2)
        names = np.array([f"[{edges[i]:g}, {edges[i + 1]:g}" + (")" if i < len(edges) - 2 else "]")
                          for i in range(len(edges) - 1)], dtype=object)
        return names[b]

    def _mask_labels(self, uniq: Any, level: int, column: str) -> np.ndarray:
        w = int(self.params[0])
        text = pd.Series(uniq, dtype=object).astype(str)
        bad = text.str.len() != w
        if bad.any():
            raise ParameterError(f"hierarchy of {column!r}: value(s) {_show(list(text[bad]))} do "
                                 f"not have exactly {w} characters (masking({w}))")
        if level == 0:
            return np.asarray(uniq, dtype=object)
        return (text.str[: w - level] + "*" * level).to_numpy(dtype=object)

    def _date_labels(self, uniq: Any, level: int, column: str) -> np.ndarray:
        try:
            d = pd.to_datetime(pd.Series(uniq))
        except (TypeError, ValueError):
            raise ParameterError(f"hierarchy of {column!r}: date hierarchies need dates, got "
                                 f"{_show(list(uniq[:5]))}") from None
        if level == 0:
            return np.asarray(uniq, dtype=object)
        name = self.params[level - 1]
        if name == "month":
            lab = d.dt.strftime("%Y-%m")
        elif name == "quarter":
            lab = d.dt.year.astype(str) + "Q" + d.dt.quarter.astype(str)
        elif name == "year":
            lab = d.dt.year.astype(str)
        else:
            lab = (d.dt.year // 10 * 10).astype(str) + "s"
        return lab.to_numpy(dtype=object)

    def code_maps(self, values: Any, *, column: str = "values") -> tuple[
            np.ndarray, list[np.ndarray], list[np.ndarray]]:
        """Integer codes for fast full-domain generalisation of ``values``.

        Returns ``codes`` (level-0 code of every value, −1 for missing), ``maps`` (for each level
        j = 0..H an int array: level-0 code → level-j code) and ``labels`` (for each level the
        label of every level-j code). Checks that generalisation of the data's values is a
        function level by level.

        Examples
        --------
        >>> codes, maps, labels = Hierarchy.masking(2).code_maps(["12", "13", "12"])
        >>> codes.tolist(), maps[1].tolist(), labels[1].tolist()
        ([0, 1, 0], [0, 0], ['1*'])
        """
        s = as_values(values, column)
        codes, uniq = pd.factorize(s, use_na_sentinel=True)
        uniq_arr = np.asarray(uniq, dtype=object)
        maps: list[np.ndarray] = []
        labels: list[np.ndarray] = []
        for j in range(self.height + 1):
            lab = self._labels(uniq_arr, j, column)
            m, u = pd.factorize(pd.Series(lab, dtype=object), sort=False)
            if j > 0:
                pairs = np.unique(np.stack([maps[-1], m]), axis=1)
                if pairs.shape[1] != len(labels[-1]):
                    raise ParameterError(f"hierarchy of {column!r}: not a function: a value of "
                                         f"level {j - 1} has two parents at level {j}")
            maps.append(m.astype(np.int64))
            labels.append(np.asarray(u, dtype=object))
        return codes.astype(np.int64), maps, labels
