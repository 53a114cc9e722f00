"""The "?" beside a figure of the workbench: what the figure means, in words, with its value.

The text is `sdcsession.session.views.explain.explain_figure` of the session's risk view
(``s.risk``) or utility view (``s.utility``), chosen by the figure's kind in the registry
`sdcsession.session.views.figures.FIGURES`; a name the registry does not know (a column of the
comparison such as ``gdu``) is left out. Every text is escaped before it reaches the page.

Example
-------
>>> import sdcsession as sdc
>>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(100, seed=1), keys=["sex"], seed=1)
>>> explain_names(["k3_violations", "lambda", "gdu"])
['k3_violations', 'lambda_overall']
>>> "Records violating k-anonymity" in explain_html(s, ["k3_violations"])
True
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from typing import Any

from ....session.views.explain import explain_figure
from ....session.views.figures import FIGURES, base_name
from ..share import own_layout

__all__ = ["explain_names", "explain_text", "explain_html", "ExplainButton", "header"]

#: figures with one value per record (shown by their table, not as one number)
PER_RECORD = frozenset({"suda2.dis_score", "l_diversity.distinct"})
#: comparison columns whose registry name differs
_ALIASES = {"lambda": "lambda_overall"}


def explain_names(names: Iterable[str]) -> list[str]:
    """The figures of ``names`` the registry explains (comparison columns mapped to their
    registry names, unknown names left out, each once)."""
    out: list[str] = []
    for n in names:
        n = _ALIASES.get(n, n)
        if base_name(n) in FIGURES and n not in out:
            out.append(n)
    return out


def explain_text(session: Any, name: str) -> str:
    """The plain-text explanation of figure ``name`` on the session's HEAD (its kind picks
    ``s.risk`` or ``s.utility``)."""
    figure = FIGURES[base_name(_ALIASES.get(name, name))]
    view = session.risk if figure.kind == "risk" else session.utility
    e = explain_figure(view, _ALIASES.get(name, name))
    text = e.to_text()
    if e.value is None and base_name(name) in PER_RECORD:  # a value per record: the table
        text = "\n".join("  value: one per record, summarised in the table below"
                         if line.startswith("  value: ") else line for line in text.splitlines())
    return text


def explain_html(session: Any, names: Iterable[str]) -> str:
    """The explanations of ``names`` (`explain_names`) as escaped HTML, one block per figure."""
    blocks = []
    for n in explain_names(names):
        try:
            text = explain_text(session, n)
        except Exception as e:  # noqa: BLE001 - an explanation must never break the panel
            text = f"{n}: no explanation ({type(e).__name__}: {e})"
        blocks.append("<pre style='white-space:pre-wrap;margin:2px 0 6px 0;font-size:85%;"
                      f"line-height:1.3'>{html.escape(text)}</pre>")
    body = "".join(blocks) or "<i>no figure to explain</i>"
    return ("<div style='max-height:320px;overflow:auto;border-left:3px solid #0072B2;"
            f"padding-left:6px;background:#f7f9fc'>{body}</div>")


class ExplainButton:
    """A "?" button and the box it opens below a figure: ``names()`` gives the figures shown now
    and ``session()`` the session; a second click closes the box."""

    def __init__(self, what: str, session: Callable[[], Any],
                 names: Callable[[], Iterable[str]]) -> None:
        import ipywidgets as w

        self._session, self._names = session, names
        self.button = w.Button(description="?", tooltip=f"what {what} means",
                               layout=w.Layout(width="32px", padding="0"))
        self.button.add_class("sdc-explain")
        self.text = w.HTML(layout=w.Layout(display="none"))
        self.button.on_click(lambda _: self.toggle())

    @property
    def open(self) -> bool:
        """Whether the explanation is shown."""
        return self.text.layout.display != "none"

    def toggle(self) -> None:
        """Show the explanation of the figures shown now, or hide it."""
        if self.open:
            own_layout(self.text).display = "none"
            return
        self.refresh(force=True)

    def refresh(self, force: bool = False) -> None:
        """Recompute the open explanation (after the figures changed)."""
        if not (force or self.open):
            return
        s = self._session()
        self.text.value = ("<i>no session yet</i>" if s is None
                           else explain_html(s, list(self._names())))
        own_layout(self.text).display = ""


def header(title: str, button: ExplainButton, *extra: Any) -> Any:
    """A bold ``title`` with its "?" button (and ``extra`` widgets) on one line."""
    import ipywidgets as w

    return w.HBox([w.HTML(f"<b>{html.escape(title)}</b>"), button.button, *extra],
                  layout=w.Layout(align_items="center"))
