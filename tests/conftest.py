"""Shared fixtures: the conformance data of ../shared/conformance (never copied into the repo)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import ClassVar

import attrs
import pandas as pd
import pytest

from sdcsession.methods.base import Result, Treatment

CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"


@cache
def reference() -> dict:
    """The sdcMicro reference figures."""
    return json.loads((CONFORMANCE / "sdcmicro_reference.json").read_text())


@cache
def _read(name: str) -> pd.DataFrame:
    return pd.read_csv(CONFORMANCE / "data" / f"{name}.csv")


def load(name: str, keys_as_category: bool = True) -> pd.DataFrame:
    """A conformance data file, key variables (per the reference) as categoricals."""
    df = _read(name).copy()
    if keys_as_category:
        ref = reference().get(name, {})
        for k in ref.get("keys", []):
            if k in df.columns:
                df[k] = df[k].astype("category")
    return df


@pytest.fixture(scope="session")
def ref() -> dict:
    return reference()


@attrs.frozen
class BlankRare(Treatment):
    """Test-only suppression: blank ``column`` in records whose key combination has fk < k."""

    type: ClassVar[str] = "test_blank_rare"
    k: int = 3
    column: str = "age5"

    def apply(self, data, roles, rng):
        from sdcsession.risk import frequencies

        f = frequencies(data, list(roles.keys))
        bad = (f["fk"] < self.k).to_numpy()
        col = data[self.column].copy()
        col[bad] = pd.NA
        return Result(data.assign(**{self.column: col}), notes={"blanked": int(bad.sum())})
