"""Projects: a session's whole tree saved to a file, reopened lazily, and its plan carried to the
next wave of a survey with a drift report.

- `archive`: the sealed ZIP container (checksum, bounds, atomic write);
- `manifest`: the project format (``project.json``: every step of every branch) and its checked
  parse;
- `store`: `save_project` and `open_project` (lazy replay: pending states);
- `drift`: what no longer fits when a step is replayed on new data;
- `waves`: `apply_to` (replay a branch on new data, the drift report);
- `methods`: the session methods (`ProjectMixin`: ``save_project``, ``open_project``,
  ``apply_to``, ``scenarios``).
"""

from .methods import ProjectMixin

__all__ = ["ProjectMixin"]
