"""Shared fixtures: the conformance data of ../shared/conformance (never copied into the repo)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pandas as pd
import pytest

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
