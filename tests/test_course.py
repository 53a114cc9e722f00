"""The course (``docs/course/``): its self-checks pass with the solutions and fail with a wrong
answer; every lesson ends with exercises whose self-check names an exercise of the registry.
The lessons themselves are executed by ``tests/test_notebooks.py`` and by the docs build."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from sdcsession.errors import ParameterError
from sdcsession.present.course import EXERCISES, check, expected

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "docs" / "course"
SOLUTIONS = (COURSE / "solutions.md").read_text(encoding="utf-8")
BLOCKS = dict(re.findall(r"### Exercise (\d+\.\d+)\s*\n+```python\n(.*?)```", SOLUTIONS, re.S))


def _wrong(right: object) -> object:
    if isinstance(right, str):
        return "not " + right
    return right + 10 if isinstance(right, int) else right * 1.5 + 1


def test_every_exercise_has_a_solution_and_a_lesson() -> None:
    assert sorted(BLOCKS) == sorted(EXERCISES)
    lessons = sorted(COURSE.glob("*.ipynb"))
    assert 6 <= len(lessons) <= 8
    cited = set()
    for path in lessons:
        found = re.findall(r'check\(\\"(\d+\.\d+)\\"', path.read_text(encoding="utf-8"))
        assert 2 <= len(found) <= 3, path.name
        assert {f.split(".")[0] for f in found} == {str(int(path.name[:2]))}, path.name
        cited |= set(found)
    assert cited == set(EXERCISES)


@pytest.mark.parametrize("exercise", sorted(BLOCKS))
def test_the_solution_passes_its_self_check(exercise: str) -> None:
    namespace: dict = {}
    out = io.StringIO()
    code = BLOCKS[exercise].replace(f'check("{exercise}", answer)',
                                    f'result = check("{exercise}", answer)')
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"solutions.md:{exercise}", "exec"), namespace)  # noqa: S102
    assert namespace["result"] is True, out.getvalue()
    assert f"✔ Exercise {exercise}: right." in out.getvalue()
    # and a wrong answer fails the same check
    with contextlib.redirect_stdout(out):
        assert check(exercise, _wrong(namespace["answer"])) is False
    assert f"✘ Exercise {exercise}: not yet." in out.getvalue()


def test_unanswered_and_wrongly_typed_answers_fail(capsys: pytest.CaptureFixture) -> None:
    assert check("2.1", None) is False
    assert "no answer yet" in capsys.readouterr().out
    assert check("2.1", str(expected("2.1"))) is False   # a count as text is not a number
    assert check("2.1", True) is False
    assert check("6.1", expected("6.1").lower()) is True  # names ignore case
    with pytest.raises(ParameterError, match="exercise"):
        check("9.9", 1)
