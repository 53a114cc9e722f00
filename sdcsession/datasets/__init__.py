"""Teaching and benchmark data sets: the synthetic survey, and real public files (`public`).

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

from .public import anes96, fair  # noqa: E402  (real public microdata shipped by statsmodels)

__all__ += ["anes96", "fair"]
