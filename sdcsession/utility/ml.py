"""Utility measured by a model: train on the release, test on the original.

A model predicting ``target`` from ``features`` is trained twice — on the released records and on
the original records — and both are evaluated on the same held-out original records. The ratio of
their scores says how much of the original's predictive value the release keeps (1 = all of it).

- classification (a categorical or boolean target): accuracy and, where the model gives
  probabilities, the area under the ROC curve (one-vs-rest macro average for more than two
  classes); ``ratio = accuracy_release / accuracy_original``; ``chance`` is the accuracy of
  always predicting the most frequent class of the test records;
- regression (a numeric target): RMSE ``sqrt(mean((y − ŷ)²))`` and R²;
  ``ratio = RMSE_original / RMSE_release`` (1 = as good, below 1 = worse); ``chance`` is the RMSE of
  predicting the mean of the training target.

Held-out records: ``holdout`` (original records not used for the release, as for synthetic data),
or else a random ``test_size`` share of the original; the release model is then trained on the
released records paired (by index) with the other original records, so that no masked copy of a
test record is seen in training.

Models (scikit-learn, the optional ``ml`` extra: ``pip install sdcsession[ml]``):
``"random_forest"`` (default; 100 trees), ``"gradient_boosting"`` (histogram-based), ``"linear"``
(logistic or least-squares regression).

Missing values: records with a missing target are left out; a categorical feature's missing value
is a category of its own (one-hot coding); a numeric feature's missing values are filled with the
training median and flagged in an added indicator column.

References: Jordon, Szpruch, Houssiau et al. (2022), "Synthetic Data — what, why and how?"
(train-synthetic-test-real); Esteban, Hyland & Rätsch (2017) ("TSTR"); Prasser, Eicher, Spengler,
Bild & Kuhn (2020), "Flexible data anonymization using ARX" (classification utility).

Example
-------
>>> import sdcsession as sdc
>>> df = sdc.datasets.synthetic_survey(600, seed=1)
>>> r = model_utility(df, df, target="sex", features=["age", "income", "relat"], seed=1)
>>> r.ratio
1.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ..errors import MeasureError, MissingDependencyError, ParameterError

__all__ = ["model_utility", "ModelUtility", "MODELS"]

MODELS = ("random_forest", "gradient_boosting", "linear")


@attrs.frozen(eq=False)
class ModelUtility:
    """Result of `model_utility`: ``task`` (``"classification"`` or ``"regression"``), the
    ``metric`` of the ratio (``"accuracy"`` or ``"rmse"``), ``original`` and ``release`` scores
    (dicts: accuracy and auc, or rmse and r2), ``ratio`` (1 = the release keeps all the
    predictive value), ``chance`` (the metric of a trivial prediction), ``n_train``, ``n_test``."""

    task: str
    metric: str
    original: dict[str, float]
    release: dict[str, float]
    ratio: float
    chance: float
    n_train_original: int
    n_train_release: int
    n_test: int
    target: str
    features: tuple[str, ...]
    model: str

    def to_dict(self) -> dict[str, Any]:
        """Flat figures: ``<metric>_original``, ``<metric>_release``, ratio, chance, sizes."""
        out: dict[str, Any] = {"task": self.task, "metric": self.metric, "ratio": self.ratio,
                               "chance": self.chance}
        out |= {f"{k}_original": v for k, v in self.original.items()}
        out |= {f"{k}_release": v for k, v in self.release.items()}
        out |= {"n_train_original": self.n_train_original,
                "n_train_release": self.n_train_release, "n_test": self.n_test}
        return out


def _sklearn() -> Any:
    try:
        import sklearn  # noqa: F401
    except ImportError:
        raise MissingDependencyError(
            "model utility needs scikit-learn: pip install 'sdcsession[ml]'") from None
    import sklearn.ensemble as ens
    import sklearn.linear_model as lin
    import sklearn.metrics as met

    return ens, lin, met


def _is_numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype)


def _design(train: pd.DataFrame, others: list[pd.DataFrame], features: list[str]
            ) -> tuple[np.ndarray, list[np.ndarray]]:
    """The feature matrix of ``train`` and of each frame of ``others`` with one coding."""
    blocks_t, blocks_o = [], [[] for _ in others]
    for f in features:
        if _is_numeric(train[f]):
            x = train[f].to_numpy(dtype=np.float64, na_value=np.nan)
            med = float(np.nanmedian(x)) if np.isfinite(x).any() else 0.0
            cols = [np.where(np.isnan(x), med, x)]
            miss = np.isnan(x).any()
            if miss:
                cols.append(np.isnan(x).astype(np.float64))
            blocks_t += cols
            for b, o in zip(blocks_o, others):
                y = o[f].to_numpy(dtype=np.float64, na_value=np.nan)
                b.append(np.where(np.isnan(y), med, y))
                if miss:
                    b.append(np.isnan(y).astype(np.float64))
            continue
        cats = pd.Index(train[f].astype("object").dropna().unique())
        tv = train[f].astype("object")
        for cat in cats:
            blocks_t.append((tv == cat).to_numpy(dtype=np.float64))
            for b, o in zip(blocks_o, others):
                b.append((o[f].astype("object") == cat).to_numpy(dtype=np.float64))
        blocks_t.append(tv.isna().to_numpy(dtype=np.float64))
        for b, o in zip(blocks_o, others):
            b.append(o[f].isna().to_numpy(dtype=np.float64))
    def stack(bl: list, n: int) -> np.ndarray:
        return np.column_stack(bl) if bl else np.zeros((n, 0))

    return stack(blocks_t, len(train)), [stack(b, len(o)) for b, o in zip(blocks_o, others)]


def _fit_score(model: str, task: str, train: pd.DataFrame, test: pd.DataFrame, target: str,
               features: list[str], seed: int) -> dict[str, float]:
    ens, lin, met = _sklearn()
    xtr, (xte,) = _design(train, [test], features)
    ytr, yte = train[target], test[target]
    if task == "classification":
        ytr, yte = ytr.astype("object").astype(str).to_numpy(), \
            yte.astype("object").astype(str).to_numpy()
        if len(np.unique(ytr)) < 2:
            return {"accuracy": float(np.mean(yte == ytr[0])), "auc": 0.5}
        est = {"random_forest": lambda: ens.RandomForestClassifier(
                   n_estimators=100, random_state=seed, n_jobs=1),
               "gradient_boosting": lambda: ens.HistGradientBoostingClassifier(random_state=seed),
               "linear": lambda: lin.LogisticRegression(max_iter=1000)}[model]()
        est.fit(xtr, ytr)
        pred = est.predict(xte)
        out = {"accuracy": float(np.mean(pred == yte))}
        proba = est.predict_proba(xte)
        classes = list(est.classes_)
        present = np.unique(yte)
        try:
            if len(classes) == 2:
                out["auc"] = float(met.roc_auc_score(yte == classes[1], proba[:, 1])) \
                    if len(present) == 2 else float("nan")
            else:
                keep = np.isin(yte, classes)
                out["auc"] = float(met.roc_auc_score(
                    yte[keep], proba[keep], multi_class="ovr", average="macro",
                    labels=classes)) if len(np.unique(yte[keep])) == len(classes) \
                    else float("nan")
        except ValueError:
            out["auc"] = float("nan")
        return out
    ytr = ytr.to_numpy(dtype=np.float64)
    yte = yte.to_numpy(dtype=np.float64)
    est = {"random_forest": lambda: ens.RandomForestRegressor(
               n_estimators=100, random_state=seed, n_jobs=1),
           "gradient_boosting": lambda: ens.HistGradientBoostingRegressor(random_state=seed),
           "linear": lambda: lin.LinearRegression()}[model]()
    est.fit(xtr, ytr)
    pred = est.predict(xte)
    rmse = float(np.sqrt(np.mean((yte - pred) ** 2)))
    ss = float(np.sum((yte - yte.mean()) ** 2))
    return {"rmse": rmse, "r2": 1.0 - float(np.sum((yte - pred) ** 2)) / ss if ss > 0
            else float("nan")}


def model_utility(original: pd.DataFrame, release: pd.DataFrame, *, target: str,
                  features: Sequence[str] | None = None, task: str = "auto",
                  model: str = "random_forest", holdout: pd.DataFrame | None = None,
                  test_size: float = 0.3, seed: int = 0) -> ModelUtility:
    """Train on the release, test on the original (see the module for formulas and rules).

    Parameters
    ----------
    original, release : the original and the released records.
    target : the predicted column.
    features : the predictors (default: every other column shared by both files).
    task : ``"classification"``, ``"regression"`` or ``"auto"`` (regression for a numeric target
        with more than 10 distinct values).
    model : one of `MODELS`.
    holdout : original records not used for the release, the test set (else a random
        ``test_size`` share of the original, paired with the release by index).
    test_size : share of the original held out when no holdout is given.
    seed : seed of the split and of the models.

    Formula: classification ``ratio = accuracy_release / accuracy_original``; regression
    ``ratio = RMSE_original / RMSE_release``, ``RMSE = sqrt(mean((y − ŷ)²))``.

    Missing values: records with a missing target are left out; a missing category is a category
    of its own; a missing number is filled with the training median and flagged.

    A target with a single value is a `MeasureError` (there is nothing to predict).

    Example
    -------
    >>> import sdcsession as sdc
    >>> df = sdc.datasets.synthetic_survey(400, seed=2)
    >>> model_utility(df, df, target="income", features=["age", "sex"], model="linear").ratio
    1.0
    """
    from ..risk._codes import check_frame, check_number

    o = check_frame(original, "model utility: original")
    r = check_frame(release, "model utility: release")
    if not isinstance(target, str):
        raise ParameterError(f"target: expected one column name, got {target!r}")
    if not isinstance(model, str) or model not in MODELS:
        raise ParameterError(f"model: expected one of {MODELS}, got {model!r:.60}")
    if not isinstance(task, str) or task not in ("auto", "classification", "regression"):
        raise ParameterError(f"task: expected 'auto', 'classification' or 'regression', got "
                             f"{task!r:.60}")
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or not (
            0 <= seed < 2**32):
        raise ParameterError(f"seed: expected a whole number in [0, 2**32 - 1], got {seed!r:.60}")
    if features is None:
        feats = [c for c in o.columns if c != target and c in r.columns]
    else:
        from ._align import column_list

        feats = column_list(features, "model utility", "features")
        if len(set(feats)) != len(feats):
            raise ParameterError(f"features: a column is named twice: {feats!r:.80}")
        if target in feats:
            raise ParameterError(f"features: the target {target!r} is among the features")
    h = None if holdout is None else check_frame(holdout, "model utility: holdout")
    for name, df in (("original", o), ("release", r), ("holdout", h)):
        if df is None:
            continue
        missing = [c for c in [*feats, target] if c not in df.columns]
        if missing:
            which = "target" if missing == [target] else "features"
            raise MeasureError(f"model utility: mismatched columns ({which}): the {name} lacks "
                               f"{missing}")
    if not feats:
        raise ParameterError("features: no feature to predict from")
    y = o[target].dropna()
    if y.nunique() < 2:
        raise MeasureError(f"model utility: the target {target!r} is constant in the original: "
                           "there is nothing to predict")
    if task == "auto":
        task = "regression" if _is_numeric(o[target]) and y.nunique() > 10 else "classification"
    if task == "regression" and not _is_numeric(o[target]):
        raise ParameterError(f"task: regression needs a numeric target; {target!r} is not")
    rng = np.random.default_rng(int(seed))
    if h is None:
        ts = check_number(test_size, "test_size", "a number in (0, 1)")
        if not 0 < ts < 1:
            raise ParameterError(f"test_size: expected a number in (0, 1), got {test_size!r}")
        if not r.index.isin(o.index).all() or not r.index.is_unique or not o.index.is_unique:
            raise MeasureError("model utility: the release's records are not paired with the "
                               "original's by index; give the held-out original records as "
                               "holdout=")
        test_idx = o.index[rng.random(len(o)) < ts]
        test = o.loc[test_idx]
        train_o = o.drop(index=test_idx)
        train_r = r.drop(index=r.index.intersection(test_idx))
    else:
        test, train_o, train_r = h, o, r
    test = test[test[target].notna()]
    train_o = train_o[train_o[target].notna()]
    train_r = train_r[train_r[target].notna()]
    if min(len(test), len(train_o), len(train_r)) < 2:
        raise MeasureError("model utility: too few records with the target to train and test "
                           f"(test {len(test)}, original {len(train_o)}, release {len(train_r)})")
    s_o = _fit_score(model, task, train_o, test, target, feats, int(seed))
    s_r = _fit_score(model, task, train_r, test, target, feats, int(seed))
    if task == "classification":
        metric = "accuracy"
        ratio = s_r["accuracy"] / s_o["accuracy"] if s_o["accuracy"] > 0 else float("nan")
        chance = float(test[target].astype("object").astype(str).value_counts(
            normalize=True).iloc[0])
    else:
        metric = "rmse"
        ratio = s_o["rmse"] / s_r["rmse"] if s_r["rmse"] > 0 else (
            1.0 if s_o["rmse"] == 0 else float("nan"))
        yt = test[target].to_numpy(dtype=np.float64)
        chance = float(math.sqrt(np.mean((yt - train_o[target].astype(float).mean()) ** 2)))
    return ModelUtility(task, metric, s_o, s_r, float(ratio), chance, len(train_o),
                        len(train_r), len(test), target, tuple(feats), model)
