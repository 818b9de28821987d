"""Engines and transactions that behave the same on SQLite and PostgreSQL.

SQLite files run in WAL mode (readers never block the writer, a crash loses no committed
transaction) with a busy timeout, and write transactions start with ``BEGIN IMMEDIATE`` so two
processes writing at once wait for each other instead of failing half way. PostgreSQL goes
through psycopg 3.

Example:
    >>> engine = make_engine(sa.make_url("sqlite://"))
    >>> with transaction(engine, write=True) as conn:
    ...     conn.exec_driver_sql("CREATE TABLE t (x INTEGER)").rowcount
    -1
    >>> engine.dispose()
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.pool import StaticPool

from ..errors import ConfigError

__all__ = ["is_postgres", "make_engine", "transaction"]

_WRITE = "assay_write"


def is_postgres(engine: sa.Engine) -> bool:
    """Whether ``engine`` talks to PostgreSQL (else SQLite)."""
    return engine.dialect.name == "postgresql"


def make_engine(url: sa.URL) -> sa.Engine:
    """An engine for ``url`` (from ``resolve_url``), with SQLite tuned for safe concurrent use."""
    if url.get_backend_name() == "postgresql":
        try:
            return sa.create_engine(url, pool_pre_ping=True)
        except ModuleNotFoundError as e:
            raise ConfigError(
                f"A PostgreSQL store needs the psycopg driver ({e}). "
                "Fix: pip install 'assay[postgres]' (or pip install 'psycopg[binary]>=3.1').",
            ) from e
    memory = url.database in (None, "", ":memory:")
    if memory:
        engine = sa.create_engine(url, poolclass=StaticPool,
                                  connect_args={"check_same_thread": False})
    else:
        folder = Path(url.database).parent  # type: ignore[arg-type]
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ConfigError(f"Cannot create the run store's folder {folder} ({e}). Fix: "
                              "point --store or ASSAY_STORE at a writable path.") from e
        engine = sa.create_engine(url, connect_args={"timeout": 30})

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # no implicit BEGIN from sqlite3: we issue our own
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=30000")
        if not memory:
            cur.execute("PRAGMA journal_mode=WAL")
        cur.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        write = conn.get_execution_options().get(_WRITE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


@contextmanager
def transaction(engine: sa.Engine, *, write: bool) -> Iterator[sa.Connection]:
    """One transaction: committed when the block ends, rolled back if it raises (Ctrl-C too)."""
    with engine.connect() as conn:
        if write:
            conn.execution_options(**{_WRITE: True})
        with conn.begin():
            yield conn
