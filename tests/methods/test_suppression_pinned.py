"""Pinned results of `local_suppression`: the exact suppressed cells and notes on fixed data.

The heuristic has many equally valid answers; these tests pin the one it gives today so that
speed work on its internals (counting, restoration, compiled kernels) cannot change a result
silently. Two small cases list every suppressed cell; larger ones (household spread, 10 keys,
weights, importance, key combinations, strata) pin a SHA-256 of the suppression mask.
"""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pandas as pd
import pytest

from sdcsession.datasets import synthetic_survey
from sdcsession.methods.suppression import local_suppression
from sdcsession.risk import k_violations

KEYS8 = ["region", "urbrur", "hhsize", "sex", "age5", "marstat", "educ", "occup"]
KEYS10 = KEYS8 + ["water", "relat"]


def _mask(df: pd.DataFrame, out: pd.DataFrame, keys: list[str]) -> np.ndarray:
    return np.column_stack([out[c].isna().to_numpy() & df[c].notna().to_numpy() for c in keys])


def _cells(df: pd.DataFrame, out: pd.DataFrame, keys: list[str]) -> list[tuple[int, int]]:
    return [(int(r), int(c)) for r, c in np.argwhere(_mask(df, out, keys))]


def test_small_case_exact_cells():
    keys = ["sex", "age5", "marstat", "educ"]
    df = synthetic_survey(15, seed=3)
    out, notes = local_suppression(df, keys, k=2, progress=False)
    assert _cells(df, out, keys) == [
        (3, 2), (6, 3), (10, 1), (11, 0), (11, 1), (12, 1), (16, 3), (17, 2), (18, 2), (20, 1),
        (21, 3), (25, 3), (27, 1), (28, 2), (32, 3), (37, 1), (38, 3), (41, 1), (45, 3), (47, 1),
        (49, 1), (51, 1)]
    assert notes["suppressed"] == {"sex": 1, "age5": 10, "marstat": 4, "educ": 7}
    assert (notes["total"], notes["restored"], notes["rounds"]) == (22, 0, 4)
    assert k_violations(out, keys, 2) == 0


def test_small_household_case_exact_cells():
    keys = ["region", "hhsize", "sex", "age5", "marstat"]
    df = synthetic_survey(20, seed=3)
    out, notes = local_suppression(df, keys, k=2, household="hid", progress=False)
    assert _cells(df, out, keys) == [
        (0, 0), (1, 0), (2, 0), (3, 0), (3, 3), (4, 0), (5, 0), (5, 1), (6, 0), (6, 1), (6, 2),
        (7, 0), (7, 1), (8, 0), (8, 1), (8, 3), (12, 3), (13, 2), (14, 4), (15, 3), (18, 0),
        (19, 0), (19, 3), (20, 0), (22, 3), (23, 2), (28, 3), (29, 3), (30, 3), (31, 1), (38, 2),
        (39, 0), (40, 0), (41, 0), (42, 0), (42, 1), (43, 0), (43, 1), (44, 0), (44, 1), (45, 0),
        (45, 1), (46, 0), (46, 1), (47, 0), (47, 1), (48, 0), (48, 1), (49, 3), (50, 3), (51, 2),
        (52, 4), (53, 3), (54, 2), (56, 2), (58, 3), (59, 0), (59, 1), (60, 0), (60, 1), (61, 0),
        (61, 1), (62, 1), (63, 1), (64, 1), (64, 4), (65, 1), (65, 3), (66, 0), (66, 1)]
    assert notes["suppressed"] == {"region": 26, "hhsize": 20, "sex": 7, "age5": 14, "marstat": 3}
    assert (notes["restored"], notes["household_added"], notes["household_restored"]) == (2, 24, 4)


CASES = {
    "household": (600, dict(keys=KEYS8, k=3, household="hid")),
    "ten_keys": (300, dict(keys=KEYS10, k=3)),
    "weighted": (400, dict(keys=KEYS8, k=300.0, weight="w", weighted=True)),
    "importance": (400, dict(keys=KEYS8, k=3, importance=list(reversed(KEYS8)))),
    "combinations": (300, dict(keys=KEYS8[:6], k=2, combinations=[3])),
    "strata": (300, dict(keys=KEYS8[1:], k=4, strata="region")),
    "household_importance": (500, dict(keys=KEYS8, k=3, household="hid", importance=KEYS8)),
}

PINNED: dict[str, tuple[str, dict]] = {
    "combinations": ("f557b6bfcd6719ba", {"suppressed": {"region": 27, "urbrur": 0, "hhsize": 13, "sex": 0, "age5": 86, "marstat": 10}, "total": 136, "violations_after": 0, "unresolvable": 0, "restored": 0, "rounds": 37}),
    "household": ("728b870a281ab62c", {"suppressed": {"region": 1061, "urbrur": 178, "hhsize": 754, "sex": 98, "age5": 534, "marstat": 282, "educ": 224, "occup": 283}, "total": 3414, "violations_after": 0, "unresolvable": 0, "restored": 144, "rounds": 12, "household_added": 1256, "household_restored": 202}),
    "household_importance": ("399a40eb0a61e69b", {"suppressed": {"region": 0, "urbrur": 0, "hhsize": 16, "sex": 74, "age5": 834, "marstat": 595, "educ": 719, "occup": 628}, "total": 2866, "violations_after": 0, "unresolvable": 0, "restored": 563, "rounds": 27, "household_added": 0, "household_restored": 0}),
    "importance": ("4a436600af1a0554", {"suppressed": {"region": 582, "urbrur": 283, "hhsize": 440, "sex": 244, "age5": 480, "marstat": 67, "educ": 0, "occup": 0}, "total": 2096, "violations_after": 0, "unresolvable": 0, "restored": 311, "rounds": 30}),
    "strata": ("62d98f67514530a1", {"suppressed": {"urbrur": 197, "hhsize": 385, "sex": 171, "age5": 364, "marstat": 248, "educ": 211, "occup": 182}, "total": 1758, "violations_after": 0, "unresolvable": 0, "restored": 92, "rounds": 167}),
    "ten_keys": ("c00ba0d9ac07502e", {"suppressed": {"region": 442, "urbrur": 92, "hhsize": 284, "sex": 74, "age5": 327, "marstat": 226, "educ": 141, "occup": 139, "water": 119, "relat": 139}, "total": 1983, "violations_after": 0, "unresolvable": 0, "restored": 100, "rounds": 15}),
    "weighted": ("7f4b205f6063172e", {"suppressed": {"region": 388, "urbrur": 48, "hhsize": 236, "sex": 44, "age5": 184, "marstat": 94, "educ": 48, "occup": 93}, "total": 1135, "violations_after": 0, "unresolvable": 0, "restored": 102, "rounds": 10}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_pinned_mask_and_notes(name):
    households, kw = CASES[name]
    df = synthetic_survey(households, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out, notes = local_suppression(df, progress=False, **kw)
    notes.pop("k")
    digest = hashlib.sha256(np.packbits(_mask(df, out, kw["keys"])).tobytes()).hexdigest()[:16]
    assert (digest, notes) == PINNED[name]
