"""A safe model-formula language: parsed here, evaluated by a small interpreter, never by Python.

Regression formulas (``compare_regression``, ``s.utility.regression``, ``estimates(formula=...)``)
used to go to patsy, which hands every factor of the formula to Python's ``eval``: a formula such
as ``y ~ I(__import__("os").system("..."))`` ran a shell command. This module replaces that with a
formula language of its own that covers what analysts write in patsy/R notation and nothing else.

How the guarantee is kept:

1. ``parse_formula`` reads the text with its own tokenizer (a regular expression per token kind;
   any other character is refused) and a recursive-descent parser. No ``eval``, ``exec``,
   ``compile`` or ``ast`` call is made, and no name from the formula is ever looked up in a Python
   namespace.
2. The parser accepts only the grammar below and raises `ParameterError` naming the offending part
   for anything else (attribute access, other functions, subscripts, strings outside ``Q()``,
   keywords, lambdas, dunder names, keyword arguments, ...). Nothing is evaluated before the whole
   formula has been parsed.
3. The parse tree is evaluated by ``evaluate``: column names become ``data[name]`` look-ups,
   numbers are the parsed literals, operators map to the functions of the ``operator`` module and
   the whitelisted transforms to fixed numpy functions (``TRANSFORMS``). No other code can be
   reached from a formula.
4. The design matrices are built from the parse tree by ``build_design`` (and, for other records,
   ``model_matrix``) with numpy/pandas, and the fit uses statsmodels' array interface, so neither
   patsy nor formulaic ever sees the formula.

Grammar (patsy/R conventions):

    formula  := outcome "~" terms
    outcome  := factor                            e.g. np.log(income)
    terms    := ["-"|"+"] product (("+"|"-") product)*
    product  := inter (("*"|"/") inter)*          a*b = a + b + a:b ; a/b = a + a:b
    inter    := power (":" power)*                a:b interaction
    power    := atom ["**" INT]                   (a+b)**2 = a + b + a:b
    atom     := "(" terms ")" | "0" | "1" | factor
    factor   := column | "C(" column ")" | "I(" arith ")" | transform "(" arith ")"
    column   := NAME | 'Q("' any name '")'
    arith    := numbers, columns, transforms, + - * / ** , unary - and +, parentheses

``1``/``0``/``-1`` add or remove the intercept; ``C(x)`` codes ``x`` as categorical (treatment
coding, first level as reference); string, boolean and categorical columns are categorical anyway.
The transforms are ``np.log``, ``np.log1p``, ``np.log10``, ``np.exp``, ``np.sqrt``, ``np.abs`` and
the same names without ``np.``. Factor names are rendered with patsy's spacing (``I(age ** 2)``,
``C(sex)[T.m]``), so coefficient names are those patsy gave.

Example
-------
>>> f = parse_formula("np.log(income) ~ educ + C(sex) * I(age**2)")
>>> f.outcome_name, f.term_names
('np.log(income)', ['Intercept', 'educ', 'C(sex)', 'I(age ** 2)', 'C(sex):I(age ** 2)'])
>>> parse_formula('y ~ I(__import__("os").system("ls"))')
Traceback (most recent call last):
...
sdcsession.errors.ParameterError: formula: dunder name '__import__' is not allowed (at position 6 of 'y ~ I(__import__("os").system("ls"))')
"""

from __future__ import annotations

from ..errors import ParameterError
from .design import Design, DesignSpec, build_design, model_matrix
from .nodes import TRANSFORMS, Formula, Node, columns_of, evaluate, render
from .parser import MAX_TERMS, Parser

__all__ = ["parse_formula", "build_design", "model_matrix", "evaluate", "render", "columns_of",
           "Formula", "Design", "DesignSpec", "Node", "TRANSFORMS", "MAX_TERMS"]

_MAX_LEN = 5000


def parse_formula(text: str) -> Formula:
    """Parse a model formula of the safe language described in the module docstring.

    Only parses: nothing is evaluated and the data are not needed. Column names are checked
    against the data when the design is built (`MeasureError` there).

    Parameters
    ----------
    text : the formula, e.g. ``"np.log(income) ~ educ + C(sex) + I(age**2)"``.

    Returns
    -------
    Formula
        The outcome, the right-hand terms (patsy's expansion of ``*``, ``/``, ``:``, ``**`` and
        ``-``) and the intercept flag.

    Raises
    ------
    ParameterError
        Not a string, too long, or anything outside the grammar (the message names the part).

    Example
    -------
    >>> parse_formula("y ~ a*b - a - 1").term_names
    ['b', 'a:b']
    >>> parse_formula("y ~ x.__class__")
    Traceback (most recent call last):
    ...
    sdcsession.errors.ParameterError: formula: dunder name '__class__' is not allowed (at position 6 of 'y ~ x.__class__')
    """
    if not isinstance(text, str):
        raise ParameterError(f"formula: expected a formula 'y ~ x1 + x2', got {text!r}")
    if len(text) > _MAX_LEN:
        raise ParameterError(f"formula: longer than {_MAX_LEN} characters")
    if "~" not in text:
        raise ParameterError(f"formula: expected a formula 'y ~ x1 + x2', got {text!r}")
    return Parser(text).formula()
