"""The interactive workbench: ``s.workbench()`` in a notebook, ``sdcsession app`` as a web app.

- `widget`: `Workbench`, `workbench` (the ipywidgets widget);
- `roles`, `treat`, `history`, `live`: its panels;
- `release`: the Prepare and Release panels (preparation steps; Export, Report, projects,
  autosave);
- `views`: the Views tab (numeric risk beside key risk, suppressions per key, risky records,
  SUDA2, l-diversity, all scenarios compared), built from `panels` (the views' figures and
  tables, the R-U map's risk axis, the "?" explanations);
- `data`: the Data tab (load a file in the page, explore the data, original vs modified);
- `hierarchy`: the hierarchy builder of the ``generalize`` form (`make_form` picks a form);
- `labels`: the words of the forms (groups, plain names, labels with units, choices, which
  columns a parameter accepts, descriptions as text);
- `run`: running a step in the background (progress, cancel);
- `app`: the local web app (Voilà on 127.0.0.1);
- `serve`: the hardened Voilà it runs (token, Host check, kernel cap and culling; the page's
  own template ``jupyter/voila/templates/sdcsession``, with no URL to another host);
- `pool`: the warm kernel pool within the cap;
- `share`: default layouts and styles shared between widgets (fewer models on the first page).

ipywidgets is imported by the panels, never by ``import sdcsession``.
"""

__all__ = ["Workbench", "workbench"]


def __getattr__(name: str) -> object:
    """`Workbench` and `workbench` from `widget` (imported on first use: it needs ipywidgets)."""
    if name in __all__:
        from . import widget

        return getattr(widget, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
