"""Where the run store lives: a file path, a ``sqlite:///`` URL or a ``postgresql://`` URL.

Precedence: an explicit argument, then the ``ASSAY_STORE`` environment variable, then
``DEFAULT_STORE`` (``runs.sqlite`` in the user data directory, e.g.
``~/.local/share/assay/runs.sqlite`` on Linux).

Example:
    >>> resolve_url("postgresql://bob:pw@db.internal:5432/evals").render_as_string(hide_password=True)
    'postgresql+psycopg://bob:***@db.internal:5432/evals'
    >>> resolve_url(":memory:").render_as_string()
    'sqlite://'
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
import sqlalchemy as sa

from ..errors import ConfigError

__all__ = ["DEFAULT_STORE", "ENV_VAR", "default_store_path", "resolve_url"]

#: The environment variable that names the store when no URL or path is given.
ENV_VAR = "ASSAY_STORE"


def default_store_path() -> Path:
    """``runs.sqlite`` in the user data directory (read now, so ``XDG_DATA_HOME`` counts)."""
    return Path(platformdirs.user_data_dir("assay")) / "runs.sqlite"


#: The store used when neither an argument nor ``ASSAY_STORE`` names one.
DEFAULT_STORE: Path = default_store_path()

_ACCEPTED = "a file path, sqlite:///path/to/runs.sqlite or postgresql://user@host:port/dbname"


def resolve_url(url: str | Path | None = None) -> sa.URL:
    """The SQLAlchemy URL for ``url`` (or ``ASSAY_STORE``, or the default file).

    ``postgresql://`` and ``postgres://`` map to the psycopg 3 driver; a bare path (``~``
    expanded) becomes a SQLite file; ``:memory:`` is a throwaway in-memory store.

    Example:
        >>> resolve_url("/tmp/x/runs.sqlite").render_as_string()
        'sqlite:////tmp/x/runs.sqlite'
        >>> try:
        ...     resolve_url("mysql://db/x")
        ... except ConfigError as e:
        ...     print(str(e)[:49])
        Got store 'mysql://db/x'. Must be a file path, sq
    """
    if url is None or (isinstance(url, str) and not url.strip()):
        url = os.environ.get(ENV_VAR, "").strip() or default_store_path()
    if isinstance(url, Path):
        return sa.make_url(f"sqlite:///{url.expanduser().resolve()}")
    text = url.strip()
    if text == ":memory:":
        return sa.make_url("sqlite://")
    if "://" not in text:
        return sa.make_url(f"sqlite:///{Path(text).expanduser().resolve()}")
    scheme = text.split("://", 1)[0].lower()
    try:
        parsed = sa.make_url(text)
    except sa.exc.ArgumentError as e:
        raise ConfigError(f"Got store {text!r}: not a valid URL ({e}). Must be {_ACCEPTED}.") from e
    if scheme in ("postgresql", "postgres"):
        return parsed.set(drivername="postgresql+psycopg")
    if scheme == "sqlite" or scheme.startswith(("postgresql+", "sqlite+")):
        return parsed
    raise ConfigError(f"Got store {_masked(text)!r}. Must be {_ACCEPTED}.")


def _masked(text: str) -> str:
    try:
        return sa.make_url(text).render_as_string(hide_password=True)
    except sa.exc.ArgumentError:
        return text
