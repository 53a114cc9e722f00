"""AttackView (``s.risk.attacks``): risk measured by attack on the current state vs the original.

The session's original records are the attacked ("training") records and its current data the
release. A control set — records of the same population that are not in the session — is given
as ``control=``; without it each attack's risk is its success rate on the original (an upper
bound). Every figure is a registered measure, cached on the state (the control set is part of
the cache key through a fingerprint of its content), so a comparison or a report reuses it.

Default columns: the role variables (keys, numeric, sensitive) present in both files.
Linkability links the key variables to the other role variables (or the first half of the
columns to the second); inference and TCAP target the first sensitive variable.

``s.risk.attacks(...)`` gives one row per attack (a DataFrame, the panel a workbench shows);
``.singling_out``, ``.linkability``, ``.inference``, ``.tcap`` and ``.dcr`` give each result
object (see `sdcsession.risk.attacks`).

Example
-------
>>> import sdcsession as sdc
>>> df = sdc.datasets.synthetic_survey(1200, seed=1)
>>> s = sdc.SdcSession(df.iloc[:600], keys=["region", "sex", "age5"], numeric=["income"],
...                    sensitive=["health"], seed=1)
>>> t = s.risk.attacks(df.iloc[600:], n_attacks=100)
>>> t.index.tolist()
['singling_out', 'linkability', 'inference']
"""

from __future__ import annotations

import hashlib
from typing import Any

import pandas as pd

from ...errors import ParameterError
from ..measures import register
from ..state import State

__all__ = ["AttackView", "ControlSet", "ATTACKS"]

ATTACKS = ("singling_out", "linkability", "inference")


class ControlSet:
    """A control DataFrame that can be part of a measure's cache key: equal (and hashed) by a
    fingerprint of its columns, dtypes, index and values."""

    def __init__(self, data: pd.DataFrame) -> None:
        if not isinstance(data, pd.DataFrame):
            raise ParameterError(f"control: expected a DataFrame of control records, got "
                                 f"{type(data).__name__}")
        self.data = data
        h = hashlib.sha256()
        h.update(repr([(str(c), str(t)) for c, t in data.dtypes.items()]).encode())
        try:
            h.update(pd.util.hash_pandas_object(data, index=True).to_numpy().tobytes())
        except TypeError:
            raise ParameterError("control: the records hold values that cannot be hashed "
                                 "(lists, dicts)") from None
        self.fingerprint = h.hexdigest()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ControlSet) and other.fingerprint == self.fingerprint

    def __hash__(self) -> int:
        return hash(self.fingerprint)

    def __repr__(self) -> str:
        return f"ControlSet({len(self.data)} records, {self.fingerprint[:12]})"


def _control(control: Any) -> ControlSet | None:
    if control is None or isinstance(control, ControlSet):
        return control
    return ControlSet(control)


def _role_columns(state: State) -> list[str]:
    r = state.original_roles
    both = [c for c in (*r.keys, *r.numeric, *r.sensitive)
            if c in state.original.columns and c in state.data.columns]
    out = list(dict.fromkeys(both))
    if not out:
        out = [c for c in state.original.columns if c in state.data.columns
               and c not in r.identifiers]
    return out


def _groups(state: State, columns: list[str]) -> tuple[list[str], list[str]]:
    keys = [c for c in state.original_roles.keys if c in columns]
    rest = [c for c in columns if c not in keys]
    if keys and rest:
        return keys, rest
    if len(columns) < 2:
        raise ParameterError("aux_cols: linkability needs two groups of columns; the session "
                             f"has {columns}")
    h = len(columns) // 2
    return columns[:h], columns[h:]


def _names(value: Any, what: str) -> list[str]:
    """Column names given to an attack (a name or a list of names), or `ParameterError`."""
    from ...methods.params import param_names

    return list(param_names(_listed(value), what))


def _secret(state: State, secret: str | None) -> str:
    if secret is not None:
        if not isinstance(secret, str):
            raise ParameterError(f"secret: expected the name of the column the attacker "
                                 f"guesses, got {type(secret).__name__}")
        return secret
    sens = [c for c in state.original_roles.sensitive if c in state.data.columns]
    if not sens:
        raise ParameterError("secret: name the column the attacker guesses (the session has no "
                             "sensitive variable)")
    return sens[0]


class AttackView:
    """Attacks on the current state (see the module); callable for the summary table."""

    def __init__(self, state: State) -> None:
        self._state = state

    def __call__(self, control: pd.DataFrame | None = None, *,
                 attacks: Any = ATTACKS, n_attacks: int = 500, n_cols: int = 3,
                 seed: int = 0, confidence: float = 0.95) -> pd.DataFrame:
        """One row per attack (index ``attack``): risk, ci_low, ci_high, attack_rate,
        baseline_rate, control_rate, n_attacks, n_success, n_baseline, n_control.

        ``attacks``: names from ``ATTACKS``; inference is left out when the session has no
        sensitive variable. Defaults as in the module docstring; each attack is cached.
        """
        if isinstance(attacks, str):
            names = [attacks]
        elif isinstance(attacks, (list, tuple)):
            names = list(attacks)
        else:
            raise ParameterError(f"attacks: expected names from {ATTACKS}, got "
                                 f"{type(attacks).__name__}")
        bad = [a for a in names if not isinstance(a, str) or a not in ATTACKS]
        if bad or not names:
            raise ParameterError(f"attacks: expected names from {ATTACKS}, got {attacks!r}")
        rows = []
        for a in names:
            if a == "inference" and not self._state.original_roles.sensitive:
                continue
            kw: dict[str, Any] = {"n_attacks": n_attacks, "seed": seed, "confidence": confidence}
            if a == "singling_out":
                kw["n_cols"] = n_cols
            rows.append(getattr(self, a)(control, **kw).to_dict())
        return pd.DataFrame(rows).set_index("attack") if rows else pd.DataFrame()

    def singling_out(self, control: pd.DataFrame | None = None, *,
                     columns: list[str] | None = None, n_attacks: int = 500, n_cols: int = 3,
                     mode: str = "multivariate", seed: int = 0,
                     confidence: float = 0.95) -> Any:
        """`sdcsession.risk.attacks.singling_out` of the current data (cached)."""
        return self._state.measure("attack.singling_out", control=_control(control),
                                   columns=columns, n_attacks=n_attacks, n_cols=n_cols,
                                   mode=mode, seed=seed, confidence=confidence)

    def linkability(self, control: pd.DataFrame | None = None, *, aux_cols: Any = None,
                    n_attacks: int = 500, n_neighbors: int = 1, seed: int = 0,
                    confidence: float = 0.95) -> Any:
        """`sdcsession.risk.attacks.linkability` of the current data (cached)."""
        return self._state.measure("attack.linkability", control=_control(control),
                                   aux_cols=aux_cols, n_attacks=n_attacks,
                                   n_neighbors=n_neighbors, seed=seed, confidence=confidence)

    def inference(self, control: pd.DataFrame | None = None, *, secret: str | None = None,
                  aux_cols: list[str] | None = None, n_attacks: int = 500,
                  tolerance: float = 0.05, seed: int = 0, confidence: float = 0.95) -> Any:
        """`sdcsession.risk.attacks.inference` of the current data (cached)."""
        return self._state.measure("attack.inference", control=_control(control), secret=secret,
                                   aux_cols=aux_cols, n_attacks=n_attacks, tolerance=tolerance,
                                   seed=seed, confidence=confidence)

    def tcap(self, target: str | None = None, *, keys: list[str] | None = None) -> Any:
        """`sdcsession.risk.attacks.tcap` of ``target`` (default: the first sensitive variable)
        given ``keys`` (default: the key variables), original vs current data (cached)."""
        return self._state.measure("attack.tcap", target=target, keys=keys)

    def dcr(self, holdout: pd.DataFrame | None = None, *,
            columns: list[str] | None = None) -> Any:
        """`sdcsession.risk.attacks.dcr` of the current data against the original (cached)."""
        return self._state.measure("attack.dcr", holdout=_control(holdout), columns=columns)


def _data(c: ControlSet | None) -> pd.DataFrame | None:
    return None if c is None else c.data


def _listed(v: Any) -> Any:
    if isinstance(v, tuple):
        return [_listed(x) for x in v]
    return v


@register("attack.singling_out", "singling-out risk by attack, with a control set")
def _so(state: State, control: Any = None, columns: Any = None, n_attacks: int = 500,
        n_cols: int = 3, mode: str = "multivariate", seed: int = 0,
        confidence: float = 0.95) -> Any:
    from ...risk.attacks import singling_out
    from ...risk.attacks._common import check_count

    cols = _role_columns(state) if columns is None else _names(columns, "columns")
    n_cols = check_count(n_cols, "n_cols")  # more columns than the session has: all of them
    return singling_out(state.original, state.data, _data(control), columns=cols,
                        n_attacks=n_attacks, n_cols=min(n_cols, len(cols)), mode=mode,
                        seed=seed, confidence=confidence)


@register("attack.linkability", "linkability risk by attack, with a control set")
def _link(state: State, control: Any = None, aux_cols: Any = None, n_attacks: int = 500,
          n_neighbors: int = 1, seed: int = 0, confidence: float = 0.95) -> Any:
    from ...risk.attacks import linkability

    groups = _groups(state, _role_columns(state)) if aux_cols is None else _listed(aux_cols)
    return linkability(state.original, state.data, _data(control), aux_cols=groups,
                       n_attacks=n_attacks, n_neighbors=n_neighbors, seed=seed,
                       confidence=confidence)


@register("attack.inference", "inference risk on a secret by attack, with a control set")
def _inf(state: State, control: Any = None, secret: Any = None, aux_cols: Any = None,
         n_attacks: int = 500, tolerance: float = 0.05, seed: int = 0,
         confidence: float = 0.95) -> Any:
    from ...risk.attacks import inference

    sec = _secret(state, secret)
    aux = [c for c in _role_columns(state) if c != sec] if aux_cols is None else _listed(aux_cols)
    return inference(state.original, state.data, _data(control), aux_cols=aux, secret=sec,
                     n_attacks=n_attacks, tolerance=tolerance, seed=seed,
                     confidence=confidence)


@register("attack.tcap", "targeted correct attribution probability (TCAP) and its baseline")
def _tcap(state: State, target: Any = None, keys: Any = None) -> Any:
    from ...risk.attacks import tcap

    ks = [k for k in state.original_roles.keys if k in state.data.columns] if keys is None \
        else _listed(keys)
    return tcap(state.original, state.data, keys=ks, target=_secret(state, target))


@register("attack.dcr", "distance to closest record and NNDR of the current data (Gower)")
def _dcr(state: State, holdout: Any = None, columns: Any = None) -> Any:
    from ...risk.attacks import dcr

    cols = _role_columns(state) if columns is None else _listed(columns)
    return dcr(state.original, state.data, _data(holdout), columns=cols)


def cached_attacks(state: State) -> dict[str, Any]:
    """The attack and model-utility results already computed on ``state`` (nothing is run):
    measure name -> the most recent result of that measure."""
    out: dict[str, Any] = {}
    for key, value in list(state.cache.items()):
        name = key[0] if isinstance(key, tuple) and key else None
        if isinstance(name, str) and (name.startswith("attack.") or name == "utility.ml") \
                and value is not None:
            out[name] = value
    return out

