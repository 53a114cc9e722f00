"""Safe release: the released data, the release check and the export that runs it.

`release_data` is the current state without the direct identifiers. `release_check` lists what
stands between the current state and a safe release, one row per finding:

| check | severity | finding |
|---|---|---|
| ``untreated`` | block | the state is the untreated original |
| ``identifier`` | block | a column with no role holds a distinct value for every record (a direct identifier or a record id that links back to the original file); declare it with ``identifiers=`` (then it is dropped) or remove it |
| ``linked`` | block | a linked variable still holds original values in records whose key value was recoded or suppressed (it reveals what the treatment hid) |
| ``k_anonymity`` | block | records whose key combination occurs fewer than k times (fk < k, missing keys as wildcards) |
| ``k_subsets`` | block | records below their subset's k on a key subset of the last ``local_suppression(subsets=...)`` step (missing keys weighted by the session's alpha) |
| ``risk`` | warn | records whose individual risk exceeds ``risk_threshold`` |
| ``numeric`` | warn | numeric variables released unperturbed |
| ``no_role`` | warn | columns with no role, released as they are |
| ``contract`` | block (or the contract's severity) | a declared utility contract is not met (`SdcSession.declare_contracts`) |

`export` runs the check: ``block`` findings stop it with a `ReleaseError` listing them (unless
``force=True``), ``warn`` findings are issued together as one `SdcWarning`; it writes
`release_data`, never over an existing file unless ``overwrite=True`` and never over the file the
data were read from.

Example
-------
>>> import sdcsession as sdc
>>> df = sdc.datasets.synthetic_survey(300, seed=1)
>>> s = sdc.SdcSession(df, keys=["region", "sex", "age5"], seed=1)
>>> sorted(set(s.release_check()["check"]) & {"untreated", "k_anonymity"})
['k_anonymity', 'untreated']
>>> "k_anonymity" in set(s.local_suppression(k=3).release_check()["check"])
False
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...errors import ParameterError, ReleaseError, SdcWarning
from ...methods.base import check_number
from .contracts import contract_findings
from .subsets import subset_findings

if TYPE_CHECKING:  # pragma: no cover
    from ..session import SdcSession

__all__ = ["release_data", "release_check", "export", "FINDING_COLUMNS"]

FINDING_COLUMNS = ["severity", "check", "variables", "records", "message"]


def release_data(session: SdcSession) -> pd.DataFrame:
    """The current data without the direct identifiers (never part of a release)."""
    data = session.state.data
    drop = [c for c in session.roles.identifiers if c in data.columns]
    return data.drop(columns=drop) if drop else data.copy(deep=False)


def _finding(severity: str, check: str, variables: list[str], records: int,
             message: str) -> dict[str, Any]:
    return {"severity": severity, "check": check, "variables": list(variables),
            "records": int(records), "message": message}


def findings_table(findings: list[dict[str, Any]]) -> pd.DataFrame:
    """The release check's findings as a table, ``block`` findings first (stable order)."""
    table = pd.DataFrame(findings, columns=FINDING_COLUMNS)
    order = table["severity"].map({"block": 0, "warn": 1})
    return table.iloc[np.argsort(order.to_numpy(), kind="stable")].reset_index(drop=True)


def check_export_flags(**flags: Any) -> None:
    """`ParameterError` unless every export flag (``force``, ``overwrite``) is True or False."""
    for name, flag in flags.items():
        if not isinstance(flag, (bool, np.bool_)):
            raise ParameterError(f"{name}: expected True or False, got {flag!r}")


def _same(a: pd.Series, b: pd.Series) -> np.ndarray:
    """Per record: equal values (both missing counts as equal)."""
    av, bv = a.to_numpy(dtype=object), b.to_numpy(dtype=object)
    both_na = pd.isna(av) & pd.isna(bv)
    with np.errstate(invalid="ignore"):
        eq = np.asarray(av == bv, dtype=bool)
    return eq | both_na


def release_check(session: SdcSession, *, k: int | None = None,
                  risk_threshold: float = 0.1) -> pd.DataFrame:
    """Findings on the current state (see the module table), blocking ones first.

    Parameters
    ----------
    session: the session whose HEAD would be released.
    k: the k of k-anonymity (default: the session's k, 3 unless given at construction).
    risk_threshold: individual risk above which a record is reported (warn).
    """
    k = session.k if k is None else k
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k < 2**31:
        raise ParameterError(f"k: expected an integer >= 1, got {k!r}")
    check_number("risk_threshold", risk_threshold, 0, 1, lo_open=True)
    state, roles = session.state, session.roles
    data, original = state.data, state.original
    n = state.n
    out: list[dict[str, Any]] = []
    if session.head.parent is None:
        out.append(_finding("block", "untreated", [], n,
                            "the state is the untreated original: apply treatments first"))
    # columns that identify records directly
    released = release_data(session)
    roled = set(roles.columns())
    for c in released.columns:
        if c in roled or n < 2:
            continue
        s = released[c]
        if s.notna().all() and s.nunique(dropna=True) == n and not pd.api.types.is_float_dtype(s):
            out.append(_finding(
                "block", "identifier", [c], n,
                f"{c!r} has a distinct value for every record (a direct identifier or record id); "
                "declare it with identifiers=[...] (dropped on export) or remove it"))
    # linked variables finer than their treated key
    for key, cols in roles.linked:
        if key not in data.columns or key not in original.columns:
            continue
        changed = ~_same(data[key], original[key])
        if not changed.any():
            continue
        for c in cols:
            if c not in data.columns or c not in original.columns:
                continue
            leak = changed & _same(data[c], original[c]) & original[c].notna().to_numpy()
            m = int(leak.sum())
            if m:
                out.append(_finding(
                    "block", "linked", [key, c], m,
                    f"{c!r} still holds the original values of {m:,} record(s) whose key {key!r} "
                    f"was recoded or suppressed: treat {c!r} accordingly (it reveals {key!r})"))
    keys = [c for c in roles.keys if c in data.columns]
    if keys:
        viol = session.risk.k_violations(k)
        if viol:
            out.append(_finding("block", "k_anonymity", keys, viol,
                                f"{viol:,} record(s) violate {k}-anonymity on the key variables"))
        above = int((session.risk.individual.to_numpy() > risk_threshold).sum())
        if above:
            out.append(_finding("warn", "risk", keys, above,
                                f"{above:,} record(s) have an individual risk above "
                                f"{risk_threshold:g}"))
    for c in roles.numeric:
        if c in data.columns and c in original.columns and _same(data[c], original[c]).all():
            out.append(_finding("warn", "numeric", [c], n,
                                f"numeric variable {c!r} is released unperturbed"))
    free = [c for c in released.columns if c not in roled and
            not any(f["check"] == "identifier" and f["variables"] == [c] for f in out)]
    if free:
        out.append(_finding("warn", "no_role", free, n,
                            f"column(s) with no role are released as they are: {free}"))
    out.extend(subset_findings(session))
    out.extend(contract_findings(session))
    return findings_table(out)


def export(session: SdcSession, path: Any, *, force: bool = False, overwrite: bool = False,
           protect: Any = None, k: int | None = None, risk_threshold: float = 0.1,
           **kw: Any) -> Path:
    """Run `release_check`, then write `release_data` to ``path`` (see the module docstring)."""
    from ...io import write_data
    from ...io.formats import format_of

    check_export_flags(force=force, overwrite=overwrite)
    if not isinstance(path, (str, Path)) or not str(path):
        raise ParameterError(f"path: expected a file path (str or pathlib.Path), got {path!r}")
    format_of(path, kw.get("format"))  # a bad extension fails before the check runs
    if protect is not None and not isinstance(protect, (str, Path)) and (
            not isinstance(protect, (list, tuple))
            or not all(isinstance(p, (str, Path)) for p in protect)):
        raise ParameterError(f"protect: expected a path or a list of paths, got {protect!r:.60}")
    enforce_release_check(release_check(session, k=k, risk_threshold=risk_threshold), force)
    protected = [p for p in ([protect] if isinstance(protect, (str, Path)) else list(protect or []))]
    source = getattr(session._tree, "source", None)
    if source:
        protected.append(source)
    out = release_data(session)
    original = session.original
    untouched = [c for c in out.columns if c in original.columns and out[c].equals(original[c])]
    keep = {k: v for k, v in original.attrs.items() if k != "source"}
    out.attrs = {**keep, "untouched": untouched}  # value labels keep the file's codes
    return write_data(out, path, protect=protected or None, overwrite=overwrite, **kw)


def enforce_release_check(findings: pd.DataFrame, force: bool) -> None:
    """What an export does with the release check's findings: ``block`` findings stop it with a
    `ReleaseError` listing them (unless ``force``), the others (all of them with ``force``) are
    issued as one `SdcWarning`."""
    block = findings[findings["severity"] == "block"]
    if len(block) and not force:
        raise ReleaseError(
            "export refused: the release check found problems that block a release "
            "(fix them, or pass force=True to export anyway):\n"
            + "\n".join(f"  - [{r.check}] {r.message}" for r in block.itertuples()))
    warn = findings[findings["severity"] == "warn"] if not force else findings
    if len(warn):
        warnings.warn("release check: " + "; ".join(f"[{r.check}] {r.message}"
                                                      for r in warn.itertuples()),
                      SdcWarning, stacklevel=4)
