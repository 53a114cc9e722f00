"""Safe release: the released data, the release check and the export that runs it.

- `check`: `release_data`, `release_check`, `export` (both engines);
- `structure`: the findings on the file's structure (households, identifiers, undeclared linked
  and derived columns, order, weights), one code path for pandas and Dask;
- `bounds`: the ``bound`` finding (a column with no role that bounds a treated numeric
  variable), called by `structure`;
- `aligned`: released and original values side by side, record by record, on either engine;
- `rounds`: the counts computed in rounds, every count that waits for no other in the same
  pass (on Dask one ``compute`` per round);
- `counting`: the structure findings' counts (distinct values, dependencies, correlations,
  flags), on either engine;
- `codes`: the structure findings' counts on a pandas frame from integer codes (the fast path);
- `reductions`: the release check's counts on Dask in bounded memory per partition (distinct
  values, functional dependencies, rare values);
- `categories`: the released categorical dtypes without the categories only treated-away
  records used;
- `order`: the seeded random order of the released records;
- `methods`: the session's release methods (a mixin);
- `contracts`: the findings of the declared utility contracts (a hook of `release_check`);
- `subsets`: the ``k_subsets`` finding (key subsets of the last ``local_suppression(subsets=...)``).
"""

__all__ = ['release_data', 'release_check', 'export', 'FINDING_COLUMNS']


def __getattr__(name: str) -> object:
    """The names of `check`, which this package replaces (its old module path), imported on
    first use (PEP 562): ``import sdcsession`` does not load the release check."""
    if not name.startswith("__"):
        import importlib

        main = importlib.import_module(".check", __name__)  # (not ``from . import``: it asks here)
        if name in globals():  # a submodule the check imported
            return globals()[name]
        if hasattr(main, name):
            return getattr(main, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
