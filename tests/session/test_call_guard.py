"""Misnamed, extra or missing arguments of the session's methods give an ArgumentError (an
SdcError and a TypeError) naming the argument, and HEAD stays where it was."""

from __future__ import annotations

import inspect
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import ParameterError, SdcError
from sdcsession.session.calls import ArgumentError, explain_binding

DF = sdc.datasets.synthetic_survey(120, seed=3)


def session() -> sdc.SdcSession:
    return sdc.SdcSession(DF, keys=["region", "sex", "age5"], numeric=["income", "expend"],
                          seed=1)


def public_methods(keywords: bool = True) -> list[str]:
    """The session's public methods (``keywords=False``: only those without ``**kwargs``, whose
    unknown keywords are refused by name; export passes extra ones to the file writer)."""
    sdc.SdcSession.report  # noqa: B018  (the presentation layer registers its methods)
    out = []
    for name in dir(sdc.SdcSession):
        if name.startswith("_"):
            continue
        attr = inspect.getattr_static(sdc.SdcSession, name)
        if inspect.isfunction(attr) and (keywords or not any(
                p.kind is p.VAR_KEYWORD for p in inspect.signature(attr).parameters.values())):
            out.append(name)
    return out


def test_every_public_method_is_guarded():
    names = public_methods()
    assert {"local_suppression", "microaggregation", "export", "undo", "branch"} <= set(names)
    for name in names:
        assert getattr(inspect.getattr_static(sdc.SdcSession, name), "__sdc_guarded__", False), name


@pytest.mark.parametrize("name", public_methods(keywords=False))
def test_unknown_keyword_is_refused_by_name(name):
    s = session()
    head = s.head.id
    with pytest.raises(ArgumentError, match=rf"^{name}: no parameter 'zz_not_a_parameter'"):
        getattr(s, name)(zz_not_a_parameter=1)
    assert s.head.id == head


def test_sdcmicro_names_point_to_ours():
    with pytest.raises(ArgumentError, match="'keyVars' \\(sdcMicro's name; here it is 'keys'\\)"):
        sdc.SdcSession(DF, keyVars=["region"])
    s = session()
    with pytest.raises(TypeError, match="'aggr' \\(sdcMicro's name; here it is 'k'\\)"):
        s.microaggregation(["income"], aggr=3)
    with pytest.raises(ParameterError, match="'kk' \\(did you mean 'k'\\?\\)"):
        s.local_suppression(kk=3)


def test_positional_and_missing_arguments():
    with pytest.raises(ArgumentError, match=r"takes 2 positional argument\(s\) \(data, keys\), got 3"):
        sdc.SdcSession(DF, ["region"], ["sex"])
    with pytest.raises(ArgumentError, match=r"missing required argument\(s\) \['data'\]"):
        sdc.SdcSession(keys=["region"])
    s = session()
    with pytest.raises(ArgumentError, match=r"missing required argument\(s\) \['columns'\]"):
        s.pram()
    assert len(s.history) == 1


def test_a_type_error_inside_a_method_is_not_rewritten():
    class Mine(sdc.SdcSession):
        def boom(self, *, k: int = 1) -> None:
            raise TypeError("inside")

    s = Mine(DF, keys=["region"], seed=1)
    with pytest.raises(TypeError, match="^inside$") as e:
        s.boom(k=2)
    assert not isinstance(e.value, SdcError)
    with pytest.raises(ArgumentError, match="boom: no parameter 'q'"):
        s.boom(q=1)


def test_explain_binding_returns_none_when_the_call_binds():
    def f(self, a, *, k=1):
        return a

    assert explain_binding(f, "f", (None, 1), {"k": 2}) is None
    assert "no parameter 'j'" in str(explain_binding(f, "f", (None, 1), {"j": 2}))


def test_export_refuses_an_unknown_writer_option_before_the_check(tmp_path):
    s = session()
    out = tmp_path / "out.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the release check (which warns) must not have run
        with pytest.raises(ParameterError, match=r"keep_order: .* \(use shuffle=False\)"):
            s.export(out, force=True, keep_order=True)
        with pytest.raises(ParameterError, match=r"encodng: .*did you mean 'encoding'"):
            s.export(out, force=True, encodng="utf-8")
    assert not out.exists()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s.export(out, force=True, encoding="utf-8")  # a real to_csv option still works
    assert out.exists()


@settings(max_examples=40, deadline=None)
@given(st.from_regex(r"[a-z][a-z_0-9]{0,12}", fullmatch=True),
       st.sampled_from(["local_suppression", "add_noise", "pram", "undo", "branch"]))
def test_generated_misnamed_keywords(word, name):
    s = session()
    params = inspect.signature(getattr(sdc.SdcSession, name)).parameters
    if word in params:
        return
    head = s.head.id
    with pytest.raises(ArgumentError, match=f"no parameter '{word}'"):
        getattr(s, name)(**{word: 1})
    assert s.head.id == head


def test_warnings_point_at_the_users_line(tmp_path):
    s = session()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s.add_noise(["income"], noise=5.0)  # leaves the domain: an SdcWarning
        s.export(tmp_path / "o.csv", force=True)  # release check findings: an SdcWarning
    files = {w.filename for w in caught if issubclass(w.category, sdc.errors.SdcWarning)}
    assert len([w for w in caught if issubclass(w.category, sdc.errors.SdcWarning)]) >= 2
    assert files == {__file__}


def test_from_recipe_with_swapped_arguments_says_so():
    s = session()
    s.local_suppression(k=2)
    with pytest.raises(sdc.errors.RoleError, match=r"the data come first: SdcSession.from_recipe\(data, recipe\)"):
        sdc.SdcSession.from_recipe(s.to_recipe(), DF)
