"""The release check's ``k_subsets`` finding (a hook of `release_check`).

When the history leading to HEAD holds a ``local_suppression`` step with ``subsets=``, the
current data must keep every one of those key subsets k-anonymous with its own k (the subsets
of the last such step), counted like ``s.risk.frequencies``: missing key values are wildcards
weighted by the session's alpha; with ``weighted=True`` the sum of the weights Fk must reach k.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...risk.frequencies import frequencies

if TYPE_CHECKING:  # pragma: no cover
    from ..session import SdcSession

__all__ = ["subset_findings"]


def _last_subsets_step(session: SdcSession) -> Any:
    step = session.head
    while step is not None:
        t = step.treatment
        if t is not None and t.type == "local_suppression" and getattr(t, "subsets", None):
            return t
        step = step.parent
    return None


def subset_findings(session: SdcSession) -> list[dict[str, Any]]:
    """One ``block`` finding per key subset of the last ``local_suppression(subsets=...)`` step
    that is no longer k-anonymous (its own k) on the current data."""
    t = _last_subsets_step(session)
    if t is None:
        return []
    data, roles = session.state.data, session.roles
    ks = [t.k] * len(t.subsets) if isinstance(t.k, float) else list(t.k)
    out = []
    for sub, k in zip(t.subsets, ks, strict=True):
        cols = [c for c in sub if c in data.columns]
        if len(cols) != len(sub):
            continue
        weight = roles.weight if t.weighted and roles.weight in data.columns else None
        fr = frequencies(data, cols, weight=weight, alpha=session.alpha)
        bad = int((fr["Fk" if weight else "fk"].to_numpy() < k - 1e-9).sum())
        if bad:
            out.append({"severity": "block", "check": "k_subsets", "variables": cols,
                        "records": bad,
                        "message": f"{bad:,} record(s) violate {k:g}-anonymity on the key "
                                   f"subset {cols} of the last local_suppression(subsets=...) "
                                   "step"})
    return out
