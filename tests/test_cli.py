"""The console script, run for real in a subprocess: risk -> run -> measure round trip."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import sdcsession as sdc

KEYS = ["region", "urbrur", "sex", "age5", "marstat"]


def _cmd() -> list[str]:
    script = Path(sys.executable).parent / "sdcsession"
    if script.exists():
        return [str(script)]
    found = shutil.which("sdcsession")
    return [found] if found else [sys.executable, "-m", "sdcsession"]


def run(*args: str, ok: int | None = 0) -> subprocess.CompletedProcess:
    # the package of this checkout, not the one the console script was installed from
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [root, *([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])])}
    p = subprocess.run([*_cmd(), *map(str, args)], capture_output=True, text=True, timeout=300,
                       env=env)
    if ok is not None:
        assert p.returncode == ok, p.stderr
    return p


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    df = sdc.datasets.synthetic_survey(300, seed=4)
    data = d / "survey.csv"
    df.to_csv(data, index=False)
    s = sdc.SdcSession(pd.read_csv(data), keys=KEYS, numeric=["income", "expend"], weight="w",
                       household="hid", seed=9)
    s.recode("marstat", {"widowed": "other", "divorced": "other"})
    s.remove(["health"])
    recipe = s.save_recipe(d / "recipe.json")
    return d, data, recipe, s


def test_risk_text_and_json(files):
    d, data, _, s = files
    p = run("risk", data, "--keys", ",".join(KEYS), "--weight", "w", "--household", "hid")
    assert "expected re-identifications" in p.stdout
    j = json.loads(run("risk", data, "--keys", ",".join(KEYS), "--weight", "w", "--json").stdout)
    ref = sdc.SdcSession(pd.read_csv(data), keys=KEYS, weight="w", seed=0).risk
    assert j["expected_reidentifications"] == pytest.approx(ref.expected_reidentifications, rel=1e-12)
    assert j["k3_violations"] == ref.k_violations(3)


def test_run_replays_recipe_and_measure(files):
    d, data, recipe, s = files
    out = d / "released.csv"
    # the recipe's release is not 3-anonymous: the release check refuses it unless forced
    p = run("run", recipe, "--data", data, "--out", out, ok=2)
    assert "k_anonymity" in p.stderr and not out.exists()
    p = run("run", recipe, "--data", data, "--out", out, "--force")
    assert "replaying 2 step(s)" in p.stderr
    released = pd.read_csv(out)
    assert "health" not in released.columns
    # released in the session's random order: the replayed session's data_for_release
    pd.testing.assert_series_equal(released["marstat"],
                                   s.data_for_release()["marstat"].astype(object),
                                   check_names=False, check_dtype=False)
    # record-level measures compare the files record by record: the file's order
    run("run", recipe, "--data", data, "--out", out, "--force", "--overwrite", "--keep-order")
    m = run("measure", data, out, "--columns", "income,expend,marstat", "--json")
    rows = json.loads(m.stdout)
    changed = [r for r in rows if r["measure"] == "records_changed" and r["variable"] == "marstat"
               and r["statistic"] == "changed"]
    assert changed and changed[0]["value"] == (s.original["marstat"].isin(
        ["widowed", "divorced"])).sum()
    il1s = [r for r in rows if r["measure"] == "il1s"]
    assert il1s and il1s[0]["value"] == 0.0


def test_bad_input_exit_codes(files, tmp_path):
    d, data, recipe, _ = files
    p = run("risk", tmp_path / "nope.csv", "--keys", "a", ok=2)
    assert p.stderr.startswith("sdcsession: error:") and "Traceback" not in p.stderr
    p = run("risk", data, "--keys", "region,sexx", ok=2)
    assert "sexx" in p.stderr
    semi = tmp_path / "semi.csv"
    pd.read_csv(data).to_csv(semi, sep=";", index=False)
    p = run("risk", semi, "--keys", "region,sex", "--sep", ",", ok=2)
    assert "sep" in p.stderr or "delimiter" in p.stderr
    other = tmp_path / "other.csv"
    pd.DataFrame({"a": [1, 2]}).to_csv(other, index=False)
    p = run("run", recipe, "--data", other, "--out", tmp_path / "o.csv", ok=2)
    assert "region" in p.stderr
    p = run("run", recipe, "--data", data, "--out", tmp_path / "no" / "dir" / "o.csv", "--force",
            ok=2)
    assert "Traceback" not in p.stderr
    p = run("run", recipe, "--data", data, "--out", data, "--force", "--overwrite", ok=2)
    assert "overwrite" in p.stderr or "input" in p.stderr
    # --report: never over an existing file without --overwrite, never over the data
    rep = tmp_path / "rep.html"
    rep.write_text("keep")
    p = run("run", recipe, "--data", data, "--out", tmp_path / "o2.csv", "--force",
            "--report", rep, ok=2)
    assert "--overwrite" in p.stderr and rep.read_text() == "keep"
    assert not (tmp_path / "o2.csv").exists()
    before = Path(data).read_bytes()
    p = run("run", recipe, "--data", data, "--out", tmp_path / "o3.csv", "--force",
            "--overwrite", "--report", data, ok=2)
    assert Path(data).read_bytes() == before and not (tmp_path / "o3.csv").exists()
    run("run", recipe, "--data", data, "--out", tmp_path / "o4.csv", "--force", "--overwrite",
        "--report", rep)
    assert rep.read_text().startswith("<!DOCTYPE html>")
    p = run("frobnicate", ok=2)
    p = run("--debug", "risk", tmp_path / "nope.csv", "--keys", "a", ok=None)
    assert "Traceback" in p.stderr


def test_demo_runs():
    p = run("demo", "--households", "400")
    assert "local suppression" in p.stdout and "undo" in p.stdout


def test_cli_warnings_print_one_line_without_source(monkeypatch, capsys) -> None:
    """A warning on the command line is one line: no Python file name or source line."""
    import warnings as _w

    from sdcsession import cli
    from sdcsession.errors import SdcWarning

    def command(args: object) -> int:
        _w.warn("3 records could not reach k-anonymity", SdcWarning, stacklevel=2)
        return 0

    monkeypatch.setitem(cli.COMMANDS, "demo", command)
    assert cli.main(["demo"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["sdcsession: warning: 3 records could not reach k-anonymity"]


def test_measure_leaves_out_constant_columns_by_default(files, tmp_path):
    d, data, _, _ = files
    df = pd.read_csv(data).assign(const=1.0)
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    df.to_csv(a, index=False)
    df.assign(income=df["income"] + 1.0).to_csv(b, index=False)
    p = run("measure", a, b, "--json")
    assert "'const'] are constant in the original file" in p.stderr
    rows = json.loads(p.stdout)
    il1s = [r for r in rows if r["measure"] == "il1s"]
    assert il1s and il1s[0]["value"] > 0
    # asked for by name, on the constant column: the error says why
    p = run("measure", a, b, "--measures", "il1s", "--columns", "const,income", ok=1)
    assert "zero standard deviation" in p.stderr and "Traceback" not in p.stderr


def test_measure_with_nothing_computable_is_an_error(files, tmp_path, capsys):
    """A file with a header and no records: every default measure is refused, so the command
    fails with one error line (exit 2) instead of printing an empty table with exit 0."""
    from sdcsession import cli

    _, data, _, _ = files
    empty = tmp_path / "empty.csv"
    pd.read_csv(data).iloc[:0].to_csv(empty, index=False)
    for a, b in ((empty, data), (data, empty)):
        assert cli.main(["measure", str(a), str(b)]) == 2
        err = capsys.readouterr().err
        assert "sdcsession: error: no measure could be computed" in err
        assert "Traceback" not in err
    assert cli.main(["measure", str(data), str(data), "--columns", "income"]) == 0
    assert "il1s" in capsys.readouterr().out
