"""Words for the workbench's forms: treatment groups and plain names (as sdcApp groups them),
parameter labels with units, fixed choices the validators do not list, which columns a
parameter accepts, and descriptions from the docs as plain text.

The form (`sdcsession.present.workbench.treat`) is still generated from any treatment's attrs
spec; this table only gives the words. A parameter with no entry is labelled by its name in words
(``max_suppression`` becomes "Max suppression"), and a hint that is a Python type (``str``,
``dict[str, float]``) is replaced by a sentence.

Example
-------
>>> label("add_noise", "block")
('Block size (ROMM)', 'records')
>>> plain_hint("dict[str, float]", "value")
'a mapping as JSON, e.g. {"income": 2}'
>>> plain_text("Suppress ``k`` values (see `local_suppression`).")
'Suppress k values (see local_suppression).'
"""

from __future__ import annotations

import inspect
import re
from typing import Any

__all__ = ["GROUPS", "treatment_options", "plain_name", "label", "plain_hint", "plain_text", "description",
           "CHOICES", "accepts", "allowed_columns"]

#: treatment groups and plain names, in the order sdcApp shows them
GROUPS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("Categorical key variables", (
        ("local_suppression", "Local suppression (k-anonymity)"),
        ("suppress_by_risk", "Suppression of risky records"),
        ("recode", "Recode categories"),
        ("group_categories", "Group categories"),
        ("global_recode", "Global recode into intervals"),
        ("top_bottom_code", "Top / bottom coding"),
        ("local_recode", "Local recoding"),
        ("pram", "PRAM (post-randomisation)"),
    )),
    ("Numeric variables", (
        ("microaggregation", "Microaggregation"),
        ("microaggregation_gower", "Microaggregation (mixed variables, Gower)"),
        ("add_noise", "Noise addition"),
        ("rank_swap", "Rank swapping"),
        ("shuffle", "Data shuffling"),
        ("mv_top_code", "Multivariate top coding"),
        ("round_values", "Rounding"),
    )),
    ("Households and geography", (
        ("record_swap", "Targeted record swapping"),
        ("new_ids", "New household ids"),
    )),
    ("Privacy models", (
        ("generalize", "Generalisation to a privacy model"),
    )),
    ("Data preparation", (
        ("remove_columns", "Remove variables"),
        ("record_keys", "Record keys"),
    )),
)

_NAMES = {tag: name for _, items in GROUPS for tag, name in items}

#: (treatment or "*", parameter) -> (label in words, unit / what the number means)
_LABELS: dict[tuple[str, str], tuple[str, str]] = {
    ("*", "columns"): ("Variables", ""),
    ("*", "column"): ("Variable", ""),
    ("*", "k"): ("k (smallest group size)", "records"),
    ("*", "strata"): ("Strata (treated separately)", ""),
    ("*", "importance"): ("Importance order (most important kept first)", ""),
    ("*", "method"): ("Method", ""),
    ("*", "alpha"): ("Alpha", "share, 0 to 1"),
    ("*", "weights"): ("Weights", ""),
    ("local_suppression", "k"): ("k (smallest group size)", "records with the same key values"),
    ("local_suppression", "combinations"): ("Check subsets of the keys of size",
                                            "number of key variables"),
    ("local_suppression", "weighted"): ("Use the sampling weights", ""),
    ("local_suppression", "household"): ("Whole households", ""),
    ("suppress_by_risk", "threshold"): ("Risk threshold", "probability of re-identification"),
    ("suppress_by_risk", "column"): ("Suppress in variable (empty: the riskiest)", ""),
    ("add_noise", "noise"): ("Noise amount", "standard deviations (0.15 = 15 % of each "
                                             "variable's standard deviation)"),
    ("add_noise", "block"): ("Block size (ROMM)", "records"),
    ("add_noise", "bounds"): ("Keep values within", "low, high (empty: no bound)"),
    ("add_noise", "warn_domain"): ("Warn about values outside their domain", ""),
    ("microaggregation", "aggregate"): ("Replace a group by its", ""),
    ("microaggregation", "sort_by"): ("Sort by (single-variable methods)", ""),
    ("microaggregation", "weights"): ("Weight variable", ""),
    ("microaggregation_gower", "variable_weights"): ("Weight of each variable", "JSON mapping"),
    ("microaggregation_gower", "aggregate"): ("Replace a group by its", ""),
    ("pram", "pd"): ("Probability of keeping a category", "0 to 1"),
    ("pram", "alpha"): ("Share of the change spread over categories", "0 to 1"),
    ("pram", "matrix"): ("Transition matrix", "JSON {from: {to: p}}"),
    ("pram", "invariant"): ("Keep the category frequencies (invariant PRAM)", ""),
    ("rank_swap", "p"): ("Swap range", "percent of the records (default 5)"),
    ("rank_swap", "top"): ("Top-code share first", "percent"),
    ("rank_swap", "bottom"): ("Bottom-code share first", "percent"),
    ("rank_swap", "r0"): ("Multivariate preservation r0", "0 to 1"),
    ("rank_swap", "k0"): ("Relative change limit k0", "0 to 1"),
    ("shuffle", "by"): ("Predictors", ""),
    ("shuffle", "covmethod"): ("Covariance", ""),
    ("shuffle", "regmethod"): ("Regression", ""),
    ("mv_top_code", "alpha"): ("Share of records treated as outliers", "0 to 1"),
    ("round_values", "digits"): ("Decimals", "digits after the point"),
    ("round_values", "base"): ("Round to multiples of", "units of the variable"),
    ("global_recode", "breaks"): ("Interval breaks or number of intervals", ""),
    ("global_recode", "n"): ("Number of groups (with a method)", "groups"),
    ("global_recode", "labels"): ("Interval labels", ""),
    ("global_recode", "right"): ("Intervals closed on the right", ""),
    ("global_recode", "include_outside"): ("Keep values outside the breaks", ""),
    ("group_categories", "groups"): ("Groups", 'JSON {"new": ["old", ...]}'),
    ("recode", "mapping"): ("Recoding", 'JSON {"old": "new"}'),
    ("top_bottom_code", "value"): ("Threshold", "units of the variable"),
    ("top_bottom_code", "replacement"): ("Replace by (empty: the threshold)",
                                         "units of the variable"),
    ("top_bottom_code", "kind"): ("Top or bottom", ""),
    ("local_recode", "ancestors"): ("Ancestors of each category", "JSON mapping"),
    ("local_suppression", "max_suppressed_per_record"): (
        "Most values one record loses (many keys)", "values (empty: half the keys)"),
    ("local_suppression", "engine"): ("Engine (auto: hub trie beyond 11 keys)", ""),
    ("local_recode", "engine"): ("Engine (auto: hub trie beyond 11 keys)", ""),
    ("local_recode", "max_suppressed_per_record"): ("Most values one record loses (hub trie)",
                                                    "values (empty: half the keys)"),
    ("record_swap", "hierarchy"): ("Geography levels (coarse to fine)", ""),
    ("record_swap", "similar"): ("Swap with similar households on", ""),
    ("record_swap", "swaprate"): ("Swap rate", "share of households, 0 to 1"),
    ("record_swap", "k_anonymity"): ("Households at risk below k", "records"),
    ("record_swap", "risk_variables"): ("Risk variables", ""),
    ("record_swap", "risk_threshold"): ("Risk threshold", "0 to 1 (empty: by k)"),
    ("record_swap", "carry_along"): ("Variables swapped along", ""),
    ("generalize", "hierarchies"): ("Hierarchies", ""),
    ("generalize", "privacy"): ("Privacy models", ""),
    ("generalize", "max_suppression"): ("Records that may be suppressed", "share, 0 to 1"),
    ("generalize", "metric"): ("Information loss measure", ""),
    ("generalize", "search"): ("Search", ""),
    ("generalize", "baseline"): ("Never worse than", "(none): the plain optimum"),
    ("record_keys", "name"): ("Name of the key column", ""),
    ("record_keys", "kind"): ("Kind of key", ""),
    ("record_keys", "modulus"): ("Modulus", "integer keys"),
    ("record_keys", "digits"): ("Digits", "decimal digits"),
    ("new_ids", "column"): ("Id variable", ""),
}

#: fixed choices the validators do not list (read from the methods' docs)
CHOICES: dict[tuple[str, str], tuple[Any, ...]] = {
    ("shuffle", "method"): ("ds", "mvn", "mlm", "mlm_ds"),
    ("shuffle", "covmethod"): ("pearson", "spearman", "mcd"),
    ("shuffle", "regmethod"): ("lm", "mm"),
    ("global_recode", "method"): ("equidistant", "quantile", "log_equidistant"),
    ("record_keys", "kind"): ("integer", "uniform"),
    ("generalize", "baseline"): ("datafly",),
}

#: which columns a column parameter accepts: "numeric" (numeric variables) or "keys"
_ACCEPTS: dict[tuple[str, str], str] = {
    **{(t, "columns"): "numeric" for t in ("add_noise", "microaggregation", "rank_swap",
                                           "shuffle", "mv_top_code", "round_values")},
    ("global_recode", "column"): "numeric",
    ("top_bottom_code", "column"): "numeric",
    ("microaggregation", "weights"): "numeric",
    ("local_suppression", "importance"): "keys",
    ("suppress_by_risk", "importance"): "keys",
    ("suppress_by_risk", "column"): "keys",
    ("local_recode", "columns"): "keys",
    ("pram", "columns"): "categorical",
    ("group_categories", "column"): "categorical",
}

_TYPE_HINT = re.compile(r"^(Any|str|int|float|bool|dict\[.*\]|tuple\[.*\]|list\[.*\]|"
                        r"Mapping\[.*\]|Sequence\[.*\])( \| .*)?$")


def treatment_options() -> list[tuple[str, str]]:
    """The Treatment drop-down: ``("group: plain name", tag)`` for every registered treatment,
    grouped as sdcApp groups them (treatments not in a group come last, under "Other")."""
    from ...methods.base import TREATMENTS

    out = [(f"{group}: {name}", tag) for group, items in GROUPS for tag, name in items
           if tag in TREATMENTS]
    seen = {tag for _, tag in out}
    out += [(f"Other: {plain_name(t)}", t) for t in sorted(TREATMENTS) if t not in seen]
    return out


def plain_name(tag: str) -> str:
    """The plain-language name of treatment ``tag``."""
    return _NAMES.get(tag, tag.replace("_", " ").capitalize())


def label(tag: str, param: str) -> tuple[str, str]:
    """``(label, unit)`` of parameter ``param`` of treatment ``tag``."""
    found = _LABELS.get((tag, param)) or _LABELS.get(("*", param))
    return found if found else (param.replace("_", " ").capitalize(), "")


def plain_hint(hint: str, kind: str) -> str:
    """``hint`` in words: a Python type becomes a sentence, integers become whole numbers."""
    h = str(hint).strip()
    if _TYPE_HINT.match(h) or not h:
        if kind == "int" or h == "int":
            return "a whole number"
        if kind == "float" or h == "float":
            return "a number"
        if kind == "bool" or h == "bool":
            return "tick for yes"
        if h.startswith(("dict", "Mapping")):
            return 'a mapping as JSON, e.g. {"income": 2}'
        if h.startswith(("tuple", "list", "Sequence")):
            return "a list, e.g. 1, 2, 3"
        return "a value (empty: the default)" if kind == "value" else "text"
    if kind == "choice":
        return "choose from the list"
    h = re.sub(r"an integer in \[0, \d{12,}\]", "a whole number ≥ 0", h)
    h = re.sub(r"\bint\b", "a whole number", h).replace(">=", "≥").replace("<=", "≤")
    h = h.replace("an integer", "a whole number").replace("a finite number", "a number")
    if h == "True or False":
        return "tick for yes"
    return h


def plain_text(text: str) -> str:
    """Docstring markup as plain text: ``code`` and `name` lose their quotes, *emphasis* its
    stars, and line breaks become spaces."""
    t = re.sub(r"``([^`]*)``", r"\1", str(text))
    t = re.sub(r"`([^`]*)`", r"\1", t)
    t = re.sub(r"\*\*?([^*]+)\*\*?", r"\1", t)
    return re.sub(r"\s+", " ", t).strip()


def description(tag: str, cls: type) -> str:
    """The first paragraph of the session method's docstring (else the class's), as text."""
    from ...session import SdcSession

    method = getattr(SdcSession, tag, None)
    doc = inspect.getdoc(method) if callable(method) else None
    if not doc or tag in ("record_keys", "generalize"):
        doc = inspect.getdoc(cls) or ""
    return plain_text(doc.split("\n\n")[0])


def accepts(tag: str, param: str) -> str:
    """What column parameter ``param`` of ``tag`` accepts: "numeric", "keys", "categorical" or
    "any"."""
    return _ACCEPTS.get((tag, param), "any")


def allowed_columns(tag: str, param: str, columns: list[str], session: Any = None) -> list[str]:
    """The columns offered for ``param`` of ``tag`` (all of ``columns`` without a session)."""
    what = accepts(tag, param)
    if session is None or what == "any":
        return list(columns)
    import pandas as pd

    data = session.state.data
    keys = list(getattr(session.state.roles, "keys", ()) or ())
    if what == "keys":
        out = [c for c in keys if c in columns]
    elif what == "numeric":  # the numeric variables, else numeric columns with no other role
        roles = session.state.roles
        declared = [c for c in (getattr(roles, "numeric", ()) or ()) if c in columns]
        other = set(keys) | {getattr(roles, "household", None), getattr(roles, "weight", None)}
        other |= set(getattr(roles, "identifiers", ()) or ())
        out = declared or [c for c in columns if c in data.columns and c not in other
                           and pd.api.types.is_numeric_dtype(data[c])
                           and not pd.api.types.is_bool_dtype(data[c])]
    else:  # categorical: the keys and the non-numeric columns
        out = [c for c in columns if c in keys or (
            c in data.columns and not pd.api.types.is_numeric_dtype(data[c]))]
    return out or list(columns)
