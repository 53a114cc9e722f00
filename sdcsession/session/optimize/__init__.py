"""The optimiser: ``s.optimize(...)`` proposes treatment plans that meet privacy targets and
keep utility contracts, and returns the Pareto frontier of risk against loss.

- `space`: the search space (a sweep plan; a default one from the roles) and privacy targets;
- `evaluate`: plans applied and measured with the sweep engine (prefixes once, in parallel);
- `search`: the greedy lattice climb and the deterministic NSGA-II;
- `result`: `optimize` (the session method) and its result `Optimization`.
"""

from .result import Optimization, optimize  # noqa: F401
from .space import Target, default_space, parse_targets  # noqa: F401

__all__ = ["Optimization", "optimize", "Target", "default_space", "parse_targets"]
