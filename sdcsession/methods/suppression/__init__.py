"""Local suppression (sdcMicro ``localSuppression``, ``kAnon``) and suppression by risk.

- `local`: `LocalSuppression`, `local_suppression` — set key values missing until every record
  is k-anonymous (importance, combinations, strata, household restoration);
- `by_risk`: `SuppressByRisk`, `suppress_by_risk` — suppression above an individual-risk
  threshold (sdcMicro ``localSupp``);
- the k-anonymity engine (private): `_core` (the solver), `_counter` and `_bits_jit` (counting
  compatible records), `_search` (suppression rounds), `_many` (the greedy key-set search for
  many keys), `_hub_trie` (the hub-trie programme, the engine beyond 11 keys, also used by
  local recoding), `_cluster` (its entry point and the clustering of sorted records it
  replaced), `_restore` (giving back
  suppressions),
  `_rows` (missing patterns), `_strata` (a k per stratum), `_household` (household-level keys),
  `_args` (parameter checks, the engine), `_pool`.
"""

from . import local as _main
from .local import LocalSuppression, SuppressByRisk, local_suppression, suppress_by_risk  # noqa: F401

__all__ = ['local_suppression', 'suppress_by_risk', 'LocalSuppression', 'SuppressByRisk']


def __getattr__(name: str) -> object:
    """Other names of `local`, which this package replaces (its old module path)."""
    if not name.startswith("__") and hasattr(_main, name):
        return getattr(_main, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
