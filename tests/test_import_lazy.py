"""``import sdcsession`` leaves the parts loaded on first use out of ``sys.modules`` (the sweep
engine, the optimiser, the release check, the plots, compare and report, the GDU model, entropy,
info_loss, frequencies, SUDA2 and risky cells), and each works after a fresh import exactly as
when it was loaded eagerly: the thin session methods carry their implementation's signature and
docstring, the methods the presentation layer attaches to `Sweep`, `Optimization` and the plots
accessor are there once their module loads, and a function named like its submodule keeps the
name when the submodule is imported."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

import sdcsession as sdc
from sdcsession.session import extensions

ROOT = Path(__file__).resolve().parents[1]

#: modules ``import sdcsession`` must not load (they load where first used)
DEFERRED = ["sdcsession.session.optimize", "sdcsession.session.sweeps",
            "sdcsession.session.release.check", "sdcsession.present.plots",
            "sdcsession.present.report", "sdcsession.present.compare", "sdcsession.utility.gdu",
            "sdcsession.utility.entropy", "sdcsession.utility.info_loss",
            "sdcsession.risk.frequencies", "sdcsession.risk.suda2", "sdcsession.risk.risky_cells"]


def _run(code: str) -> object:
    """The JSON that ``code`` prints, run in a fresh interpreter from the repository root."""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_leaves_the_deferred_parts_unloaded() -> None:
    loaded = _run("import json, sys, sdcsession\n"
                  f"print(json.dumps([m for m in {DEFERRED!r} if m in sys.modules]))")
    assert loaded == []


def test_sweep_optimize_and_their_conveniences_work_after_a_fresh_import() -> None:
    code = """
import json, sys, sdcsession as sdc
df = sdc.datasets.synthetic_survey(150, seed=1)
s = sdc.SdcSession(df, keys=["region", "sex", "age5"], seed=3)
sw = s.sweep([("local_suppression", [{"k": 2}, {"k": 3}])], measures=["k3_violations"])
by_hand = [s.branch(f"h{k}").local_suppression(k=k).risk.k_violations(3) for k in (2, 3)]
opt = s.optimize(privacy=[("k_anonymity", 2)], treatments=[("local_suppression", [{"k": 2}])],
                 budget=2, loss="lambda", seed=1)
plots = s.plot
print(json.dumps({
    "sweep": sw.table["k3_violations"].tolist(), "by_hand": by_hand,
    "sweep_class": type(sw) is sdc.Sweep, "applications": sw.applications,
    "sweep_html": sw._repr_html_().startswith("<p>"),
    "sweep_plot": sdc.Sweep.plot.__name__,
    "frontier_k2": opt.frontier["target: 2-anonymity"].tolist(),
    "opt_html": opt._repr_html_().startswith("<p>"), "opt_plot": type(opt).plot.__name__,
    "accessor": type(plots).__name__, "lattice": callable(plots.lattice),
    "head": len(s.history),
}))
"""
    out = _run(code)
    assert out["sweep"] == out["by_hand"] and out["sweep"][1] == 0  # k=3 leaves no violation
    assert out["sweep_class"] and out["applications"] == 2 and out["head"] == 1
    assert out["sweep_html"] and out["opt_html"] and out["lattice"]
    assert out["sweep_plot"] == "sweep_map" and out["opt_plot"] == "optimization_map"
    assert out["frontier_k2"] and set(out["frontier_k2"]) == {0}
    assert out["accessor"] == "SessionPlots"


@pytest.mark.parametrize("method, module, name", [
    ("sweep", "sdcsession.session.sweeps.grid", "sweep"),
    ("optimize", "sdcsession.session.optimize.result", "optimize")])
def test_thin_methods_have_the_signature_and_docstring_of_the_implementation(
        method: str, module: str, name: str) -> None:
    import importlib

    impl = getattr(importlib.import_module(module), name)
    thin = getattr(sdc.SdcSession, method)
    assert str(inspect.signature(thin)) == str(inspect.signature(impl))
    assert inspect.getdoc(thin) == inspect.getdoc(impl) and len(inspect.getdoc(thin)) > 200


def test_package_names_and_dir() -> None:
    names = dir(sdc)
    assert not {"importlib", "sys"} & set(names)
    assert set(sdc.__all__) <= set(names)
    from sdcsession.session.optimize.result import Optimization
    from sdcsession.session.sweeps.grid import Sweep

    assert sdc.Sweep is Sweep and sdc.session.Sweep is Sweep
    assert sdc.session.Optimization is Optimization
    assert sdc.frontier is sdc.present.frontier and sdc.frontier.__module__.endswith(".compare")
    assert {"Sweep", "Optimization"} <= set(dir(sdc.session))
    assert {"SessionPlots", "sweep_map", "optimization_map"} <= set(dir(sdc.present))
    assert sdc.SdcSession.plot is sdc.present.SessionPlots  # the accessor's class on the class


def test_functions_keep_their_names_when_their_submodules_load_first() -> None:
    code = """
import json, sdcsession
import sdcsession.utility.gdu.model, sdcsession.utility.entropy, sdcsession.utility.info_loss
import sdcsession.present.report, sdcsession.present.compare
import sdcsession.risk.frequencies, sdcsession.risk.suda2, sdcsession.risk.risky_cells
from sdcsession import present, risk, utility
from sdcsession.present import report
names = [utility.gdu, utility.entropy, utility.info_loss, present.report, present.compare,
         risk.frequencies, risk.suda2, risk.risky_cells, report, sdcsession.report]
types = utility.TYPES is utility.gdu.__globals__["TYPES"]
print(json.dumps([type(f).__name__ for f in names] + [types]))
"""
    assert _run(code) == ["function"] * 10 + [True]


def test_the_gdu_names_of_utility_are_those_of_its_gdu_package() -> None:
    import importlib

    import sdcsession.utility as u

    gdu_package = importlib.import_module("sdcsession.utility.gdu")
    assert set(u._GDU) == set(gdu_package.__all__) and set(u._GDU) <= set(u.__all__)
    assert all(getattr(u, n) is getattr(gdu_package, n) for n in u._GDU)


def test_a_method_registered_for_a_class_loads_with_its_module(monkeypatch) -> None:
    def hello(self: object) -> str:
        return "hi"

    loaded = types.ModuleType("_lazy_loaded")
    loaded.A = type("A", (), {})  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "_lazy_loaded", loaded)
    monkeypatch.setattr(extensions, "_LATER", {})
    extensions.register_method_later("_lazy_loaded", "A", "hello", hello)  # already imported
    assert loaded.A().hello() == "hi"  # type: ignore[attr-defined]

    later = types.ModuleType("_lazy_later")
    extensions.register_method_later("_lazy_later", "B", "hello", hello)
    extensions.register_method_later("_lazy_later", "B", "size", "builtins:len")
    later.B = type("B", (), {"__len__": lambda self: 4})  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "_lazy_later", later)
    assert not hasattr(later.B, "hello")  # type: ignore[attr-defined]
    extensions.attach_registered("_lazy_later")  # the module's last line
    assert later.B().hello() == "hi" and later.B().size() == 4  # type: ignore[attr-defined]


def test_an_accessor_given_by_path_loads_on_first_use() -> None:
    class Owner:
        pass

    extensions.register_session_accessor("kind", Owner)("builtins:type")
    assert Owner.__dict__["kind"]._accessor == "builtins:type"  # not resolved yet
    assert Owner().kind is Owner  # type(s)
    assert Owner.kind is type and Owner.__dict__["kind"].__doc__ == type.__doc__
