"""``python -m sdcsession`` runs the command line (see :mod:`sdcsession.cli`)."""

from .cli import main

raise SystemExit(main())
