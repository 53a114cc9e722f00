"""Per-variable information loss of a treated Dask frame against its original, from counts,
exact sums and frequency tables accumulated over aligned partitions in two passes, with the
same values as the in-memory measures of `sdcsession.session.views.utility_view.UtilitySummary`.

For key variables: suppressions (values missing now that were observed,
`sdcsession.utility.categorical.measures.suppressions`), and the Shannon entropy (natural log;
missing values counted in n) of each key's distribution, original and now
(`sdcsession.utility.entropy.entropy_change`). For every role variable: records changed
(`sdcsession.utility.categorical.measures.records_changed`, the same rule per record). For
numeric variables (`sdcsession.utility.continuous.exact`, exact sums: the same doubles as in
memory):

* IL1s = (1 / (n·p)) Σ_j Σ_i |x_ij − x'_ij| / (√2 · S_j), S_j the standard deviation of the
  observed original values of column j (Yancey, Winkler & Creecy 2002; published form);
* means and standard deviations of each column, original and now (observed values);
* the correlation discrepancy: the mean absolute difference of the pairwise-complete correlation
  matrices over the pairs of variables (those with two observed values in each file).

The partitions of the two frames must correspond (a session's states always do).

Reference: Yancey, W. E., Winkler, W. E. & Creecy, R. H. (2002) Disclosure risk assessment in
perturbative microdata protection, LNCS 2316, 135–152; Hundepool et al. (2012), *Statistical
Disclosure Control*, Wiley, sec. 3.5.

Missing values: as the in-memory measures (see each).

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


def _part_stats(orig: pd.DataFrame, new: pd.DataFrame, keys: list[str], changed: list[str],
                numeric: list[str]) -> dict[str, Any]:
    from ..utility.categorical.measures import _changed_vector
    from ..utility.continuous.exact import first_parts

    if len(orig) != len(new):
        raise MeasureError("utility: the original and treated partitions differ in length")
    out: dict[str, Any] = {"n": len(orig), "supp": {}, "changed": {}, "vc_o": {}, "vc_n": {}}
    for c in keys:
        a, b = orig[c], new[c]
        out["supp"][c] = int((b.isna() & a.notna()).sum())
        out["vc_o"][c] = a.astype(object).value_counts(dropna=True)
        out["vc_n"][c] = b.astype(object).value_counts(dropna=True)
    for c in changed:  # the in-memory rule (numbers as numbers, else values), record by record
        out["changed"][c] = int(_changed_vector(orig[c], new[c]).sum())
    if numeric:
        out["num"] = first_parts(orig[numeric].to_numpy(dtype=np.float64, na_value=np.nan),
                                 new[numeric].to_numpy(dtype=np.float64, na_value=np.nan))
    return out


def _part_second(orig: pd.DataFrame, new: pd.DataFrame, numeric: list[str], mx: np.ndarray,
                 mz: np.ndarray) -> dict[str, Any]:
    from ..utility.continuous.exact import second_parts

    return second_parts(orig[numeric].to_numpy(dtype=np.float64, na_value=np.nan),
                        new[numeric].to_numpy(dtype=np.float64, na_value=np.nan), mx, mz,
                        cross=True)


def _entropy(vc: pd.Series, n: int) -> float:
    from ..utility.entropy import entropy_from_frequencies

    return entropy_from_frequencies(vc.to_numpy(dtype=np.float64), n)


def _numeric_results(parts: list[dict[str, Any]], second: list[dict[str, Any]],
                     numeric: list[str]) -> dict[str, Any]:
    from ..risk.exact_moments import combine_pairs, covariance
    from ..utility.continuous.exact import (
        discrepancy_from_parts,
        il1s_from_parts,
        means,
        observed_counts,
        select,
    )

    first = [p["num"] for p in parts]
    out: dict[str, Any] = {}
    try:
        out["il1s"] = il1s_from_parts(first, second, numeric)
    except MeasureError as e:  # raised when the figure is read, as in memory
        out["il1s"] = e
    no, nz = observed_counts(first)
    keep = [j for j in range(len(numeric)) if no[j] >= 2 and nz[j] >= 2]
    out["correlation_discrepancy"] = None
    if len(keep) >= 2:
        try:
            out["correlation_discrepancy"] = discrepancy_from_parts(
                [select(s, keep) for s in second], [numeric[j] for j in keep])
        except MeasureError as e:
            out["correlation_discrepancy"] = e
    mx, mz = means(first)
    sx = np.sqrt(np.diag(covariance(combine_pairs([s["x"] for s in second]))))
    sz = np.sqrt(np.diag(covariance(combine_pairs([s["z"] for s in second]))))
    out["moments"] = pd.DataFrame({"mean_original": mx, "mean_current": mz,
                                   "sd_original": sx, "sd_current": sz},
                                  index=pd.Index(numeric, name="variable"))
    return out


def utility_measures(original: Any, masked: Any, *, keys: Sequence[str] = (),
                     numeric: Sequence[str] = (), changed: Sequence[str] | None = None,
                     progress: bool | None = None) -> dict[str, Any]:
    """Utility of ``masked`` vs ``original`` (two Dask frames whose partitions hold the same
    records, paired partition by partition: `sdcsession.scale._pairing`), in
    two passes: a dict with ``suppressions``, ``records_changed`` (of the ``changed`` columns;
    default keys and numeric), ``entropy`` (DataFrames), ``il1s`` (float, None, or the
    `MeasureError` the in-memory measure raises), ``moments`` (DataFrame or None) and
    ``correlation_discrepancy`` (float, None or a `MeasureError`). See the module docstring for
    the formulas."""
    from ..utility.categorical.measures import suppressions_frame
    from ..utility.continuous.exact import means
    from ._pairing import paired_calls, paired_partitions

    keys, numeric = list(keys), list(numeric)
    changed = keys + numeric if changed is None else list(changed)
    cols = list(dict.fromkeys(keys + numeric + changed))
    what = "utility (the original and the treated frame)"
    pairs = paired_partitions([original[cols], masked[cols]], what=what, error=MeasureError)
    parts = compute(*paired_calls(_part_stats, pairs, keys, changed, numeric, what=what,
                                  error=MeasureError), progress=progress)
    n = sum(p["n"] for p in parts)
    supp = np.array([sum(p["supp"][c] for p in parts) for c in keys], dtype=np.int64)
    ent_o, ent_n = [], []
    for c in keys:
        ent_o.append(_entropy(pd.concat([p["vc_o"][c] for p in parts]).groupby(level=0).sum(), n))
        ent_n.append(_entropy(pd.concat([p["vc_n"][c] for p in parts]).groupby(level=0).sum(), n))
    eo, en = np.array(ent_o, dtype=np.float64), np.array(ent_n, dtype=np.float64)
    loss = eo - en
    out: dict[str, Any] = {
        "suppressions": suppressions_frame(keys, supp, n),
        "entropy": pd.DataFrame(
            {"entropy_original": eo, "entropy_masked": en, "loss": loss,
             "relative_loss": np.divide(loss, eo, out=np.zeros_like(loss), where=eo > 0)},
            index=pd.Index(keys, name="variable")),
        "il1s": None, "moments": None, "correlation_discrepancy": None}
    if numeric and n:
        mx, mz = means([p["num"] for p in parts])
        second = compute(*paired_calls(_part_second, pairs, numeric, mx, mz, what=what,
                                       error=MeasureError), progress=progress)
        out.update(_numeric_results(list(parts), list(second), numeric))
    ch = np.array([sum(p["changed"][c] for p in parts) for c in changed], dtype=np.int64)
    out["records_changed"] = pd.DataFrame(
        {"changed": ch, "share": ch / n if n else np.zeros(len(changed))},
        index=pd.Index(changed, name="variable"))
    return out
