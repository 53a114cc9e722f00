"""Targeted record swapping of households between geographic areas (census 2021 method).

The method recommended by Eurostat for the 2021 EU census round (de Wolf 2015; the
*Guidelines for SDC methods for census and demographics data* of the Centre of Excellence on SDC)
and implemented in sdcMicro's ``recordSwap``. Households exchange their geography: the values of
the ``hierarchy`` columns (and of ``carry_along`` columns) of two whole households are swapped,
so every household keeps all its other values (size, members, ages, ...) and only its location
changes. Households at risk are always swapped; further households are swapped at random up to
the swap rate.

Algorithm (H households; ``hierarchy`` lists the geography from coarse to fine, L_1 ⊃ … ⊃ L_m)

1. **Households.** The household column, the geography and the ``similar`` columns must be
   constant within a household (else a `RoleError` names the column). An *area of level l* is
   a path of values (level 1, …, level l), as in sdcMicro's ``recordSwap``: codes need only be
   unique within their parent (district 1 in every region names a different district in each
   region); globally unique codes give the same areas as the codes alone. A level that does not
   subdivide the level above although it has fewer values than that level has areas (levels
   listed fine to coarse) draws an `SdcWarning`.
2. **Risk.** With ``risk_variables`` and ``k_anonymity`` = k > 0, the records are counted per
   combination of the risk variables within each area (path) of each level; a household is *at risk at
   level l* when a member's count is below k, and must leave its area of the coarsest such level.
   With ``risk_threshold`` = t, a household whose household risk 1 − ∏(1 − r_i) (``keys``,
   ``weight``; `sdcsession.risk.household_risk`) exceeds t is at risk too (at the finest level).
   Every household at risk is selected.
3. **Random selection.** A swap moves two households, so each finest area a gets the quota
   swaprate · H_a / 2, rounded down, the remainder given to areas at random with probability
   proportional to the fractional parts, so that the quotas add up to ceil(swaprate · H / 2).
   Households at risk count towards their area's quota; the rest of it is drawn without
   replacement among the other households of the area with probability proportional to
   1 / (smallest count of a member at the finest level) — uniformly without risk variables.
4. **Donors.** Selected households look for a donor among the households not selected and not yet
   used: the donor has the same values of the similarity profile ``similar[0]`` and lies in a
   *different* area of the search level but in the same area of the level above. The search
   starts at the household's level (the finest for households selected at random or by the
   threshold) and moves to coarser levels — a different municipality in the same district,
   then a different district in the same region, then a different region anywhere in the file;
   then the next similarity profile is tried the same way. Households at risk are matched before
   those drawn at random. The matching of a level is vectorised in rounds: every unmatched
   household draws a donor uniformly among the free candidates of its similarity group outside
   its area; a donor drawn twice goes to one of them at random; the others draw again.
5. **Swap.** Each selected household and its donor exchange their ``hierarchy`` and
   ``carry_along`` values (all members). Each household is swapped at most once.

Households for which no donor exists are left unchanged and counted in the notes (no error).
The notes summarise the step (households selected at risk / at random, swapped, without donor,
swaps per level); they never list household ids.

Differences to sdcMicro's ``recordSwap``: the donor search is the same in spirit (same
similarity profile, different area, finest level first) but the draws differ (no translation of
its C++ code), so results agree in distribution, not record by record; household risk from
``risk_threshold`` uses this package's household risk; missing values of risk and similarity
variables are categories of their own.

References: Shlomo, N., Tudor, C. & Groom, P. (2010), Data swapping for protecting census
tables, in *Privacy in Statistical Databases*, LNCS 6344, 41–51 (targeted swapping of
high-risk households within geographic hierarchies); de Wolf (2015) and the ESSnet *Harmonised
protection of census data in the ESS* (Eurostat's recommendation of targeted record swapping for
the 2021 census round); sdcMicro ``recordSwap`` documentation and vignette (Gussenbauer).

Example
-------
>>> import numpy as np, pandas as pd
>>> df = pd.DataFrame({"hid": [1, 1, 2, 3, 3, 4], "reg": ["a", "a", "a", "b", "b", "b"],
...                    "hsize": [2, 2, 1, 2, 2, 1], "sex": list("mfmfmf")})
>>> out, notes = record_swap(df, household="hid", hierarchy=["reg"], similar=["hsize"],
...                          swaprate=1.0, k_anonymity=0, rng=np.random.default_rng(1))
>>> out["reg"].tolist(), notes["swapped_households"]
(['b', 'b', 'b', 'a', 'a', 'a'], 4)
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd

from ...errors import ParameterError, RoleError, SdcWarning, user_stacklevel
from ...roles import Roles
from ..base import Result, Treatment, check_int, check_number, param_names, require_columns
from ..params import check_bool
from ._record_steps import swap_households

__all__ = ["record_swap", "RecordSwap"]

#: the most similarity profiles one call may list
MAX_PROFILES = 1_000


def check_swaprate(value: Any) -> float:
    """``swaprate`` as a float in [0, 1] (0: only the households at risk), or `ParameterError`."""
    return check_number("swaprate", value, 0.0, 1.0)


def check_profiles(value: Any) -> tuple[tuple[str, ...], ...]:
    """``similar`` as a tuple of profiles: one column name, a list of names (one profile) or a
    list of lists of names (profiles tried in order); else `ParameterError`.

    >>> check_profiles("hsize"), check_profiles([["hsize", "tenure"], ["hsize"]])
    ((('hsize',),), (('hsize', 'tenure'), ('hsize',)))
    """
    if isinstance(value, str):
        return (param_names(value, "similar", required=True),)
    if value is None or isinstance(value, (bytes, bytearray, Mapping, set, frozenset)) \
            or not isinstance(value, Iterable):
        raise ParameterError(
            f"similar: expected a column name, a list of names or a list of lists of names, "
            f"got {type(value).__name__}")
    items: list[Any] = []
    for v in value:  # element by element: range(10**9) fails at its first element
        if not isinstance(v, (str, list, tuple)):
            raise ParameterError(f"similar: expected column names or lists of names, got "
                                 f"{type(v).__name__} {v!r:.40}")
        items.append(v)
        if len(items) > MAX_PROFILES:
            raise ParameterError(f"similar: more than {MAX_PROFILES} entries")
    if not items:
        raise ParameterError("similar: expected at least one column name")
    if all(isinstance(v, str) for v in items):
        return (param_names(items, "similar", required=True),)
    if all(isinstance(v, (list, tuple)) for v in items):
        return tuple(param_names(v, f"similar[{i}]", required=True) for i, v in enumerate(items))
    raise ParameterError("similar: expected either a list of column names (one profile) or a "
                         "list of lists of names (several profiles), not a mix of both")


def _opt_names(value: Any) -> tuple[str, ...] | None:
    return None if value is None else param_names(value, "risk_variables")


def _opt_threshold(value: Any) -> float | None:
    return None if value is None else check_number("risk_threshold", value, 0.0)


def _opt_risk(value: Any) -> tuple[str, ...] | None:
    """``risk`` given as column names (one per hierarchy level), or ``None``."""
    return None if value is None else param_names(value, "risk", required=True)


def check_risk(value: Any, data: pd.DataFrame, hierarchy: tuple[str, ...]) -> np.ndarray | None:
    """The user-supplied risk as a float (records x levels) array, or `ParameterError`.

    ``value``: column names of ``data`` (one per level of ``hierarchy``, coarse to fine), or a
    DataFrame / 2-D array with one row per record (in ``data``'s order) and one column per level.
    Every value must be a finite number >= 0 (missing values are refused).

    >>> df = pd.DataFrame({"r1": [0.1, 0.0], "r2": [1.0, 0.5]})
    >>> check_risk(["r1", "r2"], df, ("reg", "mun")).tolist()
    [[0.1, 1.0], [0.0, 0.5]]
    """
    if value is None:
        return None
    m = len(hierarchy)
    if isinstance(value, (pd.DataFrame, np.ndarray)):
        what = "risk"
        arr = value.to_numpy() if isinstance(value, pd.DataFrame) else value
        if arr.ndim == 1 and m == 1:
            arr = arr.reshape(-1, 1)
        if arr.ndim != 2 or arr.shape != (len(data), m):
            raise ParameterError(
                f"risk: expected one row per record and one column per hierarchy level, i.e. "
                f"shape ({len(data)}, {m}), got {arr.shape}")
    else:
        names = param_names(value, "risk", required=True)
        if len(names) != m:
            raise ParameterError(f"risk: expected {m} column names (one per hierarchy level "
                                 f"{list(hierarchy)}), got {len(names)}")
        require_columns(data, list(names), "record_swap (risk)")
        what = f"risk columns {list(names)}"
        arr = data[list(names)].to_numpy()
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.number)
                                 or arr.dtype == object):
        raise ParameterError(f"{what}: expected numbers >= 0, got dtype {arr.dtype}")
    try:
        if arr.dtype == object and any(isinstance(v, (bool, np.bool_, str)) for v in arr.flat):
            raise TypeError
        out = np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(f"{what}: expected numbers >= 0") from None
    if not np.isfinite(out).all() or (out < 0).any():
        raise ParameterError(f"{what}: every risk must be a finite number >= 0 (no missing "
                             "values)")
    return out


def check_parameters(hierarchy: Any, similar: Any, swaprate: Any, k_anonymity: Any,
                     risk_variables: Any, risk_threshold: Any, carry_along: Any
                     ) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...], float, int,
                                tuple[str, ...] | None, float | None, tuple[str, ...]]:
    """All parameters checked and normalised (`ParameterError` naming the first bad one)."""
    hier = param_names(hierarchy, "hierarchy", required=True)
    profiles = check_profiles(similar)
    rate = check_swaprate(swaprate)
    k = check_int("k_anonymity", k_anonymity, 0, 2**62)
    risk_vars = _opt_names(risk_variables)
    thr = _opt_threshold(risk_threshold)
    carry = param_names(carry_along, "carry_along")
    both = sorted(set(carry) & set(hier))
    if both:
        raise ParameterError(f"carry_along: {both} already in hierarchy (the hierarchy columns "
                             "are always swapped); list each column in one of them only")
    return hier, profiles, rate, k, risk_vars, thr, carry


def record_swap(data: pd.DataFrame, *, household: str, hierarchy: Iterable[str] | str,
                similar: Any, swaprate: float = 0.05, k_anonymity: int = 3,
                risk_variables: Iterable[str] | str | None = None,
                risk_threshold: float | None = None, keys: Iterable[str] | str = (),
                weight: str | None = None, carry_along: Iterable[str] | str = (),
                risk: Any = None, return_swapped_id: bool = False,
                rng: np.random.Generator) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Targeted record swapping of households (see the module docstring for the algorithm).

    Parameters
    ----------
    data : the microdata, one row per person.
    household : the household id column.
    hierarchy : geography columns from coarse to fine, e.g. ``["region", "district", "mun"]``;
        a code need only be unique within its parent (areas are paths of levels).
    similar : household-level columns donors must share (one profile), or a list of profiles
        tried in order.
    swaprate : share of households to swap, in (0, 1] (both households of a swap count).
    k_anonymity : a household is at risk when a member's ``risk_variables`` combination occurs
        fewer than this many times in its area at some level (0: no such rule).
    risk_variables : the variables of that rule (``None`` or empty: no rule).
    risk_threshold : households whose household risk (``keys``, ``weight``) exceeds it are at risk;
        with ``risk``, households whose supplied risk exceeds it (any number >= 0).
    keys, weight : key variables and weight of the household risk (only with ``risk_threshold``
        and no ``risk``).
    carry_along : further household-level columns exchanged with the geography.
    risk : a user-supplied risk per record and hierarchy level (sdcMicro's ``risk``): column
        names (one per level, coarse to fine) or a DataFrame / 2-D array (records x levels, in
        ``data``'s order), finite numbers >= 0. It replaces the k-anonymity rule
        (``risk_variables`` is then ignored). A household's risk at a level is its members'
        largest (an `SdcWarning` says when members differed); it is *at risk* at the coarsest
        level whose risk exceeds ``risk_threshold`` (default sdcMicro's: 1 / ``k_anonymity``, or
        2 when ``k_anonymity`` is 0) and must leave its area of that level. The households
        drawn at random are drawn with probability proportional to their risk at the finest
        level; a household whose finest-level risk is 0 is never selected (it may still be a
        donor). Missing values: refused (`ParameterError`).
    return_swapped_id : add the column ``<household>_swapped`` holding the household id of the
        partner whose geography every record received (its own id when not swapped), as
        sdcMicro's ``return_swapped_id``. In a session this column has the identifiers role
        (never released).
    rng : the generator every random draw comes from.

    Returns
    -------
    The data with the geography (and ``carry_along``) of swapped households exchanged, and notes:
    counts of households selected at risk / at random, swapped, without donor, swaps per level.

    Example
    -------
    >>> df = pd.DataFrame({"hid": [1, 2, 3, 4], "reg": ["a", "a", "b", "b"], "hsize": 1})
    >>> out, notes = record_swap(df, household="hid", hierarchy="reg", similar="hsize",
    ...                          swaprate=1.0, k_anonymity=0, rng=np.random.default_rng(0))
    >>> sorted(out["reg"]), notes["swapped_households"], notes["without_donor"]
    (['a', 'a', 'b', 'b'], 4, {'at_risk': 0, 'random': 0})
    """
    data, notes, _ = _record_swap(data, household=household, hierarchy=hierarchy,
                                  similar=similar, swaprate=swaprate, k_anonymity=k_anonymity,
                                  risk_variables=risk_variables, risk_threshold=risk_threshold,
                                  keys=keys, weight=weight, carry_along=carry_along, rng=rng,
                                  risk=risk, return_swapped_id=return_swapped_id)
    return data, notes


def _record_swap(data: pd.DataFrame, *, household: str, hierarchy: Any, similar: Any,
                 swaprate: Any, k_anonymity: Any, risk_variables: Any, risk_threshold: Any,
                 keys: Any, weight: str | None, carry_along: Any, rng: np.random.Generator,
                 risk: Any = None, return_swapped_id: bool = False
                 ) -> tuple[pd.DataFrame, dict[str, Any], np.ndarray]:
    """`record_swap` plus the swapped pairs of household ids (an (s, 2) object array; private:
    never written to notes or reports)."""
    if not isinstance(data, pd.DataFrame):
        raise ParameterError(f"record_swap: data must be a pandas DataFrame, got "
                             f"{type(data).__name__}")
    if not isinstance(household, str):
        raise RoleError(f"record_swap: household: expected one column name, got {household!r}")
    hier, profiles, rate, k, risk_vars, thr, carry = check_parameters(
        hierarchy, similar, swaprate, k_anonymity, risk_variables, risk_threshold, carry_along)
    key_names = param_names(keys, "keys")
    check_bool("return_swapped_id", return_swapped_id)
    risk_arr = check_risk(risk, data, hier)
    swapped_id = f"{household}_swapped" if return_swapped_id else None
    if swapped_id is not None and swapped_id in data.columns:
        raise ParameterError(f"return_swapped_id: the column {swapped_id!r} already exists")
    if household in hier or household in carry:
        raise RoleError(f"record_swap: the household id {household!r} cannot be swapped (it is "
                        "in hierarchy or carry_along)")
    wanted = [household, *hier, *(c for p in profiles for c in p), *(risk_vars or ()), *carry]
    require_columns(data, list(dict.fromkeys(wanted)), "record_swap")
    if risk_arr is not None:
        risk_vars = ()
    elif thr is not None and thr > 1:
        raise ParameterError(f"risk_threshold: the household risk is a probability; expected a "
                             f"number in [0, 1], got {thr!r}")
    if risk_arr is None and thr is not None and not key_names:
        raise RoleError("record_swap: risk_threshold needs key variables for the household risk "
                        "(declare keys in the session, or pass keys=)")
    out, notes, pairs = swap_households(
        data, household=household, hierarchy=hier, profiles=profiles, swaprate=rate, k=k,
        risk_variables=risk_vars or (), threshold=thr, keys=key_names, weight=weight,
        carry_along=carry, rng=rng, risk=risk_arr, swapped_id=swapped_id)
    if notes.get("risk_raised_households"):
        warnings.warn(f"record_swap: risk differed within {notes['risk_raised_households']} "
                      "household(s); every member was given the household's largest risk (per "
                      "level)", SdcWarning, stacklevel=user_stacklevel())
    return out, notes, pairs


@attrs.frozen
class RecordSwap(Treatment):
    """Targeted record swapping (tag ``"record_swap"``); see `record_swap`.

    The household is the session's ``household`` role; ``risk_variables=None`` means the
    session's key variables other than the hierarchy columns; ``risk_threshold`` compares the
    session's household risk (its keys and weight), or with ``risk`` (column names, one per
    level) the supplied risk. ``return_swapped_id=True`` adds ``<household>_swapped`` with the
    identifiers role (never released).

    >>> t = RecordSwap(["region", "district"], "hsize", swaprate=0.1)
    >>> t.to_dict()["similar"], Treatment.from_dict(t.to_dict()) == t
    ([['hsize']], True)
    """

    type: ClassVar[str] = "record_swap"
    random: ClassVar[bool] = True

    hierarchy: tuple[str, ...] = attrs.field(
        converter=lambda v: param_names(v, "hierarchy", required=True))
    similar: tuple[tuple[str, ...], ...] = attrs.field(converter=check_profiles)
    swaprate: float = attrs.field(default=0.05, converter=check_swaprate)
    k_anonymity: int = attrs.field(
        default=3, converter=lambda v: check_int("k_anonymity", v, 0, 2**62))
    risk_variables: tuple[str, ...] | None = attrs.field(default=None, converter=_opt_names)
    risk_threshold: float | None = attrs.field(default=None, converter=_opt_threshold)
    carry_along: tuple[str, ...] = attrs.field(
        default=(), converter=lambda v: param_names(v, "carry_along"))
    risk: tuple[str, ...] | None = attrs.field(default=None, converter=_opt_risk)
    return_swapped_id: bool = attrs.field(
        default=False, converter=lambda v: check_bool("return_swapped_id", v))

    def __attrs_post_init__(self) -> None:
        check_parameters(self.hierarchy, self.similar, self.swaprate, self.k_anonymity,
                         self.risk_variables, self.risk_threshold, self.carry_along)
        if self.risk is not None and len(self.risk) != len(self.hierarchy):
            raise ParameterError(f"risk: expected {len(self.hierarchy)} column names (one per "
                                 f"hierarchy level {list(self.hierarchy)}), got {len(self.risk)}")
        if self.risk is None and self.risk_threshold is not None and self.risk_threshold > 1:
            raise ParameterError(f"risk_threshold: the household risk is a probability; expected "
                                 f"a number in [0, 1], got {self.risk_threshold!r}")

    def _risk_variables(self, roles: Roles) -> tuple[str, ...]:
        if self.risk_variables is not None:
            return self.risk_variables
        return tuple(c for c in roles.keys if c not in self.hierarchy)

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        if roles.household is None:
            raise RoleError("record_swap: needs the session's household role (households are "
                            "swapped as a whole); create the session with household=<id column>")
        protected = {roles.household: "the household id", roles.weight: "the sampling weight",
                     **{c: "a direct identifier" for c in roles.identifiers}}
        bad = [f"{c!r} is {protected[c]}" for c in (*self.hierarchy, *self.carry_along)
               if c in protected]
        if bad:
            raise RoleError("record_swap: cannot swap " + "; ".join(bad))
        if self.return_swapped_id and f"{roles.household}_swapped" in data.columns:
            raise ParameterError(f"return_swapped_id: the column {roles.household + '_swapped'!r} "
                                 "already exists")
        if self.risk is None and self.risk_threshold is not None and not roles.keys:
            raise RoleError("record_swap: risk_threshold compares the household risk, which "
                            "needs key variables; declare keys in the session")

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        self.check(data, roles)
        out, notes, _ = _record_swap(
            data, household=roles.household, hierarchy=self.hierarchy, similar=self.similar,
            swaprate=self.swaprate, k_anonymity=self.k_anonymity,
            risk_variables=self._risk_variables(roles), risk_threshold=self.risk_threshold,
            keys=roles.keys, weight=roles.weight, carry_along=self.carry_along, rng=rng,
            risk=self.risk, return_swapped_id=self.return_swapped_id)
        new_roles = None
        if self.return_swapped_id:
            new_roles = attrs.evolve(
                roles, identifiers=(*roles.identifiers, f"{roles.household}_swapped"))
        return Result(out, roles=new_roles, notes=notes)
