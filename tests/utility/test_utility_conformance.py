"""Utility measures against the sdcMicro / laeken reference figures (../shared/conformance)."""

from __future__ import annotations

import pytest
from conftest import load, read_csv, reference

import sdcsession as sdc  # noqa: F401  (package import must work)
import sdcsession.utility as u

REL = 1e-9


@pytest.fixture(scope="module")
def casc():
    ref = reference()["casc"]
    v = ref["vars"]
    o = read_csv("casc")[v]
    m = read_csv("casc_masked")[v]
    return o, m, ref["numeric_utility"]


def test_il1s_published_times_np_is_sdcmicro(casc):
    o, m, ref = casc
    n, p = o.shape
    ours = u.il1s(o, m)
    assert ours * n * p == pytest.approx(ref["il1s_sdcmicro"], rel=REL)
    assert u.il1s_sdcmicro(o, m) == pytest.approx(ref["il1s_sdcmicro"], rel=REL)
    assert u.il1s(o, m, normalise=False) == pytest.approx(ref["il1s_sdcmicro"], rel=REL)


def test_il1(casc):
    o, m, ref = casc
    assert u.il1(o, m) == pytest.approx(ref["il1"], rel=REL)


def test_eigen(casc):
    o, m, ref = casc
    assert u.eigen_difference(o, m) == pytest.approx(ref["eigen"], rel=REL)


def test_il_correl(casc):
    o, m, ref = casc
    assert u.il_correl(o, m) == pytest.approx(ref["il_correl"], rel=REL)


@pytest.mark.parametrize("sdcmicro", [False, True])
def test_il_variables(casc, sdcmicro):
    o, m, ref = casc
    r = u.il_variables(o, m, sdcmicro=sdcmicro)
    assert r.overall == pytest.approx(ref["il_variables"], rel=REL)
    assert list(r.by_variable.index) == list(ref["il_variables_by_var"])
    for var, val in ref["il_variables_by_var"].items():
        assert r.by_variable[var] == pytest.approx(val, rel=REL), var


def test_catalogue_compute_matches(casc):
    o, m, ref = casc
    assert u.compute("il1s_sdcmicro", o, m) == pytest.approx(ref["il1s_sdcmicro"], rel=REL)
    assert u.compute("il_correl", o, m) == pytest.approx(ref["il_correl"], rel=REL)


def test_entropy_eusilc():
    ref = reference()["eusilc"]["entropy_natural_log"]
    df = load("eusilc")
    for var, val in ref.items():
        assert u.entropy(df[var]) == pytest.approx(val, rel=REL), var
        # codes, not their type, matter: plain integer column gives the same
        raw = read_csv("eusilc", usecols=[var])[var]
        assert u.entropy(raw) == pytest.approx(val, rel=REL), var
