"""The history tree: `Step` nodes and the `Tree` that numbers them.

Every step holds the frozen `State` it produced, its parent, the treatment
that produced it (``None`` for the root), the seed of its random generator, the wall time it took and
the notes the treatment returned. Steps are never removed: undo, redo, branch and checkout only move
a session's HEAD, so nothing is ever recomputed or copied.

Step seeds are derived from the session seed and the depth of the step:
``seed_step = SeedSequence([session_seed, depth]).generate_state(1, uint64)[0] >> 1`` (a
non-negative 63-bit integer), so the same session seed gives the same generator at the same depth in
every branch and in every replay.

Example
-------
>>> step_seed(42, 1) == step_seed(42, 1) != step_seed(42, 2)
True
"""

from __future__ import annotations

import datetime as _dt
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
import pandas as pd

from ..errors import HistoryError

if TYPE_CHECKING:  # pragma: no cover
    from ..methods.base import Treatment
    from .state import State

__all__ = ["Step", "Tree", "step_seed", "HistoryView"]


def step_seed(session_seed: int, depth: int) -> int:
    """Seed of the generator of the step at ``depth`` of a session seeded ``session_seed``."""
    ss = np.random.SeedSequence([int(session_seed), int(depth)])
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


@attrs.define(eq=False)
class Step:
    """A node of the history tree. ``id`` is unique within its tree; the root has ``depth == 0``."""

    id: int
    state: State = attrs.field(repr=False)
    parent: Step | None = attrs.field(repr=False)
    treatment: Treatment | None
    seed: int | None
    depth: int
    seconds: float = 0.0
    notes: dict[str, Any] = attrs.field(factory=dict, repr=False)
    children: list[Step] = attrs.field(factory=list, repr=False)
    created: str = attrs.field(
        factory=lambda: _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"), repr=False)

    @property
    def label(self) -> str:
        """Short text: ``#id type`` or ``#0 original``."""
        return f"#{self.id} {self.treatment.type if self.treatment else 'original'}"

    def path(self) -> list[Step]:
        """The steps from the root to this one (inclusive)."""
        out: list[Step] = []
        s: Step | None = self
        while s is not None:
            out.append(s)
            s = s.parent
        return out[::-1]

    def describe(self) -> str:
        """One line: id, treatment with parameters, seed."""
        if self.treatment is None:
            return f"#{self.id} original"
        seed = f" seed={self.seed}" if self.treatment.random else ""
        return f"#{self.id} {self.treatment.describe()}{seed}"


class Tree:
    """All steps of one session and of the branches made from it."""

    def __init__(self, root_state: State, seed: int) -> None:
        self.seed = int(seed)
        self._steps: list[Step] = []
        self._lock = threading.Lock()
        self.heads: dict[str, Step] = {}
        self.root = self.add(root_state, None, None, None, 0.0, {})

    def add(self, state: State, parent: Step | None, treatment: Treatment | None,
            seed: int | None, seconds: float, notes: dict[str, Any], *,
            created: str | None = None) -> Step:
        """Create a step as a child of ``parent`` and return it (``created``: its creation time
        as ISO text; default now; projects restore the recorded one).

        Thread-safe: sessions sharing this tree (branches) may add steps from several threads;
        the id is taken and the step stored under one lock, so ids stay unique and equal to the
        step's position (``get(id)``).
        """
        with self._lock:
            step = Step(id=len(self._steps), state=state, parent=parent, treatment=treatment,
                        seed=seed, depth=0 if parent is None else parent.depth + 1,
                        seconds=seconds, notes=notes)
            if created is not None:
                step.created = created
            self._steps.append(step)
            if parent is not None:
                parent.children.append(step)
        return step

    def __len__(self) -> int:
        return len(self._steps)

    def __iter__(self):
        return iter(self._steps)

    def get(self, ref: int | Step) -> Step:
        """The step with this id (or the step itself if it belongs to this tree)."""
        if isinstance(ref, Step):
            if ref.id < len(self._steps) and self._steps[ref.id] is ref:
                return ref
            raise HistoryError(f"step {ref.label} does not belong to this session's history")
        if isinstance(ref, bool) or not isinstance(ref, (int, np.integer)):
            raise HistoryError(f"step: expected a step id (int) or a Step, got {ref!r}")
        if not 0 <= int(ref) < len(self._steps):
            raise HistoryError(f"step: no step #{ref}; ids run from 0 to {len(self._steps) - 1}")
        return self._steps[int(ref)]


class HistoryView(Sequence):
    """The steps from the root to HEAD (a read-only sequence of `Step`).

    ``to_frame()`` gives one row per step: id, depth, treatment type, parameters, seed, seconds,
    notes.
    """

    def __init__(self, steps: list[Step]):
        self._steps = steps

    def __len__(self) -> int:
        return len(self._steps)

    def __getitem__(self, i):  # type: ignore[override]
        return self._steps[i]

    def to_frame(self) -> pd.DataFrame:
        """One row per step from the root to HEAD."""
        rows = []
        for st in self._steps:
            t = st.treatment
            rows.append({
                "step": st.id, "depth": st.depth, "treatment": t.type if t else "original",
                "parameters": t.params() if t else {}, "seed": st.seed,
                "seconds": round(st.seconds, 6), "notes": st.notes,
            })
        return pd.DataFrame(rows).set_index("step")

    def __repr__(self) -> str:
        from .formatting import history_text

        return history_text(self._steps)
