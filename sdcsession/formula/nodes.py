"""Parse tree of the safe formula language, its rendering and its interpreter.

See ``sdcsession.formula`` for the language and the guarantee that nothing in a formula
runs as Python: the nodes here hold parsed names and literals only, and ``evaluate`` maps them to
``data[name]`` look-ups, the ``operator`` module's arithmetic and the numpy functions of
``TRANSFORMS``.

Example
-------
>>> import pandas as pd
>>> node = Binary("*", Column("x", "x"), Number(2, "2"))
>>> render(node), evaluate(node, pd.DataFrame({"x": [1, 3]})).tolist()
('x * 2', [2, 6])
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError

__all__ = ["Column", "Number", "Unary", "Binary", "Paren", "Call", "Cat", "Ident", "Node",
           "Formula", "render", "columns_of", "evaluate", "TRANSFORMS"]

#: the only functions a formula can call, by the names it may use (``np.log`` or ``log``, ...)
TRANSFORMS: dict[str, Callable[[Any], Any]] = {
    f"{prefix}{name}": fn
    for name, fn in {"log": np.log, "log1p": np.log1p, "log10": np.log10, "exp": np.exp,
                     "sqrt": np.sqrt, "abs": np.abs}.items()
    for prefix in ("np.", "")
}
_BINOPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
           "**": operator.pow}


# ------------------------------------------------------------------------------ parse tree
@attrs.frozen
class Column:
    """A data column: ``name`` as in the data, ``text`` as written (``x`` or ``Q("x y")``)."""

    name: str
    text: str  # as rendered: the name, or Q("name")


@attrs.frozen
class Number:
    """A numeric literal: its ``value`` and its ``text`` as written."""

    value: int | float
    text: str


@attrs.frozen
class Unary:
    """Unary ``-`` or ``+`` applied to ``operand``."""

    op: str
    operand: Node


@attrs.frozen
class Binary:
    """Arithmetic ``left op right`` with ``op`` one of ``+ - * / **``."""

    op: str
    left: Node
    right: Node


@attrs.frozen
class Paren:
    """Parentheses written by the user (kept so names render as patsy renders them)."""

    inner: Node


@attrs.frozen
class Call:
    """A whitelisted transform (a key of ``TRANSFORMS``) applied to ``arg``."""

    func: str  # a key of TRANSFORMS
    arg: Node


@attrs.frozen
class Cat:
    """``C(column)``: the column coded as categorical."""

    column: Column


@attrs.frozen
class Ident:
    """``I(expr)``: arithmetic evaluated as one numeric variable."""

    inner: Node


Node = Column | Number | Unary | Binary | Paren | Call | Cat | Ident


def _node(node: Any) -> Any:
    """``node`` if it is a parse-tree node, else `ParameterError` (for the public functions)."""
    if not isinstance(node, (Column, Number, Unary, Binary, Paren, Call, Cat, Ident)):
        raise ParameterError(f"node: expected a node of a parsed formula (parse_formula), got "
                             f"{type(node).__name__}")
    return node


def render(node: Node) -> str:
    """The canonical text of a parse-tree node, spaced as patsy spaces factor names.

    Example
    -------
    >>> render(Ident(Binary("**", Paren(Binary("+", Column("x", "x"), Number(1, "1"))),
    ...                           Unary("-", Number(2, "2")))))
    'I((x + 1) ** -2)'
    """
    if isinstance(node, Column):
        return node.text
    if isinstance(node, Number):
        return node.text
    if isinstance(node, Unary):
        return node.op + render(node.operand)
    if isinstance(node, Binary):
        return f"{render(node.left)} {node.op} {render(node.right)}"
    if isinstance(node, Paren):
        return f"({render(node.inner)})"
    if isinstance(node, Call):
        return f"{node.func}({render(node.arg)})"
    if isinstance(node, Cat):
        return f"C({node.column.text})"
    return f"I({render(_node(node).inner)})"


def columns_of(node: Node) -> list[str]:
    """The data columns a node reads, in order of first appearance.

    Example
    -------
    >>> a, b = Column("a", "a"), Column("b", "b")
    >>> columns_of(Ident(Binary("+", Binary("*", a, b), a)))
    ['a', 'b']
    """
    if isinstance(node, Column):
        return [node.name]
    if isinstance(node, Number):
        return []
    kids: tuple[Node, ...]
    if isinstance(node, Binary):
        kids = (node.left, node.right)
    elif isinstance(node, Unary):
        kids = (node.operand,)
    elif isinstance(node, Cat):
        kids = (node.column,)
    elif isinstance(node, Call):
        kids = (node.arg,)
    else:
        kids = (_node(node).inner,)
    return list(dict.fromkeys(c for k in kids for c in columns_of(k)))


@attrs.frozen
class Formula:
    """A parsed formula: the ``outcome`` factor, the right-hand ``terms`` (tuples of factor nodes,
    the intercept excluded) and whether the model has an ``intercept``. ``text`` is the input."""

    outcome: Node
    terms: tuple[tuple[Node, ...], ...]
    intercept: bool
    text: str

    @property
    def outcome_name(self) -> str:
        """The outcome as rendered (the name statsmodels gives the dependent variable)."""
        return render(self.outcome)

    @property
    def term_names(self) -> list[str]:
        """Term names as patsy writes them (``"Intercept"``, ``"a:b"``), in formula order."""
        out = ["Intercept"] if self.intercept else []
        return out + [":".join(render(f) for f in t) for t in self.terms]

    @property
    def columns(self) -> list[str]:
        """Every data column the formula reads (outcome first)."""
        nodes = [self.outcome] + [f for t in self.terms for f in t]
        return list(dict.fromkeys(c for n in nodes for c in columns_of(n)))


# ------------------------------------------------------------------------------ evaluation
def evaluate(node: Node, data: pd.DataFrame) -> Any:
    """Value of an expression node on ``data``: a Series (or a scalar for constant parts).

    The only operations are ``data[name]`` for columns, the ``operator`` module's arithmetic and
    the functions in ``TRANSFORMS``; a constant sub-expression is computed on numpy scalars (so
    ``2 ** 10 ** 10`` overflows at once instead of building a huge Python integer).

    Example
    -------
    >>> import pandas as pd
    >>> x = Column("x", "x")
    >>> evaluate(Binary("+", Unary("-", Binary("**", x, Number(2, "2"))), Number(1, "1")),
    ...          pd.DataFrame({"x": [1, 3]})).tolist()
    [0, -8]
    """
    if not isinstance(data, pd.DataFrame):
        raise MeasureError(f"data: expected a pandas DataFrame, got {type(data).__name__}")
    if isinstance(node, Column):
        if node.name not in data.columns:
            raise MeasureError(f"formula: column {node.name!r} is not in the data")
        col = data[node.name]
        if isinstance(col, pd.DataFrame):
            raise MeasureError(f"formula: column {node.name!r} appears more than once in the data")
        return col
    if isinstance(node, Number):
        return node.value
    if isinstance(node, (Paren, Ident)):
        return evaluate(node.inner, data)
    if isinstance(node, Cat):
        return evaluate(node.column, data)
    if isinstance(node, Unary):
        v = evaluate(node.operand, data)
        return -v if node.op == "-" else +v
    if isinstance(node, Call):
        if node.func not in TRANSFORMS:
            raise ParameterError(f"node: unknown transform {node.func!r:.40}")
        return TRANSFORMS[node.func](evaluate(node.arg, data))
    if not isinstance(_node(node), Binary) or node.op not in _BINOPS:
        raise ParameterError(f"node: unknown operator in {node!r:.60}")
    left, right = evaluate(node.left, data), evaluate(node.right, data)
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        left, right = np.float64(left), np.float64(right)
    return _BINOPS[node.op](left, right)
