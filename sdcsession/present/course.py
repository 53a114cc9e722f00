"""Self-checks of the course's exercises (``docs/course/``): ``check("2.1", answer)``.

Each exercise of a lesson ends with a cell ``check("<lesson>.<n>", answer)`` that prints whether
the answer is right. The right answer is computed here, from the same public data and the same
session calls as the lesson (never typed in), so it follows the code; the worked solutions are on
the course's *Solutions* page. `EXERCISES` lists the exercises with their question.

Example
-------
>>> from sdcsession.present.course import check
>>> check("1.1", 0)
✘ Exercise 1.1: not yet. Count the records whose key combination occurs once (f_k = 1).
False
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import attrs
import numpy as np

from .. import datasets
from ..session.session import SdcSession

__all__ = ["EXERCISES", "Exercise", "check", "expected"]

#: the scenario keys of the Redbook lessons
FAIR_KEYS = ["age", "yrs_married", "children", "educ", "occupation", "occupation_husb"]
#: the scenario of the election-study lessons
ANES_KEYS = ["age", "educ", "PID", "vote"]
ANES_NUMERIC = ["popul", "TVnews", "income"]
CHILDREN_3PLUS = {"3": "3+", "4": "3+", "5.5": "3+"}
EDUC_3 = {"grade school": "school", "high school": "school", "some college": "college",
          "college graduate": "college", "some graduate school": "graduate",
          "advanced degree": "graduate"}
SURVEY_KEYS = ["region", "urbrur", "hhsize", "sex", "age5"]


@attrs.frozen
class Exercise:
    """One exercise: its question, how to compute the right answer, how to compare."""

    question: str
    answer: Callable[[], Any]
    hint: str
    tolerance: float = 0.0  # absolute, for numbers


# ---------------------------------------------------------------------------- sessions
def _fair_session() -> Any:
    return SdcSession(datasets.fair(), keys=FAIR_KEYS, sensitive=["affairs"], seed=1)


@cache
def _fair_treated() -> Any:
    s = _fair_session()
    s.recode("children", CHILDREN_3PLUS)
    s.local_suppression(k=3)
    return s


@cache
def _fair_scenarios() -> dict[str, Any]:
    a = _fair_treated()
    b = _fair_session()
    b.recode("children", CHILDREN_3PLUS)
    b.recode("educ", EDUC_3)
    b.local_suppression(k=3)
    return {"A": a, "B": b}


def _anes_session() -> Any:
    s = SdcSession(datasets.anes96(), keys=ANES_KEYS, numeric=ANES_NUMERIC, seed=1)
    s.global_recode("age", [17, 30, 45, 60, 75, 100])
    return s


@cache
def _anes_branches() -> dict[str, Any]:
    s = _anes_session()
    ma = s.branch("microaggregation")
    ma.microaggregation(["popul"], k=3)
    noise = s.branch("noise")
    noise.add_noise(["popul"], noise=0.5)
    pram = s.branch("pram")
    pram.pram(["vote"], pd=0.8)
    return {"microaggregation": ma, "noise": noise, "pram": pram}


@cache
def _anes_release() -> Any:
    s = _anes_session()
    s.local_suppression(k=3)
    s.microaggregation(["popul"], k=3)
    return s


@cache
def _survey_session() -> Any:
    return SdcSession(datasets.synthetic_survey(600, seed=7), keys=SURVEY_KEYS,
                          weight="w", household="hid", seed=1)


def _uniques(keys: list[str]) -> int:
    s = SdcSession(datasets.fair(), keys=keys, seed=1)
    return int((s.risk.fk == 1).sum())


def _households_at_risk() -> int:
    s = _survey_session()
    hid = s.data["hid"]
    bad = hid[(s.risk.fk < 3).to_numpy()].unique()
    return int(hid.isin(bad).sum())


def _release_warnings() -> int:
    s = _anes_release()
    t = s.branch("more-noise")
    t.add_noise(["TVnews", "income"], noise=0.5)
    found = t.release_check()
    return int((found["severity"] == "warn").sum())


# --------------------------------------------------------------------------- exercises
EXERCISES: dict[str, Exercise] = {
    "1.1": Exercise(
        "How many Redbook respondents are sample uniques on age, yrs_married, children, educ "
        "and occupation?", lambda: _uniques(FAIR_KEYS[:5]),
        "Count the records whose key combination occurs once (f_k = 1)."),
    "1.2": Exercise(
        "How many more sample uniques does adding occupation_husb to the keys make?",
        lambda: _uniques(FAIR_KEYS) - _uniques(FAIR_KEYS[:5]),
        "Build a second session with the six keys and subtract."),
    "2.1": Exercise(
        "How many records of the Redbook scenario violate 3-anonymity?",
        lambda: int(_fair_session().risk.k_violations(3)), "s.risk.k_violations(3)"),
    "2.2": Exercise(
        "What is the expected number of re-identifications of the Redbook scenario?",
        lambda: float(_fair_session().risk.expected_reidentifications),
        "s.risk.expected_reidentifications (without weights it is the number of key "
        "combinations)", 0.5),
    "2.3": Exercise(
        "What share of the records violates 5-anonymity (a number between 0 and 1, two "
        "decimals)?", lambda: _fair_session().risk.k_violations(5) / 6366,
        "Divide s.risk.k_violations(5) by the number of records.", 0.006),
    "3.1": Exercise(
        "After recoding children to 0, 1, 2, 3+, how many records violate 3-anonymity?",
        lambda: int(_k3_after_recode()), "Recode, then read s.risk.k_violations(3)."),
    "3.2": Exercise(
        "After the recode and local suppression to 3-anonymity, how many key values are "
        "suppressed in all?", lambda: int(_fair_treated().utility.suppressions_total),
        "s.utility.suppressions_total"),
    "3.3": Exercise(
        "Which key variable loses the most values to the suppression?",
        lambda: str(_fair_treated().utility.suppressions["suppressions"].idxmax()),
        "s.utility.suppressions, the largest row"),
    "4.1": Exercise(
        "After microaggregating popul with k = 3, how many records share the rarest popul "
        "value?", lambda: int(_anes_branches()["microaggregation"].data["popul"]
                              .value_counts().min()),
        "value_counts() of the treated popul column, its minimum"),
    "4.2": Exercise(
        "How many votes did PRAM (pd = 0.8) change?",
        lambda: int(_anes_branches()["pram"].utility.records_changed.loc["vote", "changed"]),
        "s.utility.records_changed, the row of vote"),
    "5.1": Exercise(
        "What is IL1s after the noise (three decimals)?",
        lambda: float(_anes_branches()["noise"].utility.il1s), "noise.utility.il1s", 0.0006),
    "5.2": Exercise(
        "Which treatment of popul loses less information by IL1s: 'microaggregation' or "
        "'noise'?", lambda: min(("microaggregation", "noise"),
                                key=lambda b: _anes_branches()[b].utility.il1s),
        "Compare the two branches' utility.il1s"),
    "6.1": Exercise(
        "Which scenario, 'A' or 'B', needs fewer suppressions?",
        lambda: min(("A", "B"), key=lambda k: _fair_scenarios()[k].utility.suppressions_total),
        "Compare utility.suppressions_total of the two branches"),
    "6.2": Exercise(
        "What is the expected number of re-identifications of that scenario (one decimal)?",
        lambda: float(min(_fair_scenarios().values(), key=lambda s: s.utility.suppressions_total)
                      .risk.expected_reidentifications), "risk.expected_reidentifications", 0.06),
    "7.1": Exercise(
        "By how much does the household risk raise the expected re-identifications (two "
        "decimals)?", lambda: float(_survey_session().risk.household_expected_reidentifications
                                    - _survey_session().risk.expected_reidentifications),
        "household_expected_reidentifications − expected_reidentifications", 0.006),
    "7.2": Exercise(
        "How many records live in a household with at least one member violating "
        "3-anonymity?", _households_at_risk,
        "The household ids of the records with f_k < 3, then every record of those households"),
    "8.1": Exercise(
        "How many records have an individual risk above 0.1 before release?",
        lambda: int((_anes_release().risk.individual > 0.1).sum()),
        "(s.risk.individual > 0.1).sum(), or the first finding of s.release_check()"),
    "8.2": Exercise(
        "After adding noise (0.5) to TVnews and income on a branch, how many warnings does the "
        "release check give?", _release_warnings, "(check['severity'] == 'warn').sum()"),
}


def _k3_after_recode() -> int:
    s = _fair_session()
    s.recode("children", CHILDREN_3PLUS)
    return s.risk.k_violations(3)


def expected(exercise: str) -> Any:
    """The right answer of ``exercise`` (computed from the data and the session).

    >>> expected("4.1") >= 3
    True
    """
    if exercise not in EXERCISES:
        from ..errors import ParameterError

        raise ParameterError(f"exercise: expected one of {sorted(EXERCISES)}, got {exercise!r}")
    return EXERCISES[exercise].answer()


def _same(answer: Any, right: Any, tolerance: float) -> bool:
    if isinstance(right, str):
        return isinstance(answer, str) and answer.strip().lower() == right.lower()
    if isinstance(answer, (bool, np.bool_)) or not isinstance(answer, (int, float, np.number)):
        return False
    if not np.isfinite(float(answer)):
        return False
    return abs(float(answer) - float(right)) <= tolerance + 1e-9


def check(exercise: str, answer: Any) -> bool:
    """Print whether ``answer`` is the right answer of ``exercise`` ("1.1", "2.3", ...).

    Numbers are compared within the exercise's tolerance (exactly for counts), names without
    regard to case. Returns True when right. Missing values: ``None`` or NaN is "not answered".

    >>> check("1.1", expected("1.1"))
    ✔ Exercise 1.1: right.
    True
    """
    if exercise not in EXERCISES:
        expected(exercise)  # raises the ParameterError
    ex = EXERCISES[exercise]
    if answer is None or (isinstance(answer, float) and answer != answer):
        print(f"… Exercise {exercise}: no answer yet. {ex.question}")
        return False
    right = expected(exercise)
    if _same(answer, right, ex.tolerance):
        print(f"✔ Exercise {exercise}: right.")
        return True
    print(f"✘ Exercise {exercise}: not yet. {ex.hint}.".replace("..", "."))
    return False
