"""Session methods for projects (a mixin of `SdcSession`): `save_project`, `open_project`,
`apply_to` and `scenarios`.

Example
-------
>>> import os, tempfile, pandas as pd, sdcsession as sdc
>>> df = pd.DataFrame({"sex": ["m", "f", "m", "f"], "region": ["a", "a", "b", "b"]})
>>> s = sdc.SdcSession(df, keys=["sex", "region"], seed=1).recode("region", {"b": "a"})
>>> alt = s.branch("alt").undo().recode("sex", {"f": "m"})
>>> path = s.save_project(os.path.join(tempfile.mkdtemp(), "survey.sdcproj"))
>>> s2 = sdc.open_project(path, data=df)
>>> sorted(s2.scenarios), s2.head.id, s2.data.equals(s.data)
(['alt', 'main'], 1, True)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["ProjectMixin"]


class ProjectMixin:
    """Session methods for projects: save the tree, open it, carry a branch to new data."""

    def save_project(self, path: str | Path, *, include_data: bool = False,
                     overwrite: bool = False) -> Path:
        """Save the whole session tree to ``path`` (a project file, e.g. ``survey.sdcproj``).

        Everything that makes the scenarios is saved: every step of every branch (treatment,
        parameters, seed, roles, notes, time taken), the live scenarios sharing the tree (their
        names, HEADs, redo lists and watched measures), the session seed, options and roles, and
        the fingerprint of the original data (records, column names and types, categories,
        SHA-256 of the content, per-column hashes) and of each step's data.

        Format: a ZIP archive holding ``project.json`` (versioned: ``format_version``; see
        `sdcsession.session.projects.manifest`) and, with ``include_data=True``, a Parquet copy
        of the original data (``data/original.parquet``), sealed by a SHA-256 checksum. No
        pickle, nothing executable. Without the copy, `open_project` needs ``data=`` or the
        recorded source file.

        The file is written to a temporary file and renamed into place (atomic); an existing
        ``path`` is replaced only with ``overwrite=True`` and never the session's source data
        (`DataFileError`). Returns the path written.

        Missing values: the data are stored as they are (missing values included); nothing is
        computed on them.

        Example
        -------
        >>> import os, tempfile, pandas as pd, sdcsession as sdc
        >>> s = sdc.SdcSession(pd.DataFrame({"a": list("xyxy")}), keys=["a"], seed=1)
        >>> p = s.save_project(os.path.join(tempfile.mkdtemp(), "p.sdcproj"), include_data=True)
        >>> sdc.open_project(p).original.equals(s.original)
        True
        """
        from .store import save_project

        return save_project(self, path, include_data=include_data,  # type: ignore[arg-type]
                            overwrite=overwrite)

    @classmethod
    def open_project(cls, path: str | Path, data: Any = None) -> Any:
        """Open a project saved by `save_project`: the session that was current when it was
        saved, sharing its tree with every saved scenario (``s.scenarios``).

        The original data are ``data=`` (a pandas or Dask DataFrame, or the path of a data
        file read with `sdcsession.read_data`, or of a Parquet dataset directory read on Dask;
        they must be the data the project was made on: a `RecipeError` names what differs — records, columns, types,
        categories or the columns whose values differ), else the embedded copy, else the
        recorded source (a Dask session's Parquet dataset reopens on Dask).

        Steps are replayed lazily: opening loads and checks the original data only; a step's
        data are computed the first time they are asked for (``s.data``, a measure, ...), with
        the recorded treatment and seed, and checked against the fingerprint recorded at saving
        (bit for bit: a difference is a `RecipeError` naming the step).

        A damaged or hostile file (truncated, a flipped bit, a format number this version does
        not read, an unknown treatment type, a member too large) is a `RecipeError` naming the
        problem; nothing in the file is executed or imported.

        Missing values: as in the saved session (the data are not changed).

        Example
        -------
        >>> import os, tempfile, pandas as pd, sdcsession as sdc
        >>> df = pd.DataFrame({"a": list("xyxy")})
        >>> s = sdc.SdcSession(df, keys=["a"], seed=1).recode("a", {"y": "x"})
        >>> p = s.save_project(os.path.join(tempfile.mkdtemp(), "p.sdcproj"))
        >>> s2 = sdc.open_project(p, data=df)
        >>> s2.state.ready, s2.data["a"].tolist(), s2.state.ready
        (False, ['x', 'x', 'x', 'x'], True)
        """
        from .store import open_project

        return open_project(cls, path, data)  # type: ignore[arg-type]

    def apply_to(self, new_data: Any, branch: str | None = None,
                 strict: bool = False) -> tuple[Any, Any]:
        """Replay a branch's steps on ``new_data`` (the next wave of a survey) and report what
        no longer fits: returns ``(session, drift)``.

        ``branch``: the name of a scenario of this tree (default: this session); its steps from
        the original to its HEAD are applied to ``new_data`` with the same treatments,
        parameters and seeds. See `sdcsession.session.projects.waves.apply_to` for the drift
        report (new categories, values outside recode intervals or top codes, hierarchies that
        do not cover the new values, PRAM matrices missing a category, steps that fail, and the
        risk and utility measures of both waves side by side). ``strict=True``: any drift raises
        `DriftError` (a `RecipeError`) listing it.

        Missing values: missing values are never reported as new categories or out of range.

        Example
        -------
        >>> import pandas as pd, sdcsession as sdc
        >>> s = sdc.SdcSession(pd.DataFrame({"a": list("xyxy")}), keys=["a"], seed=1)
        >>> s2, drift = s.recode("a", {"y": "x"}).apply_to(pd.DataFrame({"a": list("xyz")}))
        >>> drift.loc[drift["kind"] == "new_category", "values"].tolist()
        [['z']]
        """
        from .waves import apply_to

        return apply_to(self, new_data, branch=branch, strict=strict)

    @property
    def scenarios(self) -> dict[str, Any]:
        """The live scenarios sharing this session's tree, by name (this session among them).

        Example
        -------
        >>> import pandas as pd, sdcsession as sdc
        >>> s = sdc.SdcSession(pd.DataFrame({"a": list("xy")}), keys=["a"], seed=1)
        >>> b = s.branch("b")
        >>> list(s.scenarios)
        ['main', 'b']
        """
        tree = self._tree  # type: ignore[attr-defined]
        live = [r() for r in tree.sessions]
        return {x.name: x for x in live if x is not None}

    @property
    def branches(self) -> dict[str, Any]:
        """Alias of `scenarios`: the live sessions sharing this tree, by name."""
        return self.scenarios
