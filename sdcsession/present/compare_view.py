"""How the table of `sdcsession.present.compare.compare` is shown: `Comparison`, a DataFrame
whose notebook (HTML) and text displays format the numbers — counts as integers with thousands
separators, other figures with 4 significant digits — and print the ``steps`` column in full
(pandas would cut it at 50 characters and hide columns behind ``...``).

It is an ordinary DataFrame otherwise: every operation on it (selecting columns, ``round``,
``set_index``…) returns a plain `pandas.DataFrame` with pandas' own display.

Example
-------
>>> import pandas as pd
>>> t = Comparison({"scenario": ["a"], "k3_violations": [3], "lambda": [0.123456]})
>>> print(t)
scenario k3_violations lambda
a                    3 0.1235
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..session.formatting import fmt
from .display import esc

__all__ = ["Comparison"]


def _cell(v: Any) -> str:
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, float, np.integer, np.floating)):
        return fmt(v)
    return "–" if v is None else str(v)


def _numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


class Comparison(pd.DataFrame):
    """The comparison table: a `pandas.DataFrame` with a readable display (see the module)."""

    @property
    def _constructor(self) -> type[pd.DataFrame]:  # derived frames are plain DataFrames
        return pd.DataFrame

    def to_text(self) -> str:
        """The table as text: formatted numbers, ``steps`` in full, every column."""
        fmts: dict[Any, Any] = {}
        header = []
        for c in self.columns:
            if _numeric(self[c]):
                fmts[c] = _cell
                header.append(str(c))
            else:  # text and its header left-aligned (pandas right-aligns them)
                w = max([len(str(c))] + [len(_cell(v)) for v in self[c]])
                fmts[c] = lambda v, w=w: f"{_cell(v):<{w}}"
                header.append(f"{str(c):<{w}}")
        return pd.DataFrame(self).to_string(index=False, max_colwidth=None, formatters=fmts,
                                            header=header)

    def to_html_table(self) -> str:
        """The table as escaped HTML: numbers right-aligned and formatted, ``steps`` wrapped."""
        num = {c: _numeric(self[c]) for c in self.columns}
        head = "".join(f'<th style="text-align:{"right" if num[c] else "left"}">'
                       f"{esc(str(c).replace('_', ' '))}</th>" for c in self.columns)
        rows = []
        for r in self.itertuples(index=False, name=None):
            cells = []
            for c, v in zip(self.columns, r):
                style = ("text-align:right;font-variant-numeric:tabular-nums" if num[c] else
                         "text-align:left;white-space:normal;min-width:16em" if c == "steps"
                         else "text-align:left")
                cells.append(f'<td style="{style}">{esc(_cell(v))}</td>')
            rows.append("<tr>" + "".join(cells) + "</tr>")
        return (f'<table class="dataframe sdc-compare"><thead><tr>{head}</tr></thead><tbody>'
                + "".join(rows) + "</tbody></table>")

    def __repr__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        return self.to_html_table()
