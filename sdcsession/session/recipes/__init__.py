"""Recipes: a session's scenario as plain JSON data, replayable bit for bit.

- `recipe`: `to_recipe`, `parse_recipe`, `load_recipe`, `save_recipe`, `fingerprint`.
"""

from .recipe import (  # noqa: F401
    FORMAT,
    FORMAT_VERSION,
    MAX_DEPTH,
    MAX_SEED,
    OLDEST_FORMAT_VERSION,
    fingerprint,
    load_recipe,
    parse_recipe,
    parse_steps,
    save_recipe,
    to_recipe,
)

__all__ = ['FORMAT', 'FORMAT_VERSION', 'OLDEST_FORMAT_VERSION', 'MAX_DEPTH', 'MAX_SEED', 'fingerprint', 'to_recipe', 'parse_recipe', 'load_recipe', 'save_recipe', 'parse_steps']
