"""Guard of the test suite: no test may leave a Dask ``distributed`` client as the default.

A test (or a fixture) that makes a ``distributed.Client`` Dask's default scheduler and does not
undo it in the reverse order poisons every later test of its pytest-xdist worker: a later
``.compute()`` without an explicit scheduler goes to that client, which by then is closed
(``ClosedClientError``). ``tests/conftest.py`` imports the two hooks below, so after the teardown
of every test the guard looks for

* the ``scheduler`` setting of ``dask.config`` holding a ``Client`` or naming the distributed
  scheduler, and
* a client that is still the current or the global default one,

and when it finds one, closes that client, removes the setting (later tests compute as if
nothing had happened) and fails the test's teardown with what it found. Scope a client with
``with distributed.Client(...)`` (or ``set_as_default=False`` and ``client.as_current()``) and the
setting with ``with dask.config.set(scheduler=...)``, the setting entered after ``as_current()``.

The guard never imports dask: when no test has imported it, there is nothing to check.
"""

from __future__ import annotations

import sys

import pytest

#: the ``scheduler`` names that mean "the active distributed client"
DISTRIBUTED_NAMES = ("distributed", "dask.distributed")


def _client_class() -> type | None:
    module = sys.modules.get("distributed.client")
    return getattr(module, "Client", None)


def _is_client(value: object) -> bool:
    cls = _client_class()
    return cls is not None and isinstance(value, cls)


def distributed_default() -> tuple[list[str], list[object]]:
    """What makes a distributed client Dask's default now: descriptions, and the clients found.

    Empty lists when Dask computes on its local schedulers (or was never imported).
    """
    found: list[str] = []
    clients: list[object] = []
    if "dask" in sys.modules:
        import dask

        value = dask.config.get("scheduler", None)
        if _is_client(value) or (isinstance(value, str) and value.lower() in DISTRIBUTED_NAMES):
            state = f" (status {value.status})" if _is_client(value) else ""
            found.append(f"dask.config 'scheduler' = {value!r}{state}")
    cls = _client_class()
    if cls is not None:
        try:
            client = cls.current(allow_global=True)
        except ValueError:  # no current and no global client
            client = None
        if client is not None:
            found.append(f"default client {client!r}")
            clients.append(client)
    return found, clients


def restore_local_scheduler(clients: list[object]) -> None:
    """Close ``clients`` and remove a distributed ``scheduler`` setting (a client closing may
    set it again: it restores what it found when it was made)."""
    for client in clients:
        try:
            client.close()  # type: ignore[attr-defined]
        except Exception:  # already closed or broken: the setting is what matters
            pass
    if "dask" in sys.modules:
        import dask

        value = dask.config.config.get("scheduler")
        if _is_client(value) or (isinstance(value, str) and value.lower() in DISTRIBUTED_NAMES):
            del dask.config.config["scheduler"]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    """After the test's teardown (its module's fixtures too when it is the module's last test),
    fail it if a distributed client is still Dask's default, restoring the local scheduler."""
    try:
        return (yield)
    finally:
        found, clients = distributed_default()
        if found:
            restore_local_scheduler(clients)
            pytest.fail(f"{item.nodeid} left a Dask distributed client as the default scheduler "
                        f"(restored the local scheduler for the next tests): {'; '.join(found)}. "
                        "Scope clients with `with` and dask.config.set(scheduler=...) with "
                        "`with`, the setting entered after client.as_current().", pytrace=False)
