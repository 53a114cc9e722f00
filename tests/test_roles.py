import warnings

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import RoleError, SdcWarning


@pytest.fixture
def df():
    return pd.DataFrame({
        "region": pd.Categorical(["a", "a", "b", "b", "c"]),
        "sex": ["m", "f", "m", "f", "m"],
        "income": [1.0, 2.0, 3.0, 4.0, 5.0],
        "w": [10.0, 10.0, 20.0, 20.0, 5.0],
        "hid": [1, 1, 2, 2, 3],
        "health": ["x", "y", "x", "y", "x"],
    })


def _err(df, **kw) -> RoleError:
    with pytest.raises(RoleError) as ei:
        sdc.SdcSession(df, **kw)
    return ei.value


def test_valid_roles(df):
    s = sdc.SdcSession(df, keys=["region", "sex"], numeric="income", weight="w", household="hid",
                       sensitive=["health"], seed=1)
    assert s.roles.keys == ("region", "sex")
    assert s.roles.numeric == ("income",)


def test_unknown_column_with_suggestion(df):
    e = _err(df, keys=["regoin", "sex"])
    assert "regoin" in str(e) and "'region'" in str(e)


def test_all_problems_in_one_error(df):
    e = _err(df, keys=["region", "nope"], numeric=["sex"], weight="wt")
    msg = str(e)
    assert len(e.problems) == 3
    assert "nope" in msg and "'sex'" in msg and "wt" in msg


def test_conflicting_roles(df):
    e = _err(df, keys=["region", "income"], numeric=["income"])
    assert "'income'" in str(e) and "keys and numeric" in str(e)


@pytest.mark.parametrize("bad, what", [
    ([1.0, np.nan, 1, 1, 1], "missing"), ([1.0, -1, 1, 1, 1], "zero or negative"),
    ([1.0, 0, 1, 1, 1], "zero or negative"), (list("abcde"), "numeric")])
def test_bad_weight(df, bad, what):
    d = df.assign(w=bad)
    e = _err(d, keys=["region"], weight="w")
    assert "'w'" in str(e) and what in str(e)


def test_numeric_role_not_numeric(df):
    e = _err(df, keys=["region"], numeric=["health"])
    assert "'health'" in str(e) and "not numeric" in str(e)


def test_empty_data_and_no_keys(df):
    e = _err(df.iloc[:0], keys=[])
    assert "no records" in str(e) and "no key variables" in str(e)


def test_not_a_dataframe():
    with pytest.raises(RoleError, match="DataFrame"):
        sdc.SdcSession([[1, 2]], keys=["a"])
    with pytest.raises(RoleError, match="DataFrame"):
        sdc.SdcSession(np.zeros((2, 2)), keys=["a"])


def test_duplicated_columns(df):
    d = pd.concat([df, df[["sex"]]], axis=1)
    e = _err(d, keys=["region"])
    assert "duplicated column names ['sex']" in str(e)


def test_same_role_twice(df):
    e = _err(df, keys=["sex", "sex"])
    assert "'sex'" in str(e) and "more than once" in str(e)


def test_continuous_key_warns():
    d = pd.DataFrame({"x": np.arange(1000.0), "s": ["a", "b"] * 500})
    with pytest.warns(SdcWarning, match="'x' has 1000 distinct"):
        sdc.SdcSession(d, keys=["x", "s"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sdc.SdcSession(d, keys=["s"])


def test_roles_roundtrip_and_without():
    r = sdc.Roles(keys=["a", "b"], numeric="x", weight="w")
    assert sdc.Roles.from_dict(r.to_dict()) == r
    assert r.without(["b", "w"]) == sdc.Roles(keys=["a"], numeric=["x"])
    with pytest.raises(RoleError, match="unknown role"):
        sdc.Roles.from_dict({"key": ["a"]})
