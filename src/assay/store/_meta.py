"""Small shared facts: the time now as the store writes it, and the running assay's version.

Example:
    >>> stamp = now_iso()
    >>> len(stamp), stamp.endswith("Z")
    (27, True)
    >>> import assay
    >>> assay_version() == assay.__version__
    True
"""

from __future__ import annotations

import importlib.metadata
from datetime import UTC, datetime

__all__ = ["assay_version", "now_iso"]


def now_iso(now: datetime | None = None) -> str:
    """ISO-8601 UTC with microseconds, fixed width, so text order is time order."""
    return (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def assay_version() -> str:
    """``assay.__version__``, else the installed distribution's version, else ``"unknown"``."""
    try:
        import assay  # imported late: assay's __init__ may import the store

        version = getattr(assay, "__version__", None)
        if isinstance(version, str) and version:
            return version
    except ImportError:  # pragma: no cover - a broken install
        pass
    try:
        return importlib.metadata.version("assay")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - running from a checkout
        return "unknown"
