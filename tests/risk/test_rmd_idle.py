"""rmd_risk's scheduling around its searches gives the plain path's result bit for bit: the
search begun before the masked file is read, the work handed to the idle helper (RMDID2's grid
answer for every record, the likely reweighted fit), and a bad masked file read after the
search began (the same error, no work left running)."""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pytest

from sdcsession.errors import MeasureError
from sdcsession.risk.numeric import _rmd_mcd, _rmd_runs
from sdcsession.risk.numeric._rmd_runs import Runs
from sdcsession.risk.numeric.rmd import _isolated, _isolated_all, rmd_risk

SERIES = ("at_risk1", "at_risk2", "riskvec1", "riskvec2", "distance")
FIT = ("location", "scatter", "support", "raw_location", "raw_scatter", "raw_support",
       "raw_distances")


def _same(a, b) -> None:
    assert a.to_dict() == b.to_dict()
    for name in SERIES:
        assert getattr(a, name).to_numpy().tobytes() == getattr(b, name).to_numpy().tobytes()
        assert getattr(a, name).index.equals(getattr(b, name).index)
    for name in FIT:
        assert getattr(a.mcd, name).tobytes() == getattr(b.mcd, name).tobytes(), name
    assert a.mcd.log_det == b.mcd.log_det


def _pair(n: int, scale: float, seed: int, holes: bool = False):
    rng = np.random.default_rng(seed)
    x = pd.DataFrame(rng.lognormal(size=(n, 3)), columns=["a", "b", "c"],
                     index=rng.permutation(n) + 100)
    x.loc[x.index[: n // 10], "b"] = 0.0  # ties: duplicated values, as incomes have
    m = x * rng.normal(1.0, scale, size=x.shape)
    if holes:
        m.iloc[::7, 1] = np.nan  # missing masked values: R's dist rule, no grid
    return x, m.sample(frac=1.0, random_state=seed)  # paired by index, not by position


@pytest.mark.parametrize(("n", "scale", "k2", "holes"),
                         [(1_500, 0.001, 0.05, False),   # every record at risk
                          (2_000, 0.02, 0.05, False),    # some at risk
                          (1_200, 0.5, 0.05, False),     # hardly any at risk
                          (1_300, 0.001, 0.05, True),    # missing masked values
                          (1_400, 0.001, 1e-12, False)])  # a radius the grid refuses
def test_rmd_risk_same_for_one_two_three_workers(monkeypatch, n, scale, k2, holes):
    x, m = _pair(n, scale, n, holes)
    results = []
    for workers in (1, 2, 3):
        monkeypatch.setattr(_rmd_mcd, "WORKERS", workers)
        _rmd_mcd.clear_cache()
        results.append(rmd_risk(x, m, k=0.5, k2=k2, n_starts=60))
        results.append(rmd_risk(x, m, k=0.5, k2=k2, n_starts=60))  # from the cache
    for r in results[1:]:
        _same(r, results[0])
    assert 0 <= results[0].risk2 <= results[0].risk1 <= 1


def test_grid_for_every_record_indexed_equals_the_rows_asked():
    rng = np.random.default_rng(3)
    zm = rng.normal(size=(3_000, 2)).round(2)  # many records at distance exactly 0 or k2
    every = _isolated_all(zm, 0.05)
    for rows in (np.arange(3_000), np.sort(rng.choice(3_000, 400, replace=False)), [17]):
        rows = np.asarray(rows)
        assert every[rows].tolist() == _isolated(zm, rows, 0.05).tolist()
    assert 0 < every.sum() < 3_000


# ------------------------------------------------------------------- the idle work of a plan
def test_idle_work_runs_on_the_helper_in_order_and_settles():
    plan = Runs(lambda i: None, 0, 0, 2, np.zeros(1, dtype=bool))  # no runs: the helper idles
    try:
        started, release = threading.Event(), threading.Event()
        done: list[str] = []

        def slow():
            started.set()
            release.wait(30)
            return threading.current_thread().name

        first = plan.idle(slow)
        assert started.wait(30)  # the idle helper took it
        later = plan.idle(lambda: done.append("later") or "later")
        dropped = plan.idle(lambda: done.append("dropped"))
        ahead = plan.idle(lambda: done.append("ahead") or "ahead", first=True)
        failing = plan.idle(lambda: 1 / 0)
        dropped.drop()
        release.set()
        assert first.result().startswith("sdcsession-mcd")  # waited for the helper's value
        assert later.result() == "later" and ahead.result() == "ahead"
        assert failing.result() is None  # an error leaves no value: the caller recomputes
        assert dropped.result() is None and done == ["ahead", "later"]
    finally:
        release.set()
        plan.close()
    assert _rmd_runs._helper_pool().submit(lambda: 7).result(timeout=30) == 7  # helper left


def test_idle_work_without_helper_is_left_to_the_caller():
    one = Runs(lambda i: None, 0, 0, 1, np.zeros(1, dtype=bool))
    ran: list[int] = []
    assert one.idle(lambda: ran.append(1)).result() is None and ran == []
    one.close()
    plan = Runs(lambda i: None, 0, 0, 2, np.zeros(1, dtype=bool))
    plan.close()
    assert _rmd_runs._helper_pool().submit(lambda: 7).result(timeout=30) == 7  # helper left
    assert plan.idle(lambda: ran.append(2)).result() is None and ran == []


# ------------------------------------------------ a bad masked file after the search began
@pytest.mark.parametrize(("spoil", "message"), [
    (lambda m: m.assign(b=m["b"].astype(str)), r"^masked: column\(s\) \['b'\] are not numeric$"),
    (lambda m: m.assign(c=np.inf), r"^masked: infinite values in \['a', 'b', 'c'\]$"),
    (lambda m: m.assign(a=np.nan), r"^masked: variable\(s\) \['a'\] have only missing values$"),
])
def test_bad_masked_frame_after_the_search_began(monkeypatch, spoil, message):
    x, m = _pair(2_000, 0.01, 5)
    monkeypatch.setattr(_rmd_mcd, "WORKERS", 2)
    began, closed = [], []
    search_init, search_close = _rmd_mcd.Search.__init__, _rmd_mcd.Search.close

    def init(self, *a, **kw):
        search_init(self, *a, **kw)
        began.append(self)

    def close(self):
        closed.append(self)
        search_close(self)

    monkeypatch.setattr(_rmd_mcd.Search, "__init__", init)
    monkeypatch.setattr(_rmd_mcd.Search, "close", close)
    _rmd_mcd.clear_cache()
    with pytest.raises(MeasureError, match=message):
        rmd_risk(x, spoil(m))
    assert len(began) == 1 and began[0]._plan is not None  # the search had begun
    assert closed == began and began[0]._stop[0]  # and was abandoned
    assert _rmd_runs._helper_pool().submit(lambda: 7).result(timeout=30) == 7  # helper free
    monkeypatch.setattr(_rmd_mcd.Search, "__init__", search_init)
    monkeypatch.setattr(_rmd_mcd.Search, "close", search_close)
    _same(rmd_risk(x, m), rmd_risk(x, m))  # later calls are not disturbed


def test_masked_errors_still_come_before_the_originals():
    x, m = _pair(700, 0.01, 6)
    bad_m = m.assign(b=m["b"].astype(str))
    for spoil in (lambda o: o.assign(a=o["a"].where(o["a"] > 0.3)),  # missing original values
                  lambda o: o.assign(c=1.0)):  # a constant original variable
        with pytest.raises(MeasureError, match=r"^masked: column\(s\) \['b'\] are not numeric"):
            rmd_risk(spoil(x), bad_m)
        with pytest.raises(MeasureError, match="^original: "):
            rmd_risk(spoil(x), m)
    assert rmd_risk(x.assign(a=x["a"].where(x["a"] > 0.3)), m, missing="sdcmicro").risk1 == 0


class _OneGroup:
    """A run of one group whose value is 5."""

    def __init__(self):
        self.left = 1

    def claim(self):
        g, self.left = (0, 0) if self.left else (None, 0)
        return g

    def group(self, g):
        return True

    def complete(self):
        return 5


def test_the_waiting_caller_takes_the_work_marked_for_it():
    opened, release = threading.Event(), threading.Event()

    def open_run(i):  # the helper opens run 0 and is held there
        opened.set()
        release.wait(30)
        return _OneGroup()

    plan = Runs(open_run, 1, 1, 2, np.zeros(1, dtype=bool))
    try:
        assert opened.wait(30)
        helper_only = plan.idle(lambda: threading.current_thread().name)
        mine = plan.idle(lambda: release.set() or threading.current_thread().name, caller=True)
        assert plan.get(0) == 5  # waiting for run 0, the caller took its work (and let go)
        assert mine.result() == threading.current_thread().name
        assert helper_only.result() in (None, "sdcsession-mcd_0")  # never the caller's
    finally:
        release.set()
        plan.close()


def test_closing_without_the_idle_work_drops_what_has_not_started():
    plan = Runs(lambda i: None, 0, 0, 2, np.zeros(1, dtype=bool))
    started, release = threading.Event(), threading.Event()
    ran: list[str] = []
    try:
        busy = plan.idle(lambda: started.set() or release.wait(30) and "busy")
        assert started.wait(30)
        waiting = plan.idle(lambda: ran.append("waiting"))
        plan.close(idle=False)  # an error path: nothing more is computed
        release.set()
        assert busy.result() == "busy" and waiting.result() is None
    finally:
        release.set()
        plan.close()
    assert _rmd_runs._helper_pool().submit(lambda: 7).result(timeout=30) == 7
    assert ran == []
