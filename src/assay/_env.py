"""Settings read from the environment, checked like options.

Example:
    >>> import os
    >>> os.environ["ASSAY_EXAMPLE_COUNT"] = "4"
    >>> env_count("ASSAY_EXAMPLE_COUNT"), env_count("ASSAY_NOT_SET")
    (4, None)
    >>> os.environ["ASSAY_EXAMPLE_COUNT"] = "four"
    >>> env_count("ASSAY_EXAMPLE_COUNT")
    Traceback (most recent call last):
    ...
    assay.errors.ConfigError: Got ASSAY_EXAMPLE_COUNT='four'. Must be a whole number of 1 or more (or unset).
    >>> del os.environ["ASSAY_EXAMPLE_COUNT"]
"""

from __future__ import annotations

import os

from .errors import ConfigError

__all__ = ["env_count"]


def env_count(name: str) -> int | None:
    """The environment variable ``name`` as a count of 1 or more; ``None`` when unset or empty.
    Anything else is a :class:`~assay.errors.ConfigError` naming the variable and the fix."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise ConfigError(f"Got {name}={raw!r}. Must be a whole number of 1 or more (or unset).")
    return int(raw)
