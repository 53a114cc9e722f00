import json

import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import RecipeError, SdcWarning
from sdcsession.session.recipe import fingerprint, load_recipe


@pytest.fixture
def df():
    return pd.DataFrame({"sex": pd.Categorical(["m", "f", "m", "f"]),
                         "region": pd.Categorical(["a", "b", "c", "c"]), "x": [1.0, 2, 3, 4]})


@pytest.fixture
def s(df):
    return (sdc.SdcSession(df, keys=["sex", "region"], numeric="x", seed=11, name="demo")
            .recode("region", {"c": "b"}).remove("x"))


def test_recipe_content(s):
    r = s.to_recipe()
    json.dumps(r)  # serialisable
    assert r["format_version"] == 2 and r["seed"] == 11 and r["name"] == "demo"
    assert r["roles"]["keys"] == ["sex", "region"] and r["roles"]["numeric"] == ["x"]
    assert [st["type"] for st in r["steps"]] == ["recode", "remove_columns"]
    assert r["steps"][0]["seed"] == s.history[1].seed
    assert r["data"]["n_records"] == 4


def test_replay_identical_via_file(s, df, tmp_path):
    p = s.save_recipe(tmp_path / "r.json")
    s2 = sdc.SdcSession.from_recipe(df, p)
    pd.testing.assert_frame_equal(s2.data, s.data, check_exact=True)
    assert s2.name == "demo" and len(s2.history) == 3
    assert load_recipe(p)["steps"][1]["columns"] == ["x"]


def test_hand_written_recipe(df):
    r = {"roles": {"keys": ["sex", "region"]}, "seed": 5,
         "steps": [{"type": "recode", "column": "sex", "mapping": {"m": "male"}}]}
    s = sdc.SdcSession.from_recipe(df, r)
    assert s.data["sex"].tolist() == ["male", "f", "male", "f"]
    assert s.roles.keys == ("sex", "region")


def test_fingerprint_mismatch(s, df):
    other = df.assign(x=[9.0, 9, 9, 9])
    assert fingerprint(other) != fingerprint(df)
    with pytest.warns(SdcWarning, match="fingerprint"):
        sdc.SdcSession.from_recipe(other, s.to_recipe())
    with pytest.raises(RecipeError, match="fingerprint"):
        sdc.SdcSession.from_recipe(other, s.to_recipe(), strict=True)


def test_bad_recipes(df, tmp_path):
    with pytest.raises(RecipeError, match="newer"):
        sdc.SdcSession.from_recipe(df, {"format_version": 99, "roles": {"keys": ["sex"]}, "steps": []})
    with pytest.raises(RecipeError) as ei:
        sdc.SdcSession.from_recipe(df, {"roles": {"keys": ["sex"]}, "steps": [
            {"type": "zap"}, {"type": "recode", "column": "sex"}, "oops"]})
    msg = str(ei.value)
    assert "step 1" in msg and "'zap'" in msg and "step 2" in msg and "step 3" in msg
    with pytest.raises(RecipeError, match="missing required entry 'roles'"):
        sdc.SdcSession.from_recipe(df, {"steps": []})
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(RecipeError, match="not valid JSON"):
        sdc.SdcSession.from_recipe(df, tmp_path / "bad.json")
    with pytest.raises(RecipeError, match="cannot read"):
        load_recipe(tmp_path / "missing.json")
    with pytest.raises(RecipeError, match="expected a mapping"):
        sdc.SdcSession.from_recipe(df, [1, 2])
