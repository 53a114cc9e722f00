"""The package version (one place; read by recipes, reports and ``sdcsession.__version__``)."""

__version__ = "0.1.0"
