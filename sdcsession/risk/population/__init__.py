"""Population uniqueness estimated from a model of the cell counts.

- `loglinear_model`: `model_risk` — log-linear model risk (sdcMicro ``modRisk``);
- `uniques`: `population_uniques` — Zayatz, SNB and Pitman estimators;
- `_loglinear`: Poisson IRLS and IPF fits.
"""

from .loglinear_model import MAX_CELLS, METHODS, ModelRisk, model_risk  # noqa: F401
from .uniques import ESTIMATORS, PopulationUniques, frequency_of_frequencies, population_uniques  # noqa: F401

__all__ = ['ModelRisk', 'model_risk', 'METHODS', 'MAX_CELLS', 'PopulationUniques', 'population_uniques', 'frequency_of_frequencies', 'ESTIMATORS']
