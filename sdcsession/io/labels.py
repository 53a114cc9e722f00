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
    return out_df


def _categories_to_labelled(df: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, dict[int, str]]]:
    """Categorical columns → float codes 1..k (NaN missing) and their value labels."""
    new: dict[str, Any] = {}
    value_labels: dict[str, dict[int, str]] = {}
    for col in df.columns:
        s = df[col]
        if isinstance(s.dtype, pd.CategoricalDtype):
            codes = s.cat.codes.to_numpy().astype(float) + 1.0
            codes[codes == 0] = np.nan
            new[col] = codes
            value_labels[col] = {i + 1: str(c) for i, c in enumerate(s.cat.categories)}
        elif isinstance(s.dtype, pd.BooleanDtype) or (
            pd.api.types.is_integer_dtype(s.dtype) and s.hasnans
        ):
            new[col] = s.to_numpy(dtype=float, na_value=np.nan)
        elif pd.api.types.is_bool_dtype(s.dtype):
            new[col] = s.to_numpy().astype(np.int8)
    return (df.assign(**new) if new else df), value_labels


def _column_labels(df: pd.DataFrame) -> dict[str, str | None] | None:
    labels = df.attrs.get("column_labels") if isinstance(df.attrs, dict) else None
    if not labels:
        return None
    return {c: (labels.get(c) if isinstance(labels.get(c), str) else None) for c in df.columns}
