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
Before that, the vote also ends when the first ``agree`` runs (3 for ``rmd_risk``) all return
the same subset (`needed` counts the runs left to that point while it is possible).

Runs. The start stages of a run (its random starts and nested subsamples) depend only on the
data and the run's seed; its last stage (`sdcsession.risk.robust._fastmcd.finish`) uses the memo
of the runs before it, so the calling thread finishes the runs one by one in run order. `Runs`
opens the runs in run order (draws their random numbers: a
`sdcsession.risk.robust._fastmcd.Stages`) and hands out the groups of the open runs, one at a
time, to the calling thread and a helper in a kept pool thread; the thread that completes a
run's last group runs its merged and full stages. A run may be opened once the vote cannot be
decided without it (`needed`), plus the caller's ``ahead`` runs beyond (speculative; abandoned
between their groups when the vote is decided). The calling thread works on a group of the run
it needs next, else on a group of the earliest open run, else opens the next run (the one it
needs even beyond the limit), else waits; a helper does the same without a run of its own. So
the two threads share the last runs the vote needs group by group instead of one of them
waiting for the other's whole run (runs were handed out whole before: at 10,000 records the
helper then sat idle for about a third of the searches' wall time). A run's error is raised when
the calling thread reaches that run, as the plain loop would raise it. The subsets, the votes,
the memo and the errors are those of the plain loop, whatever the number of threads.

Idle work. A caller may hand the plan work that does not depend on the searches (`Runs.idle`:
``rmd_risk`` gives RMDID2's grid answer for every record, the column means' centring of the
distances and the likely reweighted fit). A helper that finds no group to compute and no run to
open takes it (at the latest when the plan is closed, before it leaves), so it runs on the core
the searches leave idle at their end; work marked for it the calling thread takes too while it
waits for a run (the other thread computing that run's last stages alone). The caller asks for
its value with `Idle.result`, which waits when a thread is computing it and gives None when
none took it (then the caller computes it itself, as without the plan).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

__all__ = ["certain", "needed", "Runs", "Idle"]

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


def needed(votes: dict, log_det: dict, first: dict, left: int, agree: int = 0) -> int:
    """The fewest further runs before the vote can be decided (all of them voting for the
    leader, the quickest way): the runs that are computed in any case (1 ≤ result ≤ left when
    left > 0; before any vote ⌊left/2⌋ + 1). ``agree``: the vote also ends when the first
    ``agree`` runs return one subset; while the runs so far agree, the runs left to that point.

    Example
    -------
    >>> needed({}, {}, {}, 10), needed({"a": 4, "b": 2}, {"a": -1.0, "b": 0.0}, {"a": 0, "b": 1}, 4)
    (6, 1)
    >>> needed({}, {}, {}, 10, agree=3), needed({"a": 1}, {"a": -1.0}, {"a": 0}, 9, agree=3)
    (3, 2)
    """
    done = sum(votes.values())
    fewest = _needed_certain(votes, log_det, first, left)
    if len(votes) <= 1 and done < agree:  # unanimity of the first `agree` runs still possible
        return min(fewest, agree - done)
    return fewest


def _needed_certain(votes: dict, log_det: dict, first: dict, left: int) -> int:
    """`needed` without the unanimity rule."""
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


class Idle:
    """Work for an idle helper of a `Runs` plan (module docstring): pending until a helper
    takes it, then running, then done; `result` and `drop` settle it from the caller's side.

    Example
    -------
    >>> plan = Runs(lambda i: None, 0, 0, 1, [False])  # one thread: no helper takes it
    >>> job = plan.idle(lambda: 42)
    >>> job.result() is None
    True
    >>> plan.close()
    """

    def __init__(self, task: Callable[[], object], cond: threading.Condition) -> None:
        self._task, self._cond = task, cond
        self._state = "pending"  # -> running -> done, or -> dropped
        self._value: object = None
        self._caller = False  # the calling thread may take it (`Runs.idle`)

    def _run(self) -> None:
        """Compute the task (in a helper that claimed it under the plan's lock); an error
        leaves no value (the caller computes it again and meets the error there)."""
        try:
            value = self._task()
        except BaseException:  # noqa: BLE001 - the caller's own computation raises it
            value = None
        with self._cond:
            self._value, self._state = value, "done"
            self._cond.notify_all()

    def result(self) -> object:
        """The task's value when a helper computed it (waits while it runs); None when no
        helper took it (it is then dropped: no helper will)."""
        with self._cond:
            if self._state == "pending":
                self._state = "dropped"
            while self._state == "running":
                self._cond.wait()
            return self._value

    def drop(self) -> None:
        """No longer wanted: a helper will not start it (one computing it finishes alone)."""
        with self._cond:
            if self._state == "pending":
                self._state = "dropped"


class Runs:
    """The start stages of runs 0, 1, … (``open_run(i)``: a `sdcsession.risk.robust._fastmcd.Stages`
    whose groups any thread may compute), shared by the calling thread (`get`) and
    ``workers − 1`` helpers (module docstring). ``limit``: runs below it may be opened (raise
    it with `allow`); `close` abandons the rest; `idle` hands the helpers other work."""

    def __init__(self, open_run: Callable[[int], Any], runs: int, limit: int, workers: int,
                 stop: Any) -> None:
        self._open_run, self._runs, self._limit, self._stop = open_run, runs, limit, stop
        self._cond = threading.Condition()
        self._next = 0  # the first run not opened
        self._open: dict[int, Any] = {}  # opened runs whose groups are not all done
        self._done: dict[int, tuple[bool, object]] = {}
        self._closed = False
        self._idle: list[Idle] = []  # idle work not yet taken
        self._helpers = workers > 1
        if workers > 1:
            pool = _helper_pool()
            for _ in range(workers - 1):
                pool.submit(self._help)

    def allow(self, limit: int) -> None:
        """Let the runs below ``limit`` be opened."""
        with self._cond:
            if limit > self._limit:
                self._limit = limit
                self._cond.notify_all()

    def idle(self, task: Callable[[], object], first: bool = False, caller: bool = False
             ) -> Idle:
        """Hand ``task`` to a helper that finds no search work (module docstring), after the
        idle work handed before (``first``: before it); ``caller``: the calling thread too
        may take it while it waits in `get` (work needed as soon as the runs end). With no
        helper, or once the helpers have left, nobody takes it (`Idle.result` gives None)."""
        job = Idle(task, self._cond)
        job._caller = caller
        with self._cond:
            if self._helpers:
                self._idle.insert(0 if first else len(self._idle), job)
                self._cond.notify_all()
        return job

    def close(self, idle: bool = True) -> None:
        """Abandon the runs not done: helpers stop between groups and leave, after the idle
        work handed to them (``idle`` False: that work is dropped, unless already started)."""
        with self._cond:
            self._closed = True
            self._stop[0] = True
            if not idle:
                for job in self._idle:
                    if job._state == "pending":
                        job._state = "dropped"
                self._idle.clear()
            self._cond.notify_all()

    def get(self, i: int) -> object:
        """The start stages' candidates of run i (called with i = 0, 1, … in order); its error
        is raised. While run i is not done, this thread computes a group of run i, else a
        group of an earlier-opened run, else opens the next run it may (run i itself even
        beyond the limit), else waits."""
        while True:
            with self._cond:
                while True:
                    if i in self._done:
                        ok, value = self._done.pop(i)
                        if not ok:
                            raise value  # type: ignore[misc]
                        return value
                    work = self._work(i)
                    if work is None:  # waiting: idle work the caller may take
                        work = self._take_idle(caller=True)
                    if work is not None:
                        break
                    self._cond.wait()
            work()

    def _work(self, want: int | None) -> Callable[[], None] | None:
        """The next piece of work (under the lock): a group of run ``want``, a group of the
        earliest open run, or opening the next run; None when there is none now."""
        if self._closed:
            return None
        order = sorted(self._open)
        if want in self._open:
            order.remove(want)
            order.insert(0, want)
        for j in order:
            stages = self._open[j]
            g = stages.claim()
            if g is not None:
                return lambda j=j, stages=stages, g=g: self._group(j, stages, g)
        if self._next < self._runs and (self._next < self._limit or self._next == want):
            j = self._next
            self._next += 1
            return lambda: self._start(j)
        return None

    def _start(self, j: int) -> None:
        """Open run j (draws its random numbers), then compute its groups while they last."""
        try:
            stages = self._open_run(j)
        except BaseException as err:  # noqa: BLE001 - raised in run order by `get`
            with self._cond:
                self._done[j] = (False, err)
                self._cond.notify_all()
            return
        with self._cond:
            self._open[j] = stages
            self._cond.notify_all()
        g = stages.claim()
        if g is not None:
            self._group(j, stages, g)

    def _group(self, j: int, stages: Any, g: int) -> None:
        """Compute group g of run j; the last group's thread completes the run."""
        try:
            if not stages.group(g):
                return
            out: tuple[bool, object] = (True, stages.complete())
        except BaseException as err:  # noqa: BLE001 - raised in run order by `get`
            out = (False, err)
        with self._cond:
            self._open.pop(j, None)
            self._done.setdefault(j, out)
            self._cond.notify_all()

    def _help(self) -> None:
        """A helper: computes groups and opens runs until `close`, and the idle work when
        there is nothing else to do (before it leaves at the latest)."""
        while True:
            with self._cond:
                work = self._work(None)
                while work is None:
                    work = self._take_idle()
                    if work is not None:
                        break
                    if self._closed:
                        self._helpers = False  # later idle work: nobody takes it
                        return
                    self._cond.wait()
                    work = self._work(None)
            work()

    def _take_idle(self, caller: bool = False) -> Callable[[], None] | None:
        """The next pending idle work (``caller``: that the calling thread may take), claimed
        (under the lock); None when there is none."""
        self._idle = [job for job in self._idle if job._state == "pending"]
        for k, job in enumerate(self._idle):
            if job._caller or not caller:
                del self._idle[k]
                job._state = "running"
                return job._run
        return None
