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

from datetime import UTC, datetime

from .._version import __version__

__all__ = ["assay_version", "now_iso"]


def now_iso(now: datetime | None = None) -> str:
    """ISO-8601 UTC with microseconds, fixed width, so text order is time order."""
    return (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def assay_version() -> str:
    """The running assay's version (``assay._version``: the store no longer imports the
    top-level package, whose ``__init__`` may import the store)."""
    return __version__
