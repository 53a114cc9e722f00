"""Privacy models (k-anonymity, l-diversity, t-closeness, δ-disclosure, β-likeness, k-map,
δ-presence, average risk) and the optimal generalisation-lattice search (issue 19)."""

from __future__ import annotations

__all__: list[str] = []
