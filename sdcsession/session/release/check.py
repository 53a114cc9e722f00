"""Safe release: the released data, the release check and the export that runs it, for pandas
and Dask sessions alike.

`release_data` is the current state without the direct identifiers and without the categories
that only records changed by a treatment used (`sdcsession.session.release.categories`), in a seeded random record
order unless ``shuffle=False`` (`sdcsession.session.release.order`). `release_check` lists what
stands between the current state and a safe release, one row per finding:

| check | severity | finding |
|---|---|---|
| ``untreated`` | block | the state is the untreated original |
| ``identifier`` | block | a column with no role whose observed values are all distinct, or a named index with distinct values |
| ``linked`` | block | a linked variable still holds original values in records whose key value was changed or blanked |
| ``household_structure`` | block | a treated key whose original value follows from the household grouping while the household id is released |
| ``undeclared_linked`` | block | a column with no role that determines the original value of a treated key, in records whose key was changed or blanked |
| ``k_anonymity`` | block | records whose key combination occurs fewer than k times (fk < k, missing keys as wildcards) |
| ``k_subsets`` | block | records below their subset's k on a key subset of the last ``local_suppression(subsets=...)`` step (missing keys weighted by the session's alpha) |
| ``wildcards`` | warn | records that reach k only because other records' missing key values count as wildcards (the session's alpha > 0): below k when only complete records and records with the same missing keys count (alpha = 0) |
| ``risk`` | warn | records whose individual risk exceeds ``risk_threshold`` |
| ``derived`` | warn | a numeric column with no role that is a function of a perturbed variable's original values and gives them closely (correlation ratio eta² >= 0.99²), or correlates with them at abs(r) >= 0.99 |
| ``order`` | warn | with ``shuffle=False``: the record order follows a key, the household id or a record id |
| ``bound`` | warn | a numeric column with no role that is a lower (upper) bound of a treated numeric variable's original values, record by record, and lies above (below) its released value in some records |
| ``weights`` | warn | weights released unchanged while some weight value is shared by fewer than k records |
| ``numeric`` | warn | numeric variables released unperturbed |
| ``no_role`` | warn | columns with no role, released as they are |
| ``household_id`` | warn (block after record swapping) | the household id released with its original values (no `new_ids` step) |
| ``contract`` | block (or the contract's severity) | a declared utility contract is not met (`SdcSession.declare_contracts`) |

The structural findings are computed in `sdcsession.session.release.structure` (the same code
for pandas and Dask); `docs/concepts/release.md` gives each one's rationale and fix.

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

import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...errors import ParameterError, ReleaseError, SdcWarning, user_stacklevel
from ...methods.base import check_number
from .aligned import same_values
from .categories import without_vanished
from .contracts import contract_findings
from .order import order_seed, shuffled
from .rounds import compute_for, gather, run, values
from .structure import structure_rounds
from .subsets import subset_findings

if TYPE_CHECKING:  # pragma: no cover
    from ..session import SdcSession

__all__ = ["release_data", "release_check", "export", "FINDING_COLUMNS", "export_options",
           "record_export", "enforce_release_check"]

FINDING_COLUMNS = ["severity", "check", "variables", "records", "message"]


def release_data(session: SdcSession, shuffle: bool = False) -> pd.DataFrame:
    """The current data without the direct identifiers (never part of a release) and without
    the categories that only treated-away records used (`without_vanished`); with ``shuffle``
    in the release order of `order_seed` and with a fresh index 0..n-1."""
    data = session.state.data
    drop = [c for c in session.roles.identifiers if c in data.columns]
    out = data.drop(columns=drop) if drop else data.copy(deep=False)
    out = without_vanished(out, session.original)
    return shuffled(out, order_seed(session)) if shuffle else out


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
    """`ParameterError` unless every export flag (``force``, ``overwrite``, ``shuffle``) is True
    or False."""
    for name, flag in flags.items():
        if not isinstance(flag, (bool, np.bool_)):
            raise ParameterError(f"{name}: expected True or False, got {flag!r}")


_same = same_values  # the name the Dask session used


def release_check(session: SdcSession, *, k: int | None = None, risk_threshold: float = 0.1,
                  shuffle: bool = True) -> pd.DataFrame:
    """Findings on the current state (see the module table), blocking ones first; the same
    findings on a pandas and on a Dask session.

    Parameters
    ----------
    session: the session whose HEAD would be released.
    k: the k of k-anonymity and of the ``weights`` finding (default: the session's k).
    risk_threshold: individual risk above which a record is reported (warn).
    shuffle: whether the file is released in random order (the export default); with False the
        ``order`` finding checks the order of the records.
    """
    k = session.k if k is None else k
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k < 2**31:
        raise ParameterError(f"k: expected an integer >= 1, got {k!r}")
    thr = check_number("risk_threshold", risk_threshold, 0, 1, lo_open=True)
    check_export_flags(shuffle=shuffle)
    state, roles = session.state, session.roles
    n = state.n
    out: list[dict[str, Any]] = []
    if session.head.parent is None:
        out.append(_finding("block", "untreated", [], n,
                            "the state is the untreated original: apply treatments first"))
    released = [c for c in state.data.columns if c not in roles.identifiers]
    keys = [c for c in roles.keys if c in state.data.columns]
    viol = session.risk.k_violations(k) if keys else 0
    above = (session.risk.individual > thr).sum() if keys else None
    # the structure's counts and the risk count in rounds: on Dask one compute per round
    structure, got = run(gather(structure_rounds(session, released, k=int(k),
                                                 shuffle=bool(shuffle)),
                                values(above) if keys else values()),
                         compute_for(state.data))
    out += structure
    if keys:
        if viol:
            out.append(_finding("block", "k_anonymity", keys, viol,
                                f"{viol:,} record(s) violate {k}-anonymity on the key variables"))
        wild = _wildcard_only(session, int(k), viol)
        if wild:
            out.append(_finding(
                "warn", "wildcards", keys, wild,
                f"{wild:,} record(s) reach {k}-anonymity only because missing key values of "
                f"other records count as wildcards (alpha = {session.alpha:g}, sdcMicro's "
                f"rule): counting only the complete records and those with the same missing keys "
                f"(alpha = 0) they match fewer than {k}, so an intruder who sets the blanked "
                f"records aside still singles them out; coarser keys (global recoding) before "
                f"the suppression protect them without wildcards, or suppress in a session "
                f"created with alpha=0 (far more values blanked)"))
        (above,) = got
        if int(above):
            out.append(_finding("warn", "risk", keys, int(above),
                                f"{int(above):,} record(s) have an individual risk above "
                                f"{thr:g}"))
    roled = set(roles.columns())
    ids = {c for f in out if f["check"] == "identifier" for c in f["variables"]}
    free = [c for c in released if c not in roled and c not in ids]
    if free:
        out.append(_finding("warn", "no_role", free, n,
                            f"column(s) with no role are released as they are: {free}"))
    hid = roles.household
    if hid and hid in released and not _renumbered(session, hid):
        hh = _household_step(session)
        out.append(_finding(
            "block" if hh else "warn", "household_id", [hid], n,
            f"the household id {hid!r} is released with its original values: ids assigned in "
            "the survey's order (often by area) give away where a household lives and link it "
            "to other files" + (f"; after {hh} they give the households' original values "
                                "back (an id next to its neighbours' ids tells their area)"
                                if hh else "")
            + f"; replace them (s.new_ids(), random ids that keep the households) or "
            f"remove the column (s.remove({hid!r}))"))
    out.extend(subset_findings(session))
    out.extend(contract_findings(session))
    return findings_table(out)


def _wildcard_only(session: SdcSession, k: int, violations: int) -> int:
    """Records with fk >= k under the session's alpha that fall below k at alpha = 0.

    sdcMicro's frequency counts (`sdcsession.risk.frequencies`) let a record with missing keys
    match every value there, with weight alpha when its missing keys differ from the counted
    record's. fk is non-decreasing in alpha, so the records below k at alpha = 0 include those
    below k at the session's alpha (``violations``), and the difference counts the records
    whose k-anonymity rests on other records' wildcards: e.g. a complete record whose
    combination is unique among the complete records and that only records blanked on some of
    its keys make k-anonymous. 0 when the session's alpha is 0 or no key value is missing
    (then fk does not depend on alpha). The same on pandas and Dask (the session's risk view
    at alpha = 0).

    Example
    -------
    >>> import pandas as pd
    >>> import sdcsession as sdc
    >>> df = pd.DataFrame({"a": ["x", "x", "y", None, None], "b": ["p", "q", "p", "p", "q"]})
    >>> s = sdc.SdcSession(df, keys=["a", "b"], seed=1)
    >>> _wildcard_only(s, 2, s.risk.k_violations(2))  # (x, p), (x, q), (y, p): unique if complete
    3
    """
    state = session.state
    if float(session.alpha) == 0.0 or not _keys_missing(session):
        return 0
    strict = type(session.risk)(state, 0.0).k_violations(k)
    return int(strict) - int(violations)


def _keys_missing(session: SdcSession) -> bool:
    """Whether some key value of HEAD is missing (on Dask: from the frequency model the risk
    counts already built, no extra pass)."""
    state, keys = session.state, [c for c in session.roles.keys if c in session.state.data]
    if state.distributed:
        return bool(state.measure("dask.frequency_model", alpha=session.alpha).plan.has_missing)
    return bool(state.data[keys].isna().to_numpy().any())


def _household_step(session: SdcSession) -> str | None:
    """``"record_swap"`` when a step on HEAD's path swaps records (whole households move to
    another area, so an id among its neighbours' ids gives the original area back), else None
    (decided from the history: the same on pandas and Dask)."""
    for step in session.head.path():
        if getattr(step.treatment, "type", None) == "record_swap":
            return "record_swap"
    return None


def _renumbered(session: SdcSession, column: str) -> bool:
    """Whether a step on HEAD's path gave ``column`` new ids (`NewIds`), so that its released
    values are not the original ones (decided from the history: the same on pandas and Dask)."""
    return any(getattr(step.treatment, "type", None) == "new_ids"
               and getattr(step.treatment, "column", None) == column
               for step in session.head.path())


def export_options(session: SdcSession, force: Any, overwrite: Any, shuffle: Any,
                   protect: Any) -> list[Any]:
    """Check the flags and ``protect``; return the protected paths (``protect`` and the file
    the session's data were read from)."""
    check_export_flags(force=force, overwrite=overwrite, shuffle=shuffle)
    ok = (str, bytes, os.PathLike)
    if protect is not None and not isinstance(protect, ok) and (
            not isinstance(protect, (list, tuple)) or not all(isinstance(p, ok) for p in protect)):
        raise ParameterError(f"protect: expected a path or a list of paths, got {protect!r:.60}")
    protected = [protect] if isinstance(protect, ok) else list(protect or [])
    source = getattr(session._tree, "source", None)
    if source:
        protected.append(source)
    return protected


def record_export(session: SdcSession, path: Any, shuffle: bool, findings: pd.DataFrame) -> None:
    """Remember what the last export wrote (``session.last_export``): the path, whether the
    records were shuffled and the order seed, HEAD's step id and the findings' checks."""
    session._last_export = {  # type: ignore[attr-defined]
        "path": str(path), "step": session.head.id, "shuffled": bool(shuffle),
        "order_seed": order_seed(session) if shuffle else None,
        "findings": [f"{r.severity}:{r.check}" for r in findings.itertuples()]}


def export(session: SdcSession, path: Any, *, force: bool = False, overwrite: bool = False,
           shuffle: bool = True, protect: Any = None, k: int | None = None,
           risk_threshold: float = 0.1, **kw: Any) -> Path:
    """Run `release_check`, then write `release_data` to ``path`` (see the module docstring):
    in the seeded random order of `order_seed` unless ``shuffle=False``."""
    from ...io import write_data
    from ...io.formats import format_of
    from ...io.write import check_writer_options

    protected = export_options(session, force, overwrite, shuffle, protect)
    if not isinstance(path, (str, Path)) or not str(path):
        raise ParameterError(f"path: expected a file path (str or pathlib.Path), got {path!r}")
    fmt = format_of(path, kw.get("format"))  # a bad extension fails before the check runs
    check_writer_options(fmt, {k: v for k, v in kw.items() if k != "format"})
    findings = release_check(session, k=k, risk_threshold=risk_threshold, shuffle=shuffle)
    enforce_release_check(findings, force)
    out = release_data(session)
    original = session.original
    untouched = [c for c in out.columns if c in original.columns and out[c].equals(original[c])]
    if shuffle:  # the row labels stay for the writer (records' extended missing values)
        out = shuffled(out, order_seed(session), keep_index=True)
    keep = {k: v for k, v in original.attrs.items() if k != "source"}
    out.attrs = {**keep, "untouched": untouched}  # value labels keep the file's codes
    written = write_data(out, path, protect=protected or None, overwrite=overwrite, **kw)
    record_export(session, written, shuffle, findings)
    return written


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
                      SdcWarning, stacklevel=user_stacklevel())
