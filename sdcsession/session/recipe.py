"""Recipes: a session's scenario as plain JSON data, replayable bit for bit.

A recipe is a dict::

    {"format": "sdcsession-recipe", "format_version": 1, "package_version": "0.1.0",
     "name": "main", "seed": 42,
     "roles": {"keys": [...], "numeric": [...], "weight": "w", ...},
     "data": {"fingerprint": "sha256:…", "n_records": 4580, "columns": [...]},
     "steps": [{"type": "global_recode", "column": "age", "breaks": [...], "seed": 123}, ...]}

Each step is a treatment's ``to_dict()`` plus the ``seed`` of its generator. A hand-written step may
omit ``seed``: it is then derived from the session seed and the step's depth exactly as a session
does (:func:`sdcsession.session.history.step_seed`). Loading parses JSON only: no pickle, no ``eval``.

The data fingerprint is the SHA-256 of the column names, dtypes and pandas' row hashes
(``pandas.util.hash_pandas_object``, index included) of the original data.

Example
-------
>>> import pandas as pd, sdcsession as sdc
>>> df = pd.DataFrame({"sex": ["m", "f", "m"]})
>>> s = sdc.SdcSession(df, keys=["sex"], seed=1).recode("sex", {"m": "x"})
>>> r = s.to_recipe()
>>> sdc.SdcSession.from_recipe(df, r).data.equals(s.data)
True
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..errors import RecipeError, SdcError, SdcWarning
from ..methods.base import TREATMENTS, Treatment, to_jsonable
from ..roles import Roles

if TYPE_CHECKING:  # pragma: no cover
    from .session import SdcSession

__all__ = ["FORMAT", "FORMAT_VERSION", "fingerprint", "to_recipe", "parse_recipe", "load_recipe",
           "save_recipe", "parse_steps"]

FORMAT = "sdcsession-recipe"
FORMAT_VERSION = 1


def fingerprint(df: pd.DataFrame) -> str:
    """SHA-256 fingerprint of a DataFrame (column names, dtypes, row hashes including the index).

    >>> fingerprint(pd.DataFrame({"a": [1, 2]})) == fingerprint(pd.DataFrame({"a": [1, 2]}))
    True
    """
    h = hashlib.sha256()
    h.update(json.dumps([[str(c), str(t)] for c, t in df.dtypes.items()]).encode())
    try:
        rows = pd.util.hash_pandas_object(df, index=True).to_numpy()
    except TypeError:  # unhashable cells (lists): hash their text
        rows = pd.util.hash_pandas_object(df.astype(str), index=True).to_numpy()
    h.update(np.ascontiguousarray(rows).tobytes())
    return "sha256:" + h.hexdigest()


def to_recipe(session: SdcSession) -> dict[str, Any]:
    """The recipe of ``session``: roles, seed, fingerprint and the steps from the root to HEAD."""
    from .._version import __version__

    root = session.history[0].state
    steps = []
    for st in session.history[1:]:
        assert st.treatment is not None
        steps.append({**st.treatment.to_dict(), "seed": st.seed})
    return to_jsonable({
        "format": FORMAT, "format_version": FORMAT_VERSION, "package_version": __version__,
        "name": session.name, "seed": session.seed, "roles": root.roles.to_dict(),
        "options": {"alpha": session.alpha, "k": session.k},
        "data": {"fingerprint": fingerprint(root.data), "n_records": len(root.data),
                 "columns": [str(c) for c in root.data.columns]},
        "steps": steps,
    })


def parse_steps(steps: Any) -> list[tuple[Treatment, int | None]]:
    """Treatments and seeds of a recipe's ``steps``; every problem listed in one RecipeError."""
    if not isinstance(steps, list):
        raise RecipeError(f"steps: expected a list of treatments, got {type(steps).__name__}")
    out: list[tuple[Treatment, int | None]] = []
    problems: list[str] = []
    for i, d in enumerate(steps, 1):
        if not isinstance(d, Mapping):
            problems.append(f"step {i}: expected a mapping with a 'type', got {d!r}")
            continue
        d = dict(d)
        seed = d.pop("seed", None)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            problems.append(f"step {i}: seed must be a non-negative integer, got {seed!r}")
            continue
        try:
            out.append((Treatment.from_dict(d), seed))
        except RecipeError as e:
            problems.append(f"step {i}: {e}")
    if problems:
        raise RecipeError("the recipe has problems:\n" + "\n".join(f"  - {p}" for p in problems))
    return out


def _check_header(recipe: Any) -> None:
    if not isinstance(recipe, Mapping):
        raise RecipeError(f"recipe: expected a mapping (parsed JSON), got {type(recipe).__name__}")
    problems = []
    if recipe.get("format", FORMAT) != FORMAT:
        problems.append(f"format: expected {FORMAT!r}, got {recipe.get('format')!r}")
    v = recipe.get("format_version", FORMAT_VERSION)
    if isinstance(v, bool) or not isinstance(v, int):
        problems.append(f"format_version: expected an integer, got {v!r}")
    elif v > FORMAT_VERSION:
        problems.append(f"format_version {v} is newer than this sdcsession reads ({FORMAT_VERSION}); "
                        "upgrade sdcsession")
    for key in ("roles", "steps"):
        if key not in recipe:
            problems.append(f"missing required entry {key!r}")
    if "roles" in recipe and not isinstance(recipe["roles"], Mapping):
        problems.append("roles: expected a mapping of role -> column(s)")
    seed = recipe.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        problems.append(f"seed: expected a non-negative integer, got {seed!r}")
    if problems:
        raise RecipeError("the recipe has problems:\n" + "\n".join(f"  - {p}" for p in problems))


def parse_recipe(data: pd.DataFrame, recipe: Mapping[str, Any] | str | Path, *,
                 strict: bool = False) -> tuple[Roles, list[tuple[Treatment, int | None]],
                                                int | None, str | None]:
    """Check and parse ``recipe`` (a dict or a JSON path) for replay on ``data``: its roles, its
    steps as (treatment, seed) pairs, the session seed and the scenario name.

    The whole recipe is parsed before anything is applied. A data fingerprint different from the
    recipe's warns (`SdcWarning`), or raises `RecipeError` with ``strict=True``.
    `SdcSession.from_recipe` replays the result.
    """
    if isinstance(recipe, (str, Path)):
        recipe = load_recipe(recipe)
    _check_header(recipe)
    try:
        roles = Roles.from_dict(dict(recipe["roles"]))
    except (SdcError, TypeError) as e:
        raise RecipeError(f"roles: {e}") from e
    steps = parse_steps(recipe["steps"])
    fp = (recipe.get("data") or {}).get("fingerprint")
    if fp is not None and isinstance(data, pd.DataFrame) and fp != fingerprint(data):
        msg = ("the data differ from those the recipe was made on (fingerprint mismatch); "
               "the replay will not reproduce the recorded release")
        if strict:
            raise RecipeError(msg)
        warnings.warn(msg, SdcWarning, stacklevel=3)
    return roles, steps, recipe.get("seed"), recipe.get("name")


def load_recipe(path: str | Path) -> dict[str, Any]:
    """Read a recipe from a JSON file (never executes code)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise RecipeError(f"recipe: cannot read {str(p)!r}: {e.strerror or e}") from e
    try:
        out = json.loads(text)
    except json.JSONDecodeError as e:
        raise RecipeError(f"recipe {str(p)!r} is not valid JSON: {e}") from e
    _check_header(out)
    return out


def save_recipe(session: SdcSession, path: str | Path) -> Path:
    """Write ``session.to_recipe()`` as indented JSON; returns the path."""
    if not isinstance(path, (str, Path)) or not str(path).strip():
        raise RecipeError(f"path: expected a file path (str or pathlib.Path), got {path!r:.60}")
    p = Path(path)
    if p.is_dir():
        raise RecipeError(f"recipe: {str(p)!r} is a directory; give a file name such as "
                          f"{str(p / 'recipe.json')!r}")
    try:
        p.write_text(json.dumps(to_recipe(session), indent=2, ensure_ascii=False) + "\n",
                     encoding="utf-8")
    except OSError as e:
        raise RecipeError(f"recipe: cannot write {str(p)!r}: {e.strerror or e}") from e
    return p


_ = TREATMENTS  # the registry parse_steps resolves types from
