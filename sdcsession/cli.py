"""The ``sdcsession`` command line.

Commands::

    sdcsession demo                         a short scenario on the bundled synthetic survey
    sdcsession risk DATA --keys a,b,c [--weight w] [--household h] [--json]
    sdcsession run RECIPE --data DATA --out OUT [--report REPORT.html] [--strict] [--force]
                                            [--overwrite] [--keep-order]
                                            [--drift [--branch NAME]]
    sdcsession measure ORIGINAL MASKED [--measures m1,m2] [--columns ...] [--json]
    sdcsession app DATA [--keys a,b,c] [--numeric x,y] [--weight w] [--household h]
                        [--port N] [--no-browser]   the workbench as a local web app (Voilà)
                        [--max-kernels N] [--idle-minutes M]

Exit codes: 0 success, 2 bad arguments or files, 1 any other failure. Errors are printed as one
readable line (``sdcsession: error: …``); ``--debug`` shows the traceback. Progress goes to stderr.

Example
-------
>>> main(["--help"]) if False else 0
0
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["main", "build_parser"]


class _BadInput(Exception):
    """Bad arguments or files (exit code 2)."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``sdcsession`` command."""
    p = argparse.ArgumentParser(prog="sdcsession", description=__doc__.split("\n\n")[0])
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = p.add_subparsers(dest="command", required=True)

    d = sub.add_parser("demo", help="run a short scenario on the bundled synthetic survey")
    d.add_argument("--households", type=int, default=3000)
    d.add_argument("--seed", type=int, default=2026)

    r = sub.add_parser("risk", help="print the disclosure-risk summary of a file")
    r.add_argument("data")
    r.add_argument("--keys", required=True, help="comma-separated key variables")
    r.add_argument("--weight")
    r.add_argument("--household")
    r.add_argument("--sep", help="CSV delimiter (default: sniffed)")
    r.add_argument("--json", action="store_true", help="print JSON instead of text")

    u = sub.add_parser("run", help="replay a recipe (or a project's branch) on a file and write "
                                   "the anonymised file")
    u.add_argument("recipe", help="a recipe (JSON) or a project file (.sdcproj)")
    u.add_argument("--data", required=True)
    u.add_argument("--out", required=True)
    u.add_argument("--report", help="also write an HTML report")
    u.add_argument("--strict", action="store_true", help="refuse data with another fingerprint")
    u.add_argument("--sep", help="CSV delimiter of DATA (default: sniffed)")
    u.add_argument("--force", action="store_true",
                   help="export even when the release check finds blocking problems")
    u.add_argument("--overwrite", action="store_true",
                   help="replace OUT (and REPORT) if they exist")
    u.add_argument("--keep-order", action="store_true",
                   help="write the records in the file's order (default: a seeded random order)")
    u.add_argument("--drift", action="store_true",
                   help="RECIPE is a project: replay its branch on DATA as the next wave and "
                        "print the drift report (with --strict any drift is an error)")
    u.add_argument("--branch", help="with --drift: the project's scenario to replay "
                                    "(default: the one current when it was saved)")

    m = sub.add_parser("measure", help="utility / information-loss measures of two files")
    m.add_argument("original")
    m.add_argument("masked")
    m.add_argument("--measures", help="comma-separated measure names (default: the standard set)")
    m.add_argument("--columns", help="comma-separated columns (default: all shared columns)")
    m.add_argument("--sep", help="CSV delimiter (default: sniffed)")
    m.add_argument("--json", action="store_true")

    a = sub.add_parser("app", help="the interactive workbench as a local web app (Voilà on "
                                   "127.0.0.1; the data never leave this machine)")
    a.add_argument("data")
    for role in ("keys", "numeric", "strata", "sensitive", "identifiers"):
        a.add_argument(f"--{role}", help=f"comma-separated {role} (optional: the Roles panel "
                                         "sets them)")
    a.add_argument("--weight")
    a.add_argument("--household")
    a.add_argument("--seed", type=int)
    a.add_argument("--sep", help="CSV delimiter (default: sniffed)")
    a.add_argument("--port", type=int, help="port on 127.0.0.1 (default: a free one)")
    a.add_argument("--no-browser", action="store_true", help="do not open a browser")
    a.add_argument("--max-kernels", type=int, default=3,
                   help="most pages open at once (each runs a kernel; default 3)")
    a.add_argument("--idle-minutes", type=float, default=30.0,
                   help="stop a page's kernel after this many minutes without the page "
                        "(default 30)")
    a.add_argument("--pool", type=int, default=1,
                   help="warm kernels kept ready for the next page (within --max-kernels; "
                        "0: each page starts its own; default 1)")
    return p


def _names(text: str | None) -> list[str] | None:
    if text is None:
        return None
    out = [t.strip() for t in text.split(",") if t.strip()]
    if not out:
        raise _BadInput("expected a comma-separated list of column names")
    twice = sorted({t for t in out if out.count(t) > 1})
    if twice:
        raise _BadInput(f"{twice} named more than once")
    return out


def _read(path: str, sep: str | None = None, columns: list[str] | None = None) -> Any:
    from .io import read_data

    kw: dict[str, Any] = {"sep": sep} if sep else {}
    if columns:
        kw["columns"] = columns
    return read_data(path, **kw)


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    print(run_demo(n_households=args.households, seed=args.seed))
    return 0


def cmd_risk(args: argparse.Namespace) -> int:
    from .errors import RoleError
    from .session import SdcSession

    keys = _names(args.keys) or []
    need = list(dict.fromkeys(keys + [c for c in (args.weight, args.household) if c]))
    df = _read(args.data, args.sep, need)
    try:
        s = SdcSession(df, keys=keys, weight=args.weight, household=args.household, seed=0)
    except RoleError as e:
        raise _BadInput(str(e).replace("\n", " ")) from e
    risk = s.risk
    if args.json:
        print(json.dumps(risk.to_dict(), indent=2))
    else:
        print(repr(risk))
    return 0


def _run_drift(args: argparse.Namespace) -> Any:
    """``run --drift``: the project's branch replayed on DATA; prints the drift report."""
    import pandas as pd

    from .errors import DriftError, RecipeError, RoleError
    from .session import SdcSession

    try:
        project = SdcSession.open_project(args.recipe)
    except RecipeError as e:
        raise _BadInput("--drift needs a project file (saved by save_project): "
                        + str(e).replace("\n", " ")) from e
    df = _read(args.data, args.sep)
    _progress(f"replaying the plan of {args.recipe} on {len(df):,} records …")
    try:
        s, drift = project.apply_to(df, branch=args.branch, strict=args.strict)
    except DriftError as e:
        raise _BadInput(str(e)) from e
    except (RecipeError, RoleError) as e:
        raise _BadInput(str(e).replace("\n", " ")) from e
    with pd.option_context("display.width", 200, "display.max_colwidth", 90,
                           "display.max_rows", 500):
        print(drift.to_string(index=False))
    return s


def cmd_run(args: argparse.Namespace) -> int:
    from .errors import RecipeError, RoleError
    from .session import SdcSession
    from .session.recipes.recipe import load_recipe

    if args.branch and not args.drift:
        raise _BadInput("--branch: only with --drift (a project's scenario)")
    if args.report:  # checked before anything is replayed or written
        rp = Path(args.report)
        if rp.is_dir() or not rp.parent.is_dir():
            raise _BadInput(f"--report: {args.report!r} is a directory or its directory does not "
                            "exist; give a file path such as report.html")
        from .io.formats import _same_file

        if _same_file(rp, Path(args.data)) or _same_file(rp, Path(args.recipe)) or (
                _same_file(rp, Path(args.out))):
            raise _BadInput(f"--report: {args.report!r} is the data, recipe or output file; give "
                            "another path such as report.html")
        if rp.exists() and not args.overwrite:
            raise _BadInput(f"--report: {args.report!r} exists; pass --overwrite to replace it")
    if args.drift:
        s = _run_drift(args)
        s.export(args.out, protect=args.data, force=args.force, overwrite=args.overwrite,
                 shuffle=not args.keep_order)
        if args.report:
            s.report(args.report, overwrite=args.overwrite)
        return 0
    try:
        recipe = load_recipe(args.recipe)
    except RecipeError as e:
        raise _BadInput(str(e).replace("\n", " ")) from e
    df = _read(args.data, args.sep)
    t0 = time.perf_counter()
    _progress(f"replaying {len(recipe.get('steps', []))} step(s) on {len(df):,} records …")
    try:
        s = SdcSession.from_recipe(df, recipe, strict=args.strict)
    except (RecipeError, RoleError) as e:
        raise _BadInput(str(e).replace("\n", " ")) from e
    _progress(f"done in {time.perf_counter() - t0:.2f} s; writing {args.out}")
    s.export(args.out, protect=args.data, force=args.force, overwrite=args.overwrite,
             shuffle=not args.keep_order)
    if args.report:
        s.report(args.report, overwrite=args.overwrite)
        _progress(f"report written to {args.report}")
    return 0


def _flatten(name: str, value: Any) -> list[dict[str, Any]]:
    """Rows (measure, variable, statistic, value) of a catalogue result of any shape."""
    import numbers

    import pandas as pd

    if value is None:
        return []
    if isinstance(value, numbers.Number):
        return [{"measure": name, "variable": "", "statistic": name, "value": float(value)}]
    if hasattr(value, "overall") and hasattr(value, "by_variable"):
        rows = [{"measure": name, "variable": "", "statistic": "overall",
                 "value": float(value.overall)}]
        return rows + [{"measure": name, "variable": str(k), "statistic": "by_variable",
                        "value": float(v)} for k, v in value.by_variable.items()]
    if isinstance(value, pd.Series):
        return [{"measure": name, "variable": str(k), "statistic": name, "value": float(v)}
                for k, v in value.items() if isinstance(v, numbers.Number)]
    if isinstance(value, pd.DataFrame):
        rows = []
        for idx, r in value.iterrows():
            for col, v in r.items():
                if isinstance(v, numbers.Number) and not isinstance(v, bool):
                    rows.append({"measure": name, "variable": str(idx), "statistic": str(col),
                                 "value": float(v)})
        return rows
    return [{"measure": name, "variable": "", "statistic": name, "value": str(value)}]


def default_measures(original: Any, masked: Any, columns: list[str]) -> list[str]:
    """The standard set for two files: categorical and numeric measures by column type."""
    import pandas as pd

    num = [c for c in columns if pd.api.types.is_numeric_dtype(original[c])
           and not isinstance(original[c].dtype, pd.CategoricalDtype)]
    names = ["missing_values", "records_changed"]
    if len(num) < len(columns):
        names += ["entropy_change"]
    if num:
        names += ["il1s", "il1s_sdcmicro"]
    if len(num) >= 2:
        names += ["eigen_difference", "il_correl"]
    names += ["il_variables"]
    return names


def _measure_kwargs(name: str, fn: Any, cols: list[str]) -> dict[str, Any]:
    """The column arguments of catalogue measure ``fn`` (``keys=`` or ``columns=``); `_BadInput`
    when it needs parameters the command line cannot give (a transition matrix, a k)."""
    import inspect

    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins
        params = {}
    named = {n: p for n, p in params.items() if p.kind is not p.VAR_KEYWORD}
    if len(named) <= 2:  # a (original, masked, **params) wrapper: its parameters are unknown
        return {"keys": cols} if name == "suppressions" else {"columns": cols}
    needed = [n for n, p in named.items() if p.kind is p.KEYWORD_ONLY and p.default is p.empty
              and n not in ("columns", "keys")]
    if needed:
        raise _BadInput(f"--measures: {name} needs parameter(s) {needed}, which the command line "
                        f"cannot give; call it from Python (sdcsession.utility)")
    if "keys" in named:
        return {"keys": cols}
    return {"columns": cols} if "columns" in named else {}


def cmd_measure(args: argparse.Namespace) -> int:
    import warnings

    import pandas as pd

    from .errors import ParameterError, SdcError, SdcWarning
    from .utility.catalogue import CATALOGUE, compute

    orig = _read(args.original, args.sep)
    masked = _read(args.masked, args.sep)
    columns = _names(args.columns)
    if columns is None:
        columns = [c for c in orig.columns if c in masked.columns]
    missing = [c for c in columns if c not in orig.columns or c not in masked.columns]
    if missing:
        raise _BadInput(f"--columns: {missing} not in both files")
    names = list(dict.fromkeys(_names(args.measures) or default_measures(orig, masked, columns)))
    unknown = [n for n in names if n not in CATALOGUE]
    if unknown:
        raise _BadInput(f"--measures: unknown measure(s) {unknown}; known: {sorted(CATALOGUE)}")
    num = [c for c in columns if pd.api.types.is_numeric_dtype(orig[c])
           and not isinstance(orig[c].dtype, pd.CategoricalDtype)]
    if args.columns is None:  # constant columns have no scale: left out of the default set
        constant = [c for c in num if orig[c].nunique(dropna=True) <= 1]
        if constant:
            warnings.warn(f"column(s) {constant} are constant in the original file and are left "
                          "out of the numeric measures (name them with --columns to insist)",
                          SdcWarning, stacklevel=1)
            num = [c for c in num if c not in constant]
    rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    for name in names:
        spec = CATALOGUE[name]
        if spec.variable_types == "numeric":
            cols = num
        elif spec.variable_types == "categorical":
            cols = [c for c in columns if c not in num]
        else:
            cols = columns
        if not cols:
            if args.measures is not None:  # asked for by name: say why it cannot be computed
                raise _BadInput(f"--measures: {name} needs {spec.variable_types} columns; "
                                f"{columns} has none")
            continue
        kw = _measure_kwargs(name, spec.fn, cols)
        _progress(f"computing {name} …")
        try:
            value = compute(name, orig, masked, **kw)
        except (TypeError, ParameterError) as e:  # parameters the command line cannot give
            if "argument" not in str(e) or (isinstance(e, ParameterError)
                                            and not str(e).startswith(f"compute({name!r})")):
                raise
            raise _BadInput(f"--measures: {name} cannot be computed from the command line ({e}); "
                            "call it from Python (sdcsession.utility)") from e
        except SdcError as e:
            if args.measures is not None:
                raise
            # a default measure that does not apply to these files: the others are still shown
            warnings.warn(f"{name} not computed: {e}", SdcWarning, stacklevel=1)
            skipped.append(name)
            continue
        rows += _flatten(name, value)
    if skipped and all(r["measure"] in skipped for r in rows):  # nothing computed
        raise _BadInput(f"no measure could be computed on these files ({', '.join(skipped)}: "
                        "see the warnings above)")
    table = pd.DataFrame(rows, columns=["measure", "variable", "statistic", "value"])
    if args.json:
        print(table.to_json(orient="records", indent=2))
    else:
        print(table.to_string(index=False))
    return 0


def cmd_app(args: argparse.Namespace) -> int:
    from .present.workbench.app import run_app

    roles: dict[str, Any] = {r: _names(getattr(args, r)) for r in
                             ("keys", "numeric", "strata", "sensitive", "identifiers")}
    roles.update(weight=args.weight, household=args.household)
    roles = {k: v for k, v in roles.items() if v}
    if not Path(args.data).is_file():
        raise _BadInput(f"no data file {args.data!r}")
    return run_app(args.data, port=args.port, open_browser=not args.no_browser, seed=args.seed,
                   sep=args.sep, max_kernels=args.max_kernels, idle_minutes=args.idle_minutes,
                   pool=args.pool, **roles)


COMMANDS = {"demo": cmd_demo, "risk": cmd_risk, "run": cmd_run, "measure": cmd_measure,
            "app": cmd_app}


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: object = None, line: str | None = None) -> None:
    """Warnings on the command line: ``sdcsession: warning: <message>``, without the Python
    file and source line that the default format prints."""
    print(f"sdcsession: warning: {message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: parse ``argv``, run the command, return the exit code."""
    from .errors import (
        DataFileError,
        MissingDependencyError,
        ParameterError,
        RecipeError,
        ReleaseError,
        RoleError,
        SdcError,
    )

    if argv is not None and (isinstance(argv, (str, bytes)) or not isinstance(argv, (list, tuple))
                             or not all(isinstance(a, str) for a in argv)):
        print(f"sdcsession: error: argv: expected a list of strings, got {argv!r:.60}",
              file=sys.stderr)
        return 2
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: 2 on bad usage, 0 on --help
        return int(e.code or 0)
    try:
        if args.debug:
            return COMMANDS[args.command](args)
        import warnings

        with warnings.catch_warnings():
            warnings.showwarning = _show_warning  # one line per warning, no Python source line
            return COMMANDS[args.command](args)
    except _BadInput as e:
        if args.debug:
            raise
        print(f"sdcsession: error: {e}", file=sys.stderr)
        return 2
    except (RoleError, RecipeError, ParameterError, DataFileError, MissingDependencyError,
            ReleaseError, FileNotFoundError, IsADirectoryError,
            PermissionError) as e:
        if args.debug:
            raise
        print(f"sdcsession: error: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
              + (" …" if len(str(e).splitlines()) > 1 else ""), file=sys.stderr)
        if len(str(e).splitlines()) > 1:
            print(str(e), file=sys.stderr)
        return 2
    except SdcError as e:
        if args.debug:
            raise
        print(f"sdcsession: error: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - one readable line, traceback only with --debug
        if args.debug:
            raise
        print(f"sdcsession: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
