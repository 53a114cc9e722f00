"""Figures (matplotlib, imported lazily inside each function; the report's figures are SVG
drawn without matplotlib).

- `accessor`: ``s.plot`` (`SessionPlots`) and the public plotting functions;
- `ru`: the R-U map and the risk path;
- `data`: distributions and mosaics, original against masked;
- `risk`: suppressions, risk distribution, confidence intervals;
- `lattice`: the generalisation lattice;
- `sweep`: the R-U map of a sweep;
- `optimize`: the R-U map of an optimisation and its frontier;
- `labels`: labels beside scatter points that never overlap (greedy candidate placement);
- `svg`: a small SVG canvas (axes, 1-2-5 ticks, lines, bars, markers, escaped text, legend);
- `report_svg`: the report's five figures as inline SVG, from the plots' own data functions;
- `_common`: palette, axes (pyplot, or bare Agg figures), PNG export.
"""

from . import accessor as _main
from .accessor import (  # noqa: F401
    LABELS,
    PALETTE,
    SessionPlots,
    ci_plot,
    distributions,
    mosaic,
    risk_distribution,
    risk_path,
    ru_map,
    suppressions,
    to_png,
)

__all__ = ['ru_map', 'distributions', 'mosaic', 'suppressions', 'risk_distribution', 'risk_path', 'ci_plot', 'to_png', 'SessionPlots', 'LABELS', 'PALETTE']


def __getattr__(name: str) -> object:
    """Other names of `accessor`, which this package replaces (its old module path)."""
    if not name.startswith("__") and hasattr(_main, name):
        return getattr(_main, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
