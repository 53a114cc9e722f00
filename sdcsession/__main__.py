"""``python -m sdcsession`` runs the command line (see `sdcsession.cli`)."""

from .cli import main

raise SystemExit(main())
