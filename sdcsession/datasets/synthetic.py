"""A realistic synthetic household survey for teaching, tests and benchmarks.

`synthetic_survey` draws a survey of ``n_households`` households (about 3.3 persons each) with
the variables a statistical office typically releases: geography, household structure, demography,
education, occupation, income, expenditure, savings, sampling weights and sensitive health items.
The generator is fully vectorised (one pass of numpy draws, no loop over records or households) and
deterministic for a given seed: 1,000,000 records take a few seconds.

Example
-------
>>> from sdcsession.datasets import synthetic_survey
>>> df = synthetic_survey(500, seed=1)
>>> df["hid"].nunique()
500
>>> bool((df.groupby("hid")["hhsize"].first() == df.groupby("hid").size()).all())
True
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import ParameterError

#: the most households `synthetic_survey` draws (about 33 million records)
MAX_HOUSEHOLDS = 10_000_000

__all__ = ["synthetic_survey", "MAX_HOUSEHOLDS", "REGIONS", "AGE5", "EDUC", "OCCUP", "MARSTAT"]

REGIONS: tuple[str, ...] = tuple(f"R{i:02d}" for i in range(1, 13))
#: share of households per region (unequal sizes)
_REGION_P = np.array([0.16, 0.13, 0.11, 0.10, 0.09, 0.08, 0.07, 0.065, 0.06, 0.05, 0.045, 0.04])
#: probability that a household of the region is urban
_URBAN_P = np.array([0.85, 0.60, 0.55, 0.50, 0.45, 0.40, 0.35, 0.30, 0.35, 0.25, 0.20, 0.30])
#: region effect on log income
_REGION_INC = np.array(
    [0.30, 0.15, 0.10, 0.05, 0.0, -0.05, -0.10, -0.10, -0.15, -0.20, -0.25, -0.20]
)
URBRUR: tuple[str, ...] = ("urban", "rural")
#: household size 1..9 by urban (row 0) / rural (row 1)
_HHSIZE_P = np.array(
    [
        [0.20, 0.25, 0.20, 0.17, 0.09, 0.05, 0.02, 0.01, 0.01],
        [0.14, 0.20, 0.19, 0.18, 0.12, 0.08, 0.05, 0.03, 0.01],
    ]
)
TENURE: tuple[str, ...] = ("owner", "tenant", "rent-free", "other")
_TENURE_P = np.array([[0.55, 0.35, 0.07, 0.03], [0.80, 0.08, 0.10, 0.02]])
WATER: tuple[str, ...] = ("piped", "well", "surface", "other")
_WATER_P = np.array([[0.80, 0.12, 0.03, 0.05], [0.30, 0.45, 0.18, 0.07]])
RELAT: tuple[str, ...] = ("head", "partner", "child", "other")
SEX: tuple[str, ...] = ("m", "f")
MARSTAT: tuple[str, ...] = ("single", "married", "cohabiting", "divorced", "widowed")
#: marital status of persons aged 15+ living without a partner, by age band <30, 30-59, 60+
_MAR_NOPARTNER_P = np.array(
    [
        [0.75, 0.13, 0.00, 0.10, 0.02],
        [0.35, 0.15, 0.00, 0.35, 0.15],
        [0.10, 0.10, 0.00, 0.20, 0.60],
    ]
)
AGE5: tuple[str, ...] = tuple(f"{a}-{a + 4}" for a in range(0, 90, 5)) + ("90+",)
EDUC: tuple[str, ...] = ("none", "primary", "lower secondary", "upper secondary", "tertiary")
OCCUP: tuple[str, ...] = (
    "manager",
    "professional",
    "technician",
    "clerical",
    "services",
    "agriculture",
    "crafts",
    "elementary",
    "unemployed",
    "inactive",
)
#: occupation by education level (rows none..tertiary, missing); rural shifts to agriculture
_OCCUP_P = np.array(
    [
        [0.00, 0.00, 0.01, 0.01, 0.10, 0.20, 0.12, 0.30, 0.10, 0.16],
        [0.01, 0.01, 0.03, 0.05, 0.17, 0.12, 0.18, 0.20, 0.09, 0.14],
        [0.03, 0.03, 0.07, 0.12, 0.20, 0.07, 0.17, 0.12, 0.08, 0.11],
        [0.06, 0.08, 0.15, 0.17, 0.18, 0.04, 0.10, 0.05, 0.07, 0.10],
        [0.14, 0.33, 0.18, 0.10, 0.07, 0.02, 0.03, 0.01, 0.04, 0.08],
        [0.04, 0.06, 0.08, 0.10, 0.18, 0.08, 0.14, 0.14, 0.08, 0.10],
    ]
)
#: log-income location by occupation (inactive/unemployed handled apart)
_OCCUP_LOGINC = np.array([10.7, 10.5, 10.2, 9.95, 9.65, 9.2, 9.6, 9.1, 8.0, 8.4])
LITERACY: tuple[str, ...] = ("literate", "illiterate")
HEALTH: tuple[str, ...] = ("very good", "good", "fair", "poor", "very poor")
DISABILITY: tuple[str, ...] = ("none", "some difficulty", "a lot of difficulty", "cannot do at all")


def _draw(rng: np.random.Generator, probs: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Draw one category code per element from the row ``probs[group]`` (vectorised, no loop).

    Rows are normalised; the cumulative tables of all groups are laid end to end with offset ``g``
    so one ``searchsorted`` of ``u + g`` finds the code within row ``g``.
    """
    probs = np.atleast_2d(np.asarray(probs, dtype=float))
    n_groups, k = probs.shape
    cum = np.cumsum(probs / probs.sum(axis=1, keepdims=True), axis=1)
    cum[:, -1] = 1.0
    group = np.asarray(group, dtype=np.int64)
    u = rng.random(group.shape[0])
    flat = (cum + np.arange(n_groups)[:, None]).ravel()
    code = np.searchsorted(flat, u + group, side="right") - group * k
    return np.minimum(code, k - 1)


def _cat(codes: np.ndarray, categories: tuple[str, ...], ordered: bool = False) -> pd.Categorical:
    return pd.Categorical.from_codes(
        codes.astype(np.int64), categories=list(categories), ordered=ordered
    )


def synthetic_survey(n_households: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Generate a synthetic household survey (one row per person), deterministic per ``seed``.

    Generating model (all draws from ``numpy.random.default_rng(seed)``, in a fixed order):

    * **Households.** ``region`` ~ 12 regions "R01".."R12" with shares 16 % .. 4 %; ``urbrur``
      urban with a region-specific probability (85 % in R01 .. 20 % in R11); ``hhsize`` 1..9 from an
      urban or rural distribution (means 3.0 and 3.6); ``tenure`` and ``water`` by urban/rural;
      ``w`` = design weight of the region × urban/rural stratum × a lognormal non-response
      adjustment (σ = 0.15), constant within the household.
    * **Persons.** ``pid`` 1..hhsize; person 1 is the head; with probability 0.72 (households of 2+)
      person 2 is the partner; the others are children (85 %) or other relatives.
      Head age ~ N(45, 14) (N(52, 19) living alone) clipped to 18..95; partner = head ± N(-2, 4);
      child = head − (parent's age at birth ~ U{18..min(45, head)}); other relatives are an
      elderly parent (head + U{18..35}) or any age 0..80. Ages are clipped to 0..95; ``age5`` groups
      them "0-4".."85-89","90+" (ordered categorical). Head male with p 0.72, partner of the other
      sex with p 0.98, others 49 % male.
    * ``marstat``: persons under 15 "single"; head and partner "married" (85 %) or "cohabiting";
      others 15+ by age band; ~1 % item non-response among persons 15+ (missing value).
    * ``educ`` (ordered): a latent score N(0, 1) + household effect N(0, 0.6) + 0.5 urban +
      cohort effect, cut at (−1.2, −0.2, 0.5, 1.3) into none..tertiary and capped by the level
      attainable at that age; under 6 "none"; ~2 % missing among persons 6+.
    * ``occup``: missing (NaN) exactly when age < 15; otherwise drawn given education and
      urban/rural (rural moves a third of non-agricultural jobs to agriculture); 15–19 year olds
      are mostly inactive (students), 65+ mostly inactive (retired).
    * ``literacy``: under 6 "illiterate"; otherwise given education.
    * ``income`` (float): 0 under 15; lognormal with location given occupation, region and
      urban/rural and σ = 0.6 for the employed; the unemployed and inactive have zero income with
      high probability (pensions for most of the 60+).
    * ``expend`` (float, household level, constant within the household):
      exp(1.5 + 0.8·log(household income + 2000) + 0.35·log(hhsize) + N(0, 0.25)).
    * ``savings`` (float, person level): 0 with high probability, else lognormal around income.
    * ``health`` and ``disability`` (sensitive categoricals) worsen with age.

    Parameters
    ----------
    n_households:
        number of households (1 to ``MAX_HOUSEHOLDS``, ten million); the number of records is
        about 3.3 × ``n_households``.
    seed:
        seed of the generator; the same seed gives the same data bit for bit.

    Returns
    -------
    DataFrame with columns hid, pid, region, urbrur, hhsize, tenure, age, age5, sex, marstat, educ,
    occup, relat, water, literacy, income, expend, savings, w, health, disability; records sorted by
    household and person, RangeIndex. Categorical variables have pandas ``category`` dtype.

    Example
    -------
    >>> df = synthetic_survey(1000, seed=3)
    >>> list(df.columns[:6])
    ['hid', 'pid', 'region', 'urbrur', 'hhsize', 'tenure']
    >>> bool(df.loc[df["age"] < 15, "occup"].isna().all()), bool(df["w"].gt(0).all())
    (True, True)
    >>> synthetic_survey(50, seed=7).equals(synthetic_survey(50, seed=7))
    True
    """
    if isinstance(n_households, bool) or not isinstance(n_households, (int, np.integer)):
        raise ParameterError(f"n_households: expected a positive integer, got {n_households!r}")
    if not 1 <= n_households <= MAX_HOUSEHOLDS:
        raise ParameterError(f"n_households: expected an integer in [1, {MAX_HOUSEHOLDS}], got "
                             f"{n_households!r:.40}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"seed: expected a non-negative integer, got {seed!r}")
    rng = np.random.default_rng(int(seed))
    H = int(n_households)

    # ---------------------------------------------------------------- households
    region = _draw(rng, _REGION_P, np.zeros(H, dtype=np.int64))
    rural = (rng.random(H) >= _URBAN_P[region]).astype(np.int64)  # 0 urban, 1 rural
    hhsize = _draw(rng, _HHSIZE_P, rural) + 1
    tenure = _draw(rng, _TENURE_P, rural)
    water = _draw(rng, _WATER_P, rural)
    base_w = 120.0 * (1.0 + 0.3 * (np.arange(12) % 4))[:, None] * np.array([1.0, 1.7])[None, :]
    w_h = base_w[region, rural] * np.exp(rng.normal(0.0, 0.15, H))
    has_partner = (hhsize >= 2) & (rng.random(H) < 0.72)
    married_h = rng.random(H) < 0.85
    head_male = rng.random(H) < 0.72
    alone = hhsize == 1
    head_age = np.where(alone, rng.normal(52, 19, H), rng.normal(45, 14, H))
    head_age = np.clip(np.rint(head_age), 18, 95).astype(np.int64)
    hh_educ_effect = rng.normal(0.0, 0.6, H)

    # ---------------------------------------------------------------- persons
    N = int(hhsize.sum())
    hidx = np.repeat(np.arange(H), hhsize)
    start = np.cumsum(hhsize) - hhsize
    pid = np.arange(N) - start[hidx] + 1
    rural_p = rural[hidx]
    is_head = pid == 1
    is_partner = (pid == 2) & has_partner[hidx]
    rest = ~(is_head | is_partner)
    is_child = rest & (rng.random(N) < 0.85)
    relat = np.select([is_head, is_partner, is_child], [0, 1, 2], default=3)

    ha = head_age[hidx]
    partner_age = ha + np.rint(rng.normal(-2.0, 4.0, N)).astype(np.int64)
    span = np.clip(ha - 18, 0, 27)  # parent's age at birth: 18 .. min(45, head age)
    child_age = ha - 18 - np.floor(rng.random(N) * (span + 1)).astype(np.int64)
    elder = rng.random(N) < 0.5
    other_age = np.where(elder, ha + rng.integers(18, 36, N), rng.integers(0, 81, N))
    age = np.select([is_head, is_partner, is_child], [ha, partner_age, child_age], other_age)
    age = np.clip(age, 0, 95).astype(np.int64)
    age = np.where(is_partner, np.maximum(age, 18), age)  # partners are adults
    age5 = np.minimum(age // 5, len(AGE5) - 1)

    u_sex = rng.random(N)
    head_m = head_male[hidx]
    male = np.where(
        is_head, head_m, np.where(is_partner, np.where(u_sex < 0.98, ~head_m, head_m), u_sex < 0.49)
    )
    sex = np.where(male, 0, 1)

    # marital status
    band = np.digitize(age, [30, 60])
    mar_alone = _draw(rng, _MAR_NOPARTNER_P, band)
    couple = np.where(married_h[hidx], 1, 2)
    marstat = np.where(
        is_head | is_partner, np.where(has_partner[hidx], couple, mar_alone), mar_alone
    )
    marstat = np.where(age < 15, 0, marstat)
    marstat = np.where((age >= 15) & (rng.random(N) < 0.01), -1, marstat)

    # education
    z = (
        rng.normal(0.0, 1.0, N)
        + hh_educ_effect[hidx]
        + 0.5 * (1 - rural_p)
        + np.clip((60 - age) * 0.015, -0.5, 0.6)
        + np.where(age < 21, 1.0, 0.0)
    )
    latent = np.searchsorted(np.array([-1.2, -0.2, 0.5, 1.3]), z)
    max_level = np.select([age < 6, age < 12, age < 15, age < 21], [0, 1, 2, 3], default=4)
    educ = np.minimum(latent, max_level)
    educ = np.where((age >= 6) & (rng.random(N) < 0.02), -1, educ)

    # occupation
    erow = np.where(educ < 0, 5, educ)
    occ = _draw(rng, _OCCUP_P, erow)
    to_agri = (rural_p == 1) & (occ < 8) & (occ != 5) & (rng.random(N) < 1 / 3)
    occ = np.where(to_agri, 5, occ)
    u_inact = rng.random(N)
    occ = np.where((age < 20) & (u_inact < 0.7), 9, occ)
    occ = np.where((age >= 65) & (u_inact < 0.8), 9, occ)
    occ = np.where(age < 15, -1, occ)

    # literacy
    p_lit = np.array([0.15, 0.80, 0.97, 0.99, 1.0, 0.75])[erow]
    literacy = np.where((age >= 6) & (rng.random(N) < p_lit), 0, 1)

    # income
    occ0 = np.maximum(occ, 0)
    loc = _OCCUP_LOGINC[occ0] + _REGION_INC[region[hidx]] - 0.15 * rural_p
    loc = np.where((occ == 9) & (age >= 60), 9.0 + _REGION_INC[region[hidx]], loc)
    inc = np.exp(loc + rng.normal(0.0, 0.6, N))
    u_zero = rng.random(N)
    zero = (
        (age < 15)
        | ((occ == 8) & (u_zero < 0.6))
        | ((occ == 9) & (age >= 60) & (u_zero < 0.3))
        | ((occ == 9) & (age < 60) & (u_zero < 0.7))
        | ((occ < 8) & (u_zero < 0.02))
    )
    income = np.where(zero, 0.0, np.round(inc, 2))

    # household expenditure (constant within household)
    hh_income = np.bincount(hidx, weights=income, minlength=H)
    expend_h = np.exp(
        1.5 + 0.8 * np.log(hh_income + 2000.0) + 0.35 * np.log(hhsize) + rng.normal(0.0, 0.25, H)
    )
    expend = np.round(expend_h, 2)[hidx]

    # savings (person level)
    p_save = np.where(age < 15, 0.05, 0.25 + 0.35 * (income > 0) + 0.1 * (age >= 50))
    sav = np.exp(np.log(income + 500.0) + rng.normal(-0.7, 1.0, N))
    savings = np.where(rng.random(N) < p_save, np.round(sav, 2), 0.0)

    # sensitive variables
    age_eff = np.clip((age - 30) / 25.0, 0.0, None)
    health = np.searchsorted(
        np.array([-0.3, 0.9, 1.9, 2.8]), rng.normal(0.0, 1.0, N) + 0.6 * age_eff
    )
    disability = np.searchsorted(np.array([1.6, 2.5, 3.1]), rng.normal(0.0, 1.0, N) + 0.5 * age_eff)

    return pd.DataFrame(
        {
            "hid": (hidx + 1).astype(np.int64),
            "pid": pid.astype(np.int64),
            "region": _cat(region[hidx], REGIONS),
            "urbrur": _cat(rural_p, URBRUR),
            "hhsize": hhsize[hidx].astype(np.int64),
            "tenure": _cat(tenure[hidx], TENURE),
            "age": age,
            "age5": _cat(age5, AGE5, ordered=True),
            "sex": _cat(sex, SEX),
            "marstat": _cat(marstat, MARSTAT),
            "educ": _cat(educ, EDUC, ordered=True),
            "occup": _cat(occ, OCCUP),
            "relat": _cat(relat, RELAT),
            "water": _cat(water[hidx], WATER),
            "literacy": _cat(literacy, LITERACY),
            "income": income,
            "expend": expend,
            "savings": savings,
            "w": w_h[hidx],
            "health": _cat(health, HEALTH),
            "disability": _cat(disability, DISABILITY),
        }
    )
