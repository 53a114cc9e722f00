"""The guard of `tests/dask_default_guard.py` catches a test that leaves a Dask distributed
client as the default scheduler, and restores the local scheduler for the tests after it.

The leaking tests run in a pytest of their own (a subprocess with only the guard as conftest),
so this file's process is never left with a leaked client."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("dask")
pytest.importorskip("distributed")

TESTS = Path(__file__).resolve().parents[1]

CONFTEST = f"""
import sys
sys.path.insert(0, {str(TESTS)!r})
from dask_default_guard import pytest_runtest_teardown  # noqa: F401
"""

LEAKS = """
import dask
import distributed


def _cluster():
    return distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                    dashboard_address=None)


def test_leaves_the_distributed_name():
    dask.config.set(scheduler="dask.distributed")  # never undone


def test_sees_the_local_scheduler_again():
    assert dask.config.get("scheduler", None) is None
    assert dask.delayed(sum)([1, 2]).compute() == 3


def test_leaves_the_closed_client():
    with _cluster() as cluster, distributed.Client(cluster, set_as_default=False) as client:
        setting = dask.config.set(scheduler=client)  # made before as_current(): undone first
        with client.as_current(), setting:
            assert dask.delayed(sum)([1, 2]).compute() == 3


def test_leaves_a_default_client_open():
    distributed.Client(_cluster())  # never closed


def test_scoped_client_is_no_leak():
    with _cluster() as cluster, distributed.Client(cluster, set_as_default=False) as client:
        with client.as_current(), dask.config.set(scheduler=client):
            assert dask.delayed(sum)([1, 2]).compute() == 3
    with dask.config.set(scheduler="sync"):
        assert dask.delayed(sum)([2, 2]).compute() == 4


def test_computes_locally_at_the_end():
    assert dask.config.get("scheduler", None) is None
    assert dask.delayed(sum)([1, 3]).compute() == 4
"""


@pytest.mark.slow
def test_guard_fails_the_leaking_tests_and_restores_the_local_scheduler(tmp_path):
    (tmp_path / "conftest.py").write_text(textwrap.dedent(CONFTEST))
    (tmp_path / "test_leaks.py").write_text(LEAKS)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         "-p", "no:xdist", "--rootdir", str(tmp_path), "-W", "ignore", "test_leaks.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    # every test passes its body; the three leaking ones error in their teardown
    assert "6 passed, 3 errors" in out, out
    errors = [line for line in out.splitlines() if line.startswith("ERROR test_leaks.py::")]
    assert [e.split("::")[1].split(" ")[0] for e in errors] == [
        "test_leaves_the_distributed_name", "test_leaves_the_closed_client",
        "test_leaves_a_default_client_open"], out
    assert "dask.config 'scheduler' = 'dask.distributed'" in out
    assert "(status closed)" in out  # the closed client left as the scheduler setting
    assert "default client <Client" in out  # the open client left as the global default
