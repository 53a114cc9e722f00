"""The measure views of a state (the registry and cache they use is `sdcsession.session.measures`).

- `risk_view`: `RiskSummary` (``s.risk``);
- `utility_view`: `UtilitySummary` (``s.utility``);
- `attack_view`: `AttackView` (``s.risk.attacks``): risk measured by attack, cached per state;
- `scenario_measures`: the measures of a scenario comparison and the frontier;
- `contract_checks`: utility contracts on states (the ``contract`` measure, ``s.utility.check``);
- `_numeric_columns`: which numeric variables the numeric measures use;
- `figures`: the registry of what every risk and utility figure means (`FIGURES`);
- `explain`: ``s.risk.explain(name)`` / ``s.utility.explain(name)`` (`explain_figure`);
- `tables_view`: `TablesView` (``s.tabulate``, ``s.record_keys()``, ``s.tabulations``).
"""

from . import contract_checks  # noqa: F401  (registers the contract measure)
from .risk_view import RiskSummary  # noqa: F401
from .utility_view import UtilitySummary  # noqa: F401

__all__ = ['RiskSummary', 'UtilitySummary']
