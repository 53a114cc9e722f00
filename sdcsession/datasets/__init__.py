"""Synthetic teaching and benchmark data sets shipped with sdcsession.

Example
-------
>>> from sdcsession.datasets import synthetic_survey
>>> synthetic_survey(10, seed=0)["hid"].nunique()
10
"""

from __future__ import annotations

from .synthetic import synthetic_survey

__all__ = ["synthetic_survey"]

from .synthesis import synthesize  # noqa: E402  (synthetic data from a user's file)

__all__ += ["synthesize"]
