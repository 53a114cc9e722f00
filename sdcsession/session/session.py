"""SdcSession: the one mutable handle (HEAD) over an immutable history tree of states.

>>> import pandas as pd, sdcsession as sdc
>>> df = pd.DataFrame({"sex": ["m", "f", "m", "f"], "region": ["a", "a", "b", "b"]})
>>> s = sdc.SdcSession(df, keys=["sex", "region"], seed=1)
>>> s.recode("region", {"b": "a"}).data["region"].tolist()
['a', 'a', 'a', 'a']
>>> s.undo().data["region"].tolist()
['a', 'a', 'b', 'b']
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import (
    HistoryError,
    ParameterError,
    RecipeError,
    RoleError,
    SdcWarning,
    user_stacklevel,
)
from ..methods.base import Treatment, check_int, check_number
from ..methods.basic import Recode, RemoveColumns
from ..roles import Roles
from ..scale._base import is_dask_frame
from .calls import guard_calls
from .classes import register_session_class
from .contracts import ContractsMixin
from .history import HistoryView, Step, Tree, step_seed
from .projects import ProjectMixin
from .release.methods import SessionRelease
from .replay import run_treatment
from .scenarios import ScenarioRuns
from .state import State
from .treatments import TreatmentMethods
from .treatments.swapping import session_options
from .views import attack_view as _attack_view  # noqa: F401  (registers measures)
from .views import risk_view as _risk_view  # noqa: F401  (registers measures)
from .views import utility_view as _utility_view  # noqa: F401  (registers measures)
from .views.risk_view import RiskSummary
from .views.utility_view import UtilitySummary

__all__ = ["SdcSession", "HistoryView"]


class SdcSession(TreatmentMethods, SessionRelease, ContractsMixin, ProjectMixin,
                 ScenarioRuns):
    """An anonymisation session: roles, the original data, a history tree and a HEAD.

    The roles (see `Roles`) are validated against ``data``: every problem is listed in one
    `RoleError`.

    Parameters
    ----------
    data : the microdata (a DataFrame; it is copied once and never mutated).
    keys : the key variables (quasi-identifiers, categorical) of the frequency-based risk.
    numeric : the continuous variables (numeric risk, noise, microaggregation, continuous loss).
    weight : the sampling-weight column (positive, no missing values), or None.
    household : the household-identifier column (household risk and treatments), or None.
    strata : columns whose strata the treatments are applied in separately.
    sensitive : sensitive variables (l-diversity, t-closeness).
    pram : categorical variables meant for PRAM (not key variables of the risk).
    identifiers : direct identifiers (names, ids): never released, no other role, never treated.
    linked : ``{key: [variables]}`` — variables that reveal their key (e.g. ``age`` for
        ``age5``); a suppression of the key suppresses them in the same records.
    alpha : the weight in [0, 1] of a record with a missing key in the frequency counts
        (sdcMicro's alpha; 1 = a missing value matches every category).
    k : the k of k-anonymity (a whole number >= 1) that the release check and the default risk
        views use.
    seed : the session seed; each step's generator is seeded from (seed, depth). ``None`` draws one
        from the operating system (recorded in `seed`).
    name : the scenario's name (shown by compare and reports).
    options : defaults of `record_swap`'s parameters (sdcMicro's createSdcObj options).

    Example
    -------
    >>> import sdcsession as sdc
    >>> df = sdc.datasets.synthetic_survey(200, seed=1)
    >>> s = sdc.SdcSession(df, keys=["region", "sex", "age5"], weight="w", household="hid", seed=7)
    >>> s.undo() if len(s.history) > 1 else s.name
    'main'
    """

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        guard_calls(cls)
        register_session_class(cls)

    def __init__(self, data: pd.DataFrame, keys: Iterable[str] | str | None = None, *,
                 numeric: Iterable[str] | str | None = None, weight: str | None = None,
                 household: str | None = None, strata: Iterable[str] | str | None = None,
                 sensitive: Iterable[str] | str | None = None,
                 pram: Iterable[str] | str | None = None,
                 identifiers: Iterable[str] | str | None = None,
                 linked: Mapping[str, Iterable[str] | str] | None = None,
                 alpha: float = 1.0, k: int = 3, seed: int | None = None,
                 name: str = "main", options: Mapping[str, Any] | None = None) -> None:
        if not isinstance(data, pd.DataFrame) and not is_dask_frame(data):
            raise RoleError(f"data: expected a pandas DataFrame (or a Dask DataFrame), got "
                            f"{type(data).__name__}")
        opts = session_options(options)
        roles = Roles(keys=keys, numeric=numeric, weight=weight, household=household,
                      strata=strata, sensitive=sensitive, pram=pram, identifiers=identifiers,
                      linked=linked)
        if is_dask_frame(data):  # a Dask session: every step runs as Dask work
            from .distributed.steps import validate_roles

            data = validate_roles(roles, data)
            self._init(data, roles, seed, name, alpha=alpha, k=k)
            self._tree.options = opts  # type: ignore[attr-defined]
            return
        roles.validate(data)
        self._init(data.copy(deep=True), roles, seed, name, alpha=alpha, k=k,
                   source=data.attrs.get("source") if isinstance(data.attrs, dict) else None)
        self._tree.options = opts  # type: ignore[attr-defined]

    def _init(self, original: pd.DataFrame, roles: Roles, seed: int | None, name: str, *,
              alpha: float = 1.0, k: int = 3, source: Any = None) -> None:
        alpha = check_number("alpha", alpha, 0, 1)
        k = check_int("k", k, 1, 2**31 - 1)
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % (2**63))
        else:
            seed = check_int("seed", seed, 0, 2**64 - 1)  # as recipes (recipe.MAX_SEED)
        if not isinstance(name, str) or not name.strip():
            raise ParameterError(f"name: expected a non-empty string, got {name!r:.60}")
        root = State(original, roles, original=original, original_roles=roles,
                     alpha=float(alpha))
        self._tree = Tree(root, int(seed))
        self._tree.k = int(k)  # type: ignore[attr-defined]
        self._tree.source = source  # type: ignore[attr-defined]
        self._tree.sessions = []  # type: ignore[attr-defined]
        #: callables ``f(session)`` told whenever a session of this tree moves its HEAD (`_move`)
        self._tree.observers = []  # type: ignore[attr-defined]
        self._register(name)
        self._head = self._tree.root
        self._redo: list[Step] = []
        self.watch: list[str] = ["expected_reidentifications", "k_violations_3"]

    def _register(self, name: str) -> None:
        if not isinstance(name, str) or not name.strip():
            raise ParameterError(f"name: expected a non-empty string (the scenario's name), got "
                                 f"{name!r:.60}")
        live = [r() for r in self._tree.sessions]  # type: ignore[attr-defined]
        if any(s is not None and s._name == name for s in live):
            raise ParameterError(f"name: a scenario named {name!r} already exists in this tree")
        self._name = name
        self._tree.sessions.append(weakref.ref(self))  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ accessors
    @property
    def name(self) -> str:
        """The scenario's name."""
        return self._name

    @property
    def alpha(self) -> float:
        """sdcMicro's alpha: the weight of a record with a missing key in frequency counts."""
        return self._head.state.alpha

    @property
    def k(self) -> int:
        """The session's k (release check, default risk views)."""
        return self._tree.k  # type: ignore[attr-defined]

    @property
    def seed(self) -> int:
        """The session seed (step seeds derive from it and the step's depth)."""
        return self._tree.seed

    @property
    def head(self) -> Step:
        """The current step."""
        return self._head

    @property
    def state(self) -> State:
        """The current frozen state."""
        return self._head.state

    @property
    def roles(self) -> Roles:
        """The current variable roles."""
        return self._head.state.roles

    @property
    def data(self) -> pd.DataFrame:
        """The current (anonymised) data: a copy-on-write view; changing it never changes the session.

        In a Dask session, the current lazy Dask frame (immutable)."""
        d = self._head.state.data
        return d if is_dask_frame(d) else d.copy(deep=False)

    @property
    def original(self) -> pd.DataFrame:
        """The original data (a copy-on-write view of the session's private copy)."""
        d = self._tree.root.state.data
        return d if is_dask_frame(d) else d.copy(deep=False)

    @property
    def history(self) -> HistoryView:
        """The steps from the root to HEAD."""
        return HistoryView(self._head.path())

    @property
    def steps(self) -> list[Step]:
        """Every step of the tree (all branches), by id."""
        return list(self._tree)

    @property
    def risk(self) -> RiskSummary:
        """`RiskSummary` of the current state (lazy, cached per state)."""
        if self._head.state.distributed:
            from .distributed.views import DaskRiskSummary

            return DaskRiskSummary(self._head.state)
        return RiskSummary(self._head.state)

    @property
    def utility(self) -> UtilitySummary:
        """`UtilitySummary` of the current state vs the original (lazy, cached per state)."""
        if self._head.state.distributed:
            from .distributed.views import DaskUtilitySummary

            return DaskUtilitySummary(self._head.state, self._head)  # type: ignore[return-value]
        return UtilitySummary(self._head.state, self._head)

    # -------------------------------------------------------------------- history
    def apply(self, treatment: Treatment, *, seed: int | None = None) -> SdcSession:
        """Apply a treatment to the current state; the result becomes HEAD. Returns ``self``.

        The treatment is checked against the current data and roles first; on any error the
        session is unchanged. Its generator is ``numpy.random.default_rng(step_seed)`` with
        ``step_seed = step_seed(session seed, depth)`` unless ``seed`` is given (recipes replay
        the recorded seed this way).
        """
        if not isinstance(treatment, Treatment):
            raise ParameterError(
                f"apply: expected a Treatment (e.g. sdcsession.methods.Recode), got "
                f"{type(treatment).__name__}")
        head = self._head
        depth = head.depth + 1
        if seed is None:
            seed = step_seed(self._tree.seed, depth)
        else:
            seed = check_int("seed", seed, 0, 2**64 - 1)  # as recipes (recipe.MAX_SEED)
        step = self._run(treatment, head, seed)
        self._redo.clear()
        self._move(step)
        return self

    def _run(self, treatment: Treatment, parent: Step, seed: int) -> Step:
        state = parent.state
        new_data, new_roles, notes, seconds = run_treatment(treatment, state, seed)
        new_state = State(new_data, new_roles, original=state.original,
                          original_roles=state.original_roles, alpha=state.alpha)
        return self._tree.add(new_state, parent, treatment, seed, seconds, notes)

    def undo(self, n: int = 1) -> SdcSession:
        """Move HEAD ``n`` steps back towards the root (no recomputation). Returns ``self``."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ParameterError(f"n: expected an integer >= 1, got {n!r}")
        if n > self._head.depth:
            raise HistoryError(
                f"undo: cannot go back {n} step(s); HEAD is {self._head.depth} step(s) from the original")
        target = self._head
        for _ in range(n):
            self._redo.append(target)
            target = target.parent  # type: ignore[assignment]
        self._move(target)
        return self

    def redo(self, n: int = 1) -> SdcSession:
        """Re-apply the last undone step(s) (moves HEAD forward; nothing is recomputed)."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ParameterError(f"n: expected an integer >= 1, got {n!r}")
        if n > len(self._redo):
            raise HistoryError(f"redo: only {len(self._redo)} step(s) to redo, asked for {n}")
        target = self._head
        for _ in range(n):
            target = self._redo.pop()
        self._move(target)
        return self

    def branch(self, name: str) -> SdcSession:
        """A second session sharing every step so far; later steps of either do not affect the other."""
        other = object.__new__(SdcSession)
        other._tree = self._tree
        other._register(name)
        other._redo = []
        other.watch = list(self.watch)
        other._move(self._head)
        return other

    def checkout(self, step: int | Step) -> SdcSession:
        """Move HEAD to any step of the tree (by id or Step). Returns ``self``."""
        target = self._tree.get(step)
        self._redo.clear()
        self._move(target)
        return self

    def _move(self, step: Step) -> None:
        """Set HEAD to ``step`` and tell the tree's observers (the one place HEAD moves).

        Observers (``self._tree.observers``, e.g. the workbench's live panel) are called as
        ``f(session)``; one that fails is reported as an `SdcWarning` and never undoes the move.
        """
        self._head = step
        for observer in list(getattr(self._tree, "observers", ())):
            try:
                observer(self)
            except Exception as e:  # noqa: BLE001 - a display hook must never break a step
                warnings.warn(f"session observer failed ({type(e).__name__}: {e})"[:300],
                              SdcWarning, stacklevel=user_stacklevel())

    # ------------------------------------------------------------- treatments
    def recode(self, column: str, mapping: Mapping[Any, Any]) -> SdcSession:
        """Map categories of ``column`` (``{old: new}``; several olds to one new merge them)."""
        return self.apply(Recode(column, mapping))

    def remove(self, columns: Iterable[str] | str) -> SdcSession:
        """Remove columns from the released data (and from every role)."""
        return self.apply(RemoveColumns(columns))

    # ---------------------------------------------------------------- recipes
    def to_recipe(self) -> dict[str, Any]:
        """The scenario from the root to HEAD as a JSON-serialisable recipe (see `sdcsession.session.recipes.recipe`)."""
        from .recipes.recipe import to_recipe

        return to_recipe(self)

    def save_recipe(self, path: str, *, overwrite: bool = False) -> Any:
        """Write `to_recipe` to ``path`` as JSON (an existing file only with ``overwrite=True``,
        never the file the data were read from)."""
        from .recipes.recipe import save_recipe

        return save_recipe(self, path, overwrite=overwrite)

    @classmethod
    def from_recipe(cls, data: pd.DataFrame, recipe: Any, *, strict: bool = False,
                    name: str | None = None) -> SdcSession:
        """Replay a recipe (dict or JSON path) on ``data``; bit-identical to the recorded session."""
        from ..methods.params import check_bool
        from .recipes.recipe import load_recipe, parse_recipe

        check_bool("strict", strict)
        if name is not None and not isinstance(name, str):
            raise ParameterError(f"name: expected a scenario name (text) or None, got {name!r:.40}")

        dask = is_dask_frame(data)
        if not isinstance(data, pd.DataFrame) and not dask:
            swapped = isinstance(recipe, pd.DataFrame) or is_dask_frame(recipe)
            raise RoleError(f"data: expected a pandas DataFrame, got {type(data).__name__}" + (
                "; the data come first: SdcSession.from_recipe(data, recipe)" if swapped else ""))
        if isinstance(recipe, (str, Path)):
            recipe = load_recipe(recipe)
        roles, steps, seed, recorded_name = parse_recipe(data, recipe, strict=strict)
        if dask:
            from .distributed.steps import validate_roles

            data = validate_roles(roles, data)
        else:
            roles.validate(data)
        s = object.__new__(cls)
        opts = recipe.get("options") or {}
        if not isinstance(opts, Mapping) or set(opts) - {"alpha", "k"}:
            raise RecipeError(f"options: expected a mapping with alpha and k, got {opts!r}")
        source = None if dask or not isinstance(data.attrs, dict) else data.attrs.get("source")
        s._init(data if dask else data.copy(deep=True), roles, seed,
                name or recorded_name or "main", source=source, **opts)
        s._restore_contracts(recipe)
        for t, step_seed_ in steps:
            s.apply(t, seed=step_seed_)
        return s

    @classmethod
    def from_parquet(cls, path: Any, keys: Iterable[str] | str | None = None, *,
                     columns: Sequence[str] | None = None, index: str | None = None,
                     **kw: Any) -> SdcSession:
        """A Dask session over the partitioned Parquet dataset at ``path``, read lazily
        (`sdcsession.scale.read_parquet`; ``columns`` to read, ``index`` a column to use as
        the index). The other keyword arguments are the roles and options of `SdcSession`.

        Export never overwrites the source dataset.
        """
        from ..scale.parquet import read_parquet

        if columns is not None and not isinstance(columns, (str, bytes)):
            try:
                columns = list(columns)
            except TypeError:
                raise ParameterError(f"columns: expected a list of column names, got "
                                     f"{columns!r:.60}") from None
        if index is not None and (not isinstance(index, str) or not index.strip()):
            raise ParameterError(f"index: expected the name of a column to use as the index, or "
                                 f"None, got {index!r:.40}")
        s = cls(read_parquet(path, columns=columns, index=index), keys, **kw)
        s._tree.source = str(path)  # type: ignore[attr-defined]
        #: how to read the source again (projects reopen Dask sessions from it)
        s._tree.source_options = {k: v for k, v in (  # type: ignore[attr-defined]
            ("columns", list(columns) if columns else None), ("index", index)) if v is not None}
        return s

    # ---------------------------------------------------------------- display
    def __repr__(self) -> str:
        from .formatting import session_text

        return session_text(self)


guard_calls(SdcSession)
register_session_class(SdcSession)
