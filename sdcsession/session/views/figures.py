"""The text of every risk and utility figure: one registry for ``explain()`` and the docs.

Each figure that ``s.risk.to_frame()`` or ``s.utility.to_frame()`` lists has an entry here (by
its base name: ``k3_violations`` → ``k_violations``, ``model_risk[default].gr1`` →
``model_risk.gr1``). `explain` (``sdcsession.session.views.explain``) adds the current value and
the quantities that produce it; the docs page *What every figure means* renders the same entries
at build time, so the two cannot disagree. Formulas are TeX (rendered as MathML on the site).

Example
-------
>>> FIGURES["global_risk"].title
'Global risk (mean individual risk)'
"""

from __future__ import annotations

import attrs

__all__ = ["FIGURES", "Figure", "base_name"]


@attrs.frozen
class Figure:
    """What a figure means: formula (TeX), source, assumptions, and what moves it."""

    kind: str  # "risk" or "utility"
    title: str
    formula: str
    source: str
    assumptions: str
    up: str
    down: str
    direction: str = "higher = more risk"


def _r(title: str, formula: str, source: str, assumptions: str, up: str, down: str) -> Figure:
    return Figure("risk", title, formula, source, assumptions, up, down)


def _u(title: str, formula: str, source: str, assumptions: str, up: str, down: str) -> Figure:
    return Figure("utility", title, formula, source, assumptions, up, down, "higher = more loss")


_ATTACK_SRC = "El Emam (2013), Guide to the De-Identification of Personal Health Information; ARX"
_ATTACK_ASSUME = ("classes of the key variables; F_k is the sum of the weights of the class (its "
                  "population size); the threshold is 0.2 (classes of at least 5)")
_MODEL_SRC = "Skinner & Holmes (1998); Skinner & Shlomo (2008); sdcMicro modRisk"
_MODEL_ASSUME = ("a log-linear model of the cell counts of the keys (main effects by default) "
                 "fitted to the sample; the weights give the sampling fractions π_k")
_RMD_SRC = "sdcMicro dRiskRMD (Templ & Meindl 2008): robust Mahalanobis distance intervals"
_LINK_SRC = "Domingo-Ferrer & Torra (2001); sdcMicro recordLinkage"
_LINK_ASSUME = ("an intruder holds the original numeric values of every record and links each "
                "one to a masked record by distance on the numeric variables")
_KEYS_DOWN = "recoding or suppressing key values, fewer key variables"
_KEYS_UP = "more key variables, finer categories, a smaller sample"

FIGURES: dict[str, Figure] = {
    "n_records": Figure(
        "risk", "Number of records", r"n", "the data", "every record of the current state",
        "adding records", "removing records", "a count"),
    "global_risk": _r(
        "Global risk (mean individual risk)", r"\bar r = \frac{1}{n}\sum_{i=1}^{n} r_i",
        "Benedetti & Franconi (1998); sdcMicro measure_risk (global risk)",
        "r_i is the individual risk of record i: the probability that an intruder who knows its "
        "key values re-identifies it, estimated from f_k (sample count) and F_k (sum of weights) "
        "of its key combination; missing keys match as wildcards with weight alpha",
        _KEYS_UP + ", small weights (sample close to the population)", _KEYS_DOWN),
    "expected_reidentifications": _r(
        "Expected number of re-identifications", r"ER = \sum_{i=1}^{n} r_i",
        "Benedetti & Franconi (1998); sdcMicro measure_risk",
        "the individual risks r_i as for the global risk, summed over records (each record is "
        "attacked once)", _KEYS_UP, _KEYS_DOWN),
    "household_expected_reidentifications": _r(
        "Expected re-identifications with household risk",
        r"ER_h = \sum_{i=1}^{n} \left(1 - \prod_{j \in h(i)} (1 - r_j)\right)",
        "Hundepool et al. (2012), Statistical Disclosure Control, household risk; sdcMicro",
        "a household is re-identified when any of its members is; every member takes the "
        "household's risk (records of a household share the household id)",
        "larger households, more key variables", _KEYS_DOWN + ", household-level suppression"),
    "k_violations": _r(
        "Records violating k-anonymity", r"\#\{i : f_{k(i)} < k\}",
        "Samarati & Sweeney (1998); sdcMicro kAnon / print(sdc, 'kAnon')",
        "f_k counts the records sharing the key combination (missing keys match as wildcards); "
        "k is the number in the figure's name (k2, k3, k5)", _KEYS_UP + ", a larger k",
        _KEYS_DOWN + ", local suppression to k-anonymity"),
    "numeric.interval_disclosure": _r(
        "Interval disclosure (numeric)",
        r"\frac{1}{n}\#\{i : |x_{ij} - x'_{ij}| \le k s_j \text{ for all } j\}",
        "Mateo-Sanz, Sebé & Domingo-Ferrer (2004); sdcMicro dRisk",
        "an intruder who knows a masked value guesses the original lies within k standard "
        "deviations; comparisons with a missing value are left out",
        "little or no perturbation of the numeric variables",
        "stronger noise, larger microaggregation groups, rank swapping over a wider range"),
    "numeric.record_linkage": _r(
        "Distance-based record linkage (numeric)",
        r"\frac{1}{n}\#\{i : \text{the nearest original of } x'_i \text{ is } x_i\}",
        "Domingo-Ferrer & Torra (2001)",
        "standardised Euclidean distance on the numeric variables; records complete in both files",
        "little perturbation, few numeric variables with distinct values",
        "stronger noise, microaggregation (groups of k look alike)"),
    "prosecutor.records_at_risk": _r(
        "Prosecutor: share of records at risk", r"\frac{1}{n}\#\{i : 1/f_{k(i)} > \tau\}",
        _ATTACK_SRC, "the intruder knows the target is in the file; " + _ATTACK_ASSUME,
        _KEYS_UP, _KEYS_DOWN + ", k-anonymity with k at least 1/threshold"),
    "prosecutor.highest_risk": _r(
        "Prosecutor: highest risk", r"\max_i 1/f_{k(i)}", _ATTACK_SRC,
        "the intruder knows the target is in the file; " + _ATTACK_ASSUME,
        "a single unique record", "removing the smallest classes (suppression, recoding)"),
    "prosecutor.success_rate": _r(
        "Prosecutor: expected success rate", r"\frac{1}{n}\sum_i 1/f_{k(i)} = K/n",
        _ATTACK_SRC, "the intruder attacks every record; K is the number of classes; "
        + _ATTACK_ASSUME, "more classes (finer keys)", "fewer, larger classes"),
    "journalist.records_at_risk": _r(
        "Journalist: share of records at risk", r"\frac{1}{n}\#\{i : 1/F_{k(i)} > \tau\}",
        _ATTACK_SRC, "the intruder does not know whether the target is in the sample; "
        + _ATTACK_ASSUME, "small population counts F_k", _KEYS_DOWN),
    "journalist.highest_risk": _r(
        "Journalist: highest risk", r"\max_i 1/F_{k(i)}", _ATTACK_SRC,
        "the intruder does not know whether the target is in the sample; " + _ATTACK_ASSUME,
        "a class with a small population count", "merging the smallest classes"),
    "journalist.success_rate": _r(
        "Journalist: expected success rate", r"\frac{1}{n}\sum_i 1/F_{k(i)}", _ATTACK_SRC,
        "as the journalist risk, averaged over records; " + _ATTACK_ASSUME,
        "small population counts", _KEYS_DOWN),
    "marketer": _r(
        "Marketer risk", r"\frac{1}{n}\sum_i 1/F_{k(i)}", _ATTACK_SRC,
        "the intruder re-identifies as many records as possible, not a chosen target; "
        + _ATTACK_ASSUME, "small population counts", _KEYS_DOWN),
    "model_risk.gr1": _r(
        "Model-based risk gr1", r"\frac{1}{K}\sum_{f_k=1} \exp(-(1-\pi_k)\mu_k)",
        _MODEL_SRC, _MODEL_ASSUME + "; K is the number of cells entering the denominator",
        "sample uniques in sparse cells", "recoding keys so that fewer cells are unique"),
    "model_risk.gr2": _r(
        "Model-based risk gr2", r"\frac{1}{K}\sum_{f_k=1} \frac{1-\exp(-v_k)}{v_k}",
        _MODEL_SRC, _MODEL_ASSUME + "; v_k = μ_k (1 − π_k)/π_k",
        "sample uniques in sparse cells", "recoding keys so that fewer cells are unique"),
    "model_risk.tau1": _r(
        "Expected population uniques among sample uniques (tau1)",
        r"\tau_1 = \sum_{f_k=1} \exp(-\mu_k (1-\pi_k))", _MODEL_SRC, _MODEL_ASSUME,
        "sample uniques in sparse cells", "recoding keys so that fewer cells are unique"),
    "model_risk.tau2": _r(
        "Expected correct matches of sample uniques (tau2)",
        r"\tau_2 = \sum_{f_k=1} \frac{1-\exp(-v_k)}{v_k}", _MODEL_SRC, _MODEL_ASSUME,
        "sample uniques in sparse cells", "recoding keys so that fewer cells are unique"),
    "population_uniques.uniques": _r(
        "Estimated population uniques", r"\hat U = \sum_k \operatorname{Pr}(F_k = 1 \mid f_k)",
        "Zayatz (1991); Hoshino (2001); Chen & Keller-McNulty (1998); Dankar et al. (2012)",
        "the estimator named in brackets (Dankar's rule chooses among Pitman, Zayatz and SNB); "
        "the population size is the sum of the weights", _KEYS_UP, _KEYS_DOWN),
    "population_uniques.proportion": _r(
        "Estimated proportion of population uniques", r"\hat U / N",
        "Zayatz (1991); Hoshino (2001); Dankar et al. (2012)",
        "as the number of population uniques, divided by the population size N",
        _KEYS_UP, _KEYS_DOWN),
    "rmd_risk.risk1": _r(
        "RMD interval risk (risk1)", r"|W_1| / n", _RMD_SRC,
        "record i is at risk when a masked value lies inside an interval around its original "
        "whose width grows with its robust Mahalanobis distance",
        "little perturbation of outlying records", "stronger perturbation of outliers"),
    "rmd_risk.risk2": _r(
        "RMD isolated risk (risk2)", r"|W_2| / n", _RMD_SRC,
        "records of risk1 with no other masked record within distance k2",
        "isolated outliers left unperturbed", "microaggregation, noise on outliers"),
    "rmd_risk.wrisk1": _r(
        "Weighted RMD interval risk (wrisk1)", r"|W_1| \sum_{i \in W_1} r_i / n", _RMD_SRC,
        "risk1 weighted by the records' risks", "little perturbation of outlying records",
        "stronger perturbation of outliers"),
    "rmd_risk.wrisk2": _r(
        "Weighted RMD isolated risk (wrisk2)", r"|W_2| \sum_{i \in W_2} r_i / n", _RMD_SRC,
        "risk2 weighted by the records' risks", "isolated outliers left unperturbed",
        "microaggregation, noise on outliers"),
    "record_linkage.correct_matches": _r(
        "Record linkage: correct links", r"\#\{i : \text{link}(x_i) = x'_i\}", _LINK_SRC,
        _LINK_ASSUME + " (one-to-one optimal assignment by default)",
        "little perturbation", "stronger noise, microaggregation, swapping"),
    "record_linkage.correct_match_rate": _r(
        "Record linkage: share of correct links", r"\#\{i : \text{link}(x_i) = x'_i\} / n",
        _LINK_SRC, _LINK_ASSUME, "little perturbation",
        "stronger noise, microaggregation, swapping"),
    "record_linkage.mean_distance": Figure(
        "risk", "Record linkage: mean link distance", r"\frac{1}{n}\sum_i d(x_i, \text{link}(x_i))",
        _LINK_SRC, _LINK_ASSUME, "stronger perturbation (records move further)",
        "weaker perturbation", "higher = less risk"),
    "suda2.dis_score": _r(
        "DIS-SUDA score (SUDA2)",
        r"dis_i = \left(1 + \frac{U/\theta - U}{s_i^{Q} \sum_{j: s_j > 0} s_j^{-Q}}\right)^{-1},"
        r"\ s_i = \sum_{\text{MSU } S \text{ of } i} (m - |S|)!",
        "Elliot, Manning, Mayes, Gurd & Bane (2005); Manning, Haglin & Keane (2008); "
        "sdcMicro suda2",
        "a minimal sample unique (MSU) is a smallest set of keys on which the record is unique; "
        "s_i scores its MSUs (smaller MSUs weigh more), θ is the Skinner–Elliot probability that "
        "a unique match is correct for the sampling fraction π, U the sample uniques; a missing "
        "key value is never part of an MSU; per record, 0 without an MSU",
        "more key variables, finer categories, a smaller sampling fraction",
        "recoding or suppressing the keys of the records with small MSUs"),
    "l_diversity.distinct": Figure(
        "risk", "Distinct l-diversity", r"l_i = \#\{\text{distinct values of } s \text{ in the key "
        r"combination of } i\}",
        "Machanavajjhala, Kifer, Gehrke & Venkitasubramaniam (2007); sdcMicro ldiversity",
        "the records sharing a key combination form a class; a missing sensitive value is "
        "ignored, a missing key value is a category of its own; per record (the summary gives "
        "its minimum, quartiles and mean; entropy l is the effective number of values, recursive "
        "(c, l) with c = 2)",
        "recoding keys into coarser categories (larger classes)",
        "finer keys, small classes, a sensitive variable with few common values",
        "higher = less risk (attribute disclosure)"),
    # ------------------------------------------------------------------------ utility
    "suppressions": _u(
        "Suppressions per key variable", r"\#\{i : x_{ij} \ne \text{NA},\ x'_{ij} = \text{NA}\}",
        "sdcMicro print(sdc, 'ls')",
        "a value is suppressed when it is observed in the original and missing now",
        "local suppression with a larger k, more keys", "recoding before suppressing, importance"),
    "records_changed": _u(
        "Records changed per variable", r"\#\{i : x'_{ij} \ne x_{ij}\}",
        "a count of changed values (missing equals missing)",
        "records paired by their index; a recode changes every record of a merged category",
        "recoding, suppression, PRAM", "milder treatments, fewer treated variables"),
    "entropy_change": _u(
        "Entropy change", r"E(X) - E(X'),\ E(X) = -\sum_c p_c \log p_c",
        "Shannon entropy of each variable (Willenborg & de Waal 2001)",
        "missing values are left out of the frequencies but counted in n",
        "merging categories, suppressions", "finer categories; PRAM can make it negative"),
    "ut2_pairs": _u(
        "Contingency table loss UT2 (pairs of keys)",
        r"UT2 = \frac{100}{n_1 n_2}\sum_{ij} \frac{|T^X_{ij} - T^Y_{ij}|}{T^X_{ij}}",
        "Templ (2019), Statistical Disclosure Control for Microdata, eq. 2",
        "the two-way tables of every pair of keys; a missing value is a category",
        "recoding, suppression, PRAM of the pair's variables", "milder treatments"),
    "il1s": _u(
        "IL1s", r"\frac{1}{pn}\sum_j\sum_i \frac{|x_{ij} - x'_{ij}|}{\sqrt{2} S_j}",
        "Yancey, Winkler & Creecy (2002); sdcMicro dUtility(method = 'IL1s') (without 1/(pn))",
        "records paired; S_j the standard deviation of variable j in the original",
        "stronger noise, larger microaggregation groups", "milder perturbation"),
    "eigen": _u(
        "Eigenvalue difference", r"\sum_j \frac{|e_j - e'_j|}{e_j}",
        "Templ & Meindl (2008); sdcMicro dUtility(method = 'eigen')",
        "eigenvalues of the correlation matrices of the standardised numeric variables",
        "perturbation that changes the correlations", "correlated noise, microaggregation"),
    "il_correl": _u(
        "Młodak's γ (correlations)",
        r"\gamma = \frac{1}{\sqrt{2}}\sqrt{\sum_j (\rho^{-1}_{jj}/\|\rho^{-1}\| - "
        r"\rho'^{-1}_{jj}/\|\rho'^{-1}\|)^2}",
        "Młodak (2020); Młodak, Pietrzak & Józefowski (2022); sdcMicro IL_correl",
        "complete records of each file; the diagonals of the inverse correlation matrices",
        "perturbation that changes the correlations", "correlated noise"),
    "correlation_discrepancy": _u(
        "Correlation discrepancy", r"\frac{1}{p^2}\sum_{jl} |\rho_{jl} - \rho'_{jl}|",
        "Domingo-Ferrer & Torra (2001), correlation-based information loss",
        "Pearson correlations of the numeric variables (pairwise complete)",
        "perturbation that changes the correlations", "correlated noise"),
    "lambda_overall": _u(
        "Młodak's λ (all variables)", r"\lambda = \frac{1}{mn}\sum_j\sum_i d(x'_{ij}, x_{ij})",
        "Młodak (2020); sdcMicro IL_variables",
        "distances in [0, 1] by scale: nominal 0/1, ordinal rank difference, continuous "
        "(2/π) arctan of the difference", "any change of the role variables",
        "fewer and milder changes"),
    "lambda": _u(
        "Młodak's λ_j (per variable)", r"\lambda_j = \frac{1}{n}\sum_i d(x'_{ij}, x_{ij})",
        "Młodak (2020); sdcMicro IL_variables",
        "as λ, for one variable", "changes of that variable", "fewer and milder changes"),
}


def base_name(name: str) -> str:
    """The registry name of a figure of ``to_frame()``: tags in brackets dropped,
    ``k3_violations`` → ``k_violations``.

    >>> base_name("model_risk[default].gr1"), base_name("k5_violations")
    ('model_risk.gr1', 'k_violations')
    """
    import re

    plain = re.sub(r"\[[^\]]*\]", "", str(name))
    return "k_violations" if re.fullmatch(r"k\d+_violations", plain) else plain
