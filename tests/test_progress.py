import io
import sys

import pytest

from sdcsession.progress import progress_enabled, set_progress, track


def test_silent_when_disabled(capsys):
    assert list(track(range(5), enabled=False)) == list(range(5))
    assert capsys.readouterr().err == ""


def test_draws_when_enabled(monkeypatch):
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buf)
    out = list(track(range(4), total=4, desc="work", enabled=True, min_seconds=0.0))
    assert out == [0, 1, 2, 3]
    text = buf.getvalue()
    assert "work [" in text and "4/4" in text and text.endswith("\n")


@pytest.mark.parametrize("env", ["CI", "SDCSESSION_PROGRESS"])
def test_automatic_off_in_ci(monkeypatch, env):
    monkeypatch.setenv(env, "1" if env == "CI" else "0")
    assert progress_enabled() is False
    set_progress(True)
    try:
        assert progress_enabled() is True
    finally:
        set_progress(None)
