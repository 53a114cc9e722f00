"""Running one step, now or later: `run_treatment` (the one place a treatment is applied to a
state, used by `SdcSession.apply`) and `Replay`, which computes the data of a pending state
(`State.pending`) on first access.

A replayed step is checked against what was recorded when it was first run: the roles it
produced and, when known, the fingerprint of its data (`state_fingerprint`). A replay that
does not reproduce them (another sdcsession version whose treatment changed, a data file that
differs) is a `RecipeError` naming the step, never silently different data.

Example
-------
>>> import pandas as pd
>>> from sdcsession.methods.basic import Recode
>>> from sdcsession.roles import Roles
>>> from sdcsession.session.state import State
>>> df = pd.DataFrame({"sex": ["m", "f"]})
>>> root = State(df, Roles(keys=("sex",)), original=df, original_roles=Roles(keys=("sex",)))
>>> r = Replay(root, Recode("sex", {"f": "m"}), 1, Roles(keys=("sex",)), None, "step #1")
>>> st = State.pending(r, r.roles, original=df, original_roles=root.roles)
>>> st.ready, st.data["sex"].tolist(), st.ready
(False, ['m', 'm'], True)
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
import pandas as pd

from ..errors import RecipeError, SdcError, TreatmentError
from ..methods.base import Result, Treatment
from ..roles import Roles
from .guards import check_identifiers, follow_linked, treatment_failures

if TYPE_CHECKING:  # pragma: no cover
    from .state import State

__all__ = ["run_treatment", "Replay", "state_fingerprint"]

#: cache key of a state's data fingerprint
FINGERPRINT_KEY = ("project.fingerprint",)


def run_treatment(treatment: Treatment, state: State,
                  seed: int) -> tuple[Any, Roles, dict[str, Any], float]:
    """Apply ``treatment`` to ``state`` with ``numpy.random.default_rng(seed)``: the new data,
    roles, notes and the seconds it took. Linked variables follow the change
    (`sdcsession.session.guards.follow_linked`); a Dask state runs as Dask work. Any failure is
    an `SdcError` (`TreatmentError` for a state the treatment cannot take)."""
    data, roles = state.data, state.roles
    t0 = time.perf_counter()
    if state.distributed:
        from .distributed.steps import run_step

        new_data, new_roles, notes = run_step(treatment, state, seed)
        return new_data, new_roles, notes, time.perf_counter() - t0
    with treatment_failures(treatment):
        check_identifiers(treatment, roles, data.dtypes)
        treatment.check(data, roles)
        result = treatment.apply(data, roles, np.random.default_rng(seed))
    seconds = time.perf_counter() - t0
    if not isinstance(result, Result) or not isinstance(result.data, pd.DataFrame):
        raise TreatmentError(f"{treatment.type}: the treatment did not return a Result")
    new_roles = result.roles if result.roles is not None else roles
    notes = dict(result.notes)
    new_data = follow_linked(data, result.data, new_roles, notes)
    return new_data, new_roles, notes, seconds


def state_fingerprint(state: State) -> str | None:
    """SHA-256 fingerprint of a state's data (`sdcsession.session.recipes.recipe.fingerprint`),
    cached on the state; a pending state gives the one recorded for it without replaying. None
    for a Dask state (fingerprinting it would read every partition)."""
    if state.replay is not None and state.replay.fingerprint is not None:
        return state.replay.fingerprint  # recorded, and checked when the state was computed
    if state.distributed:
        return None
    fp = state.cache.get(FINGERPRINT_KEY)
    if fp is None:
        from .recipes.recipe import fingerprint

        fp = state.cache[FINGERPRINT_KEY] = fingerprint(state.data)
    return fp


@attrs.frozen(eq=False)
class Replay:
    """How to compute a pending state: ``treatment`` with ``seed`` on ``parent``'s data.

    ``roles`` and ``fingerprint`` (None: not checked) are what the step produced when it was
    first run; ``label`` names the step in messages (e.g. ``"step #4 pram"``)."""

    parent: State
    treatment: Treatment
    seed: int
    roles: Roles
    fingerprint: str | None
    label: str

    def run(self) -> Any:
        """The data of the step, checked against the recorded roles and fingerprint."""
        try:
            data, roles, _notes, _seconds = run_treatment(self.treatment, self.parent, self.seed)
        except SdcError as e:
            raise RecipeError(f"{self.label}: the replay failed: {e}") from e
        if roles != self.roles:
            raise RecipeError(f"{self.label}: the replay gave roles {roles.to_dict()}, the project "
                              f"recorded {self.roles.to_dict()}")
        if self.fingerprint is not None and isinstance(data, pd.DataFrame):
            from .recipes.recipe import fingerprint

            fp = fingerprint(data)
            if fp != self.fingerprint:
                raise RecipeError(
                    f"{self.label}: the replay does not reproduce the recorded data (fingerprint "
                    f"{fp[:19]}…, recorded {self.fingerprint[:19]}…); the project was saved by "
                    "another version of sdcsession or from other data")
        return data
