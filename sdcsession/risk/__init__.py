"""Disclosure-risk measures as pure functions on DataFrames (no session needed).

Frequencies with missing keys as wildcards, individual / global / household risk, prosecutor /
journalist / marketer attacker models, k-anonymity violations, μ-ARGUS-style unsafe combinations
and risky cells, l-diversity, SUDA2, model-based risk (log-linear models, population uniques) and
numeric (interval disclosure, record linkage, robust-distance) risk. Key variables are read as
categories.

Example
-------
>>> import pandas as pd
>>> import sdcsession.risk as risk
>>> df = pd.DataFrame({"sex": ["m", "m", "f"], "age5": ["0-4", "0-4", "0-4"]})
>>> risk.k_violations(df, ["sex", "age5"], 2)
1
"""

from .attacker import AttackerRisk, attacker_models
from .frequencies import frequencies, frequencies_from_codes
from .household import household_risk, household_risk_from_individual
from .individual import (
    expected_reidentifications,
    global_risk,
    individual_risk,
    individual_risk_from_freq,
)
from .kanon import k_violations, unsafe_combinations
from .ldiversity import LDiversitySummary, l_diversity, l_diversity_summary
from .linkage import LinkageResult, record_linkage
from .model_risk import ModelRisk, model_risk
from .numeric import interval_disclosure, record_linkage_risk
from .population_uniques import PopulationUniques, population_uniques
from .risky_cells import risky_cells, tables_from_levels
from .rmd import RMDRisk, rmd_risk

__all__ = [
    "frequencies",
    "frequencies_from_codes",
    "individual_risk",
    "individual_risk_from_freq",
    "global_risk",
    "expected_reidentifications",
    "household_risk",
    "household_risk_from_individual",
    "k_violations",
    "unsafe_combinations",
    "l_diversity",
    "l_diversity_summary",
    "LDiversitySummary",
    "interval_disclosure",
    "record_linkage_risk",
    "model_risk",
    "ModelRisk",
    "population_uniques",
    "PopulationUniques",
    "risky_cells",
    "tables_from_levels",
    "record_linkage",
    "LinkageResult",
    "attacker_models",
    "AttackerRisk",
    "rmd_risk",
    "RMDRisk",
    "suda2",
]

try:  # SUDA2 lives in its own module (written separately)
    from .suda2 import suda2
except ImportError:  # pragma: no cover - until risk/suda2.py exists
    __all__.remove("suda2")
