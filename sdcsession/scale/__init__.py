"""Distributed kernels: risk, treatments, utility and Parquet export on Dask DataFrames.

The same definitions as the in-memory kernels (`sdcsession.risk`, `sdcsession.methods`,
`sdcsession.utility`), computed partition by partition with `dask.dataframe` (and a
`distributed` cluster when a client is active), for any partitioning. Deterministic results equal
the in-memory ones bit for bit; PRAM draws the in-memory stream record by record (bit for bit);
noise draws the same normal numbers per record with moments from exact sums (bit for bit). A session over
a Dask frame (``SdcSession(ddf, ...)`` or ``SdcSession.from_parquet(path, ...)``) uses these.

The names below are imported lazily (on first use), so ``import sdcsession`` never imports dask;
the extra ``sdcsession[dask]`` installs it.

Example
-------
>>> import pandas as pd, dask.dataframe as dd
>>> from sdcsession import scale
>>> ddf = dd.from_pandas(pd.DataFrame({"a": ["x", "x", "y"]}), npartitions=2)
>>> scale.frequencies(ddf, "a", progress=False).compute()["fk"].tolist()
[2, 2, 1]
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "frequencies", "frequency_model", "FrequencyModel", "individual_risk", "household_risk",
    "global_risk", "expected_reidentifications", "k_violations", "l_diversity",
    "apply_distributed", "DISTRIBUTED", "DistributedResult", "utility_measures", "read_parquet",
    "write_parquet", "fingerprint", "partition_rng", "is_dask_frame", "compute",
    "check_strata_fit", "STRATUM_MEMORY_FACTOR",
]

_WHERE = {
    "frequencies": "freq_tables", "frequency_model": "freq_tables",
    "FrequencyModel": "freq_tables", "individual_risk": "risk_measures",
    "household_risk": "risk_measures", "global_risk": "risk_measures",
    "expected_reidentifications": "risk_measures", "k_violations": "risk_measures",
    "l_diversity": "risk_measures", "apply_distributed": "elementwise",
    "DISTRIBUTED": "elementwise", "DistributedResult": "elementwise",
    "utility_measures": "dask_utility", "read_parquet": "parquet",
    "write_parquet": "parquet", "fingerprint": "parquet", "partition_rng": "_base",
    "is_dask_frame": "_base", "compute": "_base", "check_strata_fit": "by_strata",
    "STRATUM_MEMORY_FACTOR": "by_strata",
}


def __getattr__(name: str) -> Any:
    mod = _WHERE.get(name)
    if mod is None:
        raise AttributeError(f"module 'sdcsession.scale' has no attribute {name!r}")
    if name in ("apply_distributed", "DISTRIBUTED"):
        for m in ("randomised", "by_strata", "strata_microaggregation"):  # register PRAM, noise and the strata treatments
            importlib.import_module(f".{m}", __name__)
    return getattr(importlib.import_module(f".{mod}", __name__), name)


def __dir__() -> list[str]:
    return sorted(__all__)
