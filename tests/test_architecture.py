"""The house stays tidy: imports only go downward between layers, no import cycle (imports inside
functions count; only ``if TYPE_CHECKING:`` imports are exempt), no module over 500 lines, at most
six modules at the top of the package, and every public name still imports from where it was.

The graph is read from the package's ASTs, so a lazy import hidden in a method cannot hide a cycle.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "sdcsession"
MAX_LINES = 500

#: layer of each top-level part; a module may import only its own layer or lower ones
LAYERS = {
    "_version": 0, "errors": 0, "roles": 1, "progress": 1, "formula": 1,
    "risk": 2, "utility": 3, "methods": 3, "io": 3, "datasets": 3, "tables": 3,
    "privacy": 4, "scale": 4, "session": 5, "present": 6, "demo": 7, "cli": 8, "__main__": 9, "__init__": 10,
}


def _modules() -> dict[str, Path]:
    out = {}
    for p in PKG.rglob("*.py"):
        parts = p.relative_to(PKG.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = p
    return out


MODULES = _modules()


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            ids.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return ids


def _imports(name: str, path: Path) -> set[str]:
    """Package modules imported by ``name`` anywhere in its file (TYPE_CHECKING blocks excepted)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_nodes(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            # ``from pkg import submodule`` imports the submodule (pkg/__init__ is already being
            # imported by then); ``from mod import name`` imports mod
            targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in MODULES else mod
                       for a in node.names]
        else:
            continue
        for t in targets:
            # the longest known module that t names (``a.b.c`` of ``a.b.c.func``)
            while t and t not in MODULES:
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _part(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle() -> None:
    cycles = _cycles(GRAPH)
    assert cycles == [], "import cycles (imports inside functions count):\n" + "\n".join(
        " <-> ".join(c) for c in cycles)


def test_imports_only_go_downward() -> None:
    upward = []
    for name, targets in GRAPH.items():
        mine = LAYERS[_part(name)]
        for t in targets:
            if t == "sdcsession" and name != "sdcsession":
                upward.append(f"{name} imports the package itself")
            elif LAYERS[_part(t)] > mine:
                upward.append(f"{name} ({_part(name)}) imports {t} ({_part(t)})")
    assert upward == [], "imports that run upward:\n" + "\n".join(sorted(upward))


def test_kernels_know_nothing_of_sessions() -> None:
    kernels = [n for n in GRAPH if _part(n) in {"risk", "methods", "utility", "io", "datasets",
                                                "formula", "tables"}]
    bad = sorted(f"{n} -> {t}" for n in kernels for t in GRAPH[n]
                 if _part(t) in {"session", "present", "cli", "demo"})
    assert bad == []


def test_no_module_over_500_lines() -> None:
    big = {name: n for name, p in MODULES.items()
           if (n := len(p.read_text(encoding="utf-8").splitlines())) >= MAX_LINES}
    assert big == {}, f"modules of {MAX_LINES} lines or more (each must stay under): {big}"


def test_at_most_six_modules_at_the_top() -> None:
    top = sorted(p.name for p in PKG.glob("*.py") if p.name not in {"__init__.py", "__main__.py"})
    assert len(top) <= 6, top


def test_every_part_has_a_layer() -> None:
    assert {_part(n) for n in MODULES} <= set(LAYERS)


def test_the_checker_sees_function_level_imports() -> None:
    """The graph reads imports inside functions (a cycle hidden in a method is still a cycle)."""
    assert "sdcsession.session.measures" in GRAPH["sdcsession.session.state"]  # lazy in State.measure
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("module", ["sdcsession", "sdcsession.risk", "sdcsession.methods",
                                    "sdcsession.utility", "sdcsession.session", "sdcsession.present",
                                    "sdcsession.io"])
def test_public_names_import(module: str) -> None:
    mod = importlib.import_module(module)
    missing = [n for n in getattr(mod, "__all__", []) if not hasattr(mod, n)]
    assert missing == []


@pytest.mark.parametrize("path", [
    "sdcsession.methods.microaggregation", "sdcsession.methods.suppression",
    "sdcsession.methods.recoding", "sdcsession.methods.noise", "sdcsession.methods.pram",
    "sdcsession.methods.swapping", "sdcsession.methods.shuffling", "sdcsession.methods.basic",
    "sdcsession.methods.base", "sdcsession.risk.frequencies", "sdcsession.risk.individual",
    "sdcsession.risk.household", "sdcsession.risk.suda2", "sdcsession.risk.ldiversity",
    "sdcsession.risk.numeric", "sdcsession.risk.kanon", "sdcsession.utility.continuous",
    "sdcsession.utility.categorical", "sdcsession.utility.gdu", "sdcsession.utility.benchmark",
    "sdcsession.utility.regression", "sdcsession.utility.entropy", "sdcsession.utility.distribution",
    "sdcsession.utility.generalization", "sdcsession.utility.catalogue"])
def test_kernel_module_paths_keep_working(path: str) -> None:
    mod = importlib.import_module(path)
    assert all(hasattr(mod, n) for n in getattr(mod, "__all__", []))


def test_at_most_sixteen_modules_per_folder() -> None:
    crowded = {}
    for d in [PKG, *[p for p in PKG.rglob("*") if p.is_dir() and p.name != "__pycache__"]]:
        n = len([p for p in d.glob("*.py") if p.name != "__init__.py"])
        if n > 16:
            crowded[str(d.relative_to(PKG.parent))] = n
    assert crowded == {}, f"folders with more than 16 modules: {crowded}"


def test_import_is_light() -> None:
    """``import sdcsession`` loads none of the heavy dependencies (they load where first used)."""
    import subprocess
    import sys

    code = ("import sys, sdcsession; print(' '.join(m for m in ('scipy.stats', 'numba', "
            "'matplotlib', 'statsmodels', 'ipywidgets', 'dask', 'sklearn') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


@pytest.mark.parametrize("old, new", [
    ("sdcsession.methods.microaggregation_gower", "sdcsession.methods.microaggregation.gower"),
    ("sdcsession.methods._kanon_counter", "sdcsession.methods.suppression._counter"),
    ("sdcsession.session.recipe", "sdcsession.session.recipes.recipe"),
    ("sdcsession.present.workbench_treat", "sdcsession.present.workbench.treat"),
    ("sdcsession.risk.population_uniques", "sdcsession.risk.population.uniques"),
])
def test_old_module_paths_are_the_new_modules(old: str, new: str) -> None:
    assert importlib.import_module(old) is importlib.import_module(new)
