"""Shared work behind a comparison gives the same doubles as the work done afresh.

IL1s keeps the original's exact sums in a per-original cache and adds no difference pass for a
file against itself; λ and the missing-value counts skip a column both files share; the scaled
covariance of eigen takes the plain mean of a matrix without missing values; within
`reuse_matrices` the numeric matrix of a frame and its standard deviations are built once. Each
must equal, bit for bit, what the previous form computed (written out here) or the Dask path's
parts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcsession.errors import MeasureError
from sdcsession.utility._align import _codes_of, numeric_matrix, shares_values
from sdcsession.utility.categorical.measures import missing_values
from sdcsession.utility.continuous import _numeric
from sdcsession.utility.continuous._numeric import (
    REUSE_MAX,
    _sd_checked,
    _sd_missing,
    reuse_matrices,
    shared_matrix,
)
from sdcsession.utility.continuous.exact import first_parts, il1s_from_parts, means, second_parts
from sdcsession.utility.continuous.measures import (
    _pairwise_scaled_cov,
    eigen_difference,
    il1s,
    il_correl,
    il_variables,
)


@st.composite
def pairs(draw):
    """An original and a masked numeric frame (some values missing in either)."""
    n = draw(st.integers(3, 40))
    p = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    r = np.random.default_rng(seed)
    scale = 10.0 ** r.integers(-4, 7, size=p)
    x = r.normal(size=(n, p)) * scale + r.normal(size=p) * scale * 50
    z = x + r.normal(size=(n, p)) * scale * draw(st.sampled_from([0.0, 1e-9, 0.3]))
    if draw(st.booleans()):
        x[r.random(x.shape) < 0.15] = np.nan
    if draw(st.booleans()):
        z[r.random(z.shape) < 0.15] = np.nan
    cols = list("abc"[:p])
    return pd.DataFrame(x, columns=cols), pd.DataFrame(z, columns=cols)


def outcome(fn, *args, **kw):
    try:
        return fn(*args, **kw)
    except MeasureError as e:
        return str(e)


@settings(max_examples=30, deadline=None)
@given(pairs())
def test_il1s_cached_and_same_frame_equal_the_two_pass_parts(pair):
    o, m = pair
    x, z = np.asfortranarray(o.to_numpy()), np.asfortranarray(m.to_numpy())  # as numeric_matrix
    # the previous form (and the Dask path): both files' parts, cross products included
    f = first_parts(x, z)
    ref = outcome(il1s_from_parts, [f], [second_parts(x, z, *means([f]), cross=True)],
                  list(o.columns))
    cache: dict = {}
    assert outcome(il1s, o, m) == ref
    assert outcome(il1s, o, m, cache=cache) == ref
    assert outcome(il1s, o, m, cache=cache) == ref           # from the cached original's side
    # the file against itself: no difference pass, the same figure as against a copy
    assert outcome(il1s, o, o, cache=cache) == outcome(il1s, o, o.copy()) \
        == outcome(il1s, o, o)
    if not isinstance(ref, str):
        assert outcome(il1s, o, o) == 0.0


def test_il1s_cache_keeps_the_original_side_only():
    o = pd.DataFrame({"x": [1.0, 3.0], "y": [0.0, 2.0]})
    cache: dict = {}
    a = il1s(o, o.assign(x=[2.0, 3.0]), cache=cache)
    assert list(cache) == [("il1s", ("x", "y"))]
    # (|1-2| / (sqrt2 * sqrt2)) / (2 records * 2 variables)
    assert a == pytest.approx(0.125, rel=1e-15)
    assert il1s(o, o.assign(x=[2.0, 3.0]), cache=cache) == a == il1s(o, o.assign(x=[2.0, 3.0]))
    with pytest.raises(MeasureError, match="zero standard deviation"):
        il1s(o.assign(y=1.0), o, cache={})
    with pytest.raises(MeasureError, match="zero standard deviation"):
        il1s(o.assign(y=1.0), o.assign(y=1.0))     # the same frame: still checked


def scaled_cov_previous(x: np.ndarray) -> np.ndarray:
    """The previous no-missing branch of the pairwise scaled covariance (nanmean)."""
    sd = _sd_checked(x, list(range(x.shape[1])), "m", "w")
    xs = (x - np.nanmean(x, axis=0)) / sd
    return np.atleast_2d(np.cov(xs, rowvar=False))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 3000), st.integers(1, 4), st.integers(0, 2**32 - 1), st.booleans())
def test_scaled_cov_without_missing_equals_the_nanmean_form(n, p, seed, cut):
    r = np.random.default_rng(seed)
    x = np.asfortranarray(r.normal(size=(n, p)) * 10.0 ** r.integers(-6, 9, size=p)
                          + r.normal(size=p) * 1e5)
    if cut and n > 3:  # a block that does not start at the array's first byte
        x = np.asfortranarray(x[1:])
    got = _pairwise_scaled_cov(x, list(range(p)), "m", "w")
    assert np.array_equal(got, scaled_cov_previous(x))


def test_shares_values_means_equal_values():
    df = pd.DataFrame({"x": [1.0, np.nan, 3.0], "k": pd.Categorical(["a", "b", "a"]),
                       "s": ["u", "v", "w"], "i": [1, 2, 3]})
    other = df.assign(extra=1)
    for c in ("x", "k", "i"):
        assert shares_values(df[c], other[c]) and df[c].equals(other[c])
    assert not shares_values(df["s"], other["s"])            # no single numpy buffer: unknown
    assert not shares_values(df["x"], df["x"] + 0)            # equal values, another buffer
    assert not shares_values(df["x"].iloc[1:].reset_index(drop=True),
                             df["x"].iloc[:-1].reset_index(drop=True))
    recat = df["k"].cat.reorder_categories(["b", "a"])
    assert not shares_values(df["k"], recat)                 # other dtype: other values
    assert not shares_values(df["i"], df["i"].astype(np.int32))


def test_il_variables_shared_columns_equal_copies():
    r = np.random.default_rng(5)
    o = pd.DataFrame({"x": r.normal(size=50), "k": pd.Categorical(r.choice(list("abc"), 50)),
                      "s": r.choice(["u", "v"], 50)})
    o.loc[3, "x"] = np.nan
    m = o.assign(k=o["k"].where(r.random(50) > 0.2))
    shared = il_variables(o, m)                    # x and s shared with the original
    copied = il_variables(o, m.copy(deep=True))    # nothing shared: every distance computed
    assert shared.overall == copied.overall
    assert shared.by_variable.to_dict() == copied.by_variable.to_dict()
    assert shared.by_variable["x"] == 0.0 < shared.by_variable["k"]
    inf = o.assign(x=o["x"].replace(o["x"].iloc[0], np.inf))
    for masked in (inf, inf.copy(deep=True)):
        with pytest.raises(MeasureError, match="infinite values in 'x'"):
            il_variables(inf, masked)
    with pytest.raises(MeasureError, match="'k' is continuous but the original"):
        il_variables(o, o, types={"k": "continuous"})


def lambda_continuous_previous(x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """The previous continuous distances of λ (published rule for a value missing on one side)."""
    na_x, na_z = np.isnan(x), np.isnan(z)
    v = np.abs(x - z)
    sm, so = na_z & ~na_x, na_x & ~na_z
    if (sm | so).any():
        med, lo, hi = np.nanmedian(x), np.nanmin(x), np.nanmax(x)
        v[sm] = np.abs(np.where(x[sm] <= med, hi, lo) - x[sm])
        medz, loz, hiz = np.nanmedian(z), np.nanmin(z), np.nanmax(z)
        v[so] = np.abs(np.where(z[so] <= medz, hiz, loz) - z[so])
    v[na_x & na_z] = 0.0
    return (2.0 / np.pi) * np.arctan(v)


@settings(max_examples=60, deadline=None)
@given(pairs())
def test_lambda_continuous_equals_the_previous_form(pair):
    o, m = pair
    got = outcome(il_variables, o, m)
    if isinstance(got, str):   # a column missing entirely in one file
        return
    for c in o.columns:
        d = lambda_continuous_previous(o[c].to_numpy(), m[c].to_numpy())
        assert got.by_variable[c] == float(d.sum() / len(o))


def test_category_codes_on_a_union_equal_the_previous_form():
    r = np.random.default_rng(8)
    for k in (0, 1, 7, 300):
        names = [f"c{i}" for i in range(k)]
        s = pd.Series(pd.Categorical(r.choice(names + [None], 400) if k else [None] * 400,
                                     categories=names))
        for cats in (pd.Index([f"c{i}" for i in r.permutation(k + 3)]), pd.Index(names),
                     pd.Index([], dtype=object)):
            own = s.cat.codes.to_numpy().astype(np.int64)
            mapping = cats.get_indexer(s.cat.categories).astype(np.int64)
            previous = np.where(own >= 0, mapping[np.maximum(own, 0)] if len(mapping) else -1,
                                -1).astype(np.int64)
            got = _codes_of(s, cats)
            assert got.dtype == np.int64 and np.array_equal(got, previous)


def test_missing_values_of_shared_columns_equal_copies():
    o = pd.DataFrame({"k": pd.Categorical(["a", None, "b", "a"]), "x": [1.0, np.nan, 2.0, 3.0]})
    m = o.assign(k=o["k"].where([True, True, False, True]))   # x shared, one k suppressed
    shared = missing_values(o, m)
    assert shared.equals(missing_values(o, m.copy(deep=True)))
    assert shared["m"].tolist() == [1, 0] and shared["missing_masked"].tolist() == [2, 1]
    assert missing_values(o, o)["m"].tolist() == [0, 0]
    assert missing_values(o, o)["missing_original"].tolist() == [1, 1]


def test_reuse_matrices_shares_within_the_block_only():
    frames = [pd.DataFrame({"a": np.arange(6.0) * (i + 1), "b": np.arange(6.0) ** 2})
              for i in range(REUSE_MAX + 1)]
    cols = ["a", "b"]
    outside = shared_matrix(frames[0], cols, "m", "o")
    assert outside.flags.writeable and outside is not shared_matrix(frames[0], cols, "m", "o")
    with reuse_matrices():
        x = shared_matrix(frames[0], cols, "m", "o")
        assert x is shared_matrix(frames[0], cols, "m", "o")
        assert np.array_equal(x, numeric_matrix(frames[0], cols, "m", "o"))
        with pytest.raises(ValueError):
            x[0, 0] = 1.0                                  # read-only: nobody changes it
        assert shared_matrix(frames[0], ["a"], "m", "o") is not x
        sd = _sd_missing(x, cols, "m", "o")
        assert sd is _sd_missing(x, cols, "m", "o") and not sd[0].flags.writeable
        with reuse_matrices():                             # an inner block is the outer one
            assert shared_matrix(frames[0], cols, "m", "o") is x
        for f in frames[1:]:
            shared_matrix(f, cols, "m", "o")
        assert len(_numeric._REUSE.get()) == REUSE_MAX     # bounded
        assert shared_matrix(frames[0], cols, "m", "o") is not x   # dropped, built again
        bad = frames[1].assign(a=np.inf)
        for _ in range(2):                                 # an error is never kept
            with pytest.raises(MeasureError, match="infinite"):
                shared_matrix(bad, cols, "m", "o")
    assert _numeric._REUSE.get() is None


def test_measures_in_a_block_equal_the_measures_outside():
    r = np.random.default_rng(2)
    o = pd.DataFrame(r.normal(size=(80, 3)) * [1, 100, 0.01], columns=list("abc"))
    m = o + r.normal(size=o.shape) * 0.1
    m.iloc[4, 1] = np.nan
    fns = (il1s, eigen_difference, il_correl)
    plain = [fn(o, m) for fn in fns] + [fn(o, o) for fn in fns]
    with reuse_matrices():
        inside = [fn(o, m) for fn in fns] + [fn(o, o) for fn in fns]
        again = [fn(o, m) for fn in fns]
    assert inside == plain and again == plain[:3]
