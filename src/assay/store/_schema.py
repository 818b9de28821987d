"""The store's tables as the code reads and writes them today (schema version ``SCHEMA_VERSION``).

These definitions are for queries only: the tables are created and changed by the numbered
migrations in ``_migrations.py``, never by ``metadata.create_all``. A test checks that a store
migrated step by step has exactly these columns.

JSON values are kept as text (``json.dumps``) so SQLite and PostgreSQL store the same bytes and
key order survives.

Example:
    >>> [t.name for t in metadata.sorted_tables]
    ['runs', 'schema_version', 'run_aggregates', 'run_labels', 'run_rows', 'run_tags']
"""

from __future__ import annotations

import sqlalchemy as sa

__all__ = ["SCHEMA_VERSION", "aggregates", "labels", "metadata", "rows", "runs", "schema_version",
           "tags"]

#: The schema version this code writes; ``_migrations.MIGRATIONS`` has one step per version.
SCHEMA_VERSION = 4

metadata = sa.MetaData()

#: One row per applied migration: ``max(version)`` is the store's schema version.
schema_version = sa.Table(
    "schema_version", metadata,
    sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("applied", sa.String(32), nullable=False),
    sa.Column("assay_version", sa.String(64), nullable=False),
)

runs = sa.Table(
    "runs", metadata,
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
    sa.Column("finished", sa.String(32)),  # v2
    sa.Column("owner_host", sa.String(255)),  # v3: the process writing a running run
    sa.Column("owner_pid", sa.Integer),  # v3
    sa.Column("owner_start", sa.String(64)),  # v3: that process's start time (opaque)
    sa.Column("heartbeat", sa.String(32)),  # v3: when that process last wrote
    sa.Index("ix_runs_created", "created"),  # v2
)

tags = sa.Table(
    "run_tags", metadata,
    sa.Column("run_id", sa.String(32), sa.ForeignKey("runs.id", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("tag", sa.String(200), primary_key=True),
    sa.Index("ix_run_tags_tag", "tag"),
)

rows = sa.Table(
    "run_rows", metadata,
    sa.Column("run_id", sa.String(32), sa.ForeignKey("runs.id", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("row_id", sa.Text, primary_key=True),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("record", sa.Text, nullable=False),
    sa.Column("inputs", sa.Text),  # v3: the row's input fields (JSON), when recorded
    sa.Index("ix_run_rows_position", "run_id", "position"),
)

aggregates = sa.Table(
    "run_aggregates", metadata,
    sa.Column("run_id", sa.String(32), sa.ForeignKey("runs.id", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("metric", sa.String(200), primary_key=True),
    sa.Column("data", sa.Text, nullable=False),
)

#: v4: people's labels on a run's rows; saving again for one (run, row, metric, rater) replaces.
labels = sa.Table(
    "run_labels", metadata,
    sa.Column("run_id", sa.String(32), sa.ForeignKey("runs.id", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("row_id", sa.Text, primary_key=True),
    sa.Column("metric", sa.String(200), primary_key=True),
    sa.Column("rater", sa.String(200), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),  # JSON: a rating (1-5 or a label) or a choice
    sa.Column("comment", sa.Text),
    sa.Column("labelled", sa.String(32), nullable=False),  # when it was saved (now_iso)
)
