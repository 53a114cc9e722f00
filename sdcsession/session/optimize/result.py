"""`SdcSession.optimize`: propose treatment plans; `Optimization` holds the frontier.

Example
-------
>>> import sdcsession as sdc
>>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(150, seed=1),
...                    keys=["region", "sex", "age5"], seed=3)
>>> opt = s.optimize(privacy=[("k_anonymity", 3)], budget=6, seed=1)
>>> bool((opt.frontier["target: 3-anonymity"] == 0).all()), len(s.history)
(True, 1)
"""

from __future__ import annotations

import math
import os
import time
import warnings
from typing import Any

import numpy as np
import pandas as pd

from ...errors import ParameterError, SdcWarning, TreatmentError, user_stacklevel
from ...methods.base import check_int
from ...progress import Bar
from ..extensions import attach_registered
from ..measures import MEASURES
from ..views.scenario_measures import frontier_positions, measure_specs
from .evaluate import Evaluator
from .search import search
from .space import check_space, parse_targets

__all__ = ["Optimization", "optimize", "default_loss"]

#: the loss used when none is given: sdcMicro's combined score when a measure of that name is
#: registered, else Młodak's λ over the keys and numeric variables
COMBINED_SCORE = "combined_loss"


def default_loss() -> str:
    """``"combined_loss"`` when registered, else ``"lambda"`` (Młodak's λ)."""
    return COMBINED_SCORE if COMBINED_SCORE in MEASURES else "lambda"


class Optimization:
    """The result of `SdcSession.optimize`.

    Attributes
    ----------
    table : one row per evaluated plan, in evaluation order: ``plan`` (the alternative index
        per dimension), the parameter columns ``"<method>.<parameter>"``, the measures (risk,
        loss, the privacy targets' columns, one ``"contract: <name>"`` margin per contract),
        ``feasible`` (every target and contract met), ``frontier`` and ``error``.
    frontier : the rows of the Pareto frontier of risk against loss among the feasible plans,
        by increasing loss (position ``i`` is plan ``i`` of `apply` and `recipe`).
    evaluations : number of plans evaluated; ``applications``: treatments applied.
    partial : True when interrupted (Ctrl-C); the frontier is that of the plans evaluated.
    """

    def __init__(self, *, base: Any, evaluator: Evaluator, order: list[tuple[int, ...]],
                 risk: str, loss: str, feasible: dict[tuple[int, ...], bool], partial: bool,
                 seconds: float, seed: int, budget: int) -> None:
        self.base, self._ev, self.risk, self.loss = base, evaluator, risk, loss
        self.steps = evaluator.steps
        self.partial, self.seconds, self.seed, self.budget = partial, seconds, seed, budget
        self.evaluations = len(order)
        self.applications = evaluator.applications
        self._order = order
        rows = []
        for p in order:
            ev = evaluator.done[p]
            row: dict[str, Any] = {"plan": list(p)}
            for ps, i in zip(self.steps, p):
                alt = ps.alternatives[i]
                for k, v in (alt or {}).items():
                    if k not in ("column", "columns"):
                        row[f"{ps.label}.{k}"] = v
                row[ps.label] = None if alt is None else "on"
            row.update({m.column: ev.values.get(m.column, np.nan) for m in evaluator.specs})
            row["feasible"] = feasible[p]
            row["error"] = ev.error
            rows.append(row)
        t = pd.DataFrame(rows)
        ok = t["feasible"].to_numpy(bool) if len(t) else np.zeros(0, bool)
        pos = np.flatnonzero(ok)
        front = pos[frontier_positions(t[risk].to_numpy(float)[ok],
                                       t[loss].to_numpy(float)[ok])] if len(pos) else pos
        t["frontier"] = False
        t.loc[front, "frontier"] = True
        self.table = t
        self._front = [order[i] for i in front]
        self.frontier = t.loc[front].reset_index(drop=True)

    def __len__(self) -> int:
        return len(self._front)

    def plan(self, i: int) -> list[tuple[str, dict[str, Any]]]:
        """Frontier plan ``i`` as its treatment steps ``[(method, keyword arguments), ...]``."""
        p = self._front[self._check(i)]
        return [(ps.method, dict(ps.alternatives[j])) for ps, j in zip(self.steps, p)
                if ps.alternatives[j] is not None]

    def _check(self, i: Any) -> int:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not \
                -len(self._front) <= i < len(self._front):
            raise ParameterError(f"i: expected a position of the frontier (0 to "
                                 f"{len(self._front) - 1}), got {i!r:.40}")
        return int(i) % len(self._front)

    def _step(self, i: int) -> Any:
        return self._ev.done[self._front[self._check(i)]].step

    def recipe(self, i: int) -> dict[str, Any]:
        """The replayable recipe of frontier plan ``i`` (from the original, as
        `SdcSession.to_recipe`)."""
        from ..sweeps.run import handle

        return handle(self.base, self._step(i)).to_recipe()

    def apply(self, i: int, name: str | None = None) -> Any:
        """Add frontier plan ``i`` as a branch of the session (named ``name``; default
        ``"plan-<i>"``, with a suffix `` (2)``... when a live branch has that name) and return
        it; the session's HEAD does not move."""
        step = self._step(i)
        if name is None:
            live = {r()._name for r in self.base._tree.sessions if r() is not None}
            name, k = f"plan-{self._check(i)}", 1
            while name in live:
                k += 1
                name = f"plan-{self._check(i)} ({k})"
        return self.base.branch(name).checkout(step)

    def __repr__(self) -> str:
        extra = ", interrupted (partial)" if self.partial else ""
        return (f"Optimization: {self.evaluations} plans evaluated{extra}, "
                f"{int(self.table['feasible'].sum()) if len(self.table) else 0} feasible, "
                f"{len(self._front)} on the frontier of {self.risk} against {self.loss}, "
                f"{self.seconds:.2f} s")


def _margin_cv(values: dict[str, Any], cols: list[str]) -> float:
    cv = 0.0
    for c in cols:
        m = values.get(c, math.nan)
        cv += 1.0 if m is None or np.isnan(m) else max(0.0, -float(m))
    return cv


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
    from ...utility.contracts.base import as_contracts, validate_on
    from ..contracts import declared_contracts

    targets = parse_targets(privacy)
    contracts = tuple(dict.fromkeys(as_contracts(() if keep is None else keep, "keep")
                                    + declared_contracts(self)))
    budget = check_int("budget", budget, 1, 100_000)
    seed = check_int("seed", seed, 0, 2**63 - 1)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or (
            n_jobs < 1 and n_jobs != -1):
        raise ParameterError(f"n_jobs: expected an integer >= 1 (or -1 for every core), got "
                             f"{n_jobs!r:.60}")
    jobs = (os.cpu_count() or 1) if n_jobs == -1 else int(n_jobs)
    if self.state.distributed:  # the plans are evaluated on in-memory copies of the data
        raise TreatmentError("optimize: the search runs on in-memory sessions; compute the Dask "
                             "frame first (SdcSession(dask_frame.compute(), ...)) or a sample "
                             "or stratum of it")
    steps = check_space(self, treatments)
    loss = default_loss() if loss is None else loss
    if not isinstance(risk, str) or not isinstance(loss, str):
        raise ParameterError(f"risk, loss: expected measure names, got {risk!r:.40}, {loss!r:.40}")
    head = self._head
    named = measure_specs([risk, loss] if risk != loss else [risk], [head.state])
    tspecs = [t.spec() for t in targets]
    cspecs = measure_specs(list(contracts), []) if contracts else []
    specs = list({m.column: m for m in [*named, *tspecs, *cspecs]}.values())
    validate_on(head.state.original, contracts, weight=head.state.original_roles.weight,
                household=head.state.original_roles.household, what="keep")
    ev = Evaluator(self, steps, specs)
    n = head.state.n
    ccols = [m.column for m in cspecs]
    risk_col, loss_col = named[0].column, named[-1].column
    order: list[tuple[int, ...]] = []
    feasible: dict[tuple[int, ...], bool] = {}
    scores: dict[tuple[int, ...], tuple[float, float, float]] = {}
    bar = Bar(total=min(budget, math.prod(len(s.alternatives) for s in steps)),
              desc="optimize")

    def evaluate(batch: list[tuple[int, ...]]) -> None:
        for e in ev.run(batch, n_jobs=jobs):
            v = e.values
            cv = sum(t.violation(v.get(s.column, math.nan), n) for t, s in zip(targets, tspecs))
            cv += _margin_cv(v, ccols)
            r = float(v.get(risk_col, math.nan))
            lo = float(v.get(loss_col, math.nan))
            if e.error is not None or np.isnan(r) or np.isnan(lo):
                cv, r, lo = cv + 1.0, math.inf, math.inf
            scores[e.plan] = (cv, r, lo)
            feasible[e.plan] = cv == 0
            order.append(e.plan)
            bar.update(1)

    def frontier() -> list[tuple[int, ...]]:
        ok = [p for p in order if feasible[p]]
        if not ok:
            return []
        pos = frontier_positions([scores[p][1] for p in ok], [scores[p][2] for p in ok])
        return [ok[i] for i in pos]

    t0 = time.perf_counter()
    partial = False
    try:
        search([len(s.alternatives) for s in steps], evaluate, scores.__getitem__,
               lambda: set(order), frontier, budget, seed)
    except KeyboardInterrupt:
        partial = True
        warnings.warn(f"optimize: interrupted; {len(order)} plans were evaluated (the result is "
                      "partial)", SdcWarning, stacklevel=user_stacklevel())
    finally:
        bar.close()
    if ev.failed:
        msg = "; ".join(f"{k}: {v}" for k, v in ev.failed.items())
        warnings.warn(f"optimize: some measures could not be computed (NaN): {msg}"[:2000],
                      SdcWarning, stacklevel=user_stacklevel())
    return Optimization(base=self, evaluator=ev, order=order, risk=risk_col, loss=loss_col,
                        feasible=feasible, partial=partial, seconds=time.perf_counter() - t0,
                        seed=seed, budget=budget)


attach_registered(__name__)  # the methods the presentation layer registered for its classes
