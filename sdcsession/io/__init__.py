"""Reading and writing microdata files (CSV, Parquet, Stata, SPSS, SAS) with value labels.

Pure functions on DataFrames and paths; they know nothing of sessions.
"""

from .files import *  # noqa: F403
from .files import __all__  # noqa: F401
