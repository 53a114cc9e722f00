"""Value labels: labelled Stata/SPSS variables to pandas categoricals and back.

On reading, a variable with value labels becomes a ``Categorical`` whose categories are the label
texts in the order of their codes. On writing, categorical columns become integer codes 1..k with
the category texts as value labels; ``df.attrs["column_labels"]`` become variable labels.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__: list[str] = []


def _labelled_to_categories(df: pd.DataFrame, meta: Any, empty_as_missing: bool) -> pd.DataFrame:
    """Turn value-labelled variables into categoricals (categories in code order), "" into NA."""
    new: dict[str, Any] = {}
    value_labels: dict[str, dict[Any, str]] = getattr(meta, "variable_value_labels", {}) or {}
    for col, labels in value_labels.items():
        if col not in df.columns or not labels:
            continue
        s = df[col]
        if not pd.api.types.is_numeric_dtype(s.dtype):
            # labelled string variable (SPSS): map the labelled strings only
            new[col] = s.map(lambda v, lab=labels: lab.get(v, v)).astype("category")
            continue
        codes = np.asarray(sorted(labels), dtype=float)
        vals = s.to_numpy(dtype=float, na_value=np.nan)
        present = np.unique(vals[~np.isnan(vals)])
        extra = np.setdiff1d(present, codes)
        all_codes = np.concatenate([codes, extra])
        texts = [str(labels[c]) for c in sorted(labels)] + [
            str(int(v)) if float(v).is_integer() else str(v) for v in extra
        ]
        order = np.argsort(all_codes, kind="stable")
        all_codes, texts = all_codes[order], [texts[i] for i in order]
        categories = list(dict.fromkeys(texts))  # duplicated label texts merge into one category
        cat_index = {t: i for i, t in enumerate(categories)}
        code_of = np.array([cat_index[t] for t in texts], dtype=np.int64)
        pos = np.searchsorted(all_codes, np.where(np.isnan(vals), all_codes[0], vals))
        out = np.where(np.isnan(vals), -1, code_of[np.minimum(pos, len(all_codes) - 1)])
        new[col] = pd.Categorical.from_codes(out, categories=categories)
    if empty_as_missing:
        for col in df.columns:
            if col in new:
                continue
            s = df[col]
            if pd.api.types.is_string_dtype(s.dtype) or s.dtype == object:
                blank = s.astype("str").str.strip().eq("") & s.notna()
                if blank.any():
                    new[col] = s.mask(blank)
    out_df = df.assign(**new) if new else df
    labels_map = {k: v for k, v in (getattr(meta, "column_names_to_labels", {}) or {}).items() if v}
    out_df.attrs = {**df.attrs, "column_labels": labels_map} if labels_map else dict(df.attrs)
    numeric_labels = {c: {_as_code(float(k)): str(v) for k, v in lab.items()}
                      for c, lab in value_labels.items()
                      if lab and c in df.columns and pd.api.types.is_numeric_dtype(df[c].dtype)}
    if numeric_labels:  # the file's codes, so that an export keeps them
        out_df.attrs["value_labels"] = numeric_labels
    ranges = getattr(meta, "missing_ranges", None) or {}
    if ranges:  # SPSS user-defined missing values, kept as values distinct from system missing
        out_df.attrs["missing_ranges"] = {c: [dict(r) for r in v] for c, v in ranges.items()}
    return out_df


def _code_map(original: dict[Any, Any] | None) -> dict[str, float]:
    """label text -> its original code (the first code of a text that several codes share)."""
    out: dict[str, float] = {}
    for code, text in sorted((original or {}).items(), key=lambda kv: float(kv[0])):
        out.setdefault(str(text), float(code))
    return out


def _categories_to_labelled(df: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, dict[int, str]]]:
    """Categorical columns → float codes (NaN missing) and their value labels.

    A column read from a labelled file (``df.attrs["value_labels"][col]``: {code: text}) keeps
    its original codes: each category is written with the code its text had; a category that is
    new (e.g. from a recode) gets the next free code after the largest original one and a label.
    Labels are written for the categories that occur in the data, so labels of codes that no longer
    occur are dropped — except for the columns in ``df.attrs["untouched"]`` (unchanged by any
    treatment), which keep every original label. Other categorical columns are coded 1..k, every
    category labelled.
    """
    new: dict[str, Any] = {}
    value_labels: dict[str, dict[int, str]] = {}
    attrs = df.attrs if isinstance(df.attrs, dict) else {}
    originals = attrs.get("value_labels") or {}
    untouched = set(attrs.get("untouched") or ())
    for col in df.columns:
        s = df[col]
        if isinstance(s.dtype, pd.CategoricalDtype):
            cats = [str(c) for c in s.cat.categories]
            known = _code_map(originals.get(col))
            codes_of = []
            nxt = max(known.values(), default=0.0)
            for text in cats:
                if text in known:
                    codes_of.append(known[text])
                else:
                    nxt = float(np.floor(nxt)) + 1.0
                    codes_of.append(nxt)
            table = np.asarray(codes_of + [np.nan], dtype=float)
            raw = s.cat.codes.to_numpy()
            new[col] = table[np.where(raw < 0, len(cats), raw)]
            if col in originals:
                used = np.unique(raw[raw >= 0])
                labels = {_as_code(codes_of[i]): cats[i] for i in used}
                if col in untouched:
                    labels = {**{_as_code(float(c)): str(t) for c, t in originals[col].items()},
                              **labels}
            else:  # a categorical made in pandas: every category labelled (1..k)
                labels = {_as_code(c): t for c, t in zip(codes_of, cats)}
            value_labels[col] = dict(sorted(labels.items()))
        elif isinstance(s.dtype, pd.BooleanDtype) or (
            pd.api.types.is_integer_dtype(s.dtype) and s.hasnans
        ):
            new[col] = s.to_numpy(dtype=float, na_value=np.nan)
        elif pd.api.types.is_bool_dtype(s.dtype):
            new[col] = s.to_numpy().astype(np.int8)
    return (df.assign(**new) if new else df), value_labels


def _as_code(c: float) -> int | float:
    return int(c) if float(c).is_integer() else float(c)


def _column_labels(df: pd.DataFrame) -> dict[str, str | None] | None:
    labels = df.attrs.get("column_labels") if isinstance(df.attrs, dict) else None
    if not labels:
        return None
    return {c: (labels.get(c) if isinstance(labels.get(c), str) else None) for c in df.columns}
