"""JSON Schema descriptions of the treatments' parameters (sdcMicro's ``get_tool_schemas``).

Every registered treatment (`sdcsession.methods.base.TREATMENTS`) gets a JSON Schema
(draft 2020-12) of its recipe step ``{"type": tag, **parameters}``: per parameter its JSON type
(from the attrs field's annotation: ``str`` -> string, ``int`` -> integer, ``float`` -> number,
``bool`` -> boolean, ``tuple[...]`` -> array, ``dict[...]`` -> object, ``X | None`` adds null),
its default (absent = required), and, where the treatment's validators define them, its range
(``minimum``/``maximum``), choices (``enum``), unit and a description. A list of column names
also accepts one name, as the treatments do. The schema describes the form of a step; the
treatment's own validators (run by `Treatment.from_dict`) stay the authority on values that a
schema cannot express (a column that must exist, parameters that exclude each other).

Workbench forms and recipe validators can be driven from these schemas; `tool_schemas` lists
them like sdcMicro's ``get_tool_schemas()`` (``name``, ``description``, ``parameters``).

Example
-------
>>> s = treatment_schema("local_suppression")
>>> s["name"], s["parameters"]["properties"]["k"]["default"]
('local_suppression', 3)
>>> validate_step({"type": "local_suppression", "k": 2})
[]
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attrs

from ..errors import ParameterError, RecipeError

__all__ = ["tool_schemas", "treatment_schema", "validate_step"]

_SCALARS = {"str": {"type": "string"}, "int": {"type": "integer"}, "float": {"type": "number"},
            "bool": {"type": "boolean"}, "None": {"type": "null"}}
_NAMES = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}


def _split_top(text: str, sep: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "["
        depth -= ch == "]"
        if depth == 0 and ch == sep:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


def _json_type(annotation: str) -> dict[str, Any]:
    """JSON Schema of an annotation written as text (``from __future__ import annotations``).

    >>> _json_type("tuple[float, ...] | None")
    {'anyOf': [{'type': 'array', 'items': {'type': 'number'}}, {'type': 'null'}]}
    """
    alts = _split_top(annotation, "|")
    if len(alts) > 1:
        return {"anyOf": [_json_type(a) for a in alts]}
    a = alts[0]
    if a in _SCALARS:
        return dict(_SCALARS[a])
    if a == "tuple[str, ...]":
        return {"anyOf": [dict(s) for s in _NAMES["anyOf"]]}
    if a == "tuple[tuple[str, ...], ...]":  # one name, one list of names, or a list of lists
        return {"anyOf": [{"type": "string"},
                          {"type": "array", "items": {"anyOf": [
                              {"type": "string"},
                              {"type": "array", "items": {"type": "string"}}]}}]}
    m = re.fullmatch(r"tuple\[(.*)\]", a)
    if m:
        inner = _split_top(m.group(1), ",")
        if len(inner) == 2 and inner[1] == "...":
            return {"type": "array", "items": _json_type(inner[0])}
        return {"type": "array", "prefixItems": [_json_type(t) for t in inner],
                "minItems": len(inner), "maxItems": len(inner)}
    if a.startswith("dict["):
        return {"type": "object"}
    return {}  # Any, or a class of this package: any JSON value


def _hints() -> dict[str, dict[str, dict[str, Any]]]:
    """Ranges, choices, units and descriptions the treatments' validators define."""
    from .microaggregation.treatment import MICROAGGREGATION_METHODS
    from .noise.addition import NOISE_METHODS
    from .swapping.shuffling_models import COV_METHODS, REG_METHODS, SHUFFLE_METHODS

    cols = {"description": "the columns treated"}
    return {
        "recode": {"column": {"description": "the column recoded"},
                   "mapping": {"description": "old value -> new value"}},
        "remove_columns": {"columns": {"description": "the columns removed from the data"}},
        "group_categories": {"column": {"description": "the categorical column"},
                             "groups": {"description": "new category -> the old categories "
                                                       "merged into it"}},
        "round_values": {"columns": cols, "digits": {"description": "decimal digits kept"},
                         "base": {"description": "round to multiples of this base",
                                  "exclusiveMinimum": 0}},
        "top_bottom_code": {"column": {"description": "the numeric column"},
                            "value": {"description": "the top (bottom) code: values above "
                                                     "(below) it are replaced"},
                            "replacement": {"description": "the value written instead "
                                                           "(default: the code itself)"},
                            "kind": {"enum": ["top", "bottom"],
                                     "description": "replace values above or below"}},
        "global_recode": {"column": {"description": "the numeric column made categorical"},
                          "breaks": {"description": "interval bounds, or a number of intervals"},
                          "method": {"enum": ["equidistant", "quantile", "log_equidistant",
                                              None], "description": "how n intervals are made"},
                          "n": {"minimum": 1, "description": "number of intervals"},
                          "labels": {"description": "one label per interval"},
                          "right": {"description": "intervals closed on the right"},
                          "include_outside": {"description": "values outside the breaks fall "
                                                               "in the first / last interval"}},
        "add_noise": {"columns": cols,
                      "method": {"enum": list(NOISE_METHODS), "description": "noise model"},
                      "noise": {"minimum": 0, "unit": "share of the standard deviation",
                                "description": "noise level (0.15: 15 %)"},
                      "block": {"minimum": 1, "description": "records per block (romm)"},
                      "bounds": {"description": "lowest and highest value allowed"},
                      "warn_domain": {"description": "warn when values leave the domain"}},
        "suppress_by_risk": {"threshold": {"minimum": 0, "maximum": 1,
                                           "unit": "individual risk",
                                           "description": "suppress keys of records above it"},
                             "column": {"description": "the key suppressed (default: chosen)"},
                             "importance": {"description": "keys in order of importance"}},
        "local_suppression": {"k": {"minimum": 1, "unit": "records",
                                    "description": "the k of k-anonymity"},
                              "importance": {"description": "keys in order of importance "
                                                            "(suppressed last first)"},
                              "strata": {"description": "k-anonymity within strata"},
                              "combinations": {"description": "sizes of key subsets checked"},
                              "weighted": {"description": "count sampling weights, not "
                                                          "records"},
                              "household": {"description": "suppress whole households"},
                              "max_suppressed_per_record": {
                                  "minimum": 1, "unit": "values",
                                  "description": "many keys: most key values one record "
                                                 "loses (default half the keys)"},
                              "engine": {"enum": ["auto", "rounds", "hub_trie", "cluster"],
                                         "description": "suppression rounds, hub trie beyond "
                                                        "11 keys, or one engine for all"}},
        "local_recode": {"columns": cols, "k": {"minimum": 2, "unit": "records",
                                                "description": "the k of k-anonymity"},
                         "alpha": {"minimum": 0, "maximum": 1,
                                   "description": "weight of missing values in fk"},
                         "engine": {"enum": ["auto", "progressive", "hub_trie"],
                                    "description": "progression, or hub trie for many keys"},
                         "max_suppressed_per_record": {
                             "minimum": 1, "unit": "values",
                             "description": "hub trie: most key values one record loses "
                                            "(default half the keys)"}},
        "mv_top_code": {"columns": cols, "alpha": {"exclusiveMinimum": 0, "exclusiveMaximum": 1,
                                                   "description": "share of outliers"}},
        "microaggregation": {"columns": cols,
                             "k": {"minimum": 2, "unit": "records",
                                   "description": "smallest group size"},
                             "method": {"enum": list(MICROAGGREGATION_METHODS),
                                        "description": "grouping method"},
                             "strata": {"description": "aggregate within strata"},
                             "aggregate": {"enum": ["mean", "median", "trim", "onestep"],
                                           "description": "value given to a group"}},
        "microaggregation_gower": {"columns": cols, "k": {"minimum": 2, "unit": "records"}},
        "rank_swap": {"columns": cols,
                      "p": {"minimum": 0, "maximum": 100, "unit": "percent of the rank range",
                            "description": "largest rank distance of a swap"},
                      "top": {"minimum": 0, "maximum": 100, "unit": "percent"},
                      "bottom": {"minimum": 0, "maximum": 100, "unit": "percent"}},
        "record_swap": {"hierarchy": {"description": "geography columns, coarse to fine"},
                        "similar": {"description": "profiles of columns donors must share"},
                        "swaprate": {"minimum": 0, "maximum": 1, "unit": "share of households",
                                     "description": "households swapped"},
                        "k_anonymity": {"minimum": 0, "description": "households whose risk "
                                                                     "key is rarer are at risk"},
                        "risk_threshold": {"minimum": 0, "description": "risk above which a "
                                                                        "household is at risk"},
                        "risk": {"description": "risk columns, one per hierarchy level"},
                        "return_swapped_id": {"description": "add <household>_swapped "
                                                             "(a direct identifier)"}},
        "shuffle": {"columns": cols, "by": {"description": "the predictors"},
                    "method": {"enum": list(SHUFFLE_METHODS)},
                    "covmethod": {"enum": [*COV_METHODS, None]},
                    "regmethod": {"enum": [*REG_METHODS, None]}},
        "pram": {"columns": cols,
                 "pd": {"minimum": 0, "maximum": 1,
                        "description": "smallest probability of keeping a category"},
                 "alpha": {"minimum": 0, "maximum": 1,
                           "description": "share of the frequencies in the off-diagonal"},
                 "strata": {"description": "PRAM within strata"},
                 "invariant": {"description": "invariant transition matrix"}},
    }


def treatment_schema(tag: str) -> dict[str, Any]:
    """The schema of one treatment type ``tag``: ``{"name", "description", "parameters"}`` with
    ``parameters`` a JSON Schema object of its recipe step (see the module docstring).

    Missing values: a parameter whose default is ``None`` also accepts ``null``.

    >>> treatment_schema("shuffle")["parameters"]["properties"]["method"]["enum"]
    ['ds', 'mvn', 'mlm', 'mlm_ds']
    """
    from .base import TREATMENTS, encode_value

    cls = TREATMENTS.get(tag) if isinstance(tag, str) else None
    if cls is None:
        raise ParameterError(f"treatment_schema: unknown treatment {tag!r}; known: "
                             f"{sorted(TREATMENTS)}")
    hints = _hints().get(tag, {})
    props: dict[str, Any] = {"type": {"const": tag, "description": "the treatment"}}
    required = ["type"]
    for f in attrs.fields(cls):
        if not f.init or f.alias.startswith("_"):
            continue
        spec = _json_type(f.type if isinstance(f.type, str) else getattr(f.type, "__name__", ""))
        spec.update(hints.get(f.alias, {}))
        spec.setdefault("description", f"see {cls.__name__}")
        if f.default is attrs.NOTHING:
            required.append(f.alias)
        elif not isinstance(f.default, attrs.Factory):  # type: ignore[arg-type]
            try:
                spec["default"] = encode_value(f.default, where="schema")
            except Exception:  # noqa: BLE001 - a default that is not JSON data is left out
                pass
        props[f.alias] = spec
    doc = (cls.__doc__ or "").strip().split("\n")[0]
    return {"name": tag, "description": doc,
            "parameters": {"$schema": "https://json-schema.org/draft/2020-12/schema",
                           "type": "object", "properties": props, "required": required,
                           "additionalProperties": False}}


def tool_schemas() -> list[dict[str, Any]]:
    """The schemas of every registered treatment, sorted by name (sdcMicro's
    ``get_tool_schemas()``).

    >>> "local_suppression" in [s["name"] for s in tool_schemas()]
    True
    """
    from .base import TREATMENTS

    return [treatment_schema(t) for t in sorted(TREATMENTS)]


def _check(value: Any, spec: Mapping[str, Any], where: str, out: list[str]) -> None:
    if "anyOf" in spec:
        trial: list[str] = []
        for alt in spec["anyOf"]:
            errs: list[str] = []
            _check(value, alt, where, errs)
            if not errs:
                break
            trial.extend(errs)
        else:
            out.append(f"{where}: {value!r:.40} matches none of the allowed forms")
            return
    t = spec.get("type")
    kinds = {"string": str, "integer": int, "number": (int, float), "boolean": bool,
             "array": (list, tuple), "object": Mapping, "null": type(None)}
    if t is not None:
        ok = isinstance(value, kinds[t])
        if t in ("integer", "number") and isinstance(value, bool):
            ok = False
        if not ok:
            out.append(f"{where}: expected {t}, got {type(value).__name__}")
            return
    if "const" in spec and value != spec["const"]:
        out.append(f"{where}: expected {spec['const']!r}")
    if "enum" in spec and value not in spec["enum"]:
        out.append(f"{where}: expected one of {spec['enum']}, got {value!r:.40}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        for key, bad in (("minimum", lambda v, b: v < b), ("maximum", lambda v, b: v > b),
                         ("exclusiveMinimum", lambda v, b: v <= b),
                         ("exclusiveMaximum", lambda v, b: v >= b)):
            if key in spec and bad(value, spec[key]):
                out.append(f"{where}: {value!r} violates {key} {spec[key]}")
    if isinstance(value, (list, tuple)) and "items" in spec:
        for i, v in enumerate(value):
            _check(v, spec["items"], f"{where}[{i}]", out)


def validate_step(step: Any) -> list[str]:
    """Check a recipe step ``{"type": tag, **parameters}`` against its treatment's schema: the
    problems found, as text (empty: the step has the right form). The treatment's validators
    then check what a schema cannot (`Treatment.from_dict`).

    Missing values: ``null`` is accepted where the parameter's default is ``None``.

    >>> validate_step({"type": "pram", "columns": ["x"], "pd": 1.5})
    ['pd: 1.5 violates maximum 1']
    """
    if not isinstance(step, Mapping) or not isinstance(step.get("type"), str):
        raise RecipeError(f"a recipe step must be a mapping with a 'type' key, got {step!r:.60}")
    try:
        schema = treatment_schema(step["type"])["parameters"]
    except ParameterError as e:
        raise RecipeError(str(e)) from None
    problems: list[str] = []
    props = schema["properties"]
    for key in schema["required"]:
        if key not in step:
            problems.append(f"{key}: required")
    for key, value in step.items():
        if key not in props:
            problems.append(f"{key}: unknown parameter of {step['type']!r}")
            continue
        _check(value, props[key], key, problems)
    return problems
