"""Forward-only schema migrations, one function per version.

``MIGRATIONS[i]`` takes a store from version ``i`` to ``i + 1`` (version 0 is an empty
database). Each step is written against the tables *as they were* at that version, never
against ``_schema``: a released migration is frozen, a change is a new step. ``migrate`` runs
the missing steps in order inside one write transaction (DDL is transactional on SQLite and
PostgreSQL, so a failed step leaves the store as it was), recording each in ``schema_version``.
Two processes opening an old store at once are serialised (``BEGIN IMMEDIATE`` on SQLite, an
advisory lock on PostgreSQL), and the second one finds nothing left to do.

Example:
    >>> import sqlalchemy as sa
    >>> from ._engine import make_engine
    >>> engine = make_engine(sa.make_url("sqlite://"))
    >>> migrate(engine, target=1), migrate(engine), migrate(engine)
    ([1], [2, 3, 4], [])
    >>> engine.dispose()
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa

from ..errors import ConfigError, option
from ._engine import is_postgres, transaction
from ._meta import assay_version, now_iso
from ._schema import SCHEMA_VERSION, schema_version

__all__ = ["MIGRATIONS", "current_version", "migrate"]

_ASSAY_TABLES = ("runs", "run_tags", "run_rows", "run_aggregates", "run_labels")
_PG_LOCK_KEY = 0x61737361  # "assa": serialises migrations of one PostgreSQL database


def _v1_create_tables(conn: sa.Connection) -> None:
    """v1: runs, their tags, their per-row records and their per-metric aggregates."""
    md = sa.MetaData()
    sa.Table(
        "runs", md,
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.Text),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("created", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("dataset", sa.Text),
        sa.Column("dataset_sha256", sa.String(64)),
        sa.Column("metrics", sa.Text, nullable=False),
        sa.Column("prompt_sha256", sa.Text, nullable=False),
        sa.Column("judge", sa.Text),
        sa.Column("settings", sa.Text, nullable=False),
        sa.Column("tokens", sa.Text, nullable=False),
        sa.Column("timings", sa.Text, nullable=False),
        sa.Column("assay_version", sa.String(64), nullable=False),
        sa.Column("summary", sa.Text),
    )
    sa.Table(
        "run_tags", md,
        sa.Column("run_id", sa.String(32), sa.ForeignKey("runs.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("tag", sa.String(200), primary_key=True),
        sa.Index("ix_run_tags_tag", "tag"),
    )
    sa.Table(
        "run_rows", md,
        sa.Column("run_id", sa.String(32), sa.ForeignKey("runs.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("row_id", sa.Text, primary_key=True),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("record", sa.Text, nullable=False),
        sa.Index("ix_run_rows_position", "run_id", "position"),
    )
    sa.Table(
        "run_aggregates", md,
        sa.Column("run_id", sa.String(32), sa.ForeignKey("runs.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("metric", sa.String(200), primary_key=True),
        sa.Column("data", sa.Text, nullable=False),
    )
    md.create_all(conn, checkfirst=False)


def _v2_finished_and_created_index(conn: sa.Connection) -> None:
    """v2: when a run ended (``runs.finished``), and an index for newest-first listing."""
    conn.exec_driver_sql("ALTER TABLE runs ADD COLUMN finished VARCHAR(32)")
    conn.exec_driver_sql("CREATE INDEX ix_runs_created ON runs (created)")


def _v3_owner_heartbeat_and_inputs(conn: sa.Connection) -> None:
    """v3: who is writing a running run (host, PID, process start) and when it last wrote
    (``heartbeat``), so a dead run reads as interrupted; each row's input fields (``inputs``)."""
    for column in ("owner_host VARCHAR(255)", "owner_pid INTEGER", "owner_start VARCHAR(64)",
                   "heartbeat VARCHAR(32)"):
        conn.exec_driver_sql(f"ALTER TABLE runs ADD COLUMN {column}")
    conn.exec_driver_sql("ALTER TABLE run_rows ADD COLUMN inputs TEXT")


def _v4_labels(conn: sa.Connection) -> None:
    """v4: people's labels on a run's rows (``run_labels``): one per run, row, metric and rater,
    its value (JSON text: a rating or a pairwise choice), a comment and when it was given."""
    md = sa.MetaData()
    sa.Table("runs", md, sa.Column("id", sa.String(32), primary_key=True))  # for the key only
    sa.Table(
        "run_labels", md,
        sa.Column("run_id", sa.String(32), sa.ForeignKey("runs.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("row_id", sa.Text, primary_key=True),
        sa.Column("metric", sa.String(200), primary_key=True),
        sa.Column("rater", sa.String(200), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("comment", sa.Text),
        sa.Column("labelled", sa.String(32), nullable=False),
    )
    md.tables["run_labels"].create(conn, checkfirst=False)


#: ``MIGRATIONS[i]`` upgrades a store from version ``i`` to ``i + 1``.
MIGRATIONS: list[Callable[[sa.Connection], None]] = [
    _v1_create_tables,
    _v2_finished_and_created_index,
    _v3_owner_heartbeat_and_inputs,
    _v4_labels,
]
assert len(MIGRATIONS) == SCHEMA_VERSION, "one migration per schema version"


def current_version(conn: sa.Connection) -> int:
    """The store's schema version: 0 for an empty database.

    Raises ``ConfigError`` when the database holds tables of the same names that assay did not
    create (no ``schema_version``), rather than writing into someone else's data.
    """
    inspector = sa.inspect(conn)
    if not inspector.has_table(schema_version.name):
        clash = [t for t in _ASSAY_TABLES if inspector.has_table(t)]
        if clash:
            raise ConfigError(
                f"This database has tables named {', '.join(clash)} but no schema_version table, "
                f"so it is not an assay run store. Fix: point ASSAY_STORE (or {option('store')}) "
                "at a new file or an empty database.")
        return 0
    return int(conn.execute(sa.select(sa.func.max(schema_version.c.version))).scalar() or 0)


def _check_not_newer(version: int, where: str) -> None:
    if version > SCHEMA_VERSION:
        raise ConfigError(
            f"The run store {where} has schema version {version}: it was created by a newer "
            f"assay (this one knows versions up to {SCHEMA_VERSION}). Fix: upgrade assay "
            "(pip install -U assay), or use another store.")


def migrate(engine: sa.Engine, *, target: int = SCHEMA_VERSION, where: str = "") -> list[int]:
    """Bring the store up to ``target``; return the versions applied (``[]``: up to date).

    Raises ``ConfigError`` when the store is newer than this code.
    """
    where = where or engine.url.render_as_string(hide_password=True)
    with transaction(engine, write=False) as conn:
        version = current_version(conn)
    _check_not_newer(version, where)
    if version >= target:
        return []
    applied: list[int] = []
    with transaction(engine, write=True) as conn:
        if is_postgres(engine):
            conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_PG_LOCK_KEY)))
        version = current_version(conn)  # another process may have migrated meanwhile
        _check_not_newer(version, where)
        if version == 0:
            schema_version.create(conn, checkfirst=True)
        for step in range(version, target):
            MIGRATIONS[step](conn)
            conn.execute(sa.insert(schema_version).values(
                version=step + 1, applied=now_iso(), assay_version=assay_version()))
            applied.append(step + 1)
    return applied
