"""Fixtures of the Dask tests: a small `distributed.LocalCluster` (two in-process workers, one
thread each) shared by a module, and a ``scheduler`` fixture running a test on Dask's default
(synchronous) scheduler and on the cluster."""

from __future__ import annotations

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
    client = distributed.Client(cluster, set_as_default=False)
    yield client
    client.close()
    cluster.close()


@pytest.fixture(params=["default", pytest.param("cluster", marks=pytest.mark.slow)])
def scheduler(request):
    """Run the test on the default scheduler (synchronous) and on the LocalCluster."""
    if request.param == "default":
        with dask.config.set(scheduler="sync"):
            yield None
    else:
        client = request.getfixturevalue("cluster_client")
        with client.as_current(), dask.config.set(scheduler=client):
            yield client
