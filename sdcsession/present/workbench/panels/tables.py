"""The tables of the Views tab, as DataFrames (tested) and escaped HTML (shown).

- `suppressions_table`: suppressions per key variable (``s.utility.suppressions``: count and
  percent of the values observed in the original and missing now);
- `risky_records`: the records whose individual risk r_i (Benedetti–Franconi,
  ``s.risk.individual``) exceeds a threshold, riskiest first;
- `suda2_tables`: SUDA2 (Manning, Haglin & Keane 2008; ``s.risk.suda2()``): the number of
  records whose DIS-SUDA score exceeds each threshold (as sdcMicro prints it), the contribution
  of every key variable, and the records with the highest DIS score;
- `l_diversity_tables`: distinct, entropy and recursive (c = 2) l-diversity of one sensitive
  variable within the key combinations (Machanavajjhala et al. 2007;
  `sdcsession.risk.l_diversity`): the six-number summaries, the records with fewer than ``l``
  distinct values, and the least diverse key combinations;
- `comparison_table`: every scenario of the tree and the original, as
  `sdcsession.present.compare.compare` shows them.

Every value reaches the page through ``DataFrame.to_html(escape=True)`` (`html_table`).

Missing values: a missing key value counts as the session's alpha says (risk) or as a category
of its own (l-diversity, SUDA2); a missing sensitive value is ignored by l-diversity.

Example
-------
>>> import sdcsession as sdc
>>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(100, seed=1), keys=["region", "sex"], seed=1)
>>> bool(risky_records(s, 0.05)["risk"].min() > 0.05)
True
>>> "<script>" in html_table(pd.DataFrame({"a": ["<script>"]}))
False
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ....errors import ParameterError

__all__ = ["DIS_THRESHOLDS", "html_table", "suppressions_table", "risky_records",
           "suda2_tables", "l_diversity_tables", "sensitive_options", "comparison_table"]

#: the DIS-SUDA thresholds of sdcMicro's print of a SUDA2 result
DIS_THRESHOLDS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)


def html_table(df: pd.DataFrame, *, index: bool = True, height: int = 260) -> str:
    """``df`` as escaped HTML in a scrolling box."""
    return (f"<div style='max-height:{int(height)}px;overflow:auto'>"
            + df.to_html(escape=True, border=0, index=index, na_rep="(missing)",
                         float_format=lambda x: f"{x:.4g}")
            + "</div>")


def suppressions_table(session: Any) -> pd.DataFrame:
    """Suppressions per key variable: count and percent (``s.utility.suppressions``)."""
    return session.utility.suppressions.round(2)


def risky_records(session: Any, threshold: float, n: int = 50) -> pd.DataFrame:
    """The records whose individual risk r_i exceeds ``threshold`` (riskiest first, at most
    ``n``): their key values and ``risk`` (Benedetti–Franconi, ``s.risk.individual``).

    Missing values: a missing key value matches as a wildcard weighted by the session's alpha
    (as in ``s.risk``); it is shown as "(missing)".
    """
    t = _share(threshold, "threshold")
    risk = session.risk.individual
    data = session.state.data[list(session.roles.keys)]
    out = data.assign(risk=risk.to_numpy())
    out = out[out["risk"] > t]
    return out.sort_values("risk", ascending=False, kind="stable").head(int(n))


def _share(v: Any, name: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
            or not 0 <= float(v) <= 1:
        raise ParameterError(f"{name}: expected a number from 0 to 1, got {v!r}")
    return float(v)


def suda2_tables(session: Any, dis_fraction: float = 0.01, n: int = 20) -> dict[str, pd.DataFrame]:
    """SUDA2 of the HEAD's keys (``s.risk.suda2(dis_fraction)``, cached per state):
    ``thresholds`` (records with a DIS-SUDA score above each of `DIS_THRESHOLDS`),
    ``contributions`` (percent of the total SUDA score per key variable) and ``records``
    (the ``n`` records with the highest DIS score: key values, SUDA score, DIS score).

    Missing values: a missing key value is never part of a minimal sample unique
    (`sdcsession.risk.suda2`).
    """
    r = session.risk.suda2(dis_fraction=float(dis_fraction))
    dis = r.dis_score.to_numpy(dtype=float)
    thresholds = pd.DataFrame({"DIS-SUDA score above": [f"> {t:g}" for t in DIS_THRESHOLDS],
                               "records": [int((dis > t).sum()) for t in DIS_THRESHOLDS]})
    contributions = pd.DataFrame({"contribution (%)": r.contributions.astype(float)})
    contributions.index.name = "key variable"
    keys = list(session.roles.keys)
    top = session.state.data[keys].assign(suda_score=r.score.to_numpy(), dis_score=dis)
    top = top[top["suda_score"] > 0].sort_values(["dis_score", "suda_score"],
                                                  ascending=False, kind="stable").head(int(n))
    return {"thresholds": thresholds, "contributions": contributions, "records": top}


def sensitive_options(session: Any) -> list[str]:
    """Columns l-diversity can be measured on: the sensitive role first, then every other
    column that is not a key variable, the household id or the weight (identifiers of records
    or households are never a sensitive attribute)."""
    r = session.roles
    keys = set(r.keys) | {c for c in (getattr(r, "household", None), getattr(r, "weight", None))
                          if c is not None}
    sens = [c for c in getattr(r, "sensitive", ()) or () if c not in keys]
    rest = [str(c) for c in session.state.data.columns if c not in keys and c not in sens]
    return [*sens, *rest]


def l_diversity_tables(session: Any, sensitive: str, l: int = 2,  # noqa: E741 - the l of l-diversity
                       n: int = 20) -> dict[str, Any]:
    """l-diversity of ``sensitive`` within the key combinations of the HEAD: ``summary``
    (min, quartiles, mean, max of distinct, entropy and recursive l over the records),
    ``violations`` (records with fewer than ``l`` distinct values) and ``classes`` (the ``n``
    least diverse key combinations: key values, records, distinct l); Machanavajjhala et al.
    (2007), recursive l with c = 2.

    Missing values: a missing sensitive value is ignored, a missing key value is a category of
    its own (`sdcsession.risk.l_diversity`).
    """
    from ....risk import l_diversity, l_diversity_summary

    if sensitive not in sensitive_options(session):
        raise ParameterError(f"sensitive: expected a column that is not a key variable, got "
                             f"{sensitive!r}")
    if isinstance(l, bool) or not isinstance(l, (int, np.integer)) or l < 1:
        raise ParameterError(f"l: expected an integer >= 1, got {l!r}")
    keys = list(session.roles.keys)
    data = session.state.data
    cols = [f"{sensitive}_{m}" for m in ("distinct", "entropy", "recursive")]
    ld = session.risk.l_diversity
    if ld is None or cols[0] not in ld.columns:  # not a sensitive role: measured here
        ld = l_diversity(data, keys, sensitive, c=2)
    ld = ld[cols]
    summary = l_diversity_summary(ld, c=2).table.reset_index()
    distinct = ld[cols[0]].to_numpy()
    classes = data[keys].assign(**{"distinct l": distinct})
    classes = (classes.groupby(keys, dropna=False, observed=True, sort=False)
               .agg(records=("distinct l", "size"), **{"distinct l": ("distinct l", "min")})
               .reset_index().sort_values(["distinct l", "records"], kind="stable")
               .head(int(n)))
    return {"summary": summary, "violations": int((distinct < int(l)).sum()),
            "classes": classes.reset_index(drop=True)}


def comparison_table(scenarios: list[Any]) -> pd.DataFrame:
    """Every scenario and the original side by side: ``compare(*scenarios, original=True)``."""
    from ...compare import compare

    return pd.DataFrame(compare(*scenarios, original=True))
