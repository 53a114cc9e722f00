"""The steps of targeted record swapping on checked parameters (private; see `record_swapping`).

`swap_households` runs steps 1–5 of the algorithm documented in `record_swapping`: household codes
and checks, risk, quotas and random draws, donor matching level by level, the exchange of the
geography. It returns the new data, JSON notes (counts only) and the swapped pairs of household
ids (kept off the notes: they must never reach a report).

Example
-------
>>> import numpy as np, pandas as pd
>>> df = pd.DataFrame({"hid": [1, 2], "reg": ["a", "b"], "hs": [1, 1]})
>>> out, notes, pairs = swap_households(
...     df, household="hid", hierarchy=("reg",), profiles=(("hs",),), swaprate=1.0, k=0,
...     risk_variables=(), threshold=None, keys=(), weight=None, carry_along=(),
...     rng=np.random.default_rng(0))
>>> out["reg"].tolist(), sorted(pairs[0].tolist())
(['b', 'a'], [1, 2])
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...risk.household import household_risk
from ._record_core import (
    codes_of,
    combine_codes,
    draw_random,
    household_codes,
    household_index,
    k_anonymity_flags,
    match_donors,
    path_codes,
    quotas,
)

__all__ = ["swap_households"]

#: passes pairing the selected households left without donor among themselves
PAIRING_PASSES = 4
#: passes drawing further households while the swapped households fall short of the target
TOPUP_PASSES = 4


class _Matching:
    """Donor matching state: partners found so far, swaps per level and profile."""

    def __init__(self, start: np.ndarray, sim: list[np.ndarray], geo: list[np.ndarray],
                 n_areas: list[int], rng: np.random.Generator) -> None:
        self.start, self.sim, self.geo, self.n_areas, self.rng = start, sim, geo, n_areas, rng
        n_h = len(start)
        self.partner = np.full(n_h, -1, dtype=np.int64)
        self.by_level = np.zeros(len(geo), dtype=np.int64)
        self.by_profile = np.zeros(len(sim), dtype=np.int64)
        self.initiators: list[np.ndarray] = []
        self._groups: dict[tuple[int, int], np.ndarray] = {}

    def _group(self, p: int, lev: int) -> np.ndarray:
        if (p, lev) not in self._groups:
            parent = self.geo[lev - 1] if lev > 0 else np.zeros(len(self.start), dtype=np.int64)
            self._groups[(p, lev)] = combine_codes([self.sim[p], parent])
        return self._groups[(p, lev)]

    def run(self, seekers: np.ndarray, pool: np.ndarray) -> None:
        """Match the unmatched ``seekers`` with unmatched households of ``pool`` (masks), profile
        by profile, from each seeker's start level to the coarsest. A household whose start level
        is l may only move across an area of level l or coarser, as seeker or as donor."""
        for p in range(len(self.sim)):
            for lev in range(len(self.geo) - 1, -1, -1):
                ok = (self.partner < 0) & (self.start >= lev)
                active = np.flatnonzero(seekers & ok)
                free = pool & ok
                if active.size == 0 or not free.any():
                    continue
                a, d = match_donors(active, free, self._group(p, lev), self.geo[lev],
                                    self.n_areas[lev], self.rng)
                self.partner[a] = d
                self.partner[d] = a
                self.by_level[lev] += a.size
                self.by_profile[p] += a.size
                self.initiators.append(a)


def swap_households(data: pd.DataFrame, *, household: str, hierarchy: tuple[str, ...],
                    profiles: tuple[tuple[str, ...], ...], swaprate: float, k: int,
                    risk_variables: tuple[str, ...], threshold: float | None,
                    keys: tuple[str, ...], weight: str | None, carry_along: tuple[str, ...],
                    rng: np.random.Generator, risk: np.ndarray | None = None,
                    swapped_id: str | None = None
                    ) -> tuple[pd.DataFrame, dict[str, Any], np.ndarray]:
    """Targeted record swapping on checked parameters; see `record_swapping.record_swap`.

    ``risk``: a checked (records x levels) array of risks (then ``threshold`` is compared with
    it, not with the household risk); ``swapped_id``: name of a column added with the partner's
    household id (the own id when not swapped)."""
    m = len(hierarchy)
    h, first, n_h = household_index(data[household])
    # 1. household-level codes and constancy; the areas of a level are the paths of levels
    geo_hh = [household_codes(data, c, h, first, "hierarchy", missing_ok=False)
              for c in hierarchy]
    geo = path_codes(geo_hh, hierarchy)
    n_areas = [int(g.max()) + 1 if g.size else 0 for g in geo]
    sim_cols = {c: household_codes(data, c, h, first, "similar")
                for c in dict.fromkeys(c for p in profiles for c in p)}
    sim = [combine_codes([sim_cols[c] for c in p]) for p in profiles]
    carry = [household_codes(data, c, h, first, "carry_along") for c in carry_along]
    notes: dict[str, Any] = {"households": n_h, "swaprate": swaprate}

    # 2. risk
    start = np.full(n_h, -1, dtype=np.int64)
    sample_weight = np.ones(n_h)
    eligible = np.ones(n_h, dtype=bool)
    if risk is not None and n_h:
        # user risk: a household's risk is its members' largest, per level; at risk at the
        # coarsest level whose risk exceeds the threshold; drawn with probability ∝ its risk at
        # the finest level, never when that risk is 0
        hr_lev = np.zeros((n_h, m))
        np.maximum.at(hr_lev, h, risk)
        notes["risk_raised_households"] = int(
            np.unique(h[(hr_lev[h] != risk).any(axis=1)]).size)
        # sdcMicro's default threshold: 1 / k_anonymity, or 2 when k_anonymity is 0
        thr = threshold if threshold is not None else (1.0 / k if k > 0 else 2.0)
        over = hr_lev > thr
        start = np.where(over.any(axis=1), over.argmax(axis=1), -1)
        sample_weight = hr_lev[:, m - 1].copy()
        eligible = sample_weight > 0
        sample_weight[~eligible] = 1.0
        threshold = None
    elif risk_variables and n_h:
        risk_code = combine_codes([codes_of(data, c, "risk_variables") for c in risk_variables])
        start, min_count = k_anonymity_flags(geo, risk_code, h, n_h, k)
        del risk_code
        sample_weight = 1.0 / np.maximum(min_count, 1)
    risky_k = start >= 0
    risky_t = np.zeros(n_h, dtype=bool)
    if threshold is not None and n_h:
        hr = household_risk(data, list(keys), weight=weight, household=household).to_numpy()
        risky_t = hr[first] > threshold
    risky = risky_k | risky_t
    start = np.where(risky_k, start, m - 1)

    # 3. quotas per finest area and random draws
    finest, n_fine = geo[m - 1], n_areas[m - 1]
    quota = quotas(finest, n_fine, swaprate, rng)
    need = np.clip(quota - np.bincount(finest[risky], minlength=n_fine), 0, None)
    drawn = draw_random(finest, ~risky & eligible, need, sample_weight, rng)

    # 4. donors: households at risk first, then those drawn, from the households not selected;
    # then the selected households still without donor among themselves (random halves)
    match = _Matching(start, sim, geo, n_areas, rng)
    selected = risky | drawn
    for cls in (risky, drawn):
        match.run(cls, ~selected)
    for _ in range(PAIRING_PASSES):
        left = np.flatnonzero(selected & (match.partner < 0))
        if left.size < 2:
            break
        half = np.zeros(n_h, dtype=bool)
        half[left[rng.random(left.size) < 0.5]] = True
        match.run(half, ~selected | (selected & ~half))
    # top-up: while fewer households than the target are swapped, draw more at random
    target = int(2 * quota.sum())
    zeros = np.zeros(n_h, dtype=np.int64)
    tried = selected.copy()
    for _ in range(TOPUP_PASSES):
        deficit = target - int((match.partner >= 0).sum())
        if deficit <= 0:
            break
        extra = draw_random(zeros, ~tried & (match.partner < 0) & eligible,
                            np.array([(deficit + 1) // 2]), sample_weight, rng)
        if not extra.any():
            break
        tried |= extra
        match.run(extra, ~tried)
        found = extra & (match.partner >= 0)
        drawn |= found  # a household drawn now but left without donor stays unselected
        if not found.any():
            break
    partner = match.partner

    # 5. exchange geography and carry_along of whole households
    perm = np.arange(n_h, dtype=np.int64)
    swapped = partner >= 0
    perm[swapped] = partner[swapped]
    source = first[perm[h]]
    moved = source != first[h]
    new = {}
    if swapped.any():
        for c in (*hierarchy, *carry_along):
            new[c] = pd.Series(data[c].array.take(source), index=data.index, name=c)
    if swapped_id is not None:
        hid_values = data[household]
        new[swapped_id] = pd.Series(hid_values.array.take(source), index=data.index,
                                    name=swapped_id)
    out = data.assign(**new) if new else data
    ids = data[household].to_numpy()[first]
    init = np.concatenate(match.initiators) if match.initiators else np.zeros(0, np.int64)
    pairs = np.column_stack([ids[init], ids[partner[init]]])

    no_donor_risk = risky & ~swapped
    size = np.bincount(h, minlength=n_h)
    notes.update({
        "target_swapped_households": target,
        "selected_at_risk": int(risky.sum()),
        "selected_at_risk_by_level": {hierarchy[lev]: int((risky_k & (start == lev)).sum())
                                      for lev in range(m)},
        "selected_by_risk_threshold": int(risky_t.sum()),
        "selected_random": int(drawn.sum()),
        "swapped_households": int(swapped.sum()),
        "swapped_records": int(moved.sum()),
        "swap_rate": float(swapped.sum() / n_h) if n_h else 0.0,
        "swaps_by_level": {hierarchy[lev]: int(match.by_level[lev]) for lev in range(m)},
        "swaps_by_profile": [int(v) for v in match.by_profile],
        "without_donor": {"at_risk": int(no_donor_risk.sum()),
                          "random": int((drawn & ~swapped).sum())},
        "without_donor_at_risk_by_level": {
            hierarchy[lev]: int((no_donor_risk & (start == lev)).sum()) for lev in range(m)},
        "changed": {c: int(size[v[perm] != v].sum())
                    for c, v in zip((*hierarchy, *carry_along), (*geo_hh, *carry))},
    })
    return out, notes, pairs
