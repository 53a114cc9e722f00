"""The scenario methods of `SdcSession` (a mixin): ``s.sweep`` (a grid of treatment plans as
branches, `sdcsession.session.sweeps`) and ``s.optimize`` (the frontier of treatment plans,
`sdcsession.session.optimize`).

Each method here has the signature and the docstring of its implementation and imports it on the
first call, so that ``import sdcsession`` does not load the sweep engine and the optimiser
(about 30 ms). The results are those of the implementations: the methods only pass their
arguments on.

Missing values: as in `sdcsession.session.sweeps.grid.sweep` and
`sdcsession.session.optimize.result.optimize`.

Example
-------
>>> import sdcsession as sdc
>>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(120, seed=1), keys=["region", "sex"], seed=2)
>>> sw = s.sweep([("local_suppression", [{"k": 2}, {"k": 3}])], measures=["k3_violations"])
>>> sw.table["k3_violations"].tolist()[-1]
0
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .optimize.result import Optimization
    from .sweeps.grid import Sweep

__all__ = ["ScenarioRuns"]


class ScenarioRuns:
    """Session methods that run many scenarios: `sweep` and `optimize`."""

    def sweep(self, plan: Any, *, measures: Any = None, n_jobs: int = 1,
              name: str = "sweep") -> Sweep:
        """Run every combination of the plan's alternatives as a branch of this session.

        ``plan`` is a list of steps ``(method_name, alternatives)``: ``method_name`` a treatment
        method of the session (``"global_recode"``, ``"local_suppression"``, ``"pram"``, ...),
        ``alternatives`` a list of keyword dicts for it, ``None`` in it meaning "skip this
        step". The scenarios are the Cartesian product (``itertools.product`` order), named
        ``"<name>-1"``, ``"<name>-2"``, ... in the table; their branches carry the same names
        (with a suffix `` (2)``, `` (3)``... where a live branch of this tree, e.g. of an
        earlier sweep, already has it). HEAD of this session does not move.

        Each step is seeded as in a normal session, so a scenario equals the same steps applied
        by hand and replays from ``sw.sessions[i].to_recipe()``. Shared prefixes are applied
        once (the product is walked as a tree). ``measures`` are those of ``compare()``
        (``None``: its defaults for this session's roles). ``n_jobs > 1`` (``-1``: every core)
        runs the subtrees below the first step with several alternatives in worker processes,
        or on the cluster of an active Dask ``distributed`` client; the result is identical to
        ``n_jobs=1`` and its scenarios are branches of this session too.

        A step that fails (a `TreatmentError`, ...) makes its scenarios rows with the ``error``
        text and NaN measures. Ctrl-C stops the sweep and returns the finished scenarios
        (``partial=True``). Bad input is refused before any scenario runs, with a
        `ParameterError`: an empty plan, an unknown method (the valid ones listed), alternatives
        that are not dicts or None, unknown or missing parameters (the method's parameters
        listed), parameter values its treatment refuses, an unknown measure.

        Returns
        -------
        Sweep
            ``.sessions``, ``.table``, ``.best(max_risk=...)``, ``.applications``,
            ``.to_recipe()``, ``.plot()``.
        """
        from .sweeps.grid import sweep

        return sweep(self, plan, measures=measures, n_jobs=n_jobs, name=name)

    def optimize(self: Any, privacy: Any = (("k_anonymity", 3),), keep: Any = (), *,
                 treatments: Any = None, budget: int = 40, loss: str | None = None,
                 risk: str = "expected_reidentifications", seed: int = 0,
                 n_jobs: int = 1) -> Optimization:
        """Search treatment plans that meet the privacy targets and keep the contracts; return the
        Pareto frontier of ``risk`` against ``loss`` among them.

        ``privacy``: targets ``("k_anonymity", k)``, ``("l_diversity", l)``, ``("global_risk",
        r)``, ``("max_risk", r)`` (see `sdcsession.session.optimize.space.parse_targets`);
        ``keep``: utility contracts (`sdcsession.contracts`; None or () for none; the session's
        declared contracts are always kept too); ``treatments``: the search space as a sweep plan
        ``[(method, [alternative | None, ...]), ...]``, alternatives ordered from the weakest to
        the strongest (None: `default_space` from the roles); ``budget``: the most plans
        evaluated; ``loss``, ``risk``: measures as in ``compare()`` (``loss=None``: sdcMicro's
        combined score if registered, else λ); ``seed``: the search's seed (the treatments draw
        from the session's generators as always); ``n_jobs``: worker processes for the evaluations.

        Algorithm: a greedy climb of the lattice of plans, then NSGA-II with constrained
        domination (`sdcsession.session.optimize.search`). The same seed gives the same frontier,
        bit for bit, for any ``n_jobs``. Ctrl-C stops the search and returns the plans evaluated
        (``partial=True``). Bad input is a `ParameterError` before anything runs; HEAD never moves.
        """
        from .optimize.result import optimize

        return optimize(self, privacy, keep, treatments=treatments, budget=budget, loss=loss,
                        risk=risk, seed=seed, n_jobs=n_jobs)
