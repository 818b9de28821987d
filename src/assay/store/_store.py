"""The run store: record every evaluation run so it can be listed, shown, exported, compared.

One ``Store`` wraps one database (a SQLite file by default, or PostgreSQL) through SQLAlchemy
Core. Every write is its own transaction: a crash or Ctrl-C keeps every batch of rows already
added and leaves the run ``running`` (``mark_interrupted`` records what happened).

Example:
    >>> store = open_store(":memory:")
    >>> run_id = store.create_run(name="nightly", tags=["ci"], metrics={"f1_score": "1"},
    ...                           settings={"concurrency": 4, "api_key": "sk-never-stored"})
    >>> store.add_rows(run_id, [{"id": "q1", "f1_score": {"value": 1.0, "reason": None}},
    ...                         {"id": "q2", "f1_score": {"value": 0.5, "reason": None}}])
    >>> store.finish_run(run_id, summary={"rows": 2, "metrics": {"f1_score": {"mean": 0.75}}},
    ...                  complete=True, tokens={"prompt": 0, "completion": 0})
    >>> run = store.get("latest")
    >>> run.id == run_id, run.status, run.rows, run.settings, run.tags
    (True, 'complete', 2, {'concurrency': 4}, ['ci'])
    >>> [r["id"] for r in store.rows(run_id)], store.aggregates(run_id)
    (['q1', 'q2'], {'f1_score': {'mean': 0.75}})
    >>> store.close()
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

import sqlalchemy as sa

from ..errors import ConfigError
from ._engine import is_postgres, make_engine, transaction
from ._export import write_records
from ._info import (
    IN_CHUNK,
    KINDS,
    STATUSES,
    RunInfo,
    clean_tags,
    dumps,
    read_infos,
    select_runs,
    str_map,
)
from ._meta import assay_version, now_iso
from ._migrations import migrate
from ._schema import aggregates as aggregates_t
from ._schema import rows as rows_t
from ._schema import runs as runs_t
from ._schema import tags as tags_t
from ._secrets import mask_secrets, sanitize
from ._url import resolve_url

__all__ = ["KINDS", "STATUSES", "RunInfo", "Store", "open_store"]

_SHOWN = 10  # candidates listed in a lookup error

class Store:
    """A run store; create one with ``open_store``. ``url`` is the database URL, password
    masked. Usable as a context manager (closes on exit)."""

    def __init__(self, engine: sa.Engine) -> None:
        self._engine = engine
        self.url: str = engine.url.render_as_string(hide_password=True)

    def __repr__(self) -> str:
        return f"Store({self.url!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the database connections (SQLite checkpoints its WAL into the file)."""
        self._engine.dispose()

    # -- writing ----------------------------------------------------------------------------

    def create_run(self, *, kind: str = "run", name: str | None = None,
                   tags: Iterable[str] = (), dataset: str | Path | None = None,
                   dataset_sha256: str | None = None, metrics: Mapping[str, Any] | None = None,
                   prompt_sha256: Mapping[str, str] | None = None, judge: str | None = None,
                   settings: Mapping[str, Any] | None = None) -> str:
        """Record a new run (status ``running``) and return its id, e.g.
        ``"20261121-201500-3fa2"``: UTC time of creation, then 4 random hex digits.

        ``settings`` is sanitized: secret-named keys are dropped and secret-looking values
        masked (see ``assay.store.sanitize``). Tags are stored as a sorted set.
        """
        if kind not in KINDS:
            raise ConfigError(f"Got kind={kind!r}. Must be one of {', '.join(KINDS)}.")
        if settings is not None and not isinstance(settings, Mapping):
            raise ConfigError(f"Got settings={settings!r}. Must be a mapping (or None).")
        tag_list = clean_tags(tags)
        now = datetime.now(UTC)
        values = {
            "name": None if name is None else mask_secrets(str(name)),
            "kind": kind,
            "created": now_iso(now),
            "status": "running",
            "dataset": None if dataset is None else mask_secrets(str(dataset)),
            "dataset_sha256": dataset_sha256,
            "metrics": dumps(str_map(metrics, "metrics")),
            "prompt_sha256": dumps(str_map(prompt_sha256, "prompt_sha256")),
            "judge": None if judge is None else mask_secrets(str(judge)),
            "settings": dumps(sanitize(dict(settings or {}))),
            "tokens": "{}",
            "timings": "{}",
            "assay_version": assay_version(),
            "summary": None,
            "finished": None,
        }
        for _ in range(20):
            run_id = f"{now:%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"
            try:
                with transaction(self._engine, write=True) as conn:
                    taken = conn.execute(sa.select(runs_t.c.id).where(runs_t.c.id == run_id))
                    if taken.first() is not None:
                        continue
                    conn.execute(sa.insert(runs_t).values(id=run_id, **values))
                    if tag_list:
                        conn.execute(sa.insert(tags_t),
                                     [{"run_id": run_id, "tag": t} for t in tag_list])
                return run_id
            except sa.exc.IntegrityError:  # another process took the same id: draw again
                continue
        raise ConfigError("Could not draw a free run id after 20 tries; is the clock stuck?")

    def add_rows(self, run_id: str, records: Iterable[Mapping[str, Any]]) -> None:
        """Store per-row records (``results.jsonl`` lines: ``{"id": ..., "<metric>": {...}}``).

        A row already stored for this run is replaced in place (a resumed run re-adds rows);
        new rows go after the existing ones, so ``rows`` returns first-insert order. The whole
        call is one transaction, taken after ``records`` is consumed: if iterating it raises
        (Ctrl-C), nothing of this call is stored and earlier calls are kept. Adding rows to an
        interrupted run (a resume) marks it ``running`` again.
        """
        batch: dict[str, str] = {}
        for i, rec in enumerate(records):
            if not isinstance(rec, Mapping) or rec.get("id") is None:
                raise ValueError(f"Record {i} of run {run_id!r} has no 'id': got {rec!r:.200}. "
                                 "Each record must be a results.jsonl line, "
                                 "{'id': row_id, '<metric>': {...}}.")
            batch[str(rec["id"])] = dumps(dict(rec))
        with transaction(self._engine, write=True) as conn:
            status = self._require(conn, run_id, lock=True)
            ids = list(batch)
            existing: set[str] = set()
            for start in range(0, len(ids), IN_CHUNK):
                chunk = ids[start:start + IN_CHUNK]
                existing.update(conn.execute(sa.select(rows_t.c.row_id).where(
                    rows_t.c.run_id == run_id, rows_t.c.row_id.in_(chunk))).scalars())
            top = conn.execute(sa.select(sa.func.max(rows_t.c.position)).where(
                rows_t.c.run_id == run_id)).scalar()
            nxt = -1 if top is None else int(top)
            new = []
            for row_id in ids:
                if row_id not in existing:
                    nxt += 1
                    new.append({"run_id": run_id, "row_id": row_id, "position": nxt,
                                "record": batch[row_id]})
            if new:
                conn.execute(sa.insert(rows_t), new)
            changed = [{"b_run": run_id, "b_row": r, "b_record": batch[r]}
                       for r in ids if r in existing]
            if changed:
                conn.execute(
                    sa.update(rows_t)
                    .where(rows_t.c.run_id == sa.bindparam("b_run"),
                           rows_t.c.row_id == sa.bindparam("b_row"))
                    .values(record=sa.bindparam("b_record")),
                    changed)
            if status == "interrupted":
                conn.execute(sa.update(runs_t).where(runs_t.c.id == run_id)
                             .values(status="running", finished=None))

    def finish_run(self, run_id: str, *, summary: Mapping[str, Any], complete: bool,
                   tokens: Mapping[str, Any] | None = None,
                   timings: Mapping[str, Any] | None = None,
                   prompt_sha256: Mapping[str, str] | None = None) -> None:
        """End a run: status ``complete`` (or ``interrupted``), its summary, token counts and
        timings, the prompts' sha256 per metric (when known only once rows are scored), and
        one aggregate per ``summary["metrics"][name]`` mapping. Finishing again (after a
        resume) replaces all of these."""
        if not isinstance(summary, Mapping):
            raise ConfigError(f"Got summary={summary!r:.200}. Must be a mapping.")
        clean = sanitize(dict(summary), drop_secret_names=False)
        values: dict[str, Any] = {
            "status": "complete" if complete else "interrupted",
            "summary": dumps(clean),
            "finished": now_iso(),
        }
        if tokens is not None:
            values["tokens"] = dumps(sanitize(dict(tokens), drop_secret_names=False))
        if timings is not None:
            values["timings"] = dumps(sanitize(dict(timings), drop_secret_names=False))
        if prompt_sha256 is not None:
            values["prompt_sha256"] = dumps(dict(prompt_sha256))
        per_metric = clean.get("metrics") if isinstance(clean.get("metrics"), dict) else {}
        with transaction(self._engine, write=True) as conn:
            self._require(conn, run_id, lock=True)
            conn.execute(sa.update(runs_t).where(runs_t.c.id == run_id).values(**values))
            conn.execute(sa.delete(aggregates_t).where(aggregates_t.c.run_id == run_id))
            aggs = [{"run_id": run_id, "metric": str(name), "data": dumps(agg)}
                    for name, agg in per_metric.items() if isinstance(agg, dict)]
            if aggs:
                conn.execute(sa.insert(aggregates_t), aggs)

    def mark_interrupted(self, run_id: str) -> None:
        """Mark a ``running`` run (e.g. one whose process died) ``interrupted``; a complete or
        already interrupted run is left as it is."""
        with transaction(self._engine, write=True) as conn:
            status = self._require(conn, run_id, lock=True)
            if status == "running":
                conn.execute(sa.update(runs_t).where(runs_t.c.id == run_id)
                             .values(status="interrupted"))

    def delete(self, run_id: str) -> None:
        """Remove a run with its rows, tags and aggregates (``run_id`` must be a full id)."""
        with transaction(self._engine, write=True) as conn:
            self._require(conn, run_id, lock=True)
            for table in (aggregates_t, rows_t, tags_t):
                conn.execute(sa.delete(table).where(table.c.run_id == run_id))
            conn.execute(sa.delete(runs_t).where(runs_t.c.id == run_id))

    # -- reading ----------------------------------------------------------------------------

    def runs(self, *, tag: str | None = None, name: str | None = None,
             dataset: str | None = None, limit: int | None = None) -> list[RunInfo]:
        """Stored runs, newest first. ``tag`` and ``name`` match exactly; ``dataset`` matches a
        substring of the dataset path or a prefix of its sha256 (case-insensitive)."""
        if limit is not None and (not isinstance(limit, int) or limit < 1):
            raise ConfigError(f"Got limit={limit!r}. Must be a positive integer or None.")
        query = select_runs()
        if tag is not None:
            query = query.where(sa.exists().where(tags_t.c.run_id == runs_t.c.id,
                                                  tags_t.c.tag == tag))
        if name is not None:
            query = query.where(runs_t.c.name == name)
        if dataset is not None:
            needle = dataset.lower()
            query = query.where(sa.or_(
                sa.func.lower(runs_t.c.dataset).contains(needle, autoescape=True),
                sa.func.lower(runs_t.c.dataset_sha256).startswith(needle, autoescape=True)))
        if limit is not None:
            query = query.limit(limit)
        with transaction(self._engine, write=False) as conn:
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
            if ref:
                exact = read_infos(conn, select_runs().where(runs_t.c.id == ref))
                if exact:
                    return exact[0]
            ids = list(conn.execute(
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
        number of rows written. CSV and Parquet have an ``id`` column and, per metric,
        ``<metric>``, ``<metric>/reason`` and ``<metric>/error``."""
        fmt = str(fmt).lower().lstrip(".")
        return write_records(self.rows(run_id), Path(path), fmt)

    # -- helpers ----------------------------------------------------------------------------

    def _require(self, conn: sa.Connection, run_id: str, *, lock: bool = False) -> str:
        """The run's status; raises ConfigError when there is no run with exactly this id.
        With ``lock`` (PostgreSQL) the run's row is locked until the transaction ends, so
        concurrent writers of one run take turns (SQLite's BEGIN IMMEDIATE already does)."""
        query = sa.select(runs_t.c.status).where(runs_t.c.id == run_id)
        if lock and is_postgres(self._engine):
            query = query.with_for_update()
        status = conn.execute(query).scalar()
        if status is None:
            raise ConfigError(f"No run with id {run_id!r} in {self.url}. Fix: pass a full run id "
                              "(resolve a prefix or 'latest' with Store.get(ref).id).")
        return str(status)


def open_store(url: str | Path | None = None) -> Store:
    """Open (creating or upgrading as needed) the run store at ``url``.

    ``url`` is a file path, ``sqlite:///path``, ``postgresql://user@host:port/db`` or
    ``:memory:``; ``None`` means ``ASSAY_STORE``, else ``DEFAULT_STORE``. Missing schema
    migrations run forward in order; a store from a newer assay raises ``ConfigError``.
    """
    sa_url = resolve_url(url)
    engine = make_engine(sa_url)
    shown = sa_url.render_as_string(hide_password=True)
    try:
        migrate(engine, where=shown)
    except sa.exc.OperationalError as e:
        engine.dispose()
        raise ConfigError(
            f"Cannot open the run store {shown}: {str(e.orig).strip() or e}. Fix: check the path "
            "is a writable file (or the PostgreSQL server is up and the URL, user and database "
            "are right).") from e
    except BaseException:
        engine.dispose()
        raise
    return Store(engine)
