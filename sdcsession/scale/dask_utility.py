"""Per-variable information loss of a treated Dask frame against its original, from sums,
moments and frequency tables accumulated over aligned partitions in one pass.

For key variables: suppressions (values missing now that were observed), records changed, and the
Shannon entropy (natural log) of each key's distribution of observed values, original and now.
For numeric variables (records observed in both files):

* IL1s = (1 / (n·p)) Σ_j Σ_i |x_ij − x'_ij| / (√2 · S_j), S_j the standard deviation of the
  original column j (Yancey, Winkler & Creecy 2002; published form, normalised by n·p, as
  `sdcsession.utility.il1s`);
* means and standard deviations of each column, original and now;
* the mean absolute difference of the correlation matrices.

The partitions of the two frames must correspond (a session's states always do).

Reference: Yancey, W. E., Winkler, W. E. & Creecy, R. H. (2002) Disclosure risk assessment in
perturbative microdata protection, LNCS 2316, 135–152; Hundepool et al. (2012), *Statistical
Disclosure Control*, Wiley, sec. 3.5.

Example
-------
>>> import pandas as pd, dask.dataframe as dd
>>> a = dd.from_pandas(pd.DataFrame({"k": ["x", "y", "x"], "v": [1.0, 2.0, 3.0]}), npartitions=2)
>>> b = dd.from_pandas(pd.DataFrame({"k": ["x", None, "x"], "v": [1.0, 2.0, 4.0]}), npartitions=2)
>>> u = utility_measures(a, b, keys=["k"], numeric=["v"], progress=False)
>>> int(u["suppressions"]["suppressions"].sum()), round(u["il1s"], 4)
(1, 0.2357)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import MeasureError
from ._base import compute

__all__ = ["utility_measures"]


def _part_stats(orig: pd.DataFrame, new: pd.DataFrame, keys: list[str], numeric: list[str],
                ) -> dict[str, Any]:
    if len(orig) != len(new):
        raise MeasureError("utility: the original and treated partitions differ in length")
    out: dict[str, Any] = {"n": len(orig), "supp": {}, "changed": {}, "vc_o": {}, "vc_n": {}}
    for c in keys:
        a, b = orig[c], new[c]
        out["supp"][c] = int((b.isna() & a.notna()).sum())
        out["changed"][c] = int((a.astype(object).fillna("\0na")
                                 != b.astype(object).fillna("\0na")).sum())
        out["vc_o"][c] = a.astype(object).value_counts(dropna=True)
        out["vc_n"][c] = b.astype(object).value_counts(dropna=True)
    if numeric:
        x = orig[numeric].to_numpy(dtype=np.float64, na_value=np.nan)
        y = new[numeric].to_numpy(dtype=np.float64, na_value=np.nan)
        both = ~np.isnan(x) & ~np.isnan(y)
        xz, yz = np.where(both, x, 0.0), np.where(both, y, 0.0)
        out["num"] = {"m": both.sum(axis=0).astype(np.float64),
                      "absdiff": np.abs(xz - yz).sum(axis=0),
                      "changed": ((x != y) & ~(np.isnan(x) & np.isnan(y))).sum(axis=0),
                      "sx": xz.sum(axis=0), "sy": yz.sum(axis=0),
                      "xx": xz.T @ xz, "yy": yz.T @ yz, "cnt": both.astype(float).T @ both}
    return out


def _entropy(vc: pd.Series) -> float:
    p = vc.to_numpy(dtype=np.float64)
    p = p[p > 0] / p.sum() if p.sum() > 0 else p[:0]
    return float(-(p * np.log(p)).sum())


def utility_measures(original: Any, masked: Any, *, keys: Sequence[str] = (),
                     numeric: Sequence[str] = (), progress: bool | None = None) -> dict[str, Any]:
    """Utility of ``masked`` vs ``original`` (two Dask frames with corresponding partitions), in
    one pass: a dict with ``suppressions``, ``records_changed``, ``entropy`` (DataFrames),
    ``il1s`` (float or None), ``moments`` (DataFrame or None) and ``correlation_difference``.
    See the module docstring for the formulas."""
    import dask

    keys, numeric = list(keys), list(numeric)
    if original.npartitions != masked.npartitions:
        raise MeasureError("utility: the original and treated frames have different partitions")
    cols = keys + numeric
    parts = compute(*[dask.delayed(_part_stats)(a, b, keys, numeric) for a, b in
                      zip(original[cols].to_delayed(), masked[cols].to_delayed())],
                    progress=progress)
    n = sum(p["n"] for p in parts)
    supp = pd.DataFrame({"suppressions": [sum(p["supp"][c] for p in parts) for c in keys]},
                        index=pd.Index(keys, name="variable"), dtype="int64")
    changed = [sum(p["changed"][c] for p in parts) for c in keys]
    ent_rows = []
    for c in keys:
        vo = pd.concat([p["vc_o"][c] for p in parts]).groupby(level=0).sum()
        vn = pd.concat([p["vc_n"][c] for p in parts]).groupby(level=0).sum()
        eo, en = _entropy(vo), _entropy(vn)
        ent_rows.append((c, eo, en, en - eo))
    out: dict[str, Any] = {
        "suppressions": supp,
        "entropy": pd.DataFrame(ent_rows, columns=["variable", "original", "current",
                                                   "change"]).set_index("variable"),
        "il1s": None, "moments": None, "correlation_difference": None}
    if numeric:
        tot = {k: sum(p["num"][k] for p in parts) for k in parts[0]["num"]}
        m = tot["m"]
        with np.errstate(invalid="ignore", divide="ignore"):
            mx, my = tot["sx"] / m, tot["sy"] / m
            vx = (np.diag(tot["xx"]) - m * mx ** 2) / (m - 1)
            vy = (np.diag(tot["yy"]) - m * my ** 2) / (m - 1)
            sx, sy = np.sqrt(vx), np.sqrt(vy)
            out["il1s"] = float((tot["absdiff"] / (np.sqrt(2.0) * sx)).sum() / (n * len(numeric)))
            cnt = tot["cnt"]
            cov_x = (tot["xx"] - np.outer(tot["sx"], tot["sx"]) / cnt) / (cnt - 1)
            cov_y = (tot["yy"] - np.outer(tot["sy"], tot["sy"]) / cnt) / (cnt - 1)
            rx = cov_x / np.sqrt(np.outer(np.diag(cov_x), np.diag(cov_x)))
            ry = cov_y / np.sqrt(np.outer(np.diag(cov_y), np.diag(cov_y)))
        out["moments"] = pd.DataFrame({"mean_original": mx, "mean_current": my,
                                       "sd_original": sx, "sd_current": sy},
                                      index=pd.Index(numeric, name="variable"))
        out["correlation_difference"] = float(np.nanmean(np.abs(rx - ry)))
        changed += [int(x) for x in tot["changed"]]
    out["records_changed"] = pd.DataFrame(
        {"changed": changed, "share": [c / n for c in changed]},
        index=pd.Index(cols, name="variable"))
    return out
