"""sdcMicro's own expectations for ``addNoise`` (tests/testthat/test_addNoise.R), held by ours.

sdcMicro's test file builds its data with R's ``set.seed(3); runif(n, 1, 100)``; the same numbers
are below (printed by R 4 with ``sprintf("%.17g")``), with the same missing cells. Its
expectations, for every method and data set:

* every variable changes: ``all(colMeans(abs(x - xm), na.rm=TRUE) > 0)``;
* more noise changes more: the mean of those column means is larger for the default noise (150)
  than for ``noise = 20`` (``delta = 0.01`` against the default 0.1 for ``correlated2``);
* with missing values, missing cells stay missing and the observed ones change;
* a column with only missing values gives a warning (``expect_warning``) and the other columns
  still change.

Parameters are mapped to ours as docs/sdcmicro.md says: ``noise = N`` is ``N/100`` for additive
and outlier noise, ``sqrt(N/100)`` for correlated noise; ``delta = δ`` is ``δ/sqrt(1 − δ²)`` for
correlated2; ROMM (sdcMicro ignores ``noise`` there and uses ``p``) is compared at 1.5 and 0.2.
Where sdcMicro expects an error or an all-missing result only because of a limitation
(``correlated`` and ``outdect`` need complete records, ``ROMM`` turns everything into NA when one
value is missing), ours treats the data, and the tests below pin what it does instead. The
outlier rule (99 % quantile or robust distance) and its noise magnitude are checked separately.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import ParameterError, SdcWarning, TreatmentError
from sdcsession.methods.noise import NOISE_METHODS, AddNoise, add_noise, pairwise_covariance
from sdcsession.methods.outlier_detection import detect_outliers

#: R: set.seed(3); runif(30, 1, 100)
RUNIF = np.array([
    17.63611110765487, 80.944123508175835, 39.109292786102742, 33.445697399321944,
    60.607966801384464, 60.835011349990964, 13.338710979791358, 30.165491500170901,
    58.183381982147694, 63.466948165558279, 51.689573857234791, 50.997367501491681,
    53.86949999211356, 56.16769413324073, 86.924029276939109, 83.141160638304427,
    12.033466186141595, 70.665147529914975, 89.851338172331452, 28.693522821646184,
    23.591986247105524, 2.5176593589130789, 13.769174301996827, 10.24481092276983,
    24.451615739613771, 79.323593537788838, 60.373425002908334, 91.104623382678255,
    56.482030838960782, 75.814772147452459])


def _frame(n: int, na: tuple[int, ...] = (), column: bool = False) -> pd.DataFrame:
    """sdcMicro's ``array(runif(3n), dim = c(n, 3))`` (column-major) with the R (1-based) cells
    ``na`` missing; ``column``: V2 and row 3 entirely missing."""
    v = RUNIF[:3 * n].copy()
    v[[i - 1 for i in na]] = np.nan
    x = v.reshape(3, n).T
    if column:
        x[:, 1] = np.nan
        x[2, :] = np.nan
    return pd.DataFrame(x, columns=["V1", "V2", "V3"])


#: the data sets of test_addNoise.R (NA cells from set.seed(3); ceiling(runif(8 or 4, 1, 3n)))
CLEAN5, CLEAN10 = _frame(5), _frame(10)
NA5, NA10 = _frame(5, (4, 13, 7, 6, 10, 10, 3, 6)), _frame(10, (6, 25, 13, 11))
COLROW5, COLROW10 = _frame(5, column=True), _frame(10, column=True)
COLS = ["V1", "V2", "V3"]

#: (sdcMicro's default, sdcMicro's smaller setting) in our units, per method
NOISE = {
    "additive": (1.5, 0.2),
    "additive0": (1.5, 0.2),  # no zero in these data: additive noise, signs kept
    "correlated": (np.sqrt(1.5), np.sqrt(0.2)),
    "correlated2": (0.1 / np.sqrt(1 - 0.1 ** 2), 0.01 / np.sqrt(1 - 0.01 ** 2)),
    "outliers": (1.5, 0.2),
    "romm": (1.5, 0.2),
    "restricted": (np.sqrt(1.5), np.sqrt(0.2)),  # sdcMicro "restr": noise variance ratio N/100
}


def _run(df, method, noise, seed=3):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SdcWarning)
        return add_noise(df, COLS, method=method, noise=noise, rng=np.random.default_rng(seed))


def _col_means(before, after):
    """sdcMicro's ``colMeans(abs(x - xm), na.rm = TRUE)`` (NaN for a column with no values)."""
    return (after - before).abs().mean()


def _check_sdcmicro_expectations(df, method, seeds=range(10)):
    for seed in seeds:
        big, _ = _run(df, method, NOISE[method][0], seed)
        small, _ = _run(df, method, NOISE[method][1], seed)
        for out in (big, small):
            assert out.shape == df.shape and list(out.columns) == COLS
            assert out.index.equals(df.index)
            pd.testing.assert_frame_equal(out.isna(), df.isna())  # missing stays missing
            assert (_col_means(df, out).dropna() > 0).all()  # every variable changes
        assert _col_means(df, big).mean() > _col_means(df, small).mean()  # more noise, more change


@pytest.mark.parametrize("method", ["additive", "correlated", "correlated2", "romm"])
def test_complete_data_5x3(method):
    _check_sdcmicro_expectations(CLEAN5, method)


def test_complete_data_10x3_outliers():
    _check_sdcmicro_expectations(CLEAN10, "outliers")


@pytest.mark.parametrize("method", ["additive", "correlated", "correlated2"])
def test_missing_values_5x3(method):
    # NA5 has no complete record: correlated noise needs the pairwise-complete covariance
    assert NA5.isna().any(axis=1).all()
    _check_sdcmicro_expectations(NA5, method)


@pytest.mark.parametrize("method", ["additive", "correlated", "correlated2", "outliers", "romm"])
def test_missing_values_10x3(method):
    _check_sdcmicro_expectations(NA10, method)


@pytest.mark.parametrize("method", NOISE_METHODS)
def test_all_missing_column_and_row_warn_and_pass_through(method):
    # sdcMicro: a warning for additive and correlated2; an error for correlated and outdect (they
    # need complete records); ROMM returns only NA. Ours: a warning naming V2, V2 untouched, and
    # the other variables perturbed with the same expectations.
    # outliers and restricted noise need more complete records than the 5×3 file has
    df = COLROW10 if method in ("outliers", "restricted") else COLROW5
    with pytest.warns(SdcWarning, match=r"\['V2'\] have only missing values"):
        out, notes = add_noise(df, COLS, method=method, noise=NOISE[method][0],
                               rng=np.random.default_rng(3))
    assert notes["all_missing"] == ["V2"] and "V2" not in notes["changed"]
    assert out["V2"].isna().all() and out.iloc[2].isna().all()
    _check_sdcmicro_expectations(df, method)


def test_sdc_object_additive():
    """sdcMicro's test on an sdcMicroObj: the session gives the same expectations, and the
    original stays as it was."""
    # sdcMicro declares Var1..Var3 as key and numeric variables; ours keeps the roles apart
    cols = ["Var1", "Var2", "Var3"]
    x = CLEAN5.rename(columns=dict(zip(COLS, cols, strict=True)))
    df = x.assign(region=["a", "b", "a", "b", "a"])
    s1 = sdc.SdcSession(df, keys=["region"], numeric=cols, seed=3).add_noise(cols, noise=1.5)
    s2 = sdc.SdcSession(df, keys=["region"], numeric=cols, seed=3).add_noise(cols, noise=0.2)
    pd.testing.assert_frame_equal(s1.original, df)
    m1, m2 = _col_means(x, s1.data[cols]), _col_means(x, s2.data[cols])
    assert (m1 > 0).all() and (m2 > 0).all() and m1.mean() > m2.mean()
    # same seed: the same standard normal draws, scaled: the changes are in the ratio 1.5 : 0.2
    assert np.allclose((s1.data[cols] - x) / (s2.data[cols] - x), 7.5)
    replay = sdc.SdcSession.from_recipe(df, s1.to_recipe())
    pd.testing.assert_frame_equal(replay.data, s1.data)


@pytest.mark.parametrize("method", NOISE_METHODS)
def test_seeds_reproduce(method):
    df = CLEAN10
    a, _ = _run(df, method, 1.0, seed=11)
    b, _ = _run(df, method, 1.0, seed=11)
    c, _ = _run(df, method, 1.0, seed=12)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


def test_non_numeric_variables_are_refused():
    # sdcMicro's test file: "data set including a factor variable (system should give an error)"
    df = CLEAN5.assign(region=pd.Categorical(["a", "b", "a", "b", "c"]), name=list("vwxyz"),
                       flag=[True, False, True, True, False])
    for col in ("region", "name", "flag"):
        with pytest.raises(TreatmentError, match=f"column '{col}' must be numeric"):
            add_noise(df, ["V1", col], rng=np.random.default_rng(0))
    with pytest.raises(TreatmentError, match="unknown column"):
        add_noise(df, ["nope"], rng=np.random.default_rng(0))


@pytest.mark.parametrize("method", NOISE_METHODS)
def test_noise_zero_changes_nothing(method):
    out, notes = add_noise(CLEAN10, COLS, method=method, noise=0.0, rng=np.random.default_rng(1))
    assert np.allclose(out.to_numpy(), CLEAN10.to_numpy(), rtol=0, atol=1e-12)
    with pytest.raises(ParameterError, match="positive"):
        AddNoise(COLS, method=method, noise=0)


def test_bad_noise_values_are_refused_by_the_kernel():
    for bad in (-0.1, float("nan"), float("inf"), 10 ** 30, "0.5", True, None):
        with pytest.raises(ParameterError, match="noise"):
            add_noise(CLEAN5, COLS, noise=bad, rng=np.random.default_rng(0))
    with pytest.raises(ParameterError, match="more than once"):
        add_noise(CLEAN5, ["V1", "V1"], rng=np.random.default_rng(0))


# ----------------------------------------------------------------------------- outlier rule
def test_univariate_rule_uses_r_quantiles_and_flags_each_maximum():
    # R: apply(x, 2, quantile, probs = 0.99, na.rm = TRUE)
    out = detect_outliers(CLEAN10.to_numpy())
    assert out.quantiles == pytest.approx(
        [79.371177727340253, 89.587880371746138, 90.044330696638212], rel=1e-14)
    na = detect_outliers(NA10.to_numpy())
    assert na.quantiles == pytest.approx(
        [79.545949480766424, 89.646426549653981, 90.1621409950871], rel=1e-14)
    # above the 99 % quantile in 10 records: the maximum of each column (V1 row 2, V2 row 9,
    # V3 row 8 in R's numbering)
    assert np.flatnonzero(out.univariate).tolist() == [1, 7, 8]
    assert np.flatnonzero(na.univariate).tolist() == [1, 7, 8]


def test_outliers_by_either_rule_get_sdcmicro_noise_magnitude():
    rng = np.random.default_rng(42)
    n = 4000
    x = rng.multivariate_normal([0.0, 0.0], [[1.0, 0.95], [0.95, 1.0]], size=n)
    x[0] = [2.0, -2.0]  # breaks the correlation: robust outlier, far from the 99 % quantiles
    x[1] = [2.5, 2.5]  # on the correlation line: above both 99 % quantiles (2.33), d² ≈ 6.4
    df = pd.DataFrame(x, columns=["a", "b"])
    out = detect_outliers(x)
    assert out.robust[0] and not out.univariate[0]
    assert out.univariate[1] and not out.robust[1]
    assert out.limit == pytest.approx(7.377758908227871, rel=1e-12)  # R: qchisq(0.975, 2)
    # univariate: 1 % above the quantile per variable; robust: about 2.5 % for normal data
    assert abs(out.univariate.sum() - 0.01 * n * 2) <= 40
    assert abs(out.robust.sum() - 0.025 * n) <= 4 * np.sqrt(0.025 * n) + 2
    z, notes = add_noise(df, ["a", "b"], method="outliers", noise=1.5,
                         rng=np.random.default_rng(1))
    moved = (z != df).any(axis=1).to_numpy()
    assert np.array_equal(moved, out.flag) and moved[:2].all()
    assert notes["n_outliers"] == out.flag.sum()
    assert notes["n_outliers_univariate"] == out.univariate.sum()
    assert notes["n_outliers_robust"] == out.robust.sum()
    # sdcMicro: rnorm(., 0, 1.96 * sd(x) / sqrt(N) * noise / 100) with its noise = 150
    sd = df.std().to_numpy()
    spec = 1.5 * 1.96 * sd / np.sqrt(n)
    assert list(notes["sd_spec"].values()) == pytest.approx(spec, rel=1e-12)
    e = (z - df).to_numpy()[out.flag]
    m = len(e)
    assert np.allclose(e.std(axis=0, ddof=1), spec, rtol=4 / np.sqrt(2 * m))


def test_outliers_with_missing_values():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(500, 2))
    x[0] = [np.nan, 9.0]  # incomplete, above b's 99 % quantile: perturbed in b, a stays NaN
    x[1] = [-9.0, np.nan]  # incomplete, far out but low: no distance, not above a quantile
    df = pd.DataFrame(x, columns=["a", "b"])
    z, notes = add_noise(df, ["a", "b"], method="outliers", noise=1.5, rng=rng)
    assert np.isnan(z.iloc[0, 0]) and z.iloc[0, 1] != 9.0
    assert z.iloc[1, 0] == -9.0 and np.isnan(z.iloc[1, 1])
    out = detect_outliers(x)
    assert np.isnan(out.distances[:2]).all() and not out.robust[:2].any()


def test_outliers_need_complete_records():
    df = pd.DataFrame({"a": [1.0, 2.0, np.nan, 4.0, 7.0], "b": [np.nan, 1.0, 2.0, 5.0, 3.0]})
    with pytest.raises(TreatmentError, match="more than p \\+ 1 = 3 complete records, got 3"):
        add_noise(df, ["a", "b"], method="outliers", rng=np.random.default_rng(0))


# ------------------------------------------------------------------ pairwise-complete covariance
def test_pairwise_covariance_equals_r():
    # R: cov(x, use = "pairwise.complete.obs") on the 10×3 data with missing values
    cov, info = pairwise_covariance(NA10.to_numpy())
    r = np.array([522.82611259412988, 234.23809300187204, -126.1792304922879,
                  234.23809300187204, 805.94158305146595, 114.94111906276466,
                  -126.1792304922879, 114.94111906276466, 1132.537918776241]).reshape(3, 3)
    assert np.allclose(cov, r, rtol=1e-12, atol=0)
    assert info == {"covariance_undefined_pairs": [], "covariance_repaired": False}
    # NA5: V2 shares no record with V1 and one with V3 (R gives NA): covariance 0 there
    cov, info = pairwise_covariance(NA5.to_numpy())
    r = np.array([[1044.6740, 0, 123.2763], [0, 392.5011, 0], [123.2763, 0, 293.7841]])
    assert np.allclose(cov, r, rtol=1e-6)
    assert info["covariance_undefined_pairs"] == [(0, 1), (1, 2)]
    with pytest.warns(SdcWarning, match=r"\('V1', 'V2'\), \('V2', 'V3'\)"):
        _, notes = add_noise(NA5, COLS, method="correlated2", rng=np.random.default_rng(0))
    assert notes["covariance_undefined_pairs"] == [["V1", "V2"], ["V2", "V3"]]


def test_correlated2_with_missing_values_preserves_pairwise_moments():
    n = 200_000
    sigma = np.array([[4.0, 1.2, 0.5], [1.2, 1.0, -0.3], [0.5, -0.3, 2.25]])
    rng = np.random.default_rng(8)
    x = rng.multivariate_normal([10.0, -2.0, 0.0], sigma, size=n)
    x[rng.random((n, 3)) < 0.3] = np.nan  # 30 % missing per cell: only 34 % complete records
    df = pd.DataFrame(x, columns=["a", "b", "c"])
    out, notes = add_noise(df, ["a", "b", "c"], method="correlated2", noise=1.0, rng=rng)
    pd.testing.assert_frame_equal(out.isna(), df.isna())
    assert notes["covariance_repaired"] is False
    # each pair's covariance over the records observing both, and each mean, are preserved
    assert np.allclose(out.cov(), df.cov(), atol=6 * 4 / np.sqrt(0.49 * n))
    assert np.allclose(out.mean(), df.mean(), atol=0.02)
