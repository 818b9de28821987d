"""Reading the run store: the runs (listed, looked up by id, prefix or ``latest``), a run's rows
(all of them, a page, one row), the rows' stored inputs and the run's aggregates.

``Store`` (in ``_store``) adds the writing; reading needs no write access, so a read-only store
(``Store.read_only``) lists and reads like any other.

Example:
    >>> from assay.store import open_store
    >>> with open_store(":memory:") as store:
    ...     rid = store.create_run(name="smoke")
    ...     store.add_rows(rid, [{"id": "q1"}, {"id": "q2"}])
    ...     store.row_count(rid), store.rows_page(rid, limit=1), store.get(rid[:8]).name
    (2, [{'id': 'q1'}], 'smoke')
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Self

import sqlalchemy as sa

from ..errors import ConfigError
from ._engine import is_postgres, is_read_only, transaction
from ._export import write_records
from ._info import RunInfo, read_infos, select_runs
from ._rows import count_rows, find_row, page, read_inputs, unstorable_key
from ._schema import aggregates as aggregates_t
from ._schema import rows as rows_t
from ._schema import runs as runs_t
from ._schema import tags as tags_t

__all__ = ["RunReader"]

_SHOWN = 10  # candidates listed in a lookup error
_MAX_PAGE = 10_000  # rows per rows_page call


class RunReader:
    """The reading half of ``Store`` (see there); create a store with ``open_store``."""

    def __init__(self, engine: sa.Engine) -> None:
        self._engine = engine
        self.url: str = engine.url.render_as_string(hide_password=True)
        self.read_only: bool = is_read_only(engine.url)

    def __repr__(self) -> str:
        return f"Store({self.url!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the database connections (SQLite checkpoints its WAL into the file)."""
        self._engine.dispose()

    # -- reading ----------------------------------------------------------------------------

    def runs(self, *, tag: str | None = None, name: str | None = None,
             dataset: str | None = None, limit: int | None = None,
             kind: str | None = None) -> list[RunInfo]:
        """Stored runs, newest first. ``tag``, ``name`` and ``kind`` match exactly;
        ``dataset`` matches a substring of the dataset path or a prefix of its sha256
        (case-insensitive)."""
        if limit is not None and (not isinstance(limit, int) or limit < 1):
            raise ConfigError(f"Got limit={limit!r}. Must be a positive integer or None.")
        query = select_runs()
        if tag is not None:
            query = query.where(sa.exists().where(tags_t.c.run_id == runs_t.c.id,
                                                  tags_t.c.tag == tag))
        if name is not None:
            query = query.where(runs_t.c.name == name)
        if kind is not None:
            query = query.where(runs_t.c.kind == kind)
        if dataset is not None:
            needle = dataset.lower()
            query = query.where(sa.or_(
                sa.func.lower(runs_t.c.dataset).contains(needle, autoescape=True),
                sa.func.lower(runs_t.c.dataset_sha256).startswith(needle, autoescape=True)))
        if limit is not None:
            query = query.limit(limit)
        with transaction(self._engine, write=False) as conn:
            if any(unstorable_key(conn, f) for f in (tag, name, dataset, kind)
                   if f is not None):
                return []  # a NUL on PostgreSQL: no run has it
            return read_infos(conn, query)

    def get(self, ref: str) -> RunInfo:
        """The run named by ``ref``: its exact id, a unique prefix of it, or ``"latest"``.

        Raises ``ConfigError`` when no run matches, or when a prefix matches several (listing
        them).
        """
        ref = str(ref).strip()
        with transaction(self._engine, write=False) as conn:
            if ref == "latest":
                found = read_infos(conn, select_runs().limit(1))
                if not found:
                    raise ConfigError(f"The run store {self.url} has no runs yet. Fix: run an "
                                      "evaluation first, or point at another store.")
                return found[0]
            unstorable = unstorable_key(conn, ref)  # a NUL on PostgreSQL: no run has it
            if ref and not unstorable:
                exact = read_infos(conn, select_runs().where(runs_t.c.id == ref))
                if exact:
                    return exact[0]
            ids = [] if unstorable else list(conn.execute(
                sa.select(runs_t.c.id).where(runs_t.c.id.startswith(ref, autoescape=True))
                .order_by(runs_t.c.created.desc(), runs_t.c.id.desc()).limit(_SHOWN + 1)
            ).scalars())
            if len(ids) == 1:
                return read_infos(conn, select_runs().where(runs_t.c.id == ids[0]))[0]
            if ids:
                more = " (and more)" if len(ids) > _SHOWN else ""
                raise ConfigError(
                    f"Run {ref!r} is ambiguous: it matches {', '.join(ids[:_SHOWN])}{more}. "
                    "Fix: give more characters of the id.")
            recent = list(conn.execute(
                sa.select(runs_t.c.id).order_by(runs_t.c.created.desc(), runs_t.c.id.desc())
                .limit(5)).scalars())
        hint = f" Recent runs: {', '.join(recent)}." if recent else " The store has no runs."
        raise ConfigError(f"No run {ref!r} in {self.url}.{hint} Fix: pass a run id, a unique "
                          "prefix of one, or 'latest'.")

    def rows(self, run_id: str) -> list[dict[str, Any]]:
        """The run's per-row records, in first-insert order."""
        with transaction(self._engine, write=False) as conn:
            self._require(conn, run_id)
            texts = conn.execute(
                sa.select(rows_t.c.record).where(rows_t.c.run_id == run_id)
                .order_by(rows_t.c.position, rows_t.c.row_id)).scalars()
            return [json.loads(t) for t in texts]

    def row_count(self, run_id: str) -> int:
        """How many per-row records the run has stored.

        Example:
            >>> from assay.store import open_store
            >>> with open_store(":memory:") as store:
            ...     rid = store.create_run()
            ...     store.add_rows(rid, [{"id": "a"}, {"id": "b"}])
            ...     store.row_count(rid)
            2
        """
        with transaction(self._engine, write=False) as conn:
            self._require(conn, run_id)
            return count_rows(conn, run_id)

    def rows_page(self, run_id: str, *, offset: int = 0, limit: int = 100
                  ) -> list[dict[str, Any]]:
        """Up to ``limit`` (1..10,000) records from the ``offset``-th (0-based), in the run's
        row order: one page, read with the SQL's LIMIT/OFFSET on the (run, position) index.

        Example:
            >>> from assay.store import open_store
            >>> with open_store(":memory:") as store:
            ...     rid = store.create_run()
            ...     store.add_rows(rid, [{"id": f"q{i}"} for i in range(5)])
            ...     [r["id"] for r in store.rows_page(rid, offset=3, limit=10)]
            ['q3', 'q4']
        """
        for name, value, low in (("offset", offset, 0), ("limit", limit, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low or (
                    name == "limit" and value > _MAX_PAGE):
                top = f" and at most {_MAX_PAGE:,}" if name == "limit" else ""
                raise ConfigError(f"Got {name}={value!r}. Must be an integer of at least "
                                  f"{low}{top}.")
        with transaction(self._engine, write=False) as conn:
            self._require(conn, run_id)
            return page(conn, run_id, offset, limit)

    def row_at(self, run_id: str, row_id: str) -> tuple[int, dict[str, Any]] | None:
        """``(position, record)`` of the row ``row_id``: its 0-based place in the run's row
        order (what ``rows_page`` takes as ``offset``) and its record; None when the run has no
        such row.

        Example:
            >>> from assay.store import open_store
            >>> with open_store(":memory:") as store:
            ...     rid = store.create_run()
            ...     store.add_rows(rid, [{"id": "a"}, {"id": "b/#?"}])
            ...     store.row_at(rid, "b/#?"), store.row_at(rid, "zz")
            ((1, {'id': 'b/#?'}), None)
        """
        with transaction(self._engine, write=False) as conn:
            self._require(conn, run_id)
            return find_row(conn, run_id, str(row_id))

    def inputs(self, run_id: str, row_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The stored input fields of the rows ``row_ids``, by row id, in the order asked
        (rows without stored inputs are absent). Values are as stored: masked for secrets.

        Example:
            >>> from assay.store import open_store
            >>> with open_store(":memory:") as store:
            ...     rid = store.create_run()
            ...     store.add_rows(rid, [{"id": "a"}, {"id": "b"}],
            ...                    inputs={"a": {"question": "Key sk-proj-a1b2c3d4e5?"}})
            ...     store.inputs(rid, ["a", "b"])
            {'a': {'question': 'Key ***?'}}
        """
        with transaction(self._engine, write=False) as conn:
            self._require(conn, run_id)
            return read_inputs(conn, run_id, row_ids)

    def aggregates(self, run_id: str) -> dict[str, dict[str, Any]]:
        """Per-metric aggregates stored by ``finish_run`` (``{}`` before it), by metric name."""
        with transaction(self._engine, write=False) as conn:
            self._require(conn, run_id)
            found = conn.execute(
                sa.select(aggregates_t.c.metric, aggregates_t.c.data)
                .where(aggregates_t.c.run_id == run_id).order_by(aggregates_t.c.metric))
            return {metric: json.loads(data) for metric, data in found}

    def export(self, run_id: str, path: str | Path, fmt: str) -> int:
        """Write the run's rows to ``path`` as ``jsonl``, ``csv`` or ``parquet``; return the
        number of rows written. CSV and Parquet have an ``id`` column, the row's input fields
        (question, context, answer, ground_truth, ...) when the run stored them, and, per
        metric, ``<metric>``, ``<metric>/reason`` and ``<metric>/error``; JSONL lines get an
        ``inputs`` object. CSV text cells that a spreadsheet would run as a formula (starting
        with ``=``, ``+``, ``-``, ``@``, tab or CR) are prefixed with ``'``."""
        fmt = str(fmt).lower().lstrip(".")
        records = self.rows(run_id)
        inputs = self.inputs(run_id, [str(r["id"]) for r in records])
        return write_records(records, Path(path), fmt, inputs=inputs or None)

    def _require(self, conn: sa.Connection, run_id: str, *, lock: bool = False) -> str:
        """The run's status; raises ConfigError when there is no run with exactly this id.
        With ``lock`` (PostgreSQL) the run's row is locked until the transaction ends, so
        concurrent writers of one run take turns (SQLite's BEGIN IMMEDIATE already does)."""
        query = sa.select(runs_t.c.status).where(runs_t.c.id == run_id)
        if lock and is_postgres(self._engine):
            query = query.with_for_update()
        status = None if unstorable_key(conn, run_id) else conn.execute(query).scalar()
        if status is None:
            raise ConfigError(f"No run with id {run_id!r} in {self.url}. Fix: pass a full run id "
                              "(resolve a prefix or 'latest' with Store.get(ref).id).")
        return str(status)


