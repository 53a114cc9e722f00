"""Progress bars: tqdm underneath, silent unless enabled, listeners told of every update."""

import io
import sys

import pytest

from sdcsession import progress
from sdcsession.progress import (
    Bar,
    add_listener,
    progress_enabled,
    remove_listener,
    set_progress,
    track,
)


def _stderr(monkeypatch) -> io.StringIO:
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buf)
    return buf


def test_silent_when_disabled(capsys):
    assert list(track(range(5), enabled=False)) == list(range(5))
    assert capsys.readouterr().err == ""


def test_draws_when_enabled(monkeypatch):
    buf = _stderr(monkeypatch)
    out = list(track(range(4), total=4, desc="work", enabled=True, min_seconds=0.0))
    assert out == [0, 1, 2, 3]
    text = buf.getvalue()
    assert "work" in text and "4/4" in text and text.endswith("\n")


@pytest.mark.parametrize("env", ["CI", "SDCSESSION_PROGRESS"])
def test_automatic_off_in_ci(monkeypatch, env):
    monkeypatch.setenv(env, "1" if env == "CI" else "0")
    assert progress_enabled() is False
    set_progress(True)
    try:
        assert progress_enabled() is True
    finally:
        set_progress(None)


def test_bar_counts_silently_when_disabled(monkeypatch):
    buf = _stderr(monkeypatch)
    with Bar(total=10, desc="x", enabled=False, min_seconds=0.0) as bar:
        for step in (3, 3, 4):
            bar.update(step)
    assert bar.n == 10 and buf.getvalue() == ""


def test_bar_draws_and_closes_once(monkeypatch):
    buf = _stderr(monkeypatch)
    bar = Bar(total=8, desc="groups", enabled=True, min_seconds=0.0)
    bar.update(3)
    bar.update(5)
    bar.close()
    bar.close()  # idempotent
    text = buf.getvalue()
    assert "groups" in text and "8/8" in text and text.count("\n") == 1


def test_bar_waits_for_min_seconds(monkeypatch):
    buf = _stderr(monkeypatch)
    with Bar(total=3, enabled=True, min_seconds=60.0) as bar:
        bar.update(3)
    assert buf.getvalue() == ""  # a short operation never shows a bar


def test_module_default_delay_and_unknown_total(monkeypatch):
    buf = _stderr(monkeypatch)
    monkeypatch.setattr(progress, "MIN_SECONDS", 0.0)
    with Bar(desc="scan", enabled=True) as bar:
        bar.update(1234)
    assert "scan" in buf.getvalue() and "1234" in buf.getvalue()


def test_track_closes_its_bar_when_the_loop_breaks(monkeypatch):
    buf = _stderr(monkeypatch)
    it = track(range(10), desc="t", enabled=True, min_seconds=0.0)
    for i in it:
        if i == 2:
            break
    it.close()
    text = buf.getvalue()
    assert "2/10" in text and text.endswith("\n")  # items 0 and 1 were finished


def test_listener_sees_updates_and_can_cancel():
    seen = []

    def listen(desc, n, total):
        seen.append((desc, n, total))
        if n >= 2:
            raise KeyboardInterrupt

    add_listener(listen)
    try:
        with pytest.raises(KeyboardInterrupt):
            for _ in track(range(5), desc="job", enabled=False):
                pass
    finally:
        remove_listener(listen)
    assert seen == [("job", 1, 5), ("job", 2, 5)]
    remove_listener(listen)  # removing twice is harmless
