"""Record keys and cell keys of the cell-key method, and the `RecordKeys` treatment that attaches
record keys to the microdata as a seeded, replayable step.

Two conventions, both supported:

- ``kind="integer"``: each record draws an integer key uniformly from ``0 .. modulus − 1``
  (the ONS ``cell-key-perturbation`` package and τ-ARGUS: ``modulus = 256``, keys 0..255). The
  cell key of a cell is the sum of its records' keys modulo ``modulus``.
- ``kind="uniform"``: each record draws a key uniformly from [0, 1) with ``digits`` decimals
  (the ``cellKey`` R package, ``ck_generate_rkeys``: 8 digits). The cell key is the fractional
  part of the sum of the keys. Internally the keys are the integers ``key·10^digits`` and the
  cell key is their sum modulo ``10^digits``: sums are exact, so the same cell gets the same key
  in every table whatever the order of its records.

In both cases the cell key as a fraction of the key range, ``u = cell key / modulus``, is uniform
on [0, 1) and selects the perturbation in the ptable (`sdcsession.tables.ptable.PTable.lookup`).

The key column gets the role *identifiers*: it is never released (it would let anyone undo the
perturbation) and no treatment changes it. As a step it survives undo, branches and recipes.

References: Fraser, B. & Wooton, J. (2006); Thompson, G., Broadfoot, S. & Elazar, D. (2013)
Methodology for the automatic confidentialisation of statistical outputs from remote servers at
the Australian Bureau of Statistics; ONS (2023) cell-key-perturbation package.

Example
-------
>>> import numpy as np, pandas as pd
>>> df = pd.DataFrame({"sex": ["m", "f", "m"]})
>>> keys = draw_record_keys(3, np.random.default_rng(1), kind="integer", modulus=256)
>>> keys.dtype.kind, bool(((keys >= 0) & (keys < 256)).all())
('i', True)
>>> cell_keys(np.array([0, 0, 1]), np.array([200, 100, 7]), 256, 2).tolist()
[44, 7]
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd

from ..errors import ParameterError, RoleError, TreatmentError
from ..methods.base import Result, Treatment, check_choice, check_int
from ..roles import Roles

__all__ = ["RecordKeys", "draw_record_keys", "key_numerators", "cell_keys", "KEY_KINDS"]

KEY_KINDS = ("integer", "uniform")


def draw_record_keys(n: int, rng: np.random.Generator, *, kind: str = "integer",
                     modulus: int = 256, digits: int = 8) -> np.ndarray:
    """``n`` record keys drawn from ``rng``: integers ``0..modulus−1`` or uniforms in [0, 1) with
    ``digits`` decimals (see the module docstring).

    Missing values: none are produced.

    Example
    -------
    >>> k = draw_record_keys(4, np.random.default_rng(0), kind="uniform", digits=3)
    >>> bool(((k >= 0) & (k < 1)).all()), bool(np.allclose(k * 1000, np.round(k * 1000)))
    (True, True)
    """
    n = check_int("n", n, 0, 10**10)
    if not isinstance(rng, np.random.Generator):
        raise ParameterError(f"rng: expected a numpy Generator (np.random.default_rng(seed)), "
                             f"got {type(rng).__name__}")
    kind = check_choice("kind", kind, KEY_KINDS)
    modulus = check_int("modulus", modulus, 2, 2**31)
    digits = check_int("digits", digits, 1, 12)
    if kind == "integer":
        return rng.integers(0, modulus, size=n, dtype=np.int64)
    scale = 10**digits
    return rng.integers(0, scale, size=n, dtype=np.int64) / scale


def key_numerators(keys: Any, kind: str, modulus: int, digits: int = 8) -> np.ndarray:
    """The record keys as integers ``0..modulus−1`` (uniform keys times ``10^digits``), checked.

    Raises `RoleError` for missing keys or keys outside the range.

    Missing values: refused (every record of a table needs its key).

    Example
    -------
    >>> key_numerators(pd.Series([0.25, 0.5]), "uniform", 100, 2).tolist()
    [25, 50]
    """
    s = pd.Series(keys) if not isinstance(keys, pd.Series) else keys
    if s.isna().any():
        raise RoleError(f"record keys: {int(s.isna().sum())} record(s) have no key; "
                        "add the keys before any step that adds records")
    x = s.to_numpy(dtype=float)
    if kind == "uniform":
        x = np.round(x * 10**digits)
    if not np.all(x == np.round(x)) or x.min() < 0 or x.max() >= modulus:
        raise RoleError(f"record keys: expected {kind} keys in the key range "
                        f"({'0..' + str(modulus - 1) if kind == 'integer' else '[0, 1)'})")
    return x.astype(np.int64)


def cell_keys(cells: np.ndarray, keys: np.ndarray, modulus: int, n_cells: int) -> np.ndarray:
    """The cell key of each cell: the sum of its records' integer keys modulo ``modulus``.

    ``cells`` gives each record's cell index (0..n_cells−1). The sums are exact (float64 holds
    every integer below 2⁵³: up to 9·10⁷ records with 8-digit keys).

    Missing values: none (the caller drops records outside the table).

    Example
    -------
    >>> cell_keys(np.array([1, 1, 0]), np.array([250, 10, 3]), 256, 3).tolist()
    [3, 4, 0]
    """
    sums = np.bincount(cells, weights=keys.astype(np.float64), minlength=n_cells)
    return np.mod(sums.astype(np.int64), modulus)


@attrs.frozen
class RecordKeys(Treatment):
    """Attach record keys to every record as a new column with the role *identifiers*.

    Parameters: ``name`` the new key column's name (default ``"record_key"``), ``kind``
    (``"integer"`` or ``"uniform"``), ``modulus`` (integer keys: the key range, keys
    ``0..modulus−1``; default 256 as the ONS and τ-ARGUS), ``digits`` (uniform keys: decimals,
    default 8 as ``cellKey``). The keys are drawn from the step's seeded generator, so a recipe
    replays them exactly. See the module docstring for the two conventions.

    Missing values: every record gets a key.

    Example
    -------
    >>> import pandas as pd, numpy as np
    >>> from sdcsession.roles import Roles
    >>> r = RecordKeys().apply(pd.DataFrame({"a": [1, 2]}), Roles(keys=("a",)),
    ...                        np.random.default_rng(3))
    >>> r.roles.identifiers, r.notes["modulus"]
    (('record_key',), 256)
    """

    type: ClassVar[str] = "record_keys"
    random: ClassVar[bool] = True

    name: str = "record_key"
    kind: str = "integer"
    modulus: int = 256
    digits: int = 8

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ParameterError(f"name: expected the new key column's name, got {self.name!r:.60}")
        check_choice("kind", self.kind, KEY_KINDS)
        check_int("modulus", self.modulus, 2, 2**31)
        check_int("digits", self.digits, 1, 12)

    @property
    def range(self) -> int:
        """The modulus of the integer key sums (``10^digits`` for uniform keys)."""
        return self.modulus if self.kind == "integer" else 10**self.digits

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        if self.name in data.columns:
            raise TreatmentError(f"record_keys: the data already have a column {self.name!r}; "
                                 "give another name=")

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        keys = draw_record_keys(len(data), rng, kind=self.kind, modulus=self.modulus,
                                digits=self.digits)
        out = data.copy(deep=False)
        out[self.name] = keys
        new_roles = attrs.evolve(roles, identifiers=(*roles.identifiers, self.name))
        return Result(out, new_roles, {"column": self.name, "kind": self.kind,
                                       "modulus": self.range, "records": len(data)})
