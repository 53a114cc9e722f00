"""The tables of a session (a mixin of `SdcSession` through the tables family's methods):
``tabulate`` makes frequency and magnitude tables of the current data with the cell-key method
(``sdcsession.tables``), ``record_keys`` tells which keys a state uses, ``tabulations`` lists
the tables made.

A table is a view: it changes nothing. Each call is logged on the session's tree with the step
it was made at, so a report can list the tables made in the session (never their original
values).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ...errors import ParameterError, RoleError, TreatmentError

__all__ = ["TablesView"]


class TablesView:
    """Tables of the current state with the session's record keys."""

    def record_keys(self) -> dict[str, Any]:
        """The record keys of the current state: ``{"column", "kind", "modulus", "digits"}``
        (the last `add_record_keys` step on the path to HEAD). Raises `RoleError` when there
        are none (call `add_record_keys` first) or their column was removed."""
        head = self._head  # type: ignore[attr-defined]
        for step in reversed(head.path()):
            t = step.treatment
            if t is not None and getattr(t, "type", "") == "record_keys":
                if t.name not in head.state.data.columns:
                    raise RoleError(f"record keys: the key column {t.name!r} was removed; "
                                    "add record keys again (add_record_keys)")
                return {"column": t.name, "kind": t.kind, "modulus": t.range,
                        "digits": t.digits}
        raise RoleError("record keys: this session has none; call add_record_keys() first "
                        "(a seeded step: the same keys for every table and branch)")

    def tabulate(self, rows: Sequence[str] | str, columns: Sequence[str] | str | None = None, *,
                 by: Sequence[str] | str | None = None, value: str | None = None,
                 weighted: bool = False, method: str = "ckm", ptable: Any = None,
                 threshold: int | None = None, margins: str = "microdata", empty: bool = True,
                 rules: Mapping[str, Any] | None = None, top_k: int = 1, share: float = 0.05,
                 epsilon: Any = 1.0, mu_c: float = 0.0, noise: Any = None,
                 total: Any = "Total") -> pd.DataFrame:
        """A frequency table (or, with ``value``, a magnitude table) of the current data,
        perturbed with the cell-key method using the session's record keys (see
        `sdcsession.tables.tabulate.tabulate` for the algorithm and the columns).

        ``ptable``: a `PTable`, the parameters of `sdcsession.tables.build_ptable` as a mapping
        (``{"D": 3, "V": 1, "js": 2}``), or a ptable file in the ONS or ``cellKey`` layout;
        default ``build_ptable(D=3, V=1)``. ``weighted=True`` uses the session's weight.
        ``rules``: primary rules (``{"frequency": 3, "dominance": (1, 85), "p": 10}``).

        The table holds internal columns (``records``, ``original``, ``cell_key``): publish
        ``sdcsession.tables.published(table)``. Each call is logged in `tabulations`.
        """
        from ...methods.params import check_bool
        from ...tables import build_ptable, key_numerators, published, read_ptable, tabulate
        from ...tables.ptable import PTable

        state = self._head.state  # type: ignore[attr-defined]
        if state.distributed:
            raise TreatmentError("tabulate: tables are made from in-memory sessions; compute the "
                                 "Dask frame first (SdcSession(dask_frame.compute(), ...))")
        weighted = check_bool("weighted", weighted)
        if isinstance(ptable, Mapping):
            allowed = {"D", "V", "js", "pstay", "mono"}
            if set(ptable) - allowed:
                raise ParameterError(f"ptable: unknown parameter(s) {sorted(set(ptable) - allowed)}"
                                     f"; expected some of {sorted(allowed)}")
            ptable = build_ptable(**ptable)
        elif isinstance(ptable, (str, Path)):
            ptable = read_ptable(ptable)
        elif ptable is not None and not isinstance(ptable, PTable):
            raise ParameterError(f"ptable: expected a PTable, a mapping of D, V, js or a file, "
                                 f"got {type(ptable).__name__}")
        weights = None
        if weighted:
            weights = self.roles.weight  # type: ignore[attr-defined]
            if weights is None:
                raise RoleError("weighted: the session has no weight variable (weight=...)")
        info = self.record_keys()
        data = state.data
        keys = key_numerators(data[info["column"]], info["kind"], info["modulus"], info["digits"])
        table = tabulate(data, rows, columns, by=by, keys=keys, modulus=info["modulus"],
                         value=value, weights=weights, method=method, ptable=ptable,
                         threshold=threshold, margins=margins, empty=empty,
                         rules=dict(rules) if isinstance(rules, Mapping) else rules, top_k=top_k,
                         share=share, epsilon=epsilon, mu_c=mu_c, noise=noise, total=total)
        log = getattr(self._tree, "tabulations", None)  # type: ignore[attr-defined]
        if log is None:
            log = self._tree.tabulations = []  # type: ignore[attr-defined]
        spec = dict(table.attrs["tabulation"])
        log.append({"scenario": self.name, "step": self._head.id,  # type: ignore[attr-defined]
                    **spec, "cells": len(table),
                    "sensitive": int(table["sensitive"].sum()) if "sensitive" in table else None,
                    "created": time.strftime("%Y-%m-%dT%H:%M:%S"), "table": published(table)})
        return table

    @property
    def tabulations(self) -> pd.DataFrame:
        """Every table made with `tabulate` in this session's tree (all scenarios), one row per
        call: the scenario and step it was made at, its specification, its number of cells and
        sensitive cells, and ``table``: what may be published of it."""
        log = getattr(self._tree, "tabulations", None) or []  # type: ignore[attr-defined]
        cols = ["scenario", "step", "rows", "columns", "by", "value", "weights", "method",
                "ptable", "noise", "threshold", "margins", "modulus", "rules", "total", "cells",
                "sensitive", "created", "table"]
        return pd.DataFrame(log, columns=cols)
