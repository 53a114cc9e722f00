"""Tokenizer and recursive-descent parser of the safe formula language (no ``eval``).

See ``sdcsession.formula`` for the language and the guarantee. The formula algebra (``+``,
``-``, ``*``, ``/``, ``:``, ``**`` on terms and the intercept bookkeeping of ``0``, ``1``, ``-1``)
follows patsy 1.0's ``desc.py`` so that terms come out in patsy's order.

Example
-------
>>> [t[1] for t in _tokens("y ~ np.log(x)")]
['y', '~', 'np', '.', 'log', '(', 'x', ')', '']
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable

import attrs

from ..errors import ParameterError
from .nodes import (
    TRANSFORMS,
    Binary,
    Call,
    Cat,
    Column,
    Formula,
    Ident,
    Node,
    Number,
    Paren,
    Unary,
    render,
)

__all__ = ["MAX_TERMS", "Parser"]

#: most terms a formula may expand to (``a*b*c*...`` doubles the count with every factor)
MAX_TERMS = 300
_MAX_DEPTH = 60
_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<num>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
  | (?P<name>[^\W\d]\w*)
  | (?P<str>"[^"\\\n]*"|'[^'\\\n]*')
  | (?P<op>\*\*|[~+\-*/:(),.])
""", re.VERBOSE)


# ------------------------------------------------------------------------------ tokenizer
def _tokens(text: str) -> list[tuple[str, str, int]]:
    out, i = [], 0
    while i < len(text):
        m = _TOKEN.match(text, i)
        if m is None:
            ch = text[i]
            hint = {"[": " (subscripts)", "=": " (keyword arguments)", "`": " (use Q(\"name\"))",
                    '"': " (unterminated string, or one with a backslash)",
                    "'": " (unterminated string, or one with a backslash)"}.get(ch, "")
            raise ParameterError(f"formula: character {ch!r}{hint} is not allowed "
                                 f"(at position {i} of {text!r})")
        kind = m.lastgroup or ""
        if kind == "num" and m.end() < len(text) and (text[m.end()].isalnum() or
                                                      text[m.end()] in "_."):
            raise ParameterError(f"formula: invalid number {text[i:m.end() + 1]!r} "
                                 f"(at position {i} of {text!r})")
        if kind != "ws":
            out.append((kind, m.group(), i))
        i = m.end()
    out.append(("end", "", len(text)))
    return out


# ------------------------------------------------------------------------------ formula algebra
Term = tuple[Node, ...]


@attrs.define
class _Expr:
    """patsy's intermediate result: terms plus the intercept bookkeeping."""

    terms: list[Term]
    intercept: bool = False
    removed: bool = False
    kind: str = "other"  # "zero" / "one" for the literal atoms 0 and 1

    def __attrs_post_init__(self) -> None:
        seen: dict[frozenset[str], Term] = {}
        for t in self.terms:
            seen.setdefault(_key(t), t)
        if len(seen) > MAX_TERMS:
            raise ParameterError(f"formula: expands to more than {MAX_TERMS} terms")
        self.terms = list(seen.values())


def _key(term: Term) -> frozenset[str]:
    return frozenset(render(f) for f in term)


def _join(*factors: Iterable[Node]) -> Term:
    out: dict[str, Node] = {}
    for group in factors:
        for f in group:
            out.setdefault(render(f), f)
    return tuple(out.values())


class Parser:
    """Parses one formula text: ``Parser(text).formula()``."""

    def __init__(self, text: str):
        self.text = text
        self.toks = _tokens(text)
        self.i = 0
        self.depth = 0

    # helpers
    @property
    def tok(self) -> tuple[str, str, int]:
        return self.toks[self.i]

    def fail(self, what: str, pos: int | None = None) -> ParameterError:
        p = self.tok[2] if pos is None else pos
        return ParameterError(f"formula: {what} (at position {p} of {self.text!r})")

    def take(self, text: str | None = None, kind: str | None = None) -> tuple[str, str, int]:
        t = self.tok
        if (text is not None and t[1] != text) or (kind is not None and t[0] != kind):
            want = repr(text) if text is not None else kind
            raise self.unexpected(f"expected {want}, found ")
        self.i += 1
        return t

    def unexpected(self, prefix: str = "unexpected ") -> ParameterError:
        kind, text, _ = self.tok
        if kind == "name" and keyword.iskeyword(text):
            return self.fail(f"Python keyword {text!r} is not allowed")
        if kind == "str":
            return self.fail(f"string {text} is not allowed")
        return self.fail(prefix + (repr(text) if kind != "end" else "the end of the formula"))

    def at(self, *texts: str) -> bool:
        return self.tok[0] == "op" and self.tok[1] in texts

    def deeper(self) -> None:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise self.fail(f"nested more than {_MAX_DEPTH} levels deep")

    # formula level
    def formula(self) -> Formula:
        if self.at("~"):
            raise self.fail("the outcome (left of '~') is missing")
        outcome = self.factor()
        if not self.at("~"):
            raise self.fail("the outcome (left of '~') must be one column or transform, "
                            "e.g. 'np.log(income) ~ ...'")
        self.take("~")
        rhs = self.terms()
        if self.tok[0] != "end":
            raise self.unexpected()
        return Formula(outcome, tuple(rhs.terms), not rhs.removed, self.text)

    def terms(self) -> _Expr:
        self.deeper()
        if self.at("-", "+"):
            _, op, pos = self.take()
            unary = self.product()
            if op == "-":
                if unary.kind == "zero":
                    left = _Expr([], intercept=True)
                elif unary.kind == "one":
                    left = _Expr([], removed=True)
                else:
                    raise self.fail("unary minus is only allowed before 0 or 1", pos)
            else:
                left = unary
        else:
            left = self.product()
        while self.at("+", "-"):
            op = self.take()[1]
            right = self.product()
            if op == "+":
                if right.kind == "zero":
                    left = _Expr(left.terms, removed=True)
                elif right.intercept:
                    left = _Expr(left.terms + right.terms, intercept=True)
                else:
                    left = _Expr(left.terms + right.terms, left.intercept, left.removed)
            elif right.kind == "zero":
                left = _Expr(left.terms, intercept=True)
            elif right.kind == "one":
                left = _Expr(left.terms, removed=True)
            else:
                gone = {_key(t) for t in right.terms}
                kept = [t for t in left.terms if _key(t) not in gone]
                left = (_Expr(kept, removed=True) if right.intercept
                        else _Expr(kept, left.intercept, left.removed))
        self.depth -= 1
        return left

    def _check(self, e: _Expr) -> None:
        if e.intercept:  # patsy lets 0 interact (contributing nothing), not 1
            raise self.fail("the intercept (0 or 1) cannot interact with anything")

    def _interact(self, a: _Expr, b: _Expr) -> list[Term]:
        self._check(a)
        self._check(b)
        return [_join(lt, rt) for lt in a.terms for rt in b.terms]

    def product(self) -> _Expr:
        left = self.inter()
        while self.at("*", "/"):
            op = self.take()[1]
            right = self.inter()
            if op == "*":
                left = _Expr(left.terms + right.terms + self._interact(left, right))
            else:
                self._check(left)
                whole = _Expr([_join(*left.terms)])
                left = _Expr(left.terms + self._interact(whole, right))
        return left

    def inter(self) -> _Expr:
        left = self.power()
        while self.at(":"):
            self.take()
            left = _Expr(self._interact(left, self.power()))
        return left

    def power(self) -> _Expr:
        base = self.atom()
        while self.at("**"):
            self.take()
            kind, text, pos = self.tok
            if kind != "num" or not text.isdigit() or len(text) > 9 or int(text) < 1:
                raise self.fail("'**' between terms needs a positive integer (for powers of a "
                                "variable write I(x ** 2))")
            self.take()
            self._check(base)
            terms, big = list(base.terms), base
            for _ in range(1, min(len(base.terms), int(text))):
                big = _Expr(self._interact(base, big))
                terms += big.terms
            base = _Expr(terms)
        return base

    def atom(self) -> _Expr:
        kind, text, pos = self.tok
        if self.at("("):
            self.take()
            e = self.terms()
            self.take(")")
            return e
        if kind == "num":
            self.take()
            if text == "0":
                return _Expr([], removed=True, kind="zero")
            if text == "1":
                return _Expr([], intercept=True, kind="one")
            raise self.fail(f"number {text} outside I(); only 0 and 1 (the intercept) stand "
                            "alone in a formula", pos)
        return _Expr([(self.factor(),)])

    # factors and arithmetic
    def dotted(self) -> tuple[str, int]:
        kind, text, pos = self.tok
        if kind == "str":
            raise self.fail(f"string {text} is not allowed (a column with an unusual name is "
                            f"written Q({text}))")
        if kind != "name":
            raise self.unexpected("expected a column name, found ")
        parts = []
        while True:
            _, text, p = self.take(kind="name")
            if text.startswith("__") and text.endswith("__"):
                raise self.fail(f"dunder name {text!r} is not allowed", p)
            if keyword.iskeyword(text):
                raise self.fail(f"Python keyword {text!r} is not allowed (a column with this "
                                f'name is written Q("{text}"))', p)
            parts.append(text)
            if not self.at("."):
                break
            self.take(".")
            if self.tok[0] != "name":
                raise self.fail(f"expected a name after {'.'.join(parts)!r}.")
        return ".".join(parts), pos

    def column(self) -> Column:
        name, pos = self.dotted()
        if name == "Q" and self.at("("):
            self.take("(")
            _, lit, p = self.take(kind="str")
            if not lit[1:-1]:
                raise self.fail("Q() needs a non-empty column name", p)
            self.take(")")
            return Column(lit[1:-1], f"Q({lit})")
        if self.at("("):
            raise self.fail(f"expected a column name, found a call of {name!r}", pos)
        if "." in name:
            raise self.fail(f"attribute access {name!r} is not allowed", pos)
        return Column(name, name)

    def call_name(self) -> tuple[str, int] | None:
        """The callee if the next tokens are ``NAME[.NAME]* (``, else None (position kept)."""
        j = self.i
        while self.toks[j][0] == "name" and self.toks[j + 1][1] == ".":
            j += 2
        if self.toks[j][0] == "name" and self.toks[j + 1][1] == "(":
            name, pos = self.dotted()
            return name, pos
        return None

    def factor(self) -> Node:
        self.deeper()
        called = self.call_name()
        if called is None:
            node: Node = self.column()
        elif called[0] == "Q":
            self.i -= 1
            node = self.column()
        else:
            name, pos = called
            self.take("(")
            if name == "C":
                node = Cat(self.column())
                if self.at(","):
                    raise self.fail("C() takes one column name (contrasts and levels cannot be "
                                    "given)")
            elif name == "I":
                node = Ident(self.arith())
            elif name in TRANSFORMS:
                node = Call(name, self.arith())
            else:
                raise self._bad_call(name, pos)
            if self.at(","):
                raise self.fail(f"{name}() takes exactly one argument")
            self.take(")")
        self.depth -= 1
        return node

    def _bad_call(self, name: str, pos: int) -> ParameterError:
        allowed = ", ".join(["C()", "I()", "Q()"] + [f"{k}()" for k in TRANSFORMS])
        return self.fail(f"function {name!r} is not allowed (allowed: {allowed})", pos)

    def arith(self) -> Node:
        self.deeper()
        node = self.arith_term()
        while self.at("+", "-"):
            op = self.take()[1]
            node = Binary(op, node, self.arith_term())
        self.depth -= 1
        return node

    def arith_term(self) -> Node:
        node = self.unary()
        while self.at("*", "/"):
            op = self.take()[1]
            node = Binary(op, node, self.unary())
        return node

    def unary(self) -> Node:
        if self.at("-", "+"):
            self.deeper()
            op = self.take()[1]
            node: Node = Unary(op, self.unary())
            self.depth -= 1
            return node
        base = self.primary()
        if self.at("**"):
            self.take()
            return Binary("**", base, self.unary())
        return base

    def primary(self) -> Node:
        kind, text, pos = self.tok
        if self.at("("):
            self.take()
            inner = self.arith()
            self.take(")")
            return Paren(inner)
        if kind == "num":
            self.take()
            try:
                value: int | float = int(text) if text.isdigit() else float(text)
            except ValueError:
                raise self.fail(f"number {text[:20]}... is too long", pos) from None
            return Number(value, text)
        called = self.call_name()
        if called is None:
            return self.column()
        name, fpos = called
        if name == "Q":
            self.i -= 1
            return self.column()
        if name in ("C", "I"):
            raise self.fail(f"{name}() is only allowed as a whole term, not inside arithmetic",
                            fpos)
        if name not in TRANSFORMS:
            raise self._bad_call(name, fpos)
        self.take("(")
        node = Call(name, self.arith())
        if self.at(","):
            raise self.fail(f"{name}() takes exactly one argument")
        self.take(")")
        return node
