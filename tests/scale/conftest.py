"""Fixtures of the Dask tests: a small `distributed.LocalCluster` (two in-process workers, one
thread each) shared by a module, and a ``scheduler`` fixture running a test on Dask's default
(synchronous) scheduler and on the cluster."""

from __future__ import annotations

import contextlib

import pytest

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster_client():
    # In-process workers measure the memory of the whole test process: without these settings
    # a long test run (RSS above 80% of the limit) pauses them and the computation never ends.
    # The limit itself stays (the strata checks read it).
    quiet = {f"distributed.worker.memory.{k}": False
             for k in ("target", "spill", "pause", "terminate")}
    with dask.config.set(quiet):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                           dashboard_address=None, memory_limit="1GiB")
    # never the default client: tests compute on it only inside `on_cluster`
    with cluster, distributed.Client(cluster, set_as_default=False) as client:
        yield client


@contextlib.contextmanager
def on_cluster(client):
    """Dask computes on ``client`` inside the block. The setting is made after the client is
    made current, so on exit both are undone in reverse order (the other order would leave the
    closed client as everyone's default scheduler once the cluster stops)."""
    with client.as_current(), dask.config.set(scheduler=client):
        yield client


@pytest.fixture(params=["default", pytest.param("cluster", marks=pytest.mark.slow)])
def scheduler(request):
    """Run the test on the default scheduler (synchronous) and on the LocalCluster."""
    if request.param == "default":
        with dask.config.set(scheduler="sync"):
            yield None
    else:
        with on_cluster(request.getfixturevalue("cluster_client")) as client:
            yield client


@pytest.fixture
def sync_quiet():
    """Dask's synchronous scheduler and no warnings, for tests that compare dtypes and data
    (``pytestmark = pytest.mark.usefixtures("sync_quiet")``)."""
    import warnings

    import dask

    with dask.config.set(scheduler="sync"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
