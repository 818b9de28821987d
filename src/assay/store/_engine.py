"""Engines and transactions that behave the same on SQLite and PostgreSQL.

SQLite files run in WAL mode (readers never block the writer, a crash loses no committed
transaction) with ``synchronous=NORMAL`` (a commit is not an fsync: a killed process loses
nothing committed, a power cut may lose the last commits) and a busy timeout, and write
transactions start with ``BEGIN IMMEDIATE`` so two processes writing at once wait for each
other instead of failing half way. A SQLite file this process cannot write is opened
read-only (``read_only_url``): it can be listed and read. PostgreSQL goes through psycopg 3.
Database errors leave as one-line ``ConfigError``s naming the store and the fix
(``store_error``).

Example:
    >>> engine = make_engine(sa.make_url("sqlite://"))
    >>> with transaction(engine, write=True) as conn:
    ...     conn.exec_driver_sql("CREATE TABLE t (x INTEGER)").rowcount
    -1
    >>> engine.dispose()
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import sqlalchemy as sa
from sqlalchemy.pool import StaticPool

from ..errors import ConfigError, OutputError, option
from ._secrets import mask_secrets

__all__ = ["is_postgres", "is_read_only", "make_engine", "read_only_url", "sqlite_path",
           "store_error", "transaction"]

_WRITE = "assay_write"


def is_postgres(engine: sa.Engine) -> bool:
    """Whether ``engine`` talks to PostgreSQL (else SQLite)."""
    return engine.dialect.name == "postgresql"


def sqlite_path(url: sa.URL) -> Path | None:
    """The file of a SQLite URL (``sqlite:///p`` or ``sqlite:///file:p?uri=true``); None for
    PostgreSQL and in-memory stores."""
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    db = str(url.database)
    if url.query.get("uri") == "true" and db.startswith("file:"):
        db = db[len("file:"):]
    return Path(db)


def is_read_only(url: sa.URL) -> bool:
    """Whether ``url`` opens SQLite read-only (``mode=ro``)."""
    return url.get_backend_name() == "sqlite" and url.query.get("mode") == "ro"


def read_only_url(url: sa.URL) -> sa.URL:
    """``url`` itself, or, for an existing SQLite file this process cannot write (the file or
    its folder), the URL that opens it read-only. With a read-only folder and no write-ahead
    log beside it, the file is opened ``immutable`` (SQLite cannot create its shared-memory
    file there, and nobody can be writing it).

    Example:
        >>> read_only_url(sa.make_url("sqlite://")).render_as_string()
        'sqlite://'
    """
    path = sqlite_path(url)
    if path is None or is_read_only(url) or not path.is_file():
        return url
    if os.access(path, os.W_OK) and os.access(path.parent, os.W_OK):
        return url
    query = "mode=ro&uri=true"
    wal = path.with_name(path.name + "-wal")
    if not os.access(path.parent, os.W_OK) and not (wal.is_file() and wal.stat().st_size):
        query += "&immutable=1"
    return sa.make_url(f"sqlite:///file:{quote(str(path))}?{query}")


def make_engine(url: sa.URL) -> sa.Engine:
    """An engine for ``url`` (from ``resolve_url``), with SQLite tuned for safe concurrent use."""
    if url.get_backend_name() == "postgresql":
        try:
            # a server that does not answer fails in 10 s, not after the OS's TCP timeout
            timeout = {} if "connect_timeout" in url.query else {"connect_timeout": 10}
            return sa.create_engine(url, pool_pre_ping=True, connect_args=timeout)
        except ModuleNotFoundError as e:
            raise ConfigError(
                f"A PostgreSQL store needs the psycopg driver ({e}). "
                "Fix: pip install 'assay[postgres]' (or pip install 'psycopg[binary]>=3.1').",
            ) from e
    path = sqlite_path(url)
    read_only = is_read_only(url)
    if path is None:
        engine = sa.create_engine(url, poolclass=StaticPool,
                                  connect_args={"check_same_thread": False})
    else:
        if not read_only:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise ConfigError(f"Cannot create the run store's folder {path.parent} ({e}). "
                                  f"Fix: point {option('store')} or ASSAY_STORE at a writable path.") from e
        engine = sa.create_engine(url, connect_args={"timeout": 30})

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # no implicit BEGIN from sqlite3: we issue our own
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=30000")
        if path is not None and not read_only:
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        write = conn.get_execution_options().get(_WRITE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


@contextmanager
def transaction(engine: sa.Engine, *, write: bool) -> Iterator[sa.Connection]:
    """One transaction: committed when the block ends, rolled back if it raises (Ctrl-C too).

    A database error (other than a constraint violation, which callers handle) leaves as the
    ``ConfigError`` of :func:`store_error`.
    """
    try:
        with engine.connect() as conn:
            if write:
                conn.execution_options(**{_WRITE: True})
            with conn.begin():
                yield conn
    except sa.exc.IntegrityError:
        raise
    except sa.exc.DBAPIError as e:
        raise store_error(e, engine.url) from e


_KINDS: list[tuple[tuple[str, ...], str]] = [  # (what the driver says, why and the fix)
    (("readonly", "read-only", "read only"),
     ("it is read-only here, so it can be listed and read but not written. Fix: make the file "
     "and its folder writable (chmod u+w), or point {store} / ASSAY_STORE at a writable path")),
    (("not a database", "malformed", "file is encrypted", "database corrupt"),
     ("the file is not a readable SQLite database (corrupt, truncated or another kind of file). "
     "Fix: move it aside (mv it to a .bad name) to start a fresh store there, or point {store} "
     "/ ASSAY_STORE at the right file")),
    (("unable to open database file", "cannot open"),
     ("the file cannot be opened (a folder, a missing folder, or no permission). Fix: check the "
     "path is a writable file, or point {store} / ASSAY_STORE at another path")),
    (("database is locked", "database table is locked"),
     ("another process held its write lock for 30 s. Fix: wait for that process (assay runs "
     "shows running runs), then try again")),
    (("cannot contain nul",),
     ("a text to store holds a NUL character (\\x00), which PostgreSQL text cannot hold (SQLite "
      "can). Fix: remove the NUL from that input (a row id, name or tag)")),
    (("disk i/o error", "disk is full", "no space"),
     ("the disk failed or is full. Fix: free space on that disk, or point {store} / "
     "ASSAY_STORE at another disk")),
]


class StoreFullError(OutputError, ConfigError):
    """The run store's disk (or quota) is full: an :class:`~assay.errors.OutputError` (the
    CLI exits 3, as for any file it could not write) that is still a ``ConfigError`` for the
    callers that take a store's errors as one."""


def store_error(e: sa.exc.DBAPIError, url: sa.URL) -> ConfigError:
    """A one-line ``ConfigError`` for a database error: the store (password masked), what
    went wrong and the fix.

    Example:
        >>> import sqlite3
        >>> err = sa.exc.DatabaseError("SELECT 1", {}, sqlite3.DatabaseError("file is not a database"))
        >>> print(store_error(err, sa.make_url("sqlite:////data/runs.sqlite")))  # doctest: +ELLIPSIS
        Run store sqlite:////data/runs.sqlite: file is not a database: the file is not a readable SQLite database ... Fix: move it aside ...
    """
    where = url.render_as_string(hide_password=True)
    detail = mask_secrets(re.sub(r"\s+", " ", str(e.orig or e)).strip()).rstrip(".?! ")
    if url.password:
        detail = detail.replace(str(url.password), "***")
    low = detail.lower()
    for needles, why in _KINDS:
        if any(n in low for n in needles):
            lead = "Cannot open the run store" if "cannot be opened" in why else "Run store"
            fix = why.replace("{store}", option("store"))
            if "full" in low or "no space" in low:
                return StoreFullError(f"{lead} {where}: {detail}: {fix}; then run the command "
                                      f"again (a run: with {option('resume', True)}).",
                                      path=where, errno=errno.ENOSPC)
            return ConfigError(f"{lead} {where}: {detail}: {fix}.")
    if url.get_backend_name() == "postgresql":
        return ConfigError(f"Cannot reach the run store {where}: {detail}. Fix: check that the "
                           "PostgreSQL server is up and that the URL's host, port, user, "
                           "password and database are right.")
    return ConfigError(f"Run store {where}: {detail}. Fix: check the path is a writable SQLite "
                       f"file, or point {option('store')} / ASSAY_STORE at another path.")
