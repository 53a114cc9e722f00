"""The release check's hook for utility contracts: a failed declared contract is a finding.

`contract_findings` evaluates the session's declared contracts (`SdcSession.declare_contracts`)
on the current state and returns one finding per failed contract (check ``contract``, the
contract's severity, its variables, its measured value, bound and detail).

Example
-------
>>> import sdcsession as sdc
>>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(200, seed=1), keys=["region", "sex"],
...                    seed=1)
>>> contract_findings(s)
[]
"""

from __future__ import annotations

from typing import Any

__all__ = ["contract_findings"]


def _variables(c: Any) -> list[str]:
    out: list[str] = []
    for name in ("column", "by"):
        v = getattr(c, name, None)
        if isinstance(v, str):
            out.append(v)
    out.extend(getattr(c, "columns", ()) or ())
    return out


def contract_findings(session: Any) -> list[dict[str, Any]]:
    """Findings (rows of the release check) for the declared contracts that fail on the
    session's current state."""
    from ..contracts import declared_contracts
    from ..views.contract_checks import check_state

    contracts = declared_contracts(session)
    if not contracts:
        return []
    table = check_state(session.state, contracts)
    out = []
    for c, r in zip(contracts, table.itertuples()):
        if r.passed:
            continue
        out.append({"severity": r.severity, "check": "contract", "variables": _variables(c),
                    "records": 0,
                    "message": f"contract {r.contract!r} is not met: value {r.value:.6g} above "
                               f"its bound {r.bound:.6g} ({r.detail})"})
    return out
