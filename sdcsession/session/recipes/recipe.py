"""Recipes: a session's scenario as plain JSON data, replayable bit for bit.

A recipe is a dict::

    {"format": "sdcsession-recipe", "format_version": 2, "package_version": "0.1.0",
     "name": "main", "seed": 42,
     "roles": {"keys": [...], "numeric": [...], "weight": "w", ...},
     "data": {"fingerprint": "sha256:…", "n_records": 4580, "columns": [...]},
     "steps": [{"type": "global_recode", "column": "age", "breaks": [...], "seed": 123}, ...]}

Each step is a treatment's ``to_dict()`` plus the ``seed`` of its generator. A hand-written step may
omit ``seed``: it is then derived from the session seed and the step's depth exactly as a session
does (`sdcsession.session.history.step_seed`). Loading parses JSON only: no pickle, no ``eval``.

Parameters keep their types (format 2, `sdcsession.methods.base.encode_value`): a mapping with
non-text keys is ``{"$map": [[key, value], ...]}``, a missing value ``{"$missing": "nan" | "NA" |
"NaT"}``, an infinite float ``{"$float": "inf" | "-inf"}``; everything else is plain JSON. Format 1
(before these tags: mapping keys stored as text, NaN as ``null``) is still read, as it always was.
A recipe without ``format_version`` is read as the current format.

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

from ...errors import ParameterError, RecipeError, SdcError, SdcWarning, user_stacklevel
from ...methods.base import TREATMENTS, Treatment, to_jsonable
from ...roles import Roles

if TYPE_CHECKING:  # pragma: no cover
    from ..session import SdcSession

__all__ = ["FORMAT", "FORMAT_VERSION", "OLDEST_FORMAT_VERSION", "MAX_DEPTH", "MAX_SEED",
           "fingerprint", "to_recipe",
           "parse_recipe", "load_recipe", "save_recipe", "parse_steps"]

FORMAT = "sdcsession-recipe"
FORMAT_VERSION = 2
#: the oldest format this version reads
OLDEST_FORMAT_VERSION = 1


def fingerprint(df: pd.DataFrame) -> str:
    """SHA-256 fingerprint of a DataFrame (column names, dtypes, row hashes including the index).

    >>> fingerprint(pd.DataFrame({"a": [1, 2]})) == fingerprint(pd.DataFrame({"a": [1, 2]}))
    True
    """
    from ...scale._base import is_dask_frame

    if is_dask_frame(df):  # partition by partition, the same digest
        from ...scale.parquet import fingerprint as dask_fingerprint

        return dask_fingerprint(df)
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
    from ..._version import __version__

    root = session.history[0].state
    steps = []
    for st in session.history[1:]:
        assert st.treatment is not None
        steps.append({**st.treatment.to_dict(), "seed": to_jsonable(st.seed)})
    header = to_jsonable({
        "format": FORMAT, "format_version": FORMAT_VERSION, "package_version": __version__,
        "name": session.name, "seed": session.seed, "roles": root.roles.to_dict(),
        "options": {"alpha": session.alpha, "k": session.k},
        "data": {"fingerprint": fingerprint(root.data), "n_records": root.n,
                 "columns": [str(c) for c in root.data.columns]},
    })
    contracts = getattr(session._tree, "contracts", ())
    if contracts:  # declared utility contracts (absent otherwise: older recipes unchanged)
        header["contracts"] = [c.to_dict() for c in contracts]
    return {**header, "steps": steps}


def parse_steps(steps: Any,
                format_version: int = FORMAT_VERSION) -> list[tuple[Treatment, int | None]]:
    """Treatments and seeds of a recipe's ``steps``; every problem listed in one RecipeError.

    ``format_version`` 1 takes parameters as plain JSON; 2 decodes the typed values
    (`sdcsession.methods.base.decode_value`)."""
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
            out.append((Treatment.from_dict(d, tagged=format_version >= 2), seed))
        except RecipeError as e:
            problems.append(f"step {i}: {e}")
    if problems:
        raise RecipeError("the recipe has problems:\n" + "\n".join(f"  - {p}" for p in problems))
    return out


#: recipes nest a few levels (steps, parameters, PRAM matrices); deeper input is refused before
#: any recursive code (json, freeze, to_jsonable) sees it
MAX_DEPTH = 64
#: recipe files larger than this are refused before they are parsed
MAX_BYTES = 64 * 2**20
#: seeds are unsigned 64-bit integers (numpy's generators accept them; sessions draw below 2**63)
MAX_SEED = 2**64 - 1


def _depth_problem(obj: Any, limit: int = MAX_DEPTH) -> str | None:
    """A message when ``obj`` nests containers deeper than ``limit`` (iterative, no recursion)."""
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        x, d = stack.pop()
        if isinstance(x, Mapping):
            children: Any = x.values()
        elif isinstance(x, (list, tuple)):
            children = x
        else:
            continue
        if d > limit:
            return f"recipe: nested more than {limit} levels deep; a recipe is a few levels deep"
        stack.extend((c, d + 1) for c in children)
    return None


def _seed_problem(seed: Any, what: str) -> str | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        text = repr(seed) if not isinstance(seed, int) or seed.bit_length() < 80 else \
            f"an integer of {len(str(seed))} digits"
        return f"{what}: expected an integer in [0, 2**64 - 1], got {text}"
    return None


def _check_header(recipe: Any) -> None:
    if not isinstance(recipe, Mapping):
        raise RecipeError(f"recipe: expected a mapping (parsed JSON), got {type(recipe).__name__}")
    deep = _depth_problem(recipe)
    if deep:
        raise RecipeError(deep)
    problems = []
    bad_keys = [k for k in recipe if not isinstance(k, str)]
    if bad_keys:
        problems.append(f"entries must be named by strings, got {bad_keys[:5]!r}")
    if recipe.get("format", FORMAT) != FORMAT:
        problems.append(f"format: expected {FORMAT!r}, got {recipe.get('format')!r}")
    v = recipe.get("format_version", FORMAT_VERSION)
    if isinstance(v, bool) or not isinstance(v, int):
        problems.append(f"format_version: expected an integer, got {v!r}")
    elif v > FORMAT_VERSION:
        problems.append(f"format_version {v} is newer than this sdcsession reads ({FORMAT_VERSION}); "
                        "upgrade sdcsession")
    elif v < OLDEST_FORMAT_VERSION:
        problems.append(f"format_version: expected {OLDEST_FORMAT_VERSION} to {FORMAT_VERSION}, "
                        f"got {v}")
    for key in ("roles", "steps"):
        if key not in recipe:
            problems.append(f"missing required entry {key!r}")
    if "roles" in recipe and not isinstance(recipe["roles"], Mapping):
        problems.append("roles: expected a mapping of role -> column(s)")
    seed = _seed_problem(recipe.get("seed"), "seed")
    if seed:
        problems.append(seed)
    steps = recipe.get("steps")
    if isinstance(steps, list):
        for i, d in enumerate(steps, 1):
            msg = _seed_problem(d.get("seed"), f"step {i}: seed") if isinstance(d, Mapping) \
                else None
            if msg:
                problems.append(msg)
    name = recipe.get("name")
    if name is not None and not isinstance(name, str):
        problems.append(f"name: expected a string, got {type(name).__name__}")
    data = recipe.get("data")
    if data is not None and not (isinstance(data, Mapping) and isinstance(
            data.get("fingerprint", ""), str)):
        problems.append("data: expected a mapping with a 'fingerprint' string")
    opts = recipe.get("options")
    if opts is not None and not isinstance(opts, Mapping):
        problems.append(f"options: expected a mapping with alpha and k, got {type(opts).__name__}")
    if problems:
        raise RecipeError("the recipe has problems:\n" + "\n".join(f"  - {p}" for p in problems))


def _steps(steps: Any, format_version: int = FORMAT_VERSION) -> list[tuple[Treatment, int | None]]:
    """`parse_steps`, with any failure to build a treatment from the recipe a `RecipeError`."""
    try:
        return parse_steps(steps, format_version)
    except SdcError:
        raise
    except (TypeError, ValueError, AttributeError, KeyError, OverflowError, RecursionError) as e:
        # a value a treatment cannot take (an unhashable label, a huge number): the recipe is bad
        raise RecipeError(f"steps: {type(e).__name__}: {e}") from e


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
    except (SdcError, TypeError, ValueError, AttributeError, KeyError) as e:
        raise RecipeError(f"roles: {e}") from e
    steps = _steps(recipe["steps"], recipe.get("format_version", FORMAT_VERSION))
    fp = (recipe.get("data") or {}).get("fingerprint")
    if fp is not None and isinstance(data, pd.DataFrame) and fp != fingerprint(data):
        msg = ("the data differ from those the recipe was made on (fingerprint mismatch); "
               "the replay will not reproduce the recorded release")
        if strict:
            raise RecipeError(msg)
        warnings.warn(msg, SdcWarning, stacklevel=user_stacklevel())
    return roles, steps, recipe.get("seed"), recipe.get("name")


def _path(path: Any, what: str, error: type[SdcError] = RecipeError) -> Path:
    if not isinstance(path, (str, Path)) or not str(path).strip() or "\x00" in str(path):
        raise error(f"{what}: expected a file path (str or pathlib.Path), got {path!r}"[:300])
    return Path(path)


def load_recipe(path: str | Path) -> dict[str, Any]:
    """Read a recipe from a JSON file (never executes code).

    The file must be UTF-8 JSON (a byte-order mark is allowed) holding a recipe mapping nested at
    most `MAX_DEPTH` levels whose steps all build treatments; anything else raises `RecipeError`
    naming the file and the problem (nothing is applied: the data are not needed).

    Example
    -------
    >>> import pandas as pd, sdcsession as sdc, tempfile, os
    >>> s = sdc.SdcSession(pd.DataFrame({"a": list("xyx")}), keys=["a"], seed=3)
    >>> path = os.path.join(tempfile.mkdtemp(), "r.json")
    >>> load_recipe(s.save_recipe(path))["seed"]
    3
    """
    p = _path(path, "recipe")
    try:
        with p.open("rb") as f:  # bounded: a device or a huge file is not read to the end
            raw = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise RecipeError(f"recipe: cannot read {str(p)!r}: {e.strerror or e}") from e
    if len(raw) > MAX_BYTES:
        raise RecipeError(f"recipe {str(p)!r}: larger than {MAX_BYTES // 2**20} MiB; a recipe is "
                          "a small JSON file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise RecipeError(
            f"recipe {str(p)!r} is not UTF-8 text (byte {e.start}: {raw[e.start:e.start + 1]!r}); "
            "recipes are JSON files written by save_recipe") from None
    try:
        out = json.loads(text)
    except json.JSONDecodeError as e:
        raise RecipeError(f"recipe {str(p)!r} is not valid JSON: {e}") from e
    except RecursionError:
        raise RecipeError(f"recipe {str(p)!r}: nested too deeply to be a recipe") from None
    except ValueError as e:  # e.g. an integer with more digits than Python converts
        raise RecipeError(f"recipe {str(p)!r}: {e}") from None
    _check_header(out)
    _steps(out["steps"], out.get("format_version", FORMAT_VERSION))
    return out


def save_recipe(session: SdcSession, path: str | Path, *, overwrite: bool = False) -> Path:
    """Write ``session.to_recipe()`` as indented UTF-8 JSON; returns the path.

    ``path`` must be a file path (`ParameterError` otherwise) whose directory exists (`RecipeError`
    otherwise); an existing file is replaced only with ``overwrite=True`` and the file the
    session's data were read from never (`DataFileError`). All is checked before anything is
    written.
    """
    from ...io.write import write_text

    p = _path(path, "path", ParameterError)
    if p.is_dir():
        raise RecipeError(f"path: {str(p)!r} is a directory; give a file name, e.g. recipe.json")
    if not p.parent.is_dir():
        raise RecipeError(f"path: the directory {str(p.parent)!r} does not exist")
    text = json.dumps(to_recipe(session), indent=2, ensure_ascii=False) + "\n"
    return write_text(p, text, overwrite=overwrite,
                      protect=getattr(session._tree, "source", None))


_ = TREATMENTS  # the registry parse_steps resolves types from
