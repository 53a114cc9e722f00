"""The workbench's Treat panel: a parameter form generated from a treatment's attrs fields.

Nothing here knows a particular treatment. `treatment_fields` reads the spec of any registered
treatment class (``sdcsession.methods.base.TREATMENTS``): for each init field of
``attrs.fields(cls)`` its name, its annotated type, its default and what its validator or
converter accepts. The validator and converter are *probed*: called once with a value no check
accepts, their `ParameterError` message says what is expected (``"expected one of ['additive',
...]"`` becomes a drop-down, ``"expected an integer >= 1"`` a hint under the field). A new
treatment therefore appears in the workbench without GUI code.

Widget kinds, chosen from the type and the name:

| kind | when | widget |
|---|---|---|
| columns | a tuple of names, named like a column parameter | multi-select of the columns it accepts (for ``importance`` an ordered list of the keys with Up / Down) |
| column | ``str`` named like a column parameter | drop-down of the columns |
| choice | the validator names its choices (or `labels.CHOICES` does) | drop-down |
| bool | ``bool`` | checkbox |
| int, float | ``int`` / ``float`` (not optional) | number box |
| text | other ``str`` | text |
| value | anything else (optional numbers, mappings, lists) | text: JSON, a comma list, a word |

Labels, units, defaults and descriptions are words (`sdcsession.present.workbench.labels`),
never Python types; column pickers offer only the columns a parameter accepts (numeric
variables, key variables, categorical variables) given the session's roles.

A ``value`` text is read as JSON (``{"b": "a"}``, ``[0, 15, 30]``, ``2.5``, ``null``), else as
a comma-separated list (``0, 15, 30``), else as the text itself; a mapping may also be given as a
list of pairs (``[[1, 2]]``) so that numeric categories can be keys. An empty text means the
default. Text is never evaluated as code.

Example
-------
>>> from sdcsession.methods.noise.addition import AddNoise
>>> [(f.name, f.kind) for f in treatment_fields(AddNoise)][:3]
[('columns', 'columns'), ('method', 'choice'), ('noise', 'float')]
>>> treatment_fields(AddNoise)[1].choices[:2]
('additive', 'correlated')
>>> parse_value("0, 15, 30", "tuple[float, ...] | int | None")
[0, 15, 30]
"""

from __future__ import annotations

import ast
import functools
import json
import numbers
import re
from typing import Any

import attrs

from ...errors import ParameterError, SdcError
from .labels import CHOICES, allowed_columns, description, label, plain_hint

__all__ = ["FieldSpec", "treatment_fields", "parse_value", "build_treatment", "COLUMN_PARAMS",
           "ORDERED_PARAMS", "TreatForm", "dropdown"]

#: parameter names that hold column names (a tuple of names or one name)
COLUMN_PARAMS = frozenset({
    "column", "columns", "by", "sort_by", "strata", "importance", "keys", "variables",
    "similar", "carry_along", "sensitive", "numeric", "hierarchy", "hierarchy_columns",
    "group_by", "risk_variables"})
_COLUMN_SUFFIXES = ("_column", "_columns", "_by", "_variables", "_keys")
#: column parameters whose order matters (most important first): a tags box keeps the order
ORDERED_PARAMS = frozenset({"importance", "order", "priority"})
#: a string no validator accepts (used to read what a validator expects)
_PROBE = "\x00probe\x00"


@attrs.frozen
class FieldSpec:
    """One parameter of a treatment as the form shows it.

    ``kind`` is one of ``columns``, ``column``, ``choice``, ``bool``, ``int``, ``float``,
    ``value``; ``default`` is ``attrs.NOTHING`` for a required parameter; ``optional``: ``None``
    is allowed; ``choices``: the accepted values (kind ``choice``); ``hint``: what the
    validator expects (from its message), or the annotated type.

    >>> FieldSpec("k", "int", 3, False, (), "an integer >= 1").required
    False
    """

    name: str
    kind: str
    default: Any
    optional: bool
    choices: tuple[Any, ...]
    hint: str

    @property
    def required(self) -> bool:
        """Whether the parameter has no default."""
        return self.default is attrs.NOTHING


def _type_text(f: attrs.Attribute) -> str:
    t = f.type
    if t is None:
        return "Any"
    if isinstance(t, str):
        return t
    return getattr(t, "__name__", None) or repr(t).replace("typing.", "")


def _expected(call: Any) -> str:
    """What a validator/converter expects, read from its `ParameterError` on a probe value."""
    try:
        call(_PROBE)
    except SdcError as e:
        msg = str(e)
    except Exception:  # noqa: BLE001 - a check that cannot be probed tells nothing
        return ""
    else:
        return ""
    m = re.search(r"expected (.*?)(?:, got |$)", msg, flags=re.S)
    return m.group(1).strip() if m else ""


def _choices(text: str) -> tuple[Any, ...]:
    m = re.match(r"one of (\[.*\]|\(.*\))", text, flags=re.S)
    if not m:
        return ()
    try:
        # a literal list printed by check_choice in our own message (never user input)
        vals = ast.literal_eval(m.group(1))
    except (ValueError, SyntaxError):
        return ()
    return tuple(vals) if isinstance(vals, (list, tuple)) else ()


def _probe(cls: type, f: attrs.Attribute) -> str:
    hints = []
    if f.converter is not None:
        conv = f.converter
        conv = getattr(conv, "converter", conv)  # attrs.Converter wrapper
        if callable(conv):
            hints.append(_expected(conv))
    if f.validator is not None:
        v = f.validator
        opts = getattr(v, "options", None)  # attrs.validators.in_
        if opts is not None:
            return f"one of {list(opts)!r}"
        hints.append(_expected(lambda x: v(None, f, x)))
    return next((h for h in hints if h), "")


def _is_column_param(name: str) -> bool:
    return name in COLUMN_PARAMS or name.endswith(_COLUMN_SUFFIXES)


def _kind(name: str, base: str, choices: tuple[Any, ...]) -> str:
    if _is_column_param(name):
        if base == "str":
            return "column"
        if "str" in base or base in ("Any", "Sequence", "Iterable"):
            return "columns"
    if choices:
        return "choice"
    if base in ("bool", "int", "float"):
        return base
    return "value" if base != "str" else "text"


def treatment_fields(cls: type) -> list[FieldSpec]:
    """The form fields of treatment class ``cls``: one `FieldSpec` per init field.

    The kind comes from the annotated type and the name (see the module docstring), the choices
    and the hint from probing the field's converter and validator with a value none accepts.
    """
    out = []
    for f in attrs.fields(cls):
        if not f.init:
            continue
        t = _type_text(f)
        parts = [p.strip() for p in t.split("|")]
        optional = "None" in parts
        base = " | ".join(p for p in parts if p != "None") or "Any"
        hint = _probe(cls, f)
        choices = _choices(hint)
        default = f.default
        if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
            default = attrs.NOTHING if default.takes_self else default.factory()
        extra = CHOICES.get((getattr(cls, "type", ""), f.alias))
        if extra and not choices:
            choices, hint = extra, f"one of {list(extra)!r}"
        kind = _kind(f.alias, base, choices)
        if (kind == "value" and parts[0] in ("int", "float") and isinstance(default, numbers.Real)
                and not isinstance(default, bool)):
            # a number that may also be given another way (e.g. local suppression's k per
            # stratum): the form offers the number; the other forms are for code and recipes
            kind = parts[0]
        if kind in ("int", "float") and (optional or default is None):
            kind, optional = "value", True
        if not hint and kind in ("column", "columns"):
            hint = "a column" if kind == "column" else "one or more columns (ctrl/shift-click)"
        out.append(FieldSpec(f.alias, kind, default, optional or default is None, choices,
                             hint or base))
    return out


def parse_value(text: str, type_text: str = "Any") -> Any:
    """A ``value`` field's text as a Python value: JSON, else a comma list, else the text.

    ``type_text`` starting with ``dict`` turns a list of pairs into a mapping. Never evaluates
    code.

    >>> parse_value('{"b": "a"}', "dict[Any, Any]"), parse_value("[[1, 2]]", "dict[Any, Any]")
    ({'b': 'a'}, {1: 2})
    >>> parse_value("top"), parse_value("null")
    ('top', None)
    """
    text = text.strip()
    try:
        value = json.loads(text)
    except ValueError:
        try:
            value = json.loads(f"[{text}]") if "," in text else text
        except ValueError:
            value = [t.strip() for t in text.split(",")]
    if type_text.startswith("dict") and isinstance(value, list) and all(
            isinstance(p, list) and len(p) == 2 for p in value):
        value = {_key(p[0]): p[1] for p in value}
    return value


def _key(v: Any) -> Any:
    return tuple(v) if isinstance(v, list) else v


def build_treatment(tag: str, params: dict[str, Any]) -> Any:
    """The registered treatment ``tag`` built from ``params``; any failure is a
    `ParameterError` naming the treatment (never a raw Python error).

    >>> build_treatment("recode", {"column": "sex", "mapping": {"m": "x"}}).type
    'recode'
    """
    from ...methods.base import TREATMENTS

    cls = TREATMENTS.get(tag)
    if cls is None:
        raise ParameterError(f"treatment: unknown type {tag!r}; known: {sorted(TREATMENTS)}")
    try:
        return cls(**params)
    except SdcError:
        raise
    except (TypeError, ValueError, ArithmeticError, KeyError, IndexError, AttributeError) as e:
        raise ParameterError(f"{tag}: invalid parameters ({type(e).__name__}: {e})"[:400]) from e


# ------------------------------------------------------------------------------------ widgets
@functools.cache
def _dropdown_class() -> type:
    import ipywidgets as w
    from traitlets import observe

    class Dropdown(w.Dropdown):  # type: ignore[misc]
        """A drop-down that shows its option of value None ("(none)", "(default)") when the
        value is None (ipywidgets 8 shows a blank box then)."""

        @observe("value")
        def _propagate_value(self, change: Any) -> None:
            if change.new is None and None in self._options_values:
                i = self._options_values.index(None)
                if self.index != i:
                    self.index = i
                return
            super()._propagate_value(change)

    return Dropdown


def dropdown(**kw: Any) -> Any:
    """An ipywidgets ``Dropdown`` whose option of value None stays shown when chosen."""
    return _dropdown_class()(**kw)


class TreatForm:
    """The widgets of one treatment's form (built from `treatment_fields`).

    ``widgets`` maps parameter names to their input widgets, ``box`` holds them with their
    labels and hints; `values` reads the form, raising `ParameterError` for text that cannot be
    read or a required parameter left empty.
    """

    def __init__(self, cls: type, columns: list[str], session: Any = None) -> None:
        import ipywidgets as w

        self.cls = cls
        self.tag = str(getattr(cls, "type", cls.__name__))
        self.fields = treatment_fields(cls)
        self._types = {f.alias: _type_text(f) for f in attrs.fields(cls) if f.init}
        self.widgets: dict[str, Any] = {}
        rows = []
        for spec in self.fields:
            offered = allowed_columns(self.tag, spec.name, columns, session)
            widget = self._widget(w, spec, offered, self.tag)
            self.widgets[spec.name] = widget
            ordered = isinstance(widget, OrderedColumns)
            shown = widget.box if ordered else widget
            rows.append((w.VBox if ordered else w.HBox)([shown, w.HTML(
                f'<span style="color:#666;font-size:85%">{_esc(self.hint(spec))}</span>')]))
        self.description = description(self.tag, cls)
        self.box = w.VBox([w.HTML(f"<i>{_esc(self.description)}</i>"), *rows])

    def hint(self, spec: FieldSpec) -> str:
        """The words beside a field: what it expects, its unit and its default."""
        _, unit = label(self.tag, spec.name)
        if isinstance(self.widgets.get(spec.name), OrderedColumns):
            return ("tick, then put the keys in order with Up / Down (the first is kept "
                    "longest); default: the method's order")
        parts = [plain_hint(spec.hint, spec.kind)]
        if unit:
            parts.append(f"unit: {unit}")
        if spec.required:
            parts.append("required")
        elif spec.default is None or spec.default == ():
            parts.append("default: none" if spec.kind not in ("columns", "column")
                         else "default: the method's choice")
        elif spec.kind == "bool":
            parts.append(f"default: {'yes' if spec.default else 'no'}")
        else:
            parts.append(f"default: {_show(spec.default)}")
        return "; ".join(parts)

    @staticmethod
    def _widget(w: Any, spec: FieldSpec, columns: list[str], tag: str = "") -> Any:
        words, _ = label(tag, spec.name)
        lay = {"description": words, "style": {"description_width": "210px"},
               "tooltip": words}
        d = spec.default
        if spec.kind == "columns":
            value = tuple(c for c in (d if isinstance(d, (tuple, list)) else ()) if c in columns)
            if spec.name in ORDERED_PARAMS:
                return OrderedColumns(columns, words)
            return w.SelectMultiple(options=columns, value=value, rows=min(6, max(len(columns), 1)),
                                    **lay)
        if spec.kind == "column":
            opts: list[Any] = ([("(none)", None)] if spec.optional else []) + [
                (c, c) for c in columns]
            value = d if d in columns else opts[0][1] if opts else None
            return dropdown(options=opts, value=value, **lay)
        if spec.kind == "choice":
            none = "(default)" if d is None or d is attrs.NOTHING else "(none)"
            opts = ([(none, None)] if spec.optional else []) + [(str(c), c) for c in spec.choices]
            return dropdown(options=opts, value=d if d in spec.choices else opts[0][1], **lay)
        if spec.kind == "bool":
            lay["style"] = {"description_width": "initial"}
            return w.Checkbox(value=bool(d) if d is not attrs.NOTHING else False, indent=False,
                              **lay)
        number = isinstance(d, numbers.Real) and not isinstance(d, bool)
        if spec.kind == "int":
            return w.IntText(value=int(d) if number else 0, **lay)
        if spec.kind == "float":
            return w.FloatText(value=float(d) if number else 0.0, **lay)
        shown = "" if d is attrs.NOTHING or d is None else json.dumps(_plain(d))
        return w.Text(value=shown, placeholder="(default)" if not spec.required else "", **lay)

    def set_columns(self, columns: list[str], session: Any = None) -> None:
        """Offer ``columns`` (those the parameter accepts, given the ``session``'s roles and
        types) in the column widgets, keeping selections that still exist."""
        for spec in self.fields:
            widget = self.widgets[spec.name]
            offered = allowed_columns(self.tag, spec.name, columns, session)
            if isinstance(widget, OrderedColumns):
                widget.set_columns(offered)
            elif spec.kind == "columns":
                keep = tuple(c for c in widget.value if c in offered)
                widget.options = offered
                widget.value = keep
            elif spec.kind == "column":
                old = widget.value
                opts = ([("(none)", None)] if spec.optional else []) + [(c, c) for c in offered]
                widget.options = opts
                widget.value = old if old in offered else (opts[0][1] if opts else None)

    def values(self) -> dict[str, Any]:
        """The parameters the form holds (defaults for empty texts)."""
        out: dict[str, Any] = {}
        for spec in self.fields:
            v = self.widgets[spec.name].value
            if spec.kind == "columns":
                v = list(v)
                if not v and not spec.required:
                    continue
            elif spec.kind in ("value", "text"):
                if not str(v).strip():
                    if spec.required:
                        raise ParameterError(f"{spec.name}: required ({spec.hint})")
                    continue
                v = (parse_value(v, self._types.get(spec.name, "Any")) if spec.kind == "value"
                     else v)
            out[spec.name] = v
        return out


class OrderedColumns:
    """An ordered list of columns (most important first) with Up / Down buttons, for
    ``importance``: ``value`` is the order when "Set an order" is ticked, else ``[]`` (the
    method's default order)."""

    def __init__(self, columns: list[str], words: str) -> None:
        import ipywidgets as w

        self.use = w.Checkbox(value=False, indent=False, style={"description_width": "initial"},
                              description="Set an order of importance (else the default)")
        self.select = w.Select(options=list(columns), rows=min(6, max(len(columns), 1)),
                               description="Order (first = kept first)",
                               style={"description_width": "210px"},
                               layout=w.Layout(width="360px"))
        small = w.Layout(width="90px")
        self.up = w.Button(description="Up", tooltip="move the chosen key up",
                           layout=small)
        self.down = w.Button(description="Down", layout=small,
                             tooltip="move the chosen key down")
        self.up.on_click(lambda _: self.move(-1))
        self.down.on_click(lambda _: self.move(1))
        self.box = w.VBox([self.use, w.HBox(
            [self.select, w.VBox([self.up, self.down], layout=w.Layout(flex="0 0 auto"))],
            layout=w.Layout(flex="0 0 auto"))])
        # the form shows ``box``; as a child of HBox the composite is reached through it
        self.children = (self.box,)
        self.description = words

    @property
    def value(self) -> list[str]:
        """The order, or ``[]`` when no order is set."""
        return list(self.select.options) if self.use.value else []

    @value.setter
    def value(self, order: Any) -> None:
        order = [str(c) for c in (order or ())]
        rest = [c for c in self.select.options if c not in order]
        self.select.options = [*order, *rest]
        self.use.value = bool(order)

    def move(self, step: int) -> None:
        """Move the chosen column ``step`` places (-1: up)."""
        opts, chosen = list(self.select.options), self.select.value
        if chosen is None:
            return
        i = opts.index(chosen)
        j = min(max(i + step, 0), len(opts) - 1)
        opts[i], opts[j] = opts[j], opts[i]
        self.select.options = opts
        self.select.value = chosen
        self.use.value = True

    def set_columns(self, columns: list[str]) -> None:
        """Offer ``columns``: in their order, or, once an order is set, keeping it (new columns
        last)."""
        if not self.use.value:
            self.select.options = list(columns)
            return
        keep = [c for c in self.select.options if c in columns]
        self.select.options = keep + [c for c in columns if c not in keep]


def _show(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v)) if abs(v) < 1e15 else str(v)
    if isinstance(v, (tuple, list)):
        return ", ".join(_show(x) for x in v)
    return str(v)


def _plain(v: Any) -> Any:
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    return v if isinstance(v, (str, int, float, bool, list)) or v is None else str(v)


def _esc(text: str) -> str:
    import html

    return html.escape(str(text))
