"""Real public survey microdata, shipped by statsmodels (no network), as labelled frames.

- `fair`: Fair's 1974 *Redbook* survey of married women (6,366 respondents; Fair 1978,
  "A Theory of Extramarital Affairs", Journal of Political Economy 86).
- `anes96`: the 1996 American National Election Study pre-election sample (944 voters).

The codes of the source files become ordered categories with their documented labels, so the
files read as a statistical office's release: key variables are categories, ``affairs``,
``popul`` and ``income`` are numbers. Statsmodels is imported inside the functions.

Example
-------
>>> from sdcsession.datasets import fair
>>> df = fair()
>>> len(df), str(df["occupation"].dtype)
(6366, 'category')
"""

from __future__ import annotations

import pandas as pd

__all__ = ["anes96", "fair"]

_RATING = ["very poor", "poor", "fair", "good", "very good"]
_RELIGIOUS = ["not", "mildly", "fairly", "strongly"]
_EDUC_FAIR = {9.0: "grade school", 12.0: "high school", 14.0: "some college",
              16.0: "college graduate", 17.0: "some graduate school", 20.0: "advanced degree"}
_OCCUPATION = ["student", "farming / semi-skilled", "white-collar", "teacher / nurse / technician",
               "managerial", "professional"]
_PID = ["strong Democrat", "weak Democrat", "independent-Democrat", "independent",
        "independent-Republican", "weak Republican", "strong Republican"]
_EDUC_ANES = ["1-8 grades", "some high school", "high school", "some college", "college degree",
              "master's degree", "PhD"]
_LR = ["extremely liberal", "liberal", "slightly liberal", "moderate", "slightly conservative",
       "conservative", "extremely conservative"]


def _ordered(codes: pd.Series, labels: list[str], start: int = 1) -> pd.Categorical:
    index = (codes.astype(int) - start).to_numpy()
    return pd.Categorical.from_codes(index, categories=labels, ordered=True)


def fair() -> pd.DataFrame:
    """Fair's *Redbook* survey: 6,366 married women, with labelled categories.

    Columns: ``age`` and ``yrs_married`` (the survey's interval midpoints, as ordered
    categories), ``children``, ``rate_marriage``, ``religious``, ``educ``, ``occupation``,
    ``occupation_husb`` (ordered categories) and ``affairs`` (float: time spent in extramarital
    affairs, the sensitive variable). Loaded from ``statsmodels.datasets.fair`` (no network).

    Reference: Fair, R. C. (1978), "A Theory of Extramarital Affairs", Journal of Political
    Economy 86(1), 45–61.

    Missing values: the file has none.

    Example
    -------
    >>> df = fair()
    >>> df["rate_marriage"].cat.categories[-1], round(float(df["affairs"].mean()), 4)
    ('very good', 0.7054)
    """
    from statsmodels.datasets import fair as source

    raw = source.load_pandas().data
    out = pd.DataFrame(index=pd.RangeIndex(len(raw)))
    for col in ("age", "yrs_married", "children"):
        values = raw[col].map(lambda v: f"{v:g}")
        cats = [f"{v:g}" for v in sorted(raw[col].unique())]
        out[col] = pd.Categorical(values, categories=cats, ordered=True)
    out["rate_marriage"] = _ordered(raw["rate_marriage"], _RATING)
    out["religious"] = _ordered(raw["religious"], _RELIGIOUS)
    out["educ"] = pd.Categorical(raw["educ"].map(_EDUC_FAIR), categories=list(_EDUC_FAIR.values()),
                                 ordered=True)
    out["occupation"] = _ordered(raw["occupation"], _OCCUPATION)
    out["occupation_husb"] = _ordered(raw["occupation_husb"], _OCCUPATION)
    out["affairs"] = raw["affairs"].astype(float).to_numpy()
    return out


def anes96() -> pd.DataFrame:
    """The 1996 American National Election Study sample: 944 voters, with labelled categories.

    Columns: ``age`` (int), ``educ``, ``income`` (24 ordered income brackets, codes 1–24 as
    int), ``PID`` (party identification), ``selfLR``, ``ClinLR``, ``DoleLR`` (ordered
    categories), ``TVnews`` (days a week), ``popul`` (population of the census place in
    thousands, float), ``vote`` ("Clinton" / "Dole"). Loaded from
    ``statsmodels.datasets.anes96`` (no network).

    Reference: Rosenstone, Kinder, Miller et al. (1997), American National Election Study 1996.

    Missing values: the file has none.

    Example
    -------
    >>> df = anes96()
    >>> len(df), df["vote"].value_counts()["Clinton"]
    (944, np.int64(551))
    """
    from statsmodels.datasets import anes96 as source

    raw = source.load_pandas().data
    out = pd.DataFrame(index=pd.RangeIndex(len(raw)))
    out["age"] = raw["age"].astype(int).to_numpy()
    out["educ"] = _ordered(raw["educ"], _EDUC_ANES)
    out["income"] = raw["income"].astype(int).to_numpy()
    out["PID"] = _ordered(raw["PID"], _PID, start=0)
    for col in ("selfLR", "ClinLR", "DoleLR"):
        out[col] = _ordered(raw[col], _LR)
    out["TVnews"] = raw["TVnews"].astype(int).to_numpy()
    out["popul"] = raw["popul"].astype(float).to_numpy()
    out["vote"] = pd.Categorical(raw["vote"].map({0.0: "Clinton", 1.0: "Dole"}),
                                 categories=["Clinton", "Dole"])
    return out
