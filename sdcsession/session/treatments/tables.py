"""Session methods of the tables family (a mixin of `SdcSession`): record keys as a step
(``sdcsession.tables``).

``add_record_keys`` is a treatment: a seeded step that adds a key column with the role
*identifiers* (never released, never treated), so the keys survive undo, branches and recipes.
The tables themselves are views (`sdcsession.session.views.tables_view.TablesView`:
``tabulate``, ``record_keys``, ``tabulations``), which this mixin brings along.
"""

from __future__ import annotations

from typing import Any

from ..views.tables_view import TablesView
from ._build import _build

__all__ = ["TablesMethods"]


class TablesMethods(TablesView):
    """Session methods of the tables family (and, through `TablesView`, its views)."""

    def apply(self, treatment: Any, *, seed: int | None = None) -> Any:  # pragma: no cover
        raise NotImplementedError

    def add_record_keys(self, *, kind: str = "integer", modulus: int = 256, digits: int = 8,
                        name: str = "record_key") -> Any:
        """Attach cell-key-method record keys as a seeded step (see
        `sdcsession.tables.keys.RecordKeys`): integer keys ``0..modulus−1`` (ONS, τ-ARGUS)
        or uniform keys in [0, 1) with ``digits`` decimals (``cellKey``). The key column gets
        the role *identifiers*: it is never released; ``name`` is its name."""
        import sdcsession.tables  # noqa: F401  (registers the treatment)

        return self.apply(_build("record_keys", name=name, kind=kind, modulus=modulus,
                                 digits=digits))
