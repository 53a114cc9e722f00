"""Exact sums rounded once (`sdcsession.risk.exact_sum`): against exact rational arithmetic,
invariant under any split of the values, and used by the global risk."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcsession import risk as R
from sdcsession.risk.exact_sum import (
    combine,
    exact_mean,
    exact_sum,
    partial_sum,
    to_float,
)

finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300)


def test_hand_computed():
    assert exact_sum([0.1] * 10) == 1.0  # a float loop gives 0.9999999999999999
    assert exact_sum([1e16, 1.0, -1e16]) == 1.0  # numpy's sum gives 0.0
    assert exact_sum([]) == 0.0 and exact_sum([0.0, -0.0]) == 0.0
    assert partial_sum([0.5, 0.25]) == (3, -2)
    assert exact_sum([5e-324, 5e-324]) == 1e-323  # subnormals
    assert exact_mean([0.5, 0.5, 1.0]) == float(Fraction(2, 3))
    assert to_float((1, 0), 3) == float(Fraction(1, 3))
    with pytest.raises(ValueError):
        exact_sum([1.0, np.nan])
    with pytest.raises(ValueError):
        exact_mean([])


@settings(max_examples=200, deadline=None)
@given(st.lists(finite, max_size=60), st.integers(0, 60))
def test_equals_exact_rational_sum_and_is_split_invariant(xs, cut):
    exact = sum((Fraction(v) for v in xs), Fraction(0))
    assert exact_sum(xs) == float(exact)
    cut = min(cut, len(xs))
    assert to_float(combine([partial_sum(xs[:cut]), partial_sum(xs[cut:])])) == float(exact)
    if xs:
        assert exact_mean(xs) == float(exact / len(xs))


def test_mixed_exponents_against_fractions():
    rng = np.random.default_rng(3)
    x = rng.random(20_000) * 10.0 ** rng.integers(-20, 20, 20_000)
    x[::7] *= -1
    exact = sum((Fraction(v) for v in x.tolist()), Fraction(0))
    assert exact_sum(x) == float(exact)
    parts = [partial_sum(x[i:i + 997]) for i in range(0, len(x), 997)]  # split anyhow
    assert to_float(combine(parts)) == float(exact)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), max_size=40))
def test_any_doubles_including_subnormals_against_fractions(values):
    exact = sum((Fraction(v) for v in values), Fraction(0))
    n, e = partial_sum(values)
    assert Fraction(n) * Fraction(2) ** e == exact
    assert n == 0 or n % 2 == 1  # normalised


def test_global_risk_is_the_exact_mean():
    r = np.random.default_rng(1).random(10_001)
    assert R.global_risk(r) == float(sum(Fraction(v) for v in r.tolist()) / len(r))
    assert R.expected_reidentifications(r) == float(sum(Fraction(v) for v in r.tolist()))
    assert R.global_risk(r) == pytest.approx(r.mean(), rel=1e-14)


@settings(max_examples=25, deadline=None)
@given(st.floats(min_value=1e155, max_value=1e308), st.booleans())
def test_overflow_is_a_measure_error(big, negative):
    """A value whose square overflows (|x| > ~1.34e154) gives an infinite square: refused as a
    `MeasureError` (an SdcError and a ValueError) saying to rescale, in the sums and in the
    measures built on them; the value itself still sums exactly."""
    from sdcsession.errors import MeasureError
    from sdcsession.utility import il1s

    x = -big if negative else big
    assert to_float(partial_sum([x, 1.0])) == x + 1.0 or abs(x) > 2**53
    with np.errstate(over="ignore"), pytest.raises(MeasureError, match="rescale"):
        partial_sum(np.array([x, 1.0]) ** 2)
    with pytest.raises(ValueError):
        partial_sum([np.inf])
    import pandas as pd

    o = pd.DataFrame({"a": [1.0, 2.0, 3.0, x]})
    with pytest.raises(MeasureError, match="rescale"):
        il1s(o, o.assign(a=o["a"] + 1.0))
