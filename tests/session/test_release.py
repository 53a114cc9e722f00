"""Safe release: linked variables follow suppressions, identifiers never leave, the release check,
export refusing to overwrite or to release blocked states, alpha as a session option."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import ParameterError, ReleaseError, RoleError, SdcWarning


@pytest.fixture
def df() -> pd.DataFrame:
    d = sdc.datasets.synthetic_survey(200, seed=3)
    return d.assign(name=[f"person {i}" for i in range(len(d))],
                    birth_year=2026 - d["age"])


def _session(df: pd.DataFrame, **kw) -> sdc.SdcSession:
    return sdc.SdcSession(df, keys=["region", "sex", "age5"], numeric=["income"], weight="w",
                          household="hid", identifiers=["name"],
                          linked={"age5": ["age", "birth_year"]}, seed=5, **kw)


def test_linked_variables_suppressed_with_their_key(df):
    s = _session(df).local_suppression(k=3)
    d, o = s.data, s.original
    gone = d["age5"].isna() & o["age5"].notna()
    assert gone.sum() > 0
    assert d.loc[gone, "age"].isna().all() and d.loc[gone, "birth_year"].isna().all()
    # records whose key survived keep their linked values
    kept = d["age5"].notna()
    assert (d.loc[kept, "age"] == o.loc[kept, "age"]).all()
    assert s.history[-1].notes["linked_suppressed"] == {"age": int(gone.sum()),
                                                        "birth_year": int(gone.sum())}
    # undo restores them, replay reproduces them bit for bit
    r = sdc.SdcSession.from_recipe(df, s.to_recipe())
    assert r.data.equals(s.data)
    assert s.undo().data["age"].equals(df["age"])


def test_identifiers_never_released(df, tmp_path):
    s = _session(df).local_suppression(k=3)
    assert "name" not in s.data_for_release().columns
    s2 = s.branch("b").add_noise(["income"], noise=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SdcWarning)
        p = s2.export(tmp_path / "out.csv")
    assert "name" not in pd.read_csv(p).columns
    with pytest.raises(RoleError, match="identifier"):
        s2.recode("name", {"person 1": "x"})
    with pytest.raises(RoleError, match="direct identifier"):
        sdc.SdcSession(df, keys=["region", "name"], identifiers=["name"])


def test_treatments_refuse_weight_household_and_categorical_keys(df):
    s = _session(df)
    head = s.head
    for call in (lambda: s.add_noise(["w"]), lambda: s.add_noise(["hid"]),
                 lambda: s.microaggregation(["w"]), lambda: s.rank_swap(["hid"]),
                 lambda: s.microaggregation(["age5"])):
        with pytest.raises(RoleError):
            call()
        assert s.head is head


def test_release_check_findings(df):
    s = _session(df)
    checks = set(s.release_check()["check"])
    assert {"untreated", "k_anonymity", "numeric"} <= checks
    young = sorted(df["age5"].dropna().unique())[:4]
    s.group_categories("age5", {"young": young})
    # the linked variables followed the recoded key in the same step: nothing leaks
    grouped = df["age5"].isin(young).to_numpy()
    assert s.data.loc[grouped, ["age", "birth_year"]].isna().all().all()
    assert s.head.notes["linked_suppressed"] == {"age": int(grouped.sum()),
                                                 "birth_year": int(grouped.sum())}
    assert "linked" not in set(s.release_check()["check"])


def test_export_blocks_warns_and_never_overwrites(df, tmp_path):
    s = _session(df)
    out = tmp_path / "release.csv"
    with pytest.raises(ReleaseError, match="untreated"):
        s.export(out)
    assert not out.exists()
    s.local_suppression(k=3).add_noise(["income"], noise=0.1)
    s.remove(["birth_year", "age"])
    with pytest.warns(SdcWarning, match="release check"):
        s.export(out)
    before = out.read_bytes()
    with pytest.raises(sdc.DataFileError, match="exists"):
        s.export(out)
    assert out.read_bytes() == before
    with pytest.warns(SdcWarning):
        s.export(out, overwrite=True)
    with pytest.raises(ParameterError):
        s.export(None)


def test_export_never_writes_over_the_source(tmp_path):
    src = tmp_path / "survey.csv"
    sdc.datasets.synthetic_survey(100, seed=1).to_csv(src, index=False)
    df = sdc.io.read_data(src)
    s = sdc.SdcSession(df, keys=["region", "sex"], seed=1).local_suppression(k=2)
    with pytest.raises(sdc.DataFileError, match="input file"):
        s.export(src, force=True, overwrite=True)


def test_alpha_session_option(df):
    d = df.copy()
    d.loc[d.index[::7], "sex"] = None
    s0 = sdc.SdcSession(d, keys=["region", "sex", "age5"], alpha=0.0, seed=1)
    s1 = sdc.SdcSession(d, keys=["region", "sex", "age5"], seed=1)
    f0 = sdc.risk.frequencies(d, ["region", "sex", "age5"], alpha=0.0)
    assert np.array_equal(s0.risk.fk.to_numpy(), f0["fk"].to_numpy())
    assert not np.array_equal(s0.risk.fk.to_numpy(), s1.risk.fk.to_numpy())
    assert s0.risk.expected_reidentifications == pytest.approx(
        sdc.risk.individual_risk(d, ["region", "sex", "age5"], alpha=0.0).sum(), rel=1e-12)
    r = sdc.SdcSession.from_recipe(d, s0.to_recipe())
    assert r.alpha == 0.0
    with pytest.raises(ParameterError, match="alpha"):
        sdc.SdcSession(d, keys=["sex"], alpha=2)


def test_spss_export_keeps_codes_labels_and_user_missing(tmp_path):
    pyreadstat = pytest.importorskip("pyreadstat")
    n = 40
    rng = np.random.default_rng(1)
    raw = pd.DataFrame({
        "q": rng.choice([1.0, 2.0, 3.0, 9.0], n),
        "region": rng.choice([1.0, 2.0, 3.0], n),  # code 4 'west' is labelled but unused
        "sex": rng.choice([1.0, 2.0], n),
        "income": rng.normal(1000, 100, n),
    })
    src = tmp_path / "survey.sav"
    pyreadstat.write_sav(raw, str(src), variable_value_labels={
        "q": {1: "yes", 2: "no", 3: "maybe", 9: "refused"},
        "region": {1: "north", 2: "south", 3: "east", 4: "west"},
        "sex": {1: "m", 2: "f"}}, missing_ranges={"q": [9]})
    df = sdc.read_data(src)
    assert (df["q"] == "refused").sum() == (raw["q"] == 9).sum()  # user missing stays a value
    s = sdc.SdcSession(df, keys=["q", "sex"], numeric=["income"], seed=1)
    s.group_categories("q", {"yes or maybe": ["yes", "maybe"]}).local_suppression(k=3)
    s.add_noise(["income"], noise=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SdcWarning)
        out = s.export(tmp_path / "release.sav", force=True, shuffle=False)
    back, meta = pyreadstat.read_sav(str(out), user_missing=True)
    q_labels = {int(k): v for k, v in meta.variable_value_labels["q"].items()}
    present = set(s.data["q"].dropna())
    # original codes kept, the new category gets the next free code, unused labels dropped
    expect = {c: t for c, t in {2: "no", 9: "refused", 10: "yes or maybe"}.items() if t in present}
    assert q_labels == expect
    assert meta.missing_ranges["q"] == [{"lo": 9.0, "hi": 9.0}]
    # suppressions are system missing, distinct from the user-missing code 9
    sup = s.data["q"].isna().to_numpy()
    assert np.isnan(back["q"].to_numpy()[sup]).all()
    assert (back["q"].to_numpy()[s.data["q"].eq("refused").to_numpy()] == 9).all()
    # an untouched variable keeps its codes and every label (also the unused one)
    assert np.array_equal(back["region"].to_numpy(), raw["region"].to_numpy())
    assert {int(k): v for k, v in meta.variable_value_labels["region"].items()} == {
        1: "north", 2: "south", 3: "east", 4: "west"}


def test_report_never_shows_identifier_values(df, tmp_path):
    s = _session(df).local_suppression(k=3)
    html = (tmp_path / "r.html")
    s.report(html, internal=True)
    text = html.read_text(encoding="utf-8")
    assert "person 1" not in text and "never released" in text
    assert "id='release'" in text and "k_anonymity" not in text.split("id='release'")[1][:2000]


def test_utility_with_missing_numeric_values_and_a_recoded_numeric(df):
    d = df.copy()
    d.loc[d.index[::9], "income"] = np.nan
    s = sdc.SdcSession(d, keys=["region", "sex", "age5"], numeric=["income", "expend"],
                       weight="w", household="hid", seed=1)
    t = s.add_noise(["income", "expend"], noise=0.2).utility.to_frame()
    assert np.isfinite(t.loc[t["measure"] == "il1s", "value"]).all()
    # a numeric variable recoded into intervals leaves the continuous measures (it is categorical)
    t = s.undo().global_recode("income", breaks=5).utility.to_frame()
    lam = t[t["measure"] == "lambda"].set_index("variable")["value"]
    assert "income" not in lam.index and lam["expend"] == 0.0
    changed = t[(t["measure"] == "records_changed") & (t["variable"] == "income")]["value"]
    assert int(changed.iloc[0]) == int(d["income"].notna().sum())
