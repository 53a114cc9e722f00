"""The hierarchy builder of the workbench's ``generalize`` form: intervals for a numeric key,
groups of categories for a categorical one, levels previewed with counts, passed as a `Hierarchy`.

- `interval_edges`: the first level's interval edges, from a width (intervals of equal width,
  aligned on multiples of the width) or from break points; extended to cover every value.
- `interval_levels`: coarser levels, merging ``merge`` neighbouring intervals per level.
- `grouping_hierarchy`: a `Hierarchy` from groups of categories, level by level.
- `level_preview`: the values of every level of a hierarchy with their numbers of records.
- `HierarchyBuilder`, `GeneralizeForm`: the widgets (the form of ``generalize``).
- `make_form`: the form of a treatment (`GeneralizeForm` for ``generalize``, else `TreatForm`).

Interval hierarchy (Sweeney 2002; ARX's interval hierarchies, Prasser & Kohlmayer 2015): level 1
bins x into ``[e_i, e_{i+1})`` (the last interval closed), level j + 1 keeps every ``merge``-th
edge of level j (and the last), the top level is ``"*"``. Missing values stay missing at every
level (the preview counts them in a row "(missing)").

Example
-------
>>> interval_edges([3, 17, 42], width=10)
[0.0, 10.0, 20.0, 30.0, 40.0, 50.0]
>>> interval_levels([0.0, 10.0, 20.0, 30.0, 40.0, 50.0], merge=2, levels=2)
[[0.0, 10.0, 20.0, 30.0, 40.0, 50.0], [0.0, 20.0, 40.0, 50.0]]
>>> h = grouping_hierarchy(["a", "b", "c"], [{"a": "ab", "b": "ab"}])
>>> h.generalize(["a", "c"], 1).tolist(), h.height
(['ab', 'c'], 2)
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...errors import ParameterError, SdcError
from .data import html_table, tidy
from .labels import label
from .share import own_layout
from .treat import TreatForm, dropdown, parse_value

__all__ = ["interval_edges", "interval_levels", "grouping_hierarchy", "level_preview",
           "HierarchyBuilder", "GeneralizeForm", "make_form"]

PREVIEW_ROWS = 12  # the most values per level shown in the preview


def _finite(values: Any) -> np.ndarray:
    x = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(dtype=float)
    return x[np.isfinite(x)]


def interval_edges(values: Any, *, width: float | None = None,
                   breaks: Sequence[float] | None = None) -> list[float]:
    """The edges of the first interval level for the numeric ``values``.

    With ``width`` w: edges ``floor(min/w)·w, …, ceil(max/w)·w`` (one more edge when max is
    itself an edge, so that max falls in a closed last interval of width w); with ``breaks``:
    the sorted distinct break points, plus min and max of the data when they lie outside.
    Missing values: ignored. `ParameterError` for a width that is not > 0, fewer than one break
    point, no numeric value, or more than 1,000 intervals.

    >>> interval_edges([0.5, 2.5], breaks=[1, 2])
    [0.5, 1.0, 2.0, 2.5]
    """
    x = _finite(values)
    if x.size == 0:
        raise ParameterError("intervals: the variable has no numeric values")
    lo, hi = float(x.min()), float(x.max())
    if (width is None) == (breaks is None):
        raise ParameterError("intervals: give either a width or break points")
    if width is not None:
        if isinstance(width, bool) or not isinstance(width, (int, float)) or not (
                math.isfinite(width) and width > 0):
            raise ParameterError(f"Interval width: expected a number > 0, got {width!r:.40}")
        start, stop = math.floor(lo / width), math.ceil(hi / width)
        start -= start * width > lo  # lo / width underflowed to -0.0 (lo a tiny negative number)
        if stop * width <= hi:
            stop += 1
        if stop - start > 1000:
            raise ParameterError(f"Interval width: {width:g} gives {stop - start} intervals "
                                 "(more than 1,000); choose a larger width")
        return [float(i * width) for i in range(start, stop + 1)]
    try:
        b = sorted({float(v) for v in breaks})  # type: ignore[union-attr]
    except (TypeError, ValueError):
        raise ParameterError(f"Break points: expected numbers, got {breaks!r:.60}") from None
    if not b or not all(math.isfinite(v) for v in b):
        raise ParameterError("Break points: expected one or more finite numbers")
    if len(b) > 1001:
        raise ParameterError("Break points: at most 1,000 intervals")
    edges = ([lo] if lo < b[0] else []) + b + ([hi] if hi > b[-1] else [])
    if len(edges) < 2:  # one break point equal to every value
        edges = [edges[0], edges[0] + 1.0]
    return edges


def interval_levels(edges: Sequence[float], *, merge: int = 2,
                    levels: int = 1) -> list[list[float]]:
    """``levels`` interval levels: ``edges``, then every ``merge``-th edge of the previous level
    (its first and last edge kept). Stops early once a level would be a single interval (the
    top level ``"*"`` says that already).

    >>> interval_levels([0, 1, 2, 3], merge=3, levels=3)
    [[0.0, 1.0, 2.0, 3.0]]
    """
    for name, v, low in (("Merged per level", merge, 2), ("Interval levels", levels, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
            raise ParameterError(f"{name}: expected a whole number >= {low}, got {v!r:.40}")
    out = [[float(e) for e in edges]]
    while len(out) < levels:
        prev = out[-1]
        nxt = prev[::merge]
        if nxt[-1] != prev[-1]:
            nxt.append(prev[-1])
        if len(nxt) <= 2:
            break
        out.append(nxt)
    return out


def grouping_hierarchy(categories: Sequence[Any],
                       levels: Sequence[Mapping[Any, str]]) -> Any:
    """A `Hierarchy` from groups of categories: ``levels[j]`` maps values of level j to their
    group at level j + 1 (a value not mapped stays itself); the top level is ``"*"``.

    Missing values: not categories (they stay missing at every level).

    >>> h = grouping_hierarchy([1, 2, 3], [{1: "low", 2: "low"}, {"low": "any", 3: "any"}])
    >>> h.generalize([2, 3], 2).tolist(), h.height
    (['any', 'any'], 3)
    """
    from ...utility.hierarchy import Hierarchy

    cats = [c for c in dict.fromkeys(categories) if not _isna(c)]
    if not cats:
        raise ParameterError("groups: the variable has no categories")
    rows = [[c] for c in cats]
    for mapping in levels:
        for r in rows:
            r.append(mapping.get(r[-1], r[-1]))
    for r in rows:
        r.append("*")
    return Hierarchy.from_frame([tuple(r) for r in rows])


def _isna(v: Any) -> bool:
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


def level_preview(hierarchy: Any, values: Any, *, column: str = "values",
                  rows: int = PREVIEW_ROWS) -> pd.DataFrame:
    """The values of every level of ``hierarchy`` applied to ``values``, with their numbers of
    records (at most ``rows`` per level, the most frequent first; a last row "… n more" counts
    the rest). Columns: level, value, records. Missing values: one row "(missing)" per level.

    >>> from sdcsession.privacy import Hierarchy
    >>> p = level_preview(Hierarchy.intervals([[0, 10, 20]]), [1, 2, 15, None])
    >>> p[p.level == 1].values.tolist()
    [[1, '[0, 10)', 2], [1, '[10, 20]', 1], [1, '(missing)', 1]]
    """
    out = []
    s = pd.Series(values)
    uniq = pd.Series(pd.unique(s.dropna()), dtype=object)
    try:
        uniq = uniq.sort_values(kind="stable")
    except TypeError:
        uniq = uniq.iloc[np.argsort(uniq.astype(str).to_numpy(), kind="stable")]
    for j in range(hierarchy.height + 1):
        g = hierarchy.generalize(s, j, column=column)
        counts = g.dropna().astype(str).value_counts()
        # the values in the order of the smallest original value they hold
        order = dict.fromkeys(hierarchy.generalize(uniq, j, column=column).astype(str))
        n_miss = int(g.isna().sum())
        items = [(v, int(counts[v])) for v in order] + ([("(missing)", n_miss)] if n_miss else [])
        out += [(j, v, n) for v, n in items[:rows]]
        if len(items) > rows:
            out.append((j, f"… {len(items) - rows} more values", sum(n for _, n in items[rows:])))
    return pd.DataFrame(out, columns=["level", "value", "records"])


# ------------------------------------------------------------------------------------ widgets

class HierarchyBuilder:
    """Build one `Hierarchy` per key variable: intervals (numeric) or groups (categorical).

    ``value``: the hierarchies kept with **Use this hierarchy** (``{column: Hierarchy}``);
    `current` builds the hierarchy of the chosen variable from the controls; **Preview levels**
    shows `level_preview` of it on the current data.
    """

    def __init__(self, columns: list[str], session: Any, words: str) -> None:
        import ipywidgets as w

        self.description = words
        self._session = session
        self.hierarchies: dict[str, Any] = {}
        self.levels: list[dict[Any, str]] = [{}]
        self.column = w.Dropdown(options=columns, description="Key variable")
        self.kind = w.HTML()
        # numeric: intervals
        self.mode = w.Dropdown(options=[("intervals of equal width", "width"),
                                        ("break points", "breaks")], value="width",
                               description="Intervals from")
        self.width = w.FloatText(value=10.0, description="Interval width (units of the variable)")
        self.breaks = w.Text(value="", placeholder="e.g. 18, 30, 45, 65",
                             description="Break points (comma-separated)")
        self.merge = w.BoundedIntText(value=2, min=2, max=100,
                                      description="Intervals merged per coarser level (default 2)")
        self.n_levels = w.BoundedIntText(value=2, min=1, max=10,
                                         description="Interval levels (default 2; then *)")
        self.numeric_box = w.VBox([self.mode, self.width, self.breaks, self.merge, self.n_levels])
        self.as_groups = w.Checkbox(value=False, indent=False,
                                    description="Group the values as categories (codes)")
        self.as_groups.observe(lambda _: self._show_parts(), names="value")
        # categorical: groups
        self.categories = w.SelectMultiple(options=[], rows=8, layout=w.Layout(width="95%"),
                                           description="Values of this level (ctrl/shift-click)")
        self.group_name = w.Text(value="", placeholder="e.g. north",
                                 description="Name of the group")
        self.group_button = w.Button(description="Group the chosen values")
        self.level_button = w.Button(description="Start a coarser level",
                                     tooltip="group the groups of this level into fewer groups")
        self.reset_button = w.Button(description="Start again")
        self.groups_html = w.HTML()
        self.categorical_box = w.VBox([self.categories, self.group_name, w.HBox(
            [self.group_button, self.level_button, self.reset_button]), self.groups_html])
        # both
        self.preview_button = w.Button(description="Preview levels")
        self.use_button = w.Button(description="Use this hierarchy",
                                   button_style="success")
        self.drop_button = w.Button(description="Drop this variable's hierarchy")
        self.preview, self.chosen, self.message = w.HTML(), w.HTML(), w.HTML()
        self.column.observe(lambda _: self._column_changed(), names="value")
        self.mode.observe(lambda _: self._show_mode(), names="value")
        for button, act in ((self.group_button, self.group), (self.level_button, self.next_level),
                            (self.reset_button, self.reset), (self.preview_button,
                                                              self.show_preview),
                            (self.use_button, self.use), (self.drop_button, self.drop)):
            button.on_click(lambda _, act=act: act())
        self.parts = w.VBox()
        self.box = w.VBox([w.HTML("<b>Hierarchy builder</b>"), self.column, self.kind,
                           self.parts, w.HBox([self.preview_button, self.use_button,
                                               self.drop_button]),
                           self.message, self.preview, self.chosen])
        self.children = (self.box,)
        tidy(self)
        self._column_changed()
        self._show_chosen()

    # ------------------------------------------------------------------------ state
    @property
    def value(self) -> dict[str, Any]:
        """The hierarchies kept, ``{column: Hierarchy}``."""
        return dict(self.hierarchies)

    def set_columns(self, columns: list[str], session: Any) -> None:
        """Offer ``columns`` (the key variables); hierarchies of other columns are dropped."""
        self._session = session
        old = self.column.value
        self.column.options = columns
        self.column.value = old if old in columns else (columns[0] if columns else None)
        self.hierarchies = {c: h for c, h in self.hierarchies.items() if c in columns}
        self._show_chosen()

    def _values(self) -> pd.Series:
        col = self.column.value
        if self._session is None or col is None or col not in self._session.state.data:
            return pd.Series([], dtype=object)
        return self._session.state.data[col]

    def numeric(self) -> bool:
        """Whether the chosen variable gets intervals (a numeric column, not grouped as codes)."""
        s = self._values()
        return (pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)
                and len(s) > 0 and not self.as_groups.value)

    def _column_changed(self) -> None:
        self.levels, self.as_groups.value = [{}], False
        self._show_parts()

    def _show_parts(self) -> None:
        self.levels = [{}]
        self.preview.value = self.message.value = ""
        s = self._values()
        codes = [self.as_groups] if pd.api.types.is_numeric_dtype(s) and len(s) else []
        if self.numeric():
            x = _finite(self._values())
            if x.size:  # a round width giving about ten intervals
                span = float(x.max() - x.min()) or 1.0
                step = 10 ** math.floor(math.log10(span / 10)) if span >= 10 else 1.0
                self.width.value = step * max(1, round(span / 10 / step))
            self.kind.value = "numeric variable: intervals, then *"
            self.parts.children = [*codes, self.numeric_box]
        else:
            self.kind.value = "categorical variable: groups of categories, then *"
            self.parts.children = [*codes, self.categorical_box]
        self._show_mode()
        self._show_groups()

    def _show_mode(self) -> None:
        by_width = self.mode.value == "width"
        own_layout(self.width).display = None if by_width else "none"
        own_layout(self.breaks).display = "none" if by_width else None

    def _level_values(self) -> list[Any]:
        vals = [v for v in pd.unique(self._values()) if not _isna(v)]
        try:
            vals = sorted(vals)
        except TypeError:
            vals = sorted(vals, key=str)
        for mapping in self.levels[:-1]:
            vals = list(dict.fromkeys(mapping.get(v, v) for v in vals))
        return vals

    def _show_groups(self) -> None:
        vals = self._level_values()
        edit = self.levels[-1]
        self.categories.options = [(f"{v} → {edit[v]}" if v in edit else str(v), v)
                                   for v in vals]
        lines = []
        for j, mapping in enumerate(self.levels, start=1):
            groups: dict[str, list[str]] = {}
            for v, g in mapping.items():
                groups.setdefault(g, []).append(str(v))
            text = "; ".join(f"{g} = {', '.join(m)}" for g, m in groups.items()) or "(no group)"
            lines.append(f"level {j}: {html.escape(text)}")
        self.groups_html.value = "<br>".join(lines)

    def group(self) -> None:
        """Put the chosen values of the level being edited into the named group."""
        name, chosen = self.group_name.value.strip(), list(self.categories.value)
        if not name or not chosen:
            self._error("choose one or more values and give the group a name")
            return
        self.levels[-1].update(dict.fromkeys(chosen, name))
        self.group_name.value = self.message.value = ""
        self._show_groups()

    def next_level(self) -> None:
        """Start a coarser level: its values are the groups of the level before."""
        if not self.levels[-1]:
            self._error("group some values of this level first")
            return
        self.levels.append({})
        self._show_groups()

    def reset(self) -> None:
        """Forget the groups of the chosen variable."""
        self.levels = [{}]
        self._show_groups()

    def current(self) -> Any:
        """The hierarchy of the chosen variable from the controls (`ParameterError` when the
        controls do not describe one)."""
        from ...utility.hierarchy import Hierarchy

        values = self._values()
        if self.numeric():
            if self.mode.value == "width":
                edges = interval_edges(values, width=float(self.width.value))
            else:
                parsed = parse_value(self.breaks.value)
                parsed = parsed if isinstance(parsed, list) else [parsed]
                if parsed in ([], [""]):
                    raise ParameterError("Break points: expected one or more numbers")
                edges = interval_edges(values, breaks=parsed)
            return Hierarchy.intervals(interval_levels(edges, merge=int(self.merge.value),
                                                       levels=int(self.n_levels.value)))
        return grouping_hierarchy(list(pd.unique(self._values())), [m for m in self.levels if m])

    def show_preview(self) -> pd.DataFrame | None:
        """Show the levels of the current hierarchy with their counts; the table, or None."""
        try:
            table = level_preview(self.current(), self._values(), column=str(self.column.value))
        except SdcError as e:
            self._error(e)
            return None
        self.message.value = ""
        self.preview.value = html_table(table, index=False, cls="sdc-levels")
        return table

    def use(self) -> None:
        """Keep the current hierarchy for the chosen variable."""
        try:
            h = self.current()
            h.generalize(self._values(), h.height, column=str(self.column.value))
        except SdcError as e:
            self._error(e)
            return
        self.hierarchies[str(self.column.value)], self.message.value = h, ""
        self._show_chosen()

    def drop(self) -> None:
        """Drop the hierarchy kept for the chosen variable."""
        self.hierarchies.pop(str(self.column.value), None)
        self._show_chosen()

    def _show_chosen(self) -> None:
        if not self.hierarchies:
            self.chosen.value = "<i>no hierarchy yet: build one and click Use this hierarchy</i>"
            return
        items = "".join(f"<li>{html.escape(c)}: {html.escape(h.kind)}, {h.height} levels "
                        "above the values</li>" for c, h in self.hierarchies.items())
        self.chosen.value = f"Hierarchies used:<ul style='margin:2px 0'>{items}</ul>"

    def _error(self, e: BaseException | str) -> None:
        self.message.value = f"<span style='color:#b00020'>{html.escape(str(e))}</span>"


class PrivacyModels:
    """``generalize``'s models (``value``): k-anonymity, and l-diversity of a sensitive one."""

    def __init__(self, columns: list[str], words: str) -> None:
        import ipywidgets as w

        self.description = words
        self.k = w.BoundedIntText(value=3, min=1, max=10**6,
                                  description="k-anonymity: k (records, default 3)")
        self.sensitive = dropdown(options=[("(none)", None)] + [(c, c) for c in columns],
                                  description="l-diversity of (sensitive variable)")
        self.l_value = w.BoundedIntText(value=2, min=1, max=10**6,
                                        description="l (distinct values per group, default 2)")
        self.box = w.VBox([self.k, self.sensitive, self.l_value])
        self.children = (self.box,)
        tidy(self)

    @property
    def value(self) -> list[Any]:
        """The models chosen."""
        from ...privacy.models import DistinctLDiversity, KAnonymity

        out: list[Any] = [KAnonymity(int(self.k.value))]
        if self.sensitive.value is not None:
            out.append(DistinctLDiversity(self.sensitive.value, int(self.l_value.value)))
        return out

    def set_columns(self, columns: list[str]) -> None:
        """Offer ``columns`` as sensitive variables."""
        old = self.sensitive.value
        self.sensitive.options = [("(none)", None)] + [(c, c) for c in columns]
        self.sensitive.value = old if old in columns else None


class GeneralizeForm(TreatForm):
    """The form of ``generalize``: the generated form, with the hierarchy builder in place of
    the ``hierarchies`` text and a k-anonymity / l-diversity choice in place of ``privacy``."""

    def __init__(self, cls: type, columns: list[str], session: Any = None) -> None:
        import ipywidgets as w

        super().__init__(cls, columns, session)
        keys, others = _split(columns, session)
        self.builder = HierarchyBuilder(keys, session, label(self.tag, "hierarchies")[0])
        self.models = PrivacyModels(others, label(self.tag, "privacy")[0])
        self.widgets["hierarchies"], self.widgets["privacy"] = self.builder, self.models
        rest = [r for spec, r in zip(self.fields, self.box.children[1:], strict=True)
                if spec.name not in ("hierarchies", "privacy")]
        self.box.children = [self.box.children[0], self.builder.box,
                             w.HTML("<b>Privacy models</b>"), self.models.box, *rest]

    def hint(self, spec: Any) -> str:
        """The words beside a field (the builder and the models say it in their labels)."""
        return {"hierarchies": "built with the hierarchy builder; required",
                "privacy": "k-anonymity, and l-diversity when a sensitive variable is chosen; "
                           "default: k = 3"}.get(spec.name) or super().hint(spec)

    def set_columns(self, columns: list[str], session: Any = None) -> None:
        """Offer the key variables to the builder, the others as sensitive variables."""
        keys, others = _split(columns, session)
        self.builder.set_columns(keys, session)
        self.models.set_columns(others)  # the other fields take no columns

    def values(self) -> dict[str, Any]:
        """The parameters: the hierarchies kept, the models and the other fields."""
        if not self.builder.hierarchies:
            raise ParameterError("Hierarchies: build a hierarchy for at least one key variable "
                                 "and click Use this hierarchy")
        out = {spec.name: self.widgets[spec.name].value for spec in self.fields}
        return {**out, "hierarchies": self.builder.value, "privacy": self.models.value}


def _split(columns: list[str], session: Any) -> tuple[list[str], list[str]]:
    keys = [c for c in (session.state.roles.keys or () if session is not None else ())
            if c in columns] or list(columns)
    return keys, [c for c in columns if c not in keys]


def make_form(cls: type, columns: list[str], session: Any = None) -> TreatForm:
    """The form of treatment class ``cls``: `GeneralizeForm` for ``generalize``, else the
    generated `TreatForm`."""
    if getattr(cls, "type", None) == "generalize":
        return GeneralizeForm(cls, columns, session)
    return TreatForm(cls, columns, session)
