"""The vote of `sdcsession.risk.numeric._rmd_mcd` (internal): when the modal subset is certain,
and the start stages of its runs computed by the calling thread and a kept pool thread.

Vote. Run i returns an h-subset with its log determinant; the modal fit is the subset returned
most often, ties going to the smallest log determinant, then to the subset seen first (the
``max`` over the runs of (votes, −log det), first run first). After some runs, with ``left``
runs not yet made, the leader L is certain (`certain`) when no other subset can overtake it
whatever the remaining runs return: every subset S seen so far has votes(S) + left < votes(L),
or votes(S) + left = votes(L) and S loses the tie (a larger log det, or the same one and seen
after L); and a subset not seen yet, which could get at most ``left`` votes with an unknown log
det, has left < votes(L). The worst case for L is that all remaining runs vote for one rival, so
this is exactly the condition under which the result of all ``runs`` is already known.

Runs. The start stages of a run (its random starts and nested subsamples) depend only on the
data and the run's seed; its last stage (`sdcsession.risk.robust._fastmcd.finish`) uses the memo
of the runs before it, so the calling thread finishes the runs one by one in run order. `Runs`
hands the start stages out in run order to the calling thread and to a helper in a kept pool
thread: a run may be claimed once the vote cannot be decided without it (`needed`), plus
the caller's ``ahead`` runs beyond (speculative; abandoned between their stages when the vote
is decided).
The calling thread computes the run it needs itself when nobody claimed it, computes another
claimable run while a helper computes the one it needs, and otherwise waits. A run's error is
raised when the calling thread reaches that run, as the plain loop would raise it. The subsets,
the votes, the memo and the errors are those of the plain loop, whatever the number of threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

__all__ = ["certain", "needed", "Runs"]

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _leader(votes: dict, log_det: dict, first: dict) -> object:
    """The subset the vote chooses now: the most votes, then the smaller log determinant, then
    the earlier first run."""
    return max(votes, key=lambda s: (votes[s], -log_det[s], -first[s]))


def certain(votes: dict, log_det: dict, first: dict, left: int) -> bool:
    """True when the leading subset is the result whatever the ``left`` remaining runs return
    (module docstring). ``votes``, ``log_det`` and ``first`` map each subset seen to its votes,
    log determinant and first run.

    Example
    -------
    >>> certain({"a": 5, "b": 2}, {"a": -1.0, "b": -0.5}, {"a": 0, "b": 3}, 3)  # b can tie, loses
    True
    >>> certain({"a": 5, "b": 2}, {"a": -0.5, "b": -1.0}, {"a": 0, "b": 3}, 3)  # b can tie, wins
    False
    """
    lead = _leader(votes, log_det, first)
    c = votes[lead]
    if left >= c:  # a subset not seen yet could still tie or overtake
        return False
    for s, v in votes.items():
        if s == lead:
            continue
        top = v + left
        if top > c or (top == c and (log_det[s], first[s]) < (log_det[lead], first[lead])):
            return False
    return True


def needed(votes: dict, log_det: dict, first: dict, left: int) -> int:
    """The fewest further runs before the vote can be certain (all of them voting for the
    leader, the quickest way): the runs that are computed in any case (1 ≤ result ≤ left when
    left > 0; before any vote ⌊left/2⌋ + 1).

    Example
    -------
    >>> needed({}, {}, {}, 10), needed({"a": 4, "b": 2}, {"a": -1.0, "b": 0.0}, {"a": 0, "b": 1}, 4)
    (6, 1)
    """
    if not votes:  # one subset with r votes is certain once left − r < r
        return min(left, left // 2 + 1)
    lead = _leader(votes, log_det, first)
    for r in range(1, left):
        more = dict(votes)
        more[lead] += r
        if certain(more, log_det, first, left - r):
            return r
    return max(left, 0)


def _helper_pool() -> ThreadPoolExecutor:
    """The kept pool of helper threads (one thread; created on first use)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sdcsession-mcd")
        return _pool


class Runs:
    """The start stages of runs 0, 1, … (``start(i)``), handed out in run order to the calling
    thread (`get`) and ``workers − 1`` helpers (module docstring). ``limit``: runs below it may
    be claimed (raise it with `allow`); `close` abandons the rest."""

    def __init__(self, start: Callable[[int], object], runs: int, limit: int, workers: int,
                 stop: object) -> None:
        self._start, self._runs, self._limit, self._stop = start, runs, limit, stop
        self._cond = threading.Condition()
        self._next = 0  # the first run not claimed
        self._done: dict[int, tuple[bool, object]] = {}
        self._closed = False
        if workers > 1:
            pool = _helper_pool()
            for _ in range(workers - 1):
                pool.submit(self._help)

    def allow(self, limit: int) -> None:
        """Let the runs below ``limit`` be claimed."""
        with self._cond:
            if limit > self._limit:
                self._limit = limit
                self._cond.notify_all()

    def close(self) -> None:
        """Abandon the runs not taken: helpers stop between stages and leave."""
        with self._cond:
            self._closed = True
            self._stop[0] = True  # type: ignore[index]
            self._cond.notify_all()

    def get(self, i: int) -> object:
        """The start stages of run i (called with i = 0, 1, … in order); its error is raised."""
        while True:
            with self._cond:
                while i not in self._done:
                    if self._next == i:  # nobody took it: this thread computes it
                        j = self._claim(force=True)
                        break
                    j = self._claim()  # a helper computes it: another run meanwhile
                    if j is not None:
                        break
                    self._cond.wait()
                else:
                    ok, value = self._done.pop(i)
                    if not ok:
                        raise value  # type: ignore[misc]
                    return value
            self._compute(j)

    def _claim(self, force: bool = False) -> int | None:
        """The next run to compute (under the lock), None when none may be claimed now."""
        if self._closed or self._next >= self._runs or (self._next >= self._limit and not force):
            return None
        j = self._next
        self._next += 1
        return j

    def _compute(self, j: int) -> None:
        try:
            out: tuple[bool, object] = (True, self._start(j))
        except BaseException as err:  # noqa: BLE001 - raised in run order by `get`
            out = (False, err)
        with self._cond:
            self._done[j] = out
            self._cond.notify_all()

    def _help(self) -> None:
        """A helper: computes claimable runs until `close`."""
        while True:
            with self._cond:
                j = self._claim()
                while j is None:
                    if self._closed:
                        return
                    self._cond.wait()
                    j = self._claim()
            self._compute(j)
