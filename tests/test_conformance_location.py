"""Where the sdcMicro conformance files are looked for, and what happens without them.

``SDCSESSION_CONFORMANCE`` overrides the default ``../shared/conformance`` beside the checkout;
without the files the tests that read them skip with one reason and the rest still pass.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import (
    CONFORMANCE,
    DEFAULT_CONFORMANCE,
    ENV_VAR,
    conformance_available,
    conformance_dir,
    requires_conformance,
)

ROOT = Path(__file__).resolve().parents[1]


def test_default_is_shared_conformance_beside_the_checkout() -> None:
    assert DEFAULT_CONFORMANCE == ROOT.parent / "shared" / "conformance"
    assert conformance_dir({}) == DEFAULT_CONFORMANCE
    assert conformance_dir({ENV_VAR: ""}) == DEFAULT_CONFORMANCE
    assert conformance_dir({ENV_VAR: "  "}) == DEFAULT_CONFORMANCE


def test_environment_variable_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert conformance_dir({ENV_VAR: str(tmp_path)}) == tmp_path.resolve()
    monkeypatch.chdir(tmp_path)  # a relative value is taken from the current directory
    assert conformance_dir({ENV_VAR: "conf"}) == tmp_path.resolve() / "conf"
    # the module constant follows the variable of this very run
    assert CONFORMANCE == conformance_dir(os.environ)


def test_available_needs_the_reference_and_the_data_folder(tmp_path: Path) -> None:
    assert not conformance_available(tmp_path / "missing")
    assert not conformance_available(tmp_path)
    (tmp_path / "sdcmicro_reference.json").write_text("{}")
    assert not conformance_available(tmp_path)
    (tmp_path / "data").mkdir()
    assert conformance_available(tmp_path)


def _pytest(env_value: str, *args: str) -> subprocess.CompletedProcess:
    """Run tests/risk/test_kanon.py (6 tests read the files, 3 do not) in a subprocess."""
    env = {**os.environ, ENV_VAR: env_value, "SDCSESSION_REQUIRE_CONFORMANCE": "0"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-n", "0",
         "tests/risk/test_kanon.py", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_missing_files_skip_with_one_reason(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    run = _pytest(str(missing))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "3 passed, 6 skipped" in run.stdout, run.stdout
    skips = [line for line in run.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(skips) == 1, skips  # all folded into one line: one place, one reason
    assert f"sdcMicro conformance files not found at {missing} (set {ENV_VAR})" in skips[0]


@requires_conformance
@pytest.mark.parametrize("shift,outcome", [(0, "1 passed"), (1, "1 failed")])
def test_files_are_read_from_the_variable(tmp_path: Path, shift: int, outcome: str) -> None:
    """A copy of francdat's files elsewhere: its figures are used (an altered one fails)."""
    ref = json.loads((CONFORMANCE / "sdcmicro_reference.json").read_text())["francdat"]
    ref["risk"]["n_fk_lt2"] += shift
    conf = tmp_path / "conf"
    (conf / "data").mkdir(parents=True)
    (conf / "sdcmicro_reference.json").write_text(json.dumps({"francdat": ref}))
    shutil.copy(CONFORMANCE / "data" / "francdat.csv", conf / "data" / "francdat.csv")
    run = _pytest(str(conf), "-k", "test_conformance_n_fk_lt and francdat")
    assert outcome in run.stdout and "skipped" not in run.stdout, run.stdout + run.stderr
