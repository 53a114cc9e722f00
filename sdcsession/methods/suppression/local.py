"""Local suppression: set key values to missing until every record is k-anonymous, or below a risk.

Kernels (no session needed): `local_suppression` and `suppress_by_risk` return the new
DataFrame and JSON-serialisable notes. Treatments: `LocalSuppression` (``"local_suppression"``)
and `SuppressByRisk` (``"suppress_by_risk"``); the risk-driven pair is defined in the
private module ``_risk_suppression`` and documented here.

Missing key values are wildcards (sdcMicro ``alpha = 1``): record *j* is compatible with record *i*
when they agree on every key where both are non-missing, and fk_i counts the compatible records
(Fk_i sums their weights). Suppressing a value never lowers any fk, so suppression can always reach
k-anonymity when a stratum holds at least k records (weight k for ``weighted=True``).

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"a": ["x", "x", "x", "y"], "b": ["u", "u", "u", "u"]})
>>> out, notes = local_suppression(df, ["a", "b"], k=2)
>>> notes["total"], notes["violations_after"], out["a"].isna().tolist()
(1, 0, [False, False, False, True])
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ...errors import ParameterError, SdcWarning, TreatmentError, user_stacklevel
from ...progress import Bar
from ...roles import Roles
from ..base import Result, Treatment, check_bool, check_choice, require_columns, to_jsonable
from ..params import check_int, check_number
from ._args import (
    _check_combinations,
    _check_engine,
    _check_k_fits,
    _encode,
    _importance,
    _names,
    _ranks,
    _set_missing,
    _validate_frame,
)
from ._core import ENGINES, compat_sum, k_list, restore_only, solve
from ._household import _household_consistent, _household_keys
from ._strata import check_k_spec, k_max, k_note, k_per_group
from ._subsets import alpha_repair, check_subsets, solve_subsets, subset_ks
from .by_risk import SuppressByRisk, suppress_by_risk

__all__ = ["local_suppression", "suppress_by_risk", "LocalSuppression", "SuppressByRisk"]


# ----------------------------------------------------------------------------- kernel
def local_suppression(
    df: pd.DataFrame,
    keys: Sequence[str],
    *,
    k: float | Mapping[Any, float] | Sequence[float] = 3,
    importance: Sequence[str] | None = None,
    strata: str | Sequence[str] | None = None,
    combinations: int | Sequence[int] | None = None,
    weight: str | None = None,
    weighted: bool = False,
    household: str | None = None,
    household_keys: Sequence[str] | None = None,
    restore: bool = True,
    progress: bool | None = None,
    subsets: Sequence[Sequence[str]] | None = None,
    alpha: float = 1.0,
    household_cost: float | None = None,
    k_total: float | None = None,
    max_suppressed_per_record: int | None = None,
    engine: str = "auto",
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Suppress key values (set them missing) until every record has fk >= k.

    Semantics: missing values are wildcards (alpha = 1); fk_i is the number of records compatible
    with record i (``weighted=True``: Fk_i, the sum of their weights, must reach k). The result is
    k-anonymous in the sense of ``sdcsession.risk.k_violations(out, keys, k) == 0``.

    Algorithm (a greedy on repair gains, then a restoration pass; all counting vectorised on
    integer codes, grouped by missing pattern):

    1. *Rounds of suppression.* Count fk for the records not yet known safe (suppression never
       lowers an fk, so a safe record stays safe). For every distinct violating combination c
       (deficit d_c = k - fk_c, m_c records) and every key v observed in c, evaluate two moves:
       *self*: suppress v in one record of c, which raises that record to fk(c without v) and adds
       one to every other violator compatible with c-without-v (it now matches them on v);
       *donor*: suppress v in a safe record that differs from c only on v, which adds one to all m_c
       records of c and to the other violators of that slice. The gain of a move is the reduction
       of the total deficit; a move repairs several violators at once when they share a slice
       (e.g. with k = 3 a slice of singletons needs only 2 suppressions, not one per record).
       Each combination proposes its best move (``importance``: the least important key that
       repairs it, else the least important key with a gain); moves are taken by decreasing gain,
       at most one per slice of violators per round (so that gains stay valid); then recount.
       Combinations that no single suppression helps get the smallest set of keys (least
       important first) that lifts them to k; with more than 11 keys on larger files (more
       than 2^21 / 2^p such combinations) a greedy set instead: keys added one at a time, each
       the one giving the most compatible records (ties: least important, else rarest value),
       at most p^2 counts per round instead of 2^p (module ``_many``). With ``importance`` the rounds run in stages: first
       only the least important key may be suppressed, then the two least important, and so on,
       so a more important key is suppressed only for records that the less important ones
       cannot protect ("suppressed last" taken literally; the total may be higher than without
       importance).
       *More than 11 keys* (unit weights): the rounds are replaced by the hub trie, k-anonymous
       by construction (module ``_hub_trie``): records sorted on their key codes (fewest
       categories first; with ``importance`` most important first) form a trie; a node of
       m >= k records is made safe by k - 1 *hub* records blanked on the keys varying in it
       (every record of the node is compatible with them: missing = wildcard); a bottom-up
       dynamic programme takes per node the cheaper of its hubs and its children's solutions
       (exact within this model), no record losing more than ``max_suppressed_per_record``
       values (default floor(p / 2); a node varying on up to twice that splits the blanking
       between its hubs and its other records; records no capped solution covers blank their
       own differing values, the only ones that may lose more). O(n p^2), one sort; then
       restoration (step 2) up to 50,000 records, and up to 5,000 records the rounds run too
       and the solution with fewer suppressions is kept.
    2. *Restoration.* Every suppression is tested for being no longer needed: the restored
       record must keep fk >= k and no record losing compatibility with it may be tight
       (fk - w < k). Accepted restorations (one per record and slice per round) update fk
       incrementally and are verified exactly; the pass repeats until nothing can be restored.

    ``strata``: solved separately per stratum. ``k`` may differ by stratum: a mapping
    ``{stratum: k}`` (a stratum is a value of the strata column, a tuple of values for several
    columns; every stratum of the data needs its k) or a list of numbers aligned with the strata
    levels in sorted order; each stratum s is then made k_s-anonymous (with ``combinations``: every
    subset of keys k_s-anonymous within s). ``combinations``: k-anonymity is required for every
    subset of the keys of the given size(s) (μ-ARGUS style); each subset is solved in turn and the
    restoration checks all of them.

    ``subsets``: chosen key subsets (lists of key names), each required k-anonymous with its own
    k: ``k`` is then one number or one number per subset (``subsets=[["sex", "age"],
    ["region", "age", "occupation"]], k=[5, 3]``). The subsets are solved jointly and, in
    turn, one after the other on the result of the previous ones (as sdcMicro's
    ``kAnon(combs=...)`` treats each combination); the solution with fewer suppressions is kept,
    so it never suppresses more than the subset-by-subset sequence. ``alpha``: the weight of a
    missing value of another pattern in fk (sdcMicro's alpha, as in
    `sdcsession.risk.frequencies`); below 1 the result is made k-anonymous under that rule too:
    records still below their k under it lose all their values on that subset. ``household`` with ``household_keys`` (default: the keys
    constant within every household): a household-level value suppressed for one member is
    suppressed for all members. Without ``importance`` the search prices that spread: the gain
    of a move on a household-level key is divided by the mean household size seen from a record,
    ``sum(size²) / n``, so a household-level key is suppressed only when it repairs that many more
    violators than a person-level one (``household_cost`` gives that number instead: the Dask
    path computes it over the whole file and solves stratum by stratum). After the spread (whose values are wildcards too), the
    restoration pass runs again on the person-level suppressions. A stratum with fewer than k
    records (total weight below k) cannot be protected: nothing is suppressed there, an `SdcWarning` says so and ``notes`` report
    the records left (``unresolvable``); only a k above the number of records (total weight) of
    the whole frame is refused (``k_total`` gives that number instead: the Dask path checks the
    whole file's and solves stratum by stratum). ``max_suppressed_per_record``: the hub trie's
    cap (many keys only; an integer in 1..len(keys); given, it binds the rounds of small files
    too); ``notes["fallback_records"]`` counts the records allowed beyond it. ``engine``:
    ``"auto"`` (default: step 1 as described, the hub trie beyond 11 keys), ``"rounds"`` (the
    rounds for any number of keys, the smallest key set always searched over every subset:
    what every version did before the many-keys engines, and what a recipe step without
    ``engine`` and ``max_suppressed_per_record`` replays),
    ``"hub_trie"`` or ``"cluster"`` (for any number of keys: the hub trie, or the clustering
    of sorted records of module ``_cluster``; both need ``weighted=False``);
    ``max_suppressed_per_record`` needs ``"auto"`` or ``"hub_trie"``. ``progress``: a bar counting the records found safe (None:
    automatic, see `sdcsession.progress`).

    Returns ``(new_df, notes)`` with notes ``suppressed`` (per key), ``total``,
    ``violations_after``, ``unresolvable``, ``restored`` (suppressions removed by the second pass),
    ``rounds`` and, with ``household``, ``household_added`` (values suppressed by the spread) and
    ``household_restored`` (person-level values given back after it).

    References: Samarati & Sweeney (1998), *Protecting privacy when disclosing information:
    k-anonymity and its enforcement through generalization and suppression*; Templ, Kowarik &
    Meindl (2015), J. Stat. Softw. 67(4), sec. 4.2 (sdcMicro ``kAnon``); Hundepool et al. (2012),
    *Statistical Disclosure Control*, Wiley, sec. 3.4 (local suppression).

    Example
    -------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["m", "m", "m", "f", "f", "f", "f"],
    ...                    "age": ["1", "1", "1", "1", "2", "2", "3"]})
    >>> out, notes = local_suppression(df, ["sex", "age"], k=2)
    >>> notes["suppressed"], notes["violations_after"]
    ({'sex': 0, 'age': 1}, 0)
    """
    keys = list(_names(keys, "keys") or ())
    _validate_frame(df, keys, "local_suppression")
    kspec = check_k_spec(k)
    subs = check_subsets(subsets)
    alpha = _check_alpha(alpha)
    sub_k = None
    if subs is not None:
        if combinations is not None:
            raise ParameterError("subsets: give either subsets or combinations, not both")
        unknown = sorted({c for sub in subs for c in sub} - set(keys))
        if unknown:
            raise TreatmentError(f"subsets: {unknown} are not key variables {list(keys)}")
        sub_k = subset_ks(kspec, subs)
        kspec = float(max(sub_k))
    importance = _importance(importance)
    cap = None if max_suppressed_per_record is None else check_int(
        "max_suppressed_per_record", max_suppressed_per_record, 1, len(keys))
    engine = _check_engine(engine, check_bool("weighted", weighted), cap)
    strata_cols = list(_names(strata, "strata") or ())
    combos = _check_combinations(combinations)
    require_columns(df, strata_cols, "local_suppression strata")
    rank = _ranks(keys, importance)
    cost = None
    if household is not None:
        hid, hk = _household_keys(df, keys, household, household_keys)
        if importance is None and hk:
            # a household-level suppression spreads to every member: its cost is the mean
            # household size seen from a record, sum(size^2) / n
            size = np.bincount(hid)
            hc = float((size ** 2).sum() / len(hid)) if household_cost is None else household_cost
            cost = np.array([hc if c in hk else 1.0 for c in keys])
    if weighted:
        if weight is None:
            raise ParameterError("weighted: weighted=True needs a weight column (weight=...)")
        require_columns(df, [weight], "local_suppression weight")
        w_all = df[weight].to_numpy(dtype="float64", na_value=np.nan)
        if not np.all(np.isfinite(w_all)) or (w_all <= 0).any():
            raise TreatmentError(f"weight: column {weight!r} must be finite and > 0")
    else:
        w_all = np.ones(len(df))
    _check_k_fits(k_max(kspec), float(w_all.sum()) if k_total is None else float(k_total),
                  weighted)
    p = len(keys)
    if subs is not None:
        keysets = [[keys.index(c) for c in sub] for sub in subs]
    elif combos is None:
        keysets = [list(range(p))]
    else:
        if max(combos) > p:
            raise TreatmentError(f"combinations: subset size {max(combos)} exceeds the {p} keys")
        keysets = [list(c) for m in combos for c in itertools.combinations(range(p), m)]
    X, cards = _encode(df, keys)
    orig_missing = X < 0
    X0 = X.copy()
    if strata_cols:
        sid, _ = pd.factorize(pd.MultiIndex.from_frame(df[strata_cols].astype(object))
                              if len(strata_cols) > 1 else df[strata_cols[0]], use_na_sentinel=False)
        groups = [np.flatnonzero(sid == g) for g in range(int(sid.max()) + 1)] if len(sid) else []
    else:
        groups = [np.arange(len(df))]
    k_groups, k_used = k_per_group(kspec, df, strata_cols, groups)
    if sub_k is not None:
        k_groups = [sub_k] * len(groups)
    restored = rounds = unresolvable = 0
    fallback = None  # many keys (hub trie): records allowed beyond the cap
    bad_strata = 0
    solved = []  # strata that reached k-anonymity
    viol = np.zeros(len(df), bool)
    exact = True  # the solver's final recount is exact unless suppressions are added afterwards
    bar = Bar(len(df) * len(keysets), desc="local suppression", enabled=progress)
    for g, kk in zip(groups, k_groups, strict=True):
        Xg = X[g]
        if sub_k is not None:
            info = solve_subsets(Xg, w_all[g], keysets, cards, kk, rank=rank, restore=restore,
                                 bar=bar, cost=cost, cap=cap, method=engine)
        else:
            info = solve(Xg, w_all[g], keysets, cards, kk, rank=rank, restore=restore, bar=bar,
                         cost=cost, cap=cap, method=engine)
        X[g] = Xg
        if info.violators is None:
            exact = False
        else:
            viol[g] = info.violators
        restored += info.restored
        fallback = fallback if info.fallback is None else (fallback or 0) + info.fallback
        rounds += info.rounds
        if info.unresolvable:
            unresolvable += info.unresolvable
            bad_strata += 1
        else:
            solved.append((g, kk))
    bar.close()
    new_mask = (X < 0) & ~orig_missing
    notes: dict[str, Any] = {}
    if household is not None:
        added = _household_consistent(hid, hk, keys, new_mask, orig_missing)
        notes["household_added"] = int(added)
        notes["household_restored"] = 0
        X[new_mask] = -1
        if restore and added:
            # the spread values are wildcards too: person-level suppressions may no longer be needed
            person = np.array([c not in hk for c in keys])
            back = 0
            for g, kk in solved:
                Xg = X[g]
                back += restore_only(Xg, X0[g], w_all[g], keysets, cards, kk, rank,
                                     new_mask[g] & person[None, :])
                X[g] = Xg
            notes["household_restored"] = int(back)
            new_mask = (X < 0) & ~orig_missing
    alpha_added = 0
    if alpha < 1.0:
        X[new_mask] = -1
        for g, kk in zip(groups, k_groups, strict=True):
            Xg = X[g]
            alpha_added += alpha_repair(Xg, w_all[g] if weighted else None, keysets, cards,
                                        k_list(kk, len(keysets)), alpha)
            X[g] = Xg
        new_mask = (X < 0) & ~orig_missing
        notes["alpha_added"] = int(alpha_added)
    out = _set_missing(df, keys, new_mask)
    if alpha < 1.0:
        from ...risk.frequencies import _frequencies_from_codes

        viol[:] = False
        for g, kk in zip(groups, k_groups, strict=True):
            for ks, kq in zip(keysets, k_list(kk, len(keysets)), strict=True):
                fk, Fk = _frequencies_from_codes(X[g][:, ks], [cards[j] for j in ks],
                                                 w_all[g] if weighted else None, alpha)
                viol[g] |= (Fk if weighted else fk) < kq - 1e-9
    elif household is not None or not exact:
        viol[:] = False
        for g, kk in zip(groups, k_groups, strict=True):
            for ks, kq in zip(keysets, k_list(kk, len(keysets)), strict=True):
                viol[g] |= compat_sum(X[g], w_all[g], ks, cards) < kq - 1e-9
    if unresolvable:
        warnings.warn(
            f"local_suppression: {unresolvable} record(s) in {bad_strata} stratum/strata with fewer "
            f"than their k {'weight' if weighted else 'records'} cannot reach k-anonymity; "
            "they were left unsuppressed", SdcWarning, stacklevel=user_stacklevel())
    notes = {
        "suppressed": {c: int(new_mask[:, j].sum()) for j, c in enumerate(keys)},
        "total": int(new_mask.sum()),
        "violations_after": int(viol.sum()),
        "unresolvable": int(unresolvable),
        "restored": int(restored),
        "rounds": int(rounds),
        "k": k_note(kspec, k_used) if sub_k is None else sub_k,
        **({"subsets": [list(sub) for sub in subs]} if subs is not None else {}),
        **({"fallback_records": int(fallback)} if fallback is not None else {}),
        **notes,
    }
    return out, to_jsonable(notes)


def _check_alpha(value: Any) -> float:
    """The wildcard weight ``alpha``: a number in [0, 1] (`ParameterError` otherwise)."""
    return check_number("alpha", value, 0, 1)


# ----------------------------------------------------------------------------- treatments
@attrs.frozen
class LocalSuppression(Treatment):
    """Local suppression to k-anonymity of the key variables (see `local_suppression`).

    ``importance``: key names, most important first (suppressed last). ``strata``: columns to
    solve separately (default: the strata role). ``combinations``: subset size(s) of the keys that
    must each be k-anonymous. ``weighted``: require Fk >= k (needs the weight role).
    ``household``: suppress household-level keys for all members (needs the household role).
    ``k``: a number, or a k per stratum (``{stratum: k}`` or a list aligned with the sorted strata
    levels; stored as a tuple of ``(stratum, k)`` pairs or of numbers). ``subsets``: key subsets
    that must each be k-anonymous, ``k`` then one number or one per subset; ``alpha``: the
    wildcard weight of missing values (the session passes its own alpha).
    ``max_suppressed_per_record``: many keys, the most values one record loses (default half).
    ``engine``: ``"auto"``, ``"rounds"``, ``"hub_trie"`` or ``"cluster"`` (see
    `local_suppression`). A step stored before ``engine`` existed replays with the engine it
    ran with: ``"rounds"``, or ``"auto"`` when it records ``max_suppressed_per_record`` (which
    came with the hub trie); see `recorded_params`.

    Example
    -------
    >>> import numpy as np, pandas as pd
    >>> from sdcsession.roles import Roles
    >>> df = pd.DataFrame({"a": list("xxxy"), "b": list("uuuu")})
    >>> LocalSuppression(k=2).apply(df, Roles(keys=("a", "b")), np.random.default_rng(0)).notes["total"]
    1
    """

    type = "local_suppression"
    #: steps stored without ``engine`` ran the rounds for any number of keys (the many-keys
    #: engines came later); see `recorded_params` for those that record the hub trie's cap
    recorded_defaults = {"engine": "rounds"}

    k: float | tuple[Any, ...] = attrs.field(default=3, converter=check_k_spec)
    importance: tuple[str, ...] | None = attrs.field(
        default=None, converter=_importance)
    strata: tuple[str, ...] | None = attrs.field(default=None, converter=lambda v: _names(v, "strata"))
    combinations: tuple[int, ...] | None = attrs.field(default=None, converter=_check_combinations)
    weighted: bool = attrs.field(default=False)
    household: bool = attrs.field(default=False)
    subsets: tuple[tuple[str, ...], ...] | None = attrs.field(default=None,
                                                             converter=check_subsets)
    alpha: float = attrs.field(default=1.0, converter=_check_alpha)
    max_suppressed_per_record: int | None = attrs.field(default=None)
    engine: str = attrs.field(default="auto",
                              converter=lambda v: check_choice("engine", v, ENGINES))

    @max_suppressed_per_record.validator
    def _cap(self, a: Any, v: Any) -> None:
        if v is not None:
            check_int(a.name, v, 1)

    @engine.validator
    def _engine(self, a: Any, v: Any) -> None:
        _check_engine(v, self.weighted, self.max_suppressed_per_record)

    @classmethod
    def recorded_params(cls, params: Mapping[str, Any]) -> dict[str, Any]:
        """A stored step's parameters with the engine it ran with: ``"auto"`` (the hub trie
        beyond 11 keys) when it records ``max_suppressed_per_record`` (written since the hub
        trie, before ``engine``), else ``recorded_defaults`` (``"rounds"``)."""
        if "engine" not in params and "max_suppressed_per_record" in params:
            params = {**params, "engine": "auto"}
        return super().recorded_params(params)

    def __attrs_post_init__(self) -> None:
        if self.subsets is not None:
            if self.combinations is not None:
                raise ParameterError("subsets: give either subsets or combinations, not both")
            subset_ks(self.k, self.subsets)

    @weighted.validator
    @household.validator
    def _bool(self, a: Any, v: Any) -> None:
        check_bool(a.name, v)

    def _strata(self, roles: Roles) -> tuple[str, ...]:
        return self.strata if self.strata is not None else tuple(roles.strata)

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        if not roles.keys:
            raise TreatmentError("local_suppression: no key variables in the roles")
        require_columns(data, roles.keys, "local_suppression keys")
        if self.importance is not None:
            _ranks(roles.keys, self.importance)
        st = self._strata(roles)
        missing = [c for c in st if c not in data.columns]
        if missing:
            raise TreatmentError(f"local_suppression: strata column(s) {missing} not in the data")
        if self.weighted and roles.weight is None:
            raise TreatmentError("local_suppression: weighted=True needs a weight role")
        if self.household and roles.household is None:
            raise TreatmentError("local_suppression: household=True needs a household role")
        if self.combinations is not None and max(self.combinations) > len(roles.keys):
            raise TreatmentError(
                f"combinations: subset size {max(self.combinations)} exceeds the "
                f"{len(roles.keys)} key variables")
        if self.weighted:
            total = float(data[roles.weight].to_numpy(dtype="float64", na_value=np.nan).sum())
        else:
            total = float(len(data))
        _check_k_fits(k_max(self.k), total, self.weighted)
        if self.subsets is not None:
            unknown = sorted({c for sub in self.subsets for c in sub} - set(roles.keys))
            if unknown:
                raise TreatmentError(f"subsets: {unknown} are not key variables "
                                     f"{list(roles.keys)}")
        elif not isinstance(self.k, float) and not st:
            raise TreatmentError("k: a k per stratum needs strata (strata=... or the strata role)")

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        out, notes = local_suppression(
            data, roles.keys, k=self.k, importance=self.importance, strata=self._strata(roles) or None,
            combinations=self.combinations, weight=roles.weight, weighted=self.weighted,
            household=roles.household if self.household else None,
            subsets=self.subsets, alpha=self.alpha,
            max_suppressed_per_record=self.max_suppressed_per_record, engine=self.engine)
        return Result(out, notes=notes)
