"""Opening a run store: resolve the URL, open a SQLite file this process cannot write
read-only, create or upgrade the schema.

Example:
    >>> with open_store(":memory:") as store:
    ...     store.read_only, store.runs()
    (False, [])
"""

from __future__ import annotations

import os
from pathlib import Path

import sqlalchemy as sa

from ..errors import ConfigError
from ._engine import is_read_only, make_engine, read_only_url, transaction
from ._migrations import current_version, migrate
from ._schema import SCHEMA_VERSION
from ._store import Store
from ._url import ENV_VAR, resolve_url

__all__ = ["open_store"]


def open_store(url: str | Path | None = None) -> Store:
    """Open (creating or upgrading as needed) the run store at ``url``.

    ``url`` is a file path, ``sqlite:///path``, ``postgresql://user@host:port/db`` or
    ``:memory:``; ``None`` means ``ASSAY_STORE``, else ``DEFAULT_STORE``. Missing schema
    migrations run forward in order; a store from a newer assay raises ``ConfigError``. A
    SQLite file this process cannot write (or ``sqlite:///file:PATH?mode=ro&uri=true``) opens
    read-only: listing and reading work, writing raises ``ConfigError``. A corrupt file, an
    unreachable server or a folder that cannot be created raise one-line ``ConfigError``s
    (naming ``ASSAY_STORE`` when the URL came from it).
    """
    from_env = ((url is None or (isinstance(url, str) and not url.strip()))
                and bool(os.environ.get(ENV_VAR, "").strip()))
    try:
        sa_url = read_only_url(resolve_url(url))
        engine = make_engine(sa_url)
        shown = sa_url.render_as_string(hide_password=True)
        try:
            if is_read_only(sa_url):
                _check_read_only_version(engine, shown)
            else:
                migrate(engine, where=shown)
        except BaseException:
            engine.dispose()
            raise
    except ConfigError as e:
        if from_env:  # the URL is not on the command line: say where it comes from
            raise ConfigError(f"{e} (The store is the one {ENV_VAR} names.)") from e
        raise
    return Store(engine)


def _check_read_only_version(engine: sa.Engine, where: str) -> None:
    """A read-only store cannot be upgraded: it must be at this code's schema version."""
    with transaction(engine, write=False) as conn:
        version = current_version(conn)
    if version != SCHEMA_VERSION:
        fix = ("upgrade assay (pip install -U assay)" if version > SCHEMA_VERSION
               else "open it once with write access, which upgrades it")
        raise ConfigError(
            f"The run store {where} is read-only here and has schema version {version}; this "
            f"assay reads version {SCHEMA_VERSION}. Fix: {fix}, or use another store.")
