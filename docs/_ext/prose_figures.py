"""Figures quoted in the docs' prose, computed at build time: ``{{ figure("name") }}``.

Every name is a small registered snippet (`SNIPPETS`) that computes the figure with the current
code, so the prose cannot go stale. The snippets on sdcMicro's test files read the conformance
files (``$SDCSESSION_CONFORMANCE``, else ``../shared/conformance`` beside the checkout); without
them the figure reads "(not computed: conformance files absent)". An unknown name fails the build.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
ABSENT = "(not computed: conformance files absent)"


def conformance() -> Path | None:
    value = os.environ.get("SDCSESSION_CONFORMANCE", "").strip()
    path = Path(value).expanduser().resolve() if value else ROOT.parent / "shared" / "conformance"
    ok = (path / "sdcmicro_reference.json").is_file() and (path / "data").is_dir()
    return path if ok else None


@cache
def _reference() -> dict:
    path = conformance()
    assert path is not None
    return json.loads((path / "sdcmicro_reference.json").read_text(encoding="utf-8"))


@cache
def _suppressions(name: str, case: str) -> int:
    """Our local suppression's total on a conformance file, with the reference case's k and
    importance (sdcMicro's numeric vector, 1 = most important, as names in that order)."""
    import pandas as pd

    from sdcsession.methods.suppression import local_suppression

    ref = _reference()[name]
    keys = ref["keys"]
    df = pd.read_csv(conformance() / "data" / f"{name}.csv")  # type: ignore[operator]
    for k in keys:
        df[k] = df[k].astype("category")
    r = ref[case]
    importance = None
    if r.get("importance") is not None:
        importance = [keys[i] for i in np.argsort(r["importance"], kind="stable")]
    _, notes = local_suppression(df, keys, k=r["k"], importance=importance)
    return int(notes["total"])


def _ours(name: str, case: str) -> Callable[[], str]:
    return lambda: f"{_suppressions(name, case):,}"


def _sdcmicro(name: str, case: str) -> Callable[[], str]:
    return lambda: f"{int(_reference()[name][case]['total']):,}"


SNIPPETS: dict[str, Callable[[], str]] = {
    "suppressions.testdata_k3": _ours("testdata", "kanon_k3"),
    "suppressions.testdata_k3.sdcmicro": _sdcmicro("testdata", "kanon_k3"),
    "suppressions.free1_k3": _ours("free1", "kanon_k3"),
    "suppressions.free1_k3.sdcmicro": _sdcmicro("free1", "kanon_k3"),
    "suppressions.testdata_importance": _ours("testdata", "kanon_k3_importance"),
    "suppressions.testdata_importance.sdcmicro": _sdcmicro("testdata", "kanon_k3_importance"),
}
#: snippets that read the conformance files
NEEDS_CONFORMANCE = {n for n in SNIPPETS if n.startswith("suppressions.")}


def figure(name: str) -> str:
    """The text of figure ``name`` (KeyError for an unknown name)."""
    snippet = SNIPPETS[name]
    if name in NEEDS_CONFORMANCE and conformance() is None:
        return ABSENT
    return snippet()
