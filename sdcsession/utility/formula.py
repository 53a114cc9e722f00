"""The safe formula language, re-exported for the utility measures (it lives in
`sdcsession.formula`, below every kernel, so risk models can use it too)."""

from ..formula import *  # noqa: F403
from ..formula import __all__  # noqa: F401
