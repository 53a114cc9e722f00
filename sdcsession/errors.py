"""Exceptions and warnings of sdcsession.

Every error the library raises on bad input is an `SdcError` subclass whose message names the
column or parameter at fault and what was expected.

Example
-------
>>> from sdcsession.errors import RoleError, SdcError
>>> issubclass(RoleError, SdcError) and issubclass(RoleError, ValueError)
True
"""

from __future__ import annotations

__all__ = [
    "SdcError",
    "RoleError",
    "ParameterError",
    "TreatmentError",
    "ReleaseError",
    "HistoryError",
    "MeasureError",
    "RecipeError",
    "DriftError",
    "DataFileError",
    "MissingDependencyError",
    "SdcWarning",
]


class SdcError(Exception):
    """Base class of every error raised by sdcsession on bad input or misuse."""


class RoleError(SdcError, ValueError):
    """Variable roles do not fit the data (every problem listed in one message)."""

    def __init__(self, problems: list[str] | str):
        if isinstance(problems, str):
            problems = [problems]
        self.problems = list(problems)
        if len(self.problems) == 1:
            msg = self.problems[0]
        else:
            msg = f"{len(self.problems)} problems with the variable roles:\n" + "\n".join(
                f"  - {p}" for p in self.problems
            )
        super().__init__(msg)


class ParameterError(SdcError, ValueError):
    """A parameter has an invalid value (raised at construction of a treatment or call of a measure)."""


class TreatmentError(SdcError, ValueError):
    """A treatment cannot be applied to this state of the data; the session is left unchanged."""


class HistoryError(SdcError, LookupError):
    """Undo past the root, redo with nothing to redo, or an unknown step."""


class MeasureError(SdcError, ValueError):
    """A risk or utility measure cannot be computed on these inputs (shapes, types, degenerate data)."""


class RecipeError(SdcError, ValueError):
    """A recipe is malformed, of a newer format, or names unknown treatments."""


class DriftError(RecipeError):
    """New data no longer fit a plan (``apply_to(..., strict=True)``): new categories, values
    outside recode intervals, uncovered hierarchy levels, PRAM matrices missing a category."""


class DataFileError(SdcError, ValueError):
    """A data file cannot be read or written as asked (the message names the file and the fix)."""


class ReleaseError(SdcError, ValueError):
    """The release check found ``block`` findings: the data are not safe to export as they are."""


class MissingDependencyError(SdcError, ImportError):
    """An optional package needed for a file format is missing (names the extra to install)."""


class SdcWarning(UserWarning):
    """Warning about data or parameters that are legal but probably not what the user meant."""


def install_hint(extra: str) -> str:
    """The pip command that adds the optional ``extra`` to this installation.

    From a checkout installed with ``pip install -e .`` the hint is ``pip install -e
    "<checkout>[extra]"`` (and the PyPI form beside it); otherwise ``pip install
    "sdcsession[extra]"``.

    >>> install_hint("gui").startswith("pip install")
    True
    """
    import json
    from importlib import metadata
    from pathlib import Path

    try:
        dist = metadata.distribution("sdcsession")
        text = dist.read_text("direct_url.json")
        info = json.loads(text) if text else {}
        base = Path(str(dist.locate_file("")))
    except (metadata.PackageNotFoundError, ValueError, OSError):
        info, base = {}, None
    url = info.get("url", "") if isinstance(info, dict) else ""
    if isinstance(info, dict) and info.get("dir_info", {}).get("editable") and url.startswith("file://"):
        from urllib.parse import unquote, urlparse

        return (f'pip install -e "{unquote(urlparse(url).path)}[{extra}]" (this checkout; from '
                f'PyPI: pip install sdcsession[{extra}])')
    if not info and base is not None and (base / "pyproject.toml").is_file():
        return (f'pip install -e "{base}[{extra}]" (this checkout; from PyPI: '  # egg-info
                f'pip install sdcsession[{extra}])')
    return f'pip install "sdcsession[{extra}]"'


def user_stacklevel() -> int:
    """The ``stacklevel`` for ``warnings.warn`` that points at the first caller outside this
    package: the user's line, however deep in the package the warning is raised (and through the
    session's argument guard). Call it in the function that calls ``warnings.warn``.

    Example
    -------
    >>> import warnings
    >>> warnings.warn("shown at the caller's line", SdcWarning, stacklevel=user_stacklevel())
    """
    import os
    import sys

    root = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(root):
        frame = frame.f_back
        level += 1
    return level
