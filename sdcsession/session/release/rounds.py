"""The release check's counts computed in rounds: every count that does not wait for another is
computed in the same pass (internal to the release check).

Each finding is written as a generator: it yields a tuple of lazy objects (Dask collections or
`dask.delayed` values; on pandas, the values themselves) and receives their values, as many
times as it needs, then returns its result. `gather` runs several such generators side by
side: in each round it yields what all of them ask for at once, so a check whose counts wait
for its first answer costs one more round, not one more pass per count, and `run` computes
each round with a single ``compute`` call (Dask's optimiser shares the reads and the tasks the
counts have in common). On pandas the values are passed through: the same code, no cost.

Example
-------
>>> def double(x):
...     (v,) = yield (x,)
...     return 2 * v
>>> def plus(x, y):
...     a, b = yield from gather(double(x), double(y))
...     return a + b
>>> run(plus(1, 2), lambda *objs: objs)
6
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

import pandas as pd

__all__ = ["Rounds", "gather", "run", "run_dask", "values", "compute_for"]

#: a generator yielding tuples of lazy objects, receiving their values, returning a result
Rounds = Generator[tuple[Any, ...], tuple[Any, ...], Any]


def gather(*gens: Rounds) -> Generator[tuple[Any, ...], tuple[Any, ...], list[Any]]:
    """Run the generators ``gens`` side by side (see the module docstring): each round yields
    the requests of every generator still running as one tuple and sends each its own values.
    Returns their results, in the order of ``gens``.

    Missing values: not applicable.
    """
    out: list[Any] = [None] * len(gens)
    pending: dict[int, tuple[Any, ...]] = {}

    def step(i: int, value: Any) -> None:
        try:
            pending[i] = tuple(gens[i].send(value))
        except StopIteration as stop:
            out[i] = stop.value

    for i in range(len(gens)):
        step(i, None)
    while pending:
        order = list(pending.items())
        pending.clear()
        got = yield tuple(obj for _, req in order for obj in req)
        pos = 0
        for i, req in order:
            step(i, tuple(got[pos:pos + len(req)]))
            pos += len(req)
    return out


def run(gen: Rounds, compute: Callable[..., tuple[Any, ...]]) -> Any:
    """The result of the generator ``gen``, each of its requests computed with one call of
    ``compute(*objs)`` (a round that asks for nothing is not computed).

    Missing values: not applicable.
    """
    value: Any = None
    while True:
        try:
            req = tuple(gen.send(value))
        except StopIteration as stop:
            return stop.value
        value = tuple(compute(*req)) if req else ()


def run_dask(gen: Rounds) -> Any:
    """`run` with Dask's ``compute`` (`sdcsession.scale._base.compute`, no progress bar).

    Missing values: not applicable.
    """
    return run(gen, compute_for(None))


def values(*objs: Any) -> Rounds:
    """The values of ``objs`` in one round (none when there are no objects).

    Missing values: not applicable.
    """
    if not objs:
        return ()
    got = yield objs
    return got


def compute_for(data: Any) -> Callable[..., tuple[Any, ...]]:
    """The ``compute`` of `run` for the frame ``data``: pandas values are passed through, Dask
    collections computed together (no progress bar).

    Missing values: not applicable.

    >>> import pandas as pd
    >>> compute_for(pd.DataFrame())(1, 2)
    (1, 2)
    """
    if isinstance(data, pd.DataFrame):
        return lambda *objs: objs
    return _dask_compute


def _concat(parts: list[Any]) -> Any:
    return pd.concat(parts) if len(parts) != 1 else parts[0]


def _dask_compute(*objs: Any) -> tuple[Any, ...]:
    """Dask collections and delayed values computed in one call. ``dask.compute`` given both
    Dask DataFrame collections (expressions) and delayed values returns their values out of
    order, so when a round holds both, each collection is turned into a delayed value first
    (a frame or series: its partitions, concatenated)."""
    from dask.delayed import Delayed, delayed

    from ...scale._base import compute

    lazy = [o for o in objs if not isinstance(o, Delayed) and hasattr(o, "to_delayed")]
    if lazy and len(lazy) < len(objs):
        conv = []
        for o in objs:
            if not isinstance(o, Delayed) and hasattr(o, "to_delayed"):
                d = o.to_delayed()
                o = delayed(_concat)(d) if isinstance(d, list) else d
            conv.append(o)
        objs = tuple(conv)
    return compute(*objs, progress=False)
