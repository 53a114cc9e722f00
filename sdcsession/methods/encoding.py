"""Treatment parameters as values: equality keys (`freeze`, `typed_freeze`), display
(`to_jsonable`) and the lossless JSON encoding of recipes (format 2: `encode_value`,
`decode_value`), which keeps int, float, str, bool and missing labels apart.

>>> decode_value(encode_value({1: "a", "1": float("nan")}))
{1: 'a', '1': nan}
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..errors import RecipeError
from .params import is_missing

__all__ = ["to_jsonable", "canonical", "label_order", "freeze", "typed_freeze", "encode_value",
           "decode_value", "MAX_DEPTH"]


def to_jsonable(value: Any) -> Any:
    """Convert tuples, numpy scalars/arrays and nested mappings to plain JSON types (for notes and
    display; lossy: mapping keys become text, NaN becomes ``None``). Recipes use the lossless
    `encode_value`.

    >>> to_jsonable((1, np.int64(2), {"a": (3.5,)}))
    [1, 2, {'a': [3.5]}]
    """
    if isinstance(value, Mapping):
        return {str(k) if not isinstance(k, str) else k: to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [to_jsonable(v) for v in value.tolist()]
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        f = float(value)
        return None if math.isnan(f) else f
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def canonical(value: Any) -> Any:
    """One representative per parameter value: numpy scalars become Python scalars and every float
    NaN becomes the one object ``np.nan`` (so that equal parameters compare and hash equal).
    ``None``, ``pd.NA`` and ``pd.NaT`` are kept as they are: they are different parameters.

    >>> canonical(np.int64(3)), canonical(np.float32("nan")) is np.nan, canonical("a")
    (3, True, 'a')
    """
    if isinstance(value, np.generic) and not isinstance(value, (np.str_, np.bytes_)):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return np.nan
    return value


def label_order(v: Any) -> tuple[Any, ...]:
    """Sort key giving a total order over labels of mixed types: numbers (booleans among them) by
    value, then text, then missing values, then anything else by its repr.

    >>> sorted(["b", 2, None, 1.5, "a"], key=label_order)
    [1.5, 2, 'a', 'b', None]
    """
    if isinstance(v, (bool, int, float)) and not (isinstance(v, float) and math.isnan(v)):
        return (0, v)
    if isinstance(v, str):
        return (1, v)
    if is_missing(v):
        return (2, repr(v))
    return (3, type(v).__name__, repr(v))


def freeze(value: Any) -> Any:
    """Make parameters hashable, keeping the type of every label (lists -> tuples, mappings ->
    tuples of ``(key, value)`` pairs in a canonical order, NaN -> ``np.nan``).

    Keys are not turned into text: ``{1: "a"}`` and ``{"1": "a"}`` freeze differently. Like ``==``,
    freeze does not tell ``1``, ``1.0`` and ``True`` apart; `typed_freeze` does.

    >>> freeze({"b": [1, 2], "a": None})
    (('a', None), ('b', (1, 2)))
    >>> freeze({2: "x", "2": "y"})
    ((2, 'x'), ('2', 'y'))
    """
    if isinstance(value, Mapping):
        pairs = [(freeze(k), freeze(v)) for k, v in value.items()]
        return tuple(sorted(pairs, key=lambda kv: label_order(kv[0])))
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, np.ndarray):
        return freeze(value.tolist())
    if isinstance(value, (set, frozenset)):
        return tuple(sorted((freeze(v) for v in value), key=label_order))
    return canonical(value)


def typed_freeze(value: Any) -> Any:
    """`freeze` with the type of every value beside it: equal exactly when the parameters are equal
    *and* of the same types (``1``, ``1.0`` and ``True`` differ; ``np.nan`` equals itself, and a
    missing value never compares as "ambiguous"). Used as the ``eq`` key of label parameters.

    >>> typed_freeze({1: "a"}) == typed_freeze({True: "a"}), typed_freeze(np.nan) == typed_freeze(float("nan"))
    (False, True)
    """
    def tag(f: Any) -> Any:
        return tuple(tag(x) for x in f) if isinstance(f, tuple) else (type(f).__name__, f)

    return tag(freeze(value))


#: missing values of the lossless parameter encoding: ``{"$missing": tag}``
_MISSING = {"nan": np.nan, "NA": pd.NA, "NaT": pd.NaT}
#: deepest nesting of lists and mappings a treatment parameter may have
MAX_DEPTH = 64


def _too_deep(where: str) -> RecipeError:
    return RecipeError(f"{where}: lists and mappings nested more than {MAX_DEPTH} levels deep")


def encode_value(value: Any, *, where: str = "value", _depth: int = 0) -> Any:
    """Encode a treatment parameter as JSON data without losing any type (recipe format 2).

    Text, integers, finite floats, booleans and ``None`` are themselves; lists and tuples are lists;
    a mapping whose keys are all text (none starting with ``$``) is a JSON object. Everything JSON
    cannot say exactly is a one-key object with a ``$`` tag:

    - ``{"$missing": "nan" | "NA" | "NaT"}`` for a float NaN, ``pd.NA``, ``pd.NaT``;
    - ``{"$float": "inf" | "-inf"}`` for infinite floats;
    - ``{"$map": [[key, value], ...]}`` for a mapping with any non-text key (ints, floats,
      booleans, missing values keep their type, e.g. ``{1: "a"}`` is not ``{"1": "a"}``).

    `decode_value` inverts it. Other types raise `RecipeError` naming ``where``.

    >>> encode_value({1: [np.nan, pd.NA], "a": float("inf")})
    {'$map': [[1, [{'$missing': 'nan'}, {'$missing': 'NA'}]], ['a', {'$float': 'inf'}]]}
    >>> encode_value({"m": "male"})
    {'m': 'male'}
    """
    if _depth > MAX_DEPTH:
        raise _too_deep(where)
    value = canonical(value)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if math.isnan(value):
            return {"$missing": "nan"}
        if math.isinf(value):
            return {"$float": "inf" if value > 0 else "-inf"}
        return value
    if value is pd.NA:
        return {"$missing": "NA"}
    if value is pd.NaT:
        return {"$missing": "NaT"}
    d = _depth + 1
    if isinstance(value, Mapping):
        if all(isinstance(k, str) and not k.startswith("$") for k in value):
            return {str(k): encode_value(v, where=where, _depth=d) for k, v in value.items()}
        return {"$map": [[encode_value(k, where=where, _depth=d), encode_value(v, where=where, _depth=d)]
                         for k, v in value.items()]}
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (set, frozenset)):
        value = sorted(value, key=lambda v: label_order(canonical(v)))
    if isinstance(value, (list, tuple)):
        return [encode_value(v, where=where, _depth=d) for v in value]
    raise RecipeError(
        f"{where}: a recipe cannot store a value of type {type(value).__name__} ({value!r}); "
        "parameters must be text, numbers, true/false, missing values, or lists and mappings of them")


def decode_value(value: Any, *, where: str = "value", _depth: int = 0) -> Any:
    """Inverse of `encode_value`: JSON data back to the typed parameter value.

    JSON objects without a tag are mappings with text keys (so recipes written before the tags,
    format 1, read as they always did); a float NaN read from non-standard JSON becomes ``np.nan``.
    A malformed tag, an unhashable or repeated mapping key raises `RecipeError` naming ``where``.

    >>> decode_value({"$map": [[1, [{"$missing": "nan"}]], [False, "no"], ["1", "one"]]})
    {1: [nan], False: 'no', '1': 'one'}
    """
    if _depth > MAX_DEPTH:
        raise _too_deep(where)
    d = _depth + 1
    if isinstance(value, Mapping):
        if len(value) == 1:
            ((tag, body),) = value.items()
            if tag == "$missing":
                if isinstance(body, str) and body in _MISSING:
                    return _MISSING[body]
                raise RecipeError(f"{where}: unknown missing value {{'$missing': {body!r}}}; "
                                  f"expected one of {sorted(_MISSING)}")
            if tag == "$float":
                if body in ("inf", "-inf"):
                    return math.inf if body == "inf" else -math.inf
                raise RecipeError(f"{where}: expected {{'$float': 'inf' | '-inf'}}, got {body!r}")
            if tag == "$map":
                return _decode_pairs(body, where, d)
        return {k: decode_value(v, where=where, _depth=d) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(decode_value(v, where=where, _depth=d) for v in value)
    return canonical(value)


def _decode_pairs(body: Any, where: str, depth: int) -> dict[Any, Any]:
    if not isinstance(body, list):
        raise RecipeError(f"{where}: '$map' must hold a list of [key, value] pairs, got {body!r}")
    out: dict[Any, Any] = {}
    for pair in body:
        if not isinstance(pair, list) or len(pair) != 2:
            raise RecipeError(f"{where}: '$map' entries must be [key, value] pairs, got {pair!r}")
        k = decode_value(pair[0], where=where, _depth=depth)
        try:
            seen = k in out
        except TypeError:
            raise RecipeError(f"{where}: a mapping key must be a single value (text, number, "
                              f"true/false or missing), got {pair[0]!r}") from None
        if seen:
            raise RecipeError(f"{where}: mapping key {k!r} given twice")
        out[k] = decode_value(pair[1], where=where, _depth=depth)
    return out
