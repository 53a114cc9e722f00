"""Read and write microdata files: CSV/TSV, Parquet, Stata, SPSS and SAS.

`read_data` and `write_data` dispatch on the file extension (or an explicit ``format``):

=====================  ==========  ===========  =================================================
extension              format      extra        notes
=====================  ==========  ===========  =================================================
.csv .txt (.gz ...)    csv         —            delimiter sniffed among , ; tab | unless ``sep``
.tsv .tab              tsv         —            tab-separated
.parquet .pq           parquet     pyarrow      pandas dtypes (categoricals, nullable) kept
.dta                   stata       pyreadstat   value labels ⇄ pandas categories
.sav .zsav             spss        pyreadstat   value labels ⇄ pandas categories
.sas7bdat              sas7bdat    pyreadstat*  read only (* falls back to pandas.read_sas)
.xpt                   xport       pyreadstat*  read (* as above); write (no value labels)
=====================  ==========  ===========  =================================================

The optional readers live in the ``io`` extra: ``pip install "sdcsession[io]"`` (from a
checkout: ``pip install -e ".[io]"``). When it is missing a `MissingDependencyError` says so,
with the command for this installation. Every other problem with a file (missing file, unknown
extension, wrong delimiter, unknown columns, unreadable or unwritable file, an attempt to overwrite
a protected input) raises a `DataFileError` naming the file and what to do.

Labelled data (Stata, SPSS). On reading, every variable with value labels becomes a pandas
``Categorical`` whose categories are the label texts in the order of their numeric codes (unused
labels are kept as categories; a value without a label becomes the category ``str(value)``). The
variable labels are kept in ``df.attrs["column_labels"]``. On writing, every categorical column is
written as integer codes 1..k with the category texts as value labels, missing values as system
missing; ``df.attrs["column_labels"]`` is written back as variable labels. Empty strings in string
variables (the missing string of Stata, SPSS and SAS) are read as missing values.

User-defined missing values stay distinct from suppressions. SPSS: user-missing values are read
as values and their ranges kept in ``df.attrs["missing_ranges"]``, written back as missing ranges.
Stata: extended missing values ``.a``-``.z`` are read as missing (NaN, as sdcMicro reads them) and
remembered per record in ``df.attrs["extended_missing"]`` (``{column: {letter: [index labels]}}``);
an export writes each back where the record is still missing, so a value a treatment suppressed is
system missing (``.``) and a refusal coded ``.a`` stays ``.a``.

Compressed input is bounded: a .gz/.bz2/.xz/.zip file may expand to at most 200 times its size on
disk (and always 64 MiB); Parquet, .zsav and SAS files are checked the same way from their
metadata. Past the limit `read_data` stops with a `DataFileError` (``max_decompressed=`` sets
another limit in bytes; see ``sdcsession.io.compressed``).

Writing is atomic (a temporary file in the target directory renamed into place) and refuses to
write over any path given in ``protect`` (typically the input file), so an export never destroys
the original data.

Example
-------
>>> import tempfile, pathlib
>>> import pandas as pd
>>> df = pd.DataFrame({"sex": pd.Categorical(["m", "f", None]), "income": [1.5, None, 3.0]})
>>> with tempfile.TemporaryDirectory() as d:
...     path = pathlib.Path(d) / "survey.csv"
...     _ = write_data(df, path)
...     back = read_data(path, categorical=["sex"])
>>> back["sex"].tolist(), back["income"].isna().tolist()
(['m', 'f', nan], [False, True, False])
"""

from ..errors import DataFileError, MissingDependencyError
from .formats import FORMATS, format_of, sniff_delimiter
from .read import read_data
from .write import write_data

__all__ = [
    "read_data",
    "write_data",
    "DataFileError",
    "MissingDependencyError",
    "FORMATS",
    "format_of",
    "sniff_delimiter",
]
