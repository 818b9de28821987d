"""A run's per-row records (and the rows' input fields) in the store: writing a batch, reading a
page, one row, or the inputs of some rows. Each function works inside a caller's transaction.

Positions are dense, ``0 .. n-1`` in first-insert order: a batch's new rows get the next free
positions under the run's write lock, and a row added again keeps its place.

Example:
    >>> from ._engine import make_engine, transaction
    >>> from ._migrations import migrate
    >>> engine = make_engine(sa.make_url("sqlite://"))
    >>> _ = migrate(engine)
    >>> with transaction(engine, write=True) as conn:
    ...     _ = conn.exec_driver_sql(
    ...         "INSERT INTO runs (id, kind, created, status, metrics, prompt_sha256, settings, "
    ...         "tokens, timings, assay_version) VALUES ('r', 'run', '', 'running', '{}', '{}', "
    ...         "'{}', '{}', '{}', '0')")
    ...     write_rows(conn, "r", {"a": '{"id": "a"}', "b": '{"id": "b"}'}, {"b": '{"answer": "x"}'})
    >>> with transaction(engine, write=False) as conn:
    ...     count_rows(conn, "r"), page(conn, "r", 1, 5), find_row(conn, "r", "b")
    ...     read_inputs(conn, "r", ["a", "b", "zz"])
    (2, [{'id': 'b'}], (1, {'id': 'b'}))
    {'b': {'answer': 'x'}}
    >>> engine.dispose()
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

import sqlalchemy as sa

from ._info import IN_CHUNK
from ._schema import rows as rows_t

__all__ = ["count_rows", "find_row", "page", "read_inputs", "unstorable_key", "write_rows"]

#: A lone surrogate: text no database encoding (UTF-8) can hold.
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def unstorable_key(conn: sa.Connection, text: str) -> bool:
    """Whether no text stored on this backend can equal ``text``, so that a lookup by it finds
    nothing without asking the database (which would refuse it): a NUL on PostgreSQL (SQLite
    holds NUL), a lone surrogate anywhere.

    Example:
        >>> engine = sa.create_engine("sqlite://")
        >>> with engine.connect() as conn:
        ...     unstorable_key(conn, "q\\x001"), unstorable_key(conn, "q\\ud8001")
        (False, True)
    """
    return bool(_SURROGATE.search(text)) or (
        "\x00" in text and conn.dialect.name == "postgresql")


def write_rows(conn: sa.Connection, run_id: str, batch: Mapping[str, str],
               inputs: Mapping[str, str]) -> None:
    """Insert or replace the records ``batch`` (row id -> JSON text) and their ``inputs``
    (row id -> JSON text; a row added again without inputs keeps the ones it had)."""
    ids = list(batch)
    existing: set[str] = set()
    for start in range(0, len(ids), IN_CHUNK):
        chunk = ids[start:start + IN_CHUNK]
        existing.update(conn.execute(sa.select(rows_t.c.row_id).where(
            rows_t.c.run_id == run_id, rows_t.c.row_id.in_(chunk))).scalars())
    nxt = -1
    if len(existing) < len(ids):
        top = conn.execute(sa.select(sa.func.max(rows_t.c.position)).where(
            rows_t.c.run_id == run_id)).scalar()  # the (run_id, position) index: one seek
        nxt = -1 if top is None else int(top)
    new = []
    for row_id in ids:
        if row_id not in existing:
            nxt += 1
            new.append({"run_id": run_id, "row_id": row_id, "position": nxt,
                        "record": batch[row_id], "inputs": inputs.get(row_id)})
    if new:
        conn.execute(sa.insert(rows_t), new)
    changed = [{"b_run": run_id, "b_row": r, "b_record": batch[r], "b_inputs": inputs.get(r)}
               for r in ids if r in existing]
    if changed:
        conn.execute(
            sa.update(rows_t)
            .where(rows_t.c.run_id == sa.bindparam("b_run"),
                   rows_t.c.row_id == sa.bindparam("b_row"))
            .values(record=sa.bindparam("b_record"),
                    inputs=sa.func.coalesce(sa.bindparam("b_inputs", type_=sa.Text),
                                            rows_t.c.inputs)),
            changed)


def count_rows(conn: sa.Connection, run_id: str) -> int:
    """How many rows the run has stored."""
    return int(conn.execute(sa.select(sa.func.count()).select_from(rows_t)
                            .where(rows_t.c.run_id == run_id)).scalar() or 0)


def page(conn: sa.Connection, run_id: str, offset: int, limit: int) -> list[dict[str, Any]]:
    """``limit`` records from the ``offset``-th, in position order (LIMIT/OFFSET in the SQL)."""
    texts = conn.execute(
        sa.select(rows_t.c.record).where(rows_t.c.run_id == run_id)
        .order_by(rows_t.c.position).offset(offset).limit(limit)).scalars()
    return [json.loads(t) for t in texts]


def find_row(conn: sa.Connection, run_id: str, row_id: str) -> tuple[int, dict[str, Any]] | None:
    """``(position, record)`` of one row, or None when the run has no such row."""
    if unstorable_key(conn, row_id):
        return None
    found = conn.execute(sa.select(rows_t.c.position, rows_t.c.record).where(
        rows_t.c.run_id == run_id, rows_t.c.row_id == row_id)).first()
    return None if found is None else (int(found[0]), json.loads(found[1]))


def read_inputs(conn: sa.Connection, run_id: str,
                row_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """``{row id: inputs}`` for the rows among ``row_ids`` that have stored inputs."""
    ids = [r for r in dict.fromkeys(str(r) for r in row_ids) if not unstorable_key(conn, r)]
    out: dict[str, dict[str, Any]] = {}
    for start in range(0, len(ids), IN_CHUNK):
        found = conn.execute(sa.select(rows_t.c.row_id, rows_t.c.inputs).where(
            rows_t.c.run_id == run_id, rows_t.c.row_id.in_(ids[start:start + IN_CHUNK]),
            rows_t.c.inputs.is_not(None)))
        out.update((row_id, json.loads(text)) for row_id, text in found)
    return {r: out[r] for r in ids if r in out}
