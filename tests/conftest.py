"""Shared fixtures and the sdcMicro conformance data (never copied into the repo).

The conformance files (``sdcmicro_reference.json`` and ``data/*.csv``) live outside the checkout,
by default in ``../shared/conformance`` beside it; the environment variable
``SDCSESSION_CONFORMANCE`` points elsewhere (a relative value is taken from the current
directory). Without the files, every test that reads them is skipped with the one reason
`CONFORMANCE_REASON` (raised by `require_conformance` inside the helpers below, or by the mark
`requires_conformance`), so a clean clone runs the rest of the suite; with them (CI) all run.
Tests reach the files only through these helpers, never at import time, so collection never
depends on them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import ClassVar

import attrs
import pandas as pd
import pytest

# after every test: no Dask distributed client may be left as the default scheduler
from dask_default_guard import pytest_runtest_teardown  # noqa: F401 - a hook

from sdcsession.methods.base import Result, Treatment

ENV_VAR = "SDCSESSION_CONFORMANCE"
DEFAULT_CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"


def conformance_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The conformance directory: ``$SDCSESSION_CONFORMANCE`` if set (and not empty), else the default.

    Examples
    --------
    >>> conformance_dir({"SDCSESSION_CONFORMANCE": "/data/conf"})
    PosixPath('/data/conf')
    """
    value = (os.environ if environ is None else environ).get(ENV_VAR, "").strip()
    return Path(value).expanduser().resolve() if value else DEFAULT_CONFORMANCE


def conformance_available(path: Path) -> bool:
    """Whether ``path`` holds the conformance files (the reference JSON and the data folder)."""
    return (path / "sdcmicro_reference.json").is_file() and (path / "data").is_dir()


CONFORMANCE = conformance_dir()
HAVE_CONFORMANCE = conformance_available(CONFORMANCE)
CONFORMANCE_REASON = f"sdcMicro conformance files not found at {CONFORMANCE} (set {ENV_VAR})"
# CI sets SDCSESSION_REQUIRE_CONFORMANCE=1: there, missing files are an error, not 78 silent skips
if not HAVE_CONFORMANCE and os.environ.get("SDCSESSION_REQUIRE_CONFORMANCE") == "1":
    raise pytest.UsageError(CONFORMANCE_REASON + "; SDCSESSION_REQUIRE_CONFORMANCE=1 requires them")
# for a test that needs the files but reads them other than through the helpers below
requires_conformance = pytest.mark.skipif(not HAVE_CONFORMANCE, reason=CONFORMANCE_REASON)


def require_conformance() -> None:
    """Skip the calling test (or fixture) when the conformance files are absent."""
    if not HAVE_CONFORMANCE:
        pytest.skip(CONFORMANCE_REASON)


@cache
def reference() -> dict:
    """The sdcMicro reference figures (skips the test when the files are absent)."""
    require_conformance()
    return json.loads((CONFORMANCE / "sdcmicro_reference.json").read_text())


def read_csv(name: str, **kwargs) -> pd.DataFrame:
    """Conformance data file ``data/<name>.csv`` as read by `pandas.read_csv` (skips when absent)."""
    require_conformance()
    return pd.read_csv(CONFORMANCE / "data" / f"{name}.csv", **kwargs)


@cache
def _read(name: str) -> pd.DataFrame:
    return read_csv(name)


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


# ---------------------------------------------------------------------------- browser tests
#: the system's Chromium (Debian's package; `.ci/run` installs it), or None
CHROMIUM = next((p for p in ("/usr/bin/chromium", shutil.which("chromium") or "",
                             shutil.which("chromium-browser") or "") if p and Path(p).is_file()),
                None)


#: set to ``1`` to let the browser tests write the screenshots the docs show into docs/howto/img
UPDATE_SCREENSHOTS = "SDCSESSION_UPDATE_SCREENSHOTS"
DOCS_IMG = Path(__file__).resolve().parents[1] / "docs" / "howto" / "img"


def screenshot_dir(tmp_path: Path, environ: Mapping[str, str] | None = None) -> Path:
    """Where a browser test saves a screenshot the docs show: ``docs/howto/img`` when
    ``$SDCSESSION_UPDATE_SCREENSHOTS`` is ``1``, else ``<tmp_path>/screenshots`` (an ordinary
    test run leaves the work tree clean).

    Examples
    --------
    >>> screenshot_dir(Path("/tmp/t"), {}) == Path("/tmp/t/screenshots")
    True
    >>> screenshot_dir(Path("/tmp/t"), {UPDATE_SCREENSHOTS: "1"}) == DOCS_IMG
    True
    """
    on = (os.environ if environ is None else environ).get(UPDATE_SCREENSHOTS, "").strip() == "1"
    out = DOCS_IMG if on else tmp_path / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    return out


def browser_marks(*modules: str, extras: str = "test") -> list[pytest.MarkDecorator]:
    """``pytestmark`` of a browser test: slow, skipped with the reason without Chromium or
    without one of ``modules`` (naming the extras that install them)."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    return [pytest.mark.slow,
            pytest.mark.skipif(CHROMIUM is None, reason="no system Chromium (/usr/bin/chromium)"),
            pytest.mark.skipif(bool(missing), reason=f"needs {', '.join(missing)} "
                                                     f"(pip install -e '.[{extras}]')")]


def wait_for_port(port: int, proc: subprocess.Popen, log: Path, seconds: float = 60) -> None:
    """Wait until the app started as ``proc`` listens on ``port`` (fail with its log)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"sdcsession app exited with {proc.returncode}:\n{log.read_text()}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.3)
    pytest.fail(f"Voilà did not listen on port {port} within {seconds} s:\n{log.read_text()}")
