"""State: one frozen snapshot of the data in a session, with its per-state measure cache.

A State holds the current (treated) data, the roles, a reference to the session's private copy of
the original data (shared by every state of the tree, never copied again), and a cache of the
measures computed on it. States are never modified after creation, except that measures are added
to their cache on first access.

**Lazy states.** A state may be created *pending* (`State.pending`): its roles are known but its
data are computed on first access to ``data``, by a replay object (``replay.parent``: the parent
state; ``replay.run()``: the data, computed from the parent's). Projects open this way
(`sdcsession.session.projects`): nothing is replayed until a branch's data are asked for. The
chain of pending ancestors is filled from the oldest down, iteratively and under one lock, and a
failed replay leaves the state pending. Reading ``roles``, ``alpha``, ``distributed`` or
``ready`` never replays.

Example
-------
>>> import pandas as pd
>>> from sdcsession.roles import Roles
>>> from sdcsession.session.state import State
>>> df = pd.DataFrame({"sex": ["m", "f", "m"]})
>>> st = State(df, Roles(keys=("sex",)), original=df, original_roles=Roles(keys=("sex",)))
>>> st.n
3
"""

from __future__ import annotations

import threading
from typing import Any

import attrs
import pandas as pd

from ..roles import Roles

__all__ = ["State"]

#: the data of a pending state (not computed yet)
_PENDING: Any = type("_Pending", (), {"__repr__": lambda self: "<pending>"})()
#: one lock for every materialisation: a replay reads its parent, so chains never deadlock
_LOCK = threading.RLock()


@attrs.frozen(eq=False)
class State:
    """A frozen snapshot: ``data`` (current), ``roles``, ``original`` (shared), measure cache.

    ``replay``: for a pending state (see `pending`), the object that computes its data."""

    _data: Any = attrs.field(alias="data", repr=False)  # pandas or Dask frame, or _PENDING
    roles: Roles
    original: pd.DataFrame = attrs.field(repr=False)
    original_roles: Roles = attrs.field(repr=False)
    cache: dict[tuple, Any] = attrs.field(factory=dict, repr=False)
    #: sdcMicro's alpha: weight of a record with a missing key in frequency counts (session option)
    alpha: float = attrs.field(default=1.0, repr=False)
    _replay: Any = attrs.field(default=None, alias="replay", repr=False)

    @classmethod
    def pending(cls, replay: Any, roles: Roles, *, original: Any, original_roles: Roles,
                alpha: float = 1.0) -> State:
        """A state whose data ``replay.run()`` computes on first access (``replay.parent`` is
        the parent state, filled first)."""
        return cls(_PENDING, roles, original=original, original_roles=original_roles,
                   alpha=alpha, replay=replay)

    @property
    def data(self) -> Any:
        """The data of this state (a pending state computes them now, once)."""
        d = self._data
        return self._materialise() if d is _PENDING else d

    @property
    def ready(self) -> bool:
        """Whether the data are computed (False for a pending state not asked for yet)."""
        return self._data is not _PENDING

    @property
    def replay(self) -> Any:
        """The replay of a state created pending (kept once its data are computed), else None."""
        return self._replay

    def _materialise(self) -> Any:
        with _LOCK:
            chain: list[State] = []
            st: State = self
            while st._data is _PENDING:
                chain.append(st)
                st = st._replay.parent
            for st in reversed(chain):
                data = st._replay.run()
                object.__setattr__(st, "_data", data)
            return self._data

    @property
    def distributed(self) -> bool:
        """Whether the data are a Dask frame (steps and measures run as Dask work); never
        replays a pending state (its engine is the original's)."""
        from ..scale._base import is_dask_frame

        return is_dask_frame(self.original if self._data is _PENDING else self._data)

    @property
    def n(self) -> int:
        """Number of records (for a Dask frame: counted once, then cached)."""
        if self.distributed:
            from .distributed.steps import n_records

            return n_records(self)
        return len(self.data)

    def measure(self, name: str, /, **params: Any) -> Any:
        """Value of the registered measure ``name`` on this state (computed once, then cached).

        See `sdcsession.session.measures.available` for the names.
        """
        from .measures import compute

        return compute(self, name, **params)

    def is_cached(self, name: str, /, **params: Any) -> bool:
        """Whether ``measure(name, **params)`` is already in the cache."""
        from .measures import cache_key

        return cache_key(name, params) in self.cache
