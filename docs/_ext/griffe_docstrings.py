"""Griffe extension used by the docs build only: reads sdcsession's docstring conventions.

The package writes numpy-style docstrings with doctest examples and compact parameter lines
(``name : what it is``). Markdown does not know doctest blocks (``>>>`` would become nested
quotes) and griffe's numpy parser expects ``name : type`` followed by an indented description. This
extension rewrites the docstring text before parsing; it never touches the package.
"""

from __future__ import annotations

import re

import griffe

_PARAM_LINE = re.compile(r"^(\s*)([A-Za-z_*][\w*, ]*?) ?:(?: (.*))?$")
_TYPEISH = re.compile(r"^[\w.\[\], |]+$")


def _is_type(text: str) -> bool:
    """True for ``name : type`` lines (a short type expression, no prose)."""
    words = text.split()
    return bool(_TYPEISH.match(text)) and not text.endswith(".") and len(words) <= 6 and not any(
        w in {"the", "a", "an", "of", "is", "to", "for", "in"} for w in words[:1])


def fence_doctests(text: str) -> str:
    """Wrap every ``>>>`` block (prompt lines and their output, up to a blank line) in a
    ``pycon`` code fence so that Markdown renders it as code."""
    out: list[str] = []
    in_block = False
    indent = ""
    for line in text.split("\n"):
        if not in_block and line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            in_block = True
        elif in_block and (not line.strip() or not line.startswith(indent)):
            out.append(f"{indent}```")
            in_block = False
        out.append(line)
    if in_block:
        out.append(f"{indent}```")
    return "\n".join(out)


def rewrite(text: str) -> str:
    """Doctests fenced as code; ``name : prose`` parameter lines → ``name`` + indented prose;
    prose after a parameter list (``Returns …``, ``Reference: …``) starts a Notes section; a
    description continued at the base indent is indented."""
    text = fence_doctests(text)
    out: list[str] = []
    section = None
    lines = text.split("\n")
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if nxt.strip() and set(nxt.strip()) == {"-"} and line.strip():
            section = line.strip().lower()
        if section in {"parameters", "other parameters", "attributes"} and line.strip() and (
                set(line.strip()) != {"-"} and line.strip().lower() != section):
            prev = out[-1] if out else ""
            base = not line.startswith((" ", "\t"))
            m = _PARAM_LINE.match(line) if base else None
            if re.match(r"^\s*(References?|Returns?)\b", line):
                m = None
            if base and not m and not prev.strip():
                # prose after the list (Returns …, Reference: …): a Notes section of its own
                out += ["Notes", "-----"]
                section = "notes"
                out.append(line)
                continue
            if base and not m:  # a description continued at the base indent
                out.append(f"    {line}")
                continue
            if m and not m[3]:  # ``name:`` with the description on the next lines
                out.append(f"{m[1]}{m[2]}")
                continue
            if m and not _is_type(m[3]):
                out.append(f"{m[1]}{m[2]}")
                out.append(f"{m[1]}    {m[3]}")
                continue
        out.append(line)
    return "\n".join(out)


class SdcDocstrings(griffe.Extension):
    """Rewrite every docstring with :func:`rewrite` as objects are loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: object) -> None:  # noqa: D102
        if obj.docstring is not None:
            obj.docstring.value = rewrite(obj.docstring.value)
