"""Session methods that prepare a file for release (a mixin of `SdcSession`): ``new_ids``.

Each method builds its frozen treatment (parameters validated at once, raising
`ParameterError`) and applies it as a new, undoable step; it returns the session so calls chain.
The algorithm and reference are in the treatment classes (``sdcsession.methods.basic``).
"""

from __future__ import annotations

from typing import Any

from ...errors import ParameterError, RoleError
from ._build import _build

__all__ = ["PreparationMethods"]


class PreparationMethods:
    """Session methods that prepare a file for release."""

    def apply(self, treatment: Any, *, seed: int | None = None) -> Any:  # pragma: no cover
        raise NotImplementedError

    def new_ids(self, column: str | None = None) -> Any:
        """Replace the household id (``column=None``) or another id column with random ids
        1..G that keep the grouping (see `NewIds`; sdcMicro's ``createNewID``). The step is
        seeded like every step and replays from a recipe; the roles stay on the column.

        Example
        -------
        >>> import pandas as pd, sdcsession as sdc
        >>> df = pd.DataFrame({"hid": [5, 5, 8], "sex": ["m", "f", "m"]})
        >>> s = sdc.SdcSession(df, keys=["sex"], household="hid", seed=1).new_ids()
        >>> ids = s.data["hid"].tolist(); ids[0] == ids[1] != ids[2]
        True
        """
        if column is None:
            column = self.roles.household  # type: ignore[attr-defined]
            if column is None:
                raise RoleError("new_ids: the session has no household id; name the id column "
                                "(new_ids(column='...'))")
        elif not isinstance(column, str) or not column:
            raise ParameterError(f"column: expected a column name or None, got {column!r:.60}")
        return self.apply(_build("new_ids", column=column))
