"""The run store: record every evaluation run so it can be listed, shown, exported, compared.

One ``Store`` wraps one database (a SQLite file by default, or PostgreSQL) through SQLAlchemy
Core. Every write is its own transaction: a crash or Ctrl-C keeps every batch of rows already
added. A run records the process writing it and when it last wrote; once that process is gone
the run reads as ``interrupted`` (``mark_interrupted`` records it for good), and
``claim_run`` lets a resumed evaluation take it over. A complete run is never changed.
Each row may carry its input fields (question, answer, ...), so reports need no dataset file.

Example:
    >>> from assay.store import open_store
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
    >>> try:
    ...     store.add_rows(run_id, [{"id": "q3"}])
    ... except ConfigError as e:
    ...     print(str(e).split(": ", 1)[1][:40])
    a complete run is never changed. Fix: st
    >>> store.close()
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from ..errors import ConfigError, option
from ._engine import transaction
from ._info import (
    JOB_KINDS,
    KINDS,
    STATUSES,
    RunInfo,
    clean_tags,
    dumps,
    loads,
    read_infos,
    select_runs,
    str_map,
)
from ._labels import LabelStore
from ._meta import assay_version, now_iso
from ._owner import Owner
from ._rows import write_rows
from ._schema import aggregates as aggregates_t
from ._schema import rows as rows_t
from ._schema import runs as runs_t
from ._schema import tags as tags_t
from ._secrets import mask_secrets, sanitize

__all__ = ["JOB_KINDS", "KINDS", "STATUSES", "RunInfo", "Store"]

def _owned(now: str) -> dict[str, Any]:
    """The ``runs`` columns that say this process writes the run, as of ``now``."""
    me = Owner.current()
    return {"owner_host": me.host, "owner_pid": me.pid, "owner_start": me.start,
            "heartbeat": now}


class Store(LabelStore):
    """A run store; create one with ``open_store``. ``url`` is the database URL, password
    masked; ``read_only`` is True for a SQLite file this process cannot write (it can be listed
    and read, see ``RunReader``, labels too, see ``LabelStore``; writing raises ``ConfigError``).
    Usable as a context manager (closes on exit)."""

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
        self._writable()
        for _ in range(20):
            run_id = f"{now:%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"
            try:
                with transaction(self._engine, write=True) as conn:
                    taken = conn.execute(sa.select(runs_t.c.id).where(runs_t.c.id == run_id))
                    if taken.first() is not None:
                        continue
                    conn.execute(sa.insert(runs_t).values(id=run_id, **values,
                                                          **_owned(str(values["created"]))))
                    if tag_list:
                        conn.execute(sa.insert(tags_t),
                                     [{"run_id": run_id, "tag": t} for t in tag_list])
                return run_id
            except sa.exc.IntegrityError:  # another process took the same id: draw again
                continue
        raise ConfigError("Could not draw a free run id after 20 tries; is the clock stuck?")

    def add_rows(self, run_id: str, records: Iterable[Mapping[str, Any]],
                 inputs: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        """Store per-row records (``results.jsonl`` lines: ``{"id": ..., "<metric>": {...}}``)
        and, optionally, the rows' input fields by row id (as ``assay.data.row_inputs`` gives
        them; masked for secrets like every stored text; see ``inputs``).

        A row already stored for this run is replaced in place (a resumed run re-adds rows;
        without new inputs it keeps its stored ones); new rows go after the existing ones, so
        ``rows`` returns first-insert order. The whole call is one transaction, taken after
        ``records`` is consumed: if iterating it raises (Ctrl-C), nothing of this call is
        stored and earlier calls are kept. The run is marked as written by this process now
        (its heartbeat); adding rows to an interrupted run (a resume) marks it ``running``
        again. Raises ``ConfigError`` for a complete run.
        """
        batch: dict[str, str] = {}
        for i, rec in enumerate(records):
            if not isinstance(rec, Mapping) or rec.get("id") is None:
                raise ValueError(f"Record {i} of run {run_id!r} has no 'id': got {rec!r:.200}. "
                                 "Each record must be a results.jsonl line, "
                                 "{'id': row_id, '<metric>': {...}}.")
            batch[str(rec["id"])] = dumps(dict(rec))
        stored_inputs: dict[str, str] = {}
        for row_id, fields in (inputs or {}).items():
            if str(row_id) not in batch:
                raise ValueError(f"Got inputs for row {row_id!r}, which is not among the "
                                 f"records of this call to add_rows (run {run_id!r}). Pass "
                                 "inputs together with their row's record.")
            if not isinstance(fields, Mapping):
                raise TypeError(f"Got inputs[{row_id!r}]={fields!r:.200}. Must be a mapping "
                                "of field name to value (assay.data.row_inputs(row)).")
            stored_inputs[str(row_id)] = dumps(sanitize(dict(fields), drop_secret_names=False))
        self._writable()
        with transaction(self._engine, write=True) as conn:
            status = self._require(conn, run_id, lock=True)
            self._not_complete(run_id, status)
            write_rows(conn, run_id, batch, stored_inputs)
            conn.execute(sa.update(runs_t).where(runs_t.c.id == run_id)
                         .values(status="running", finished=None, **_owned(now_iso())))

    def claim_run(self, run_id: str) -> None:
        """Take over a run to add to it (a resumed evaluation): mark it ``running``, written by
        this process. Raises ``ConfigError`` when the run is complete, or when another live
        process is writing it."""
        self._writable()
        with transaction(self._engine, write=True) as conn:
            self._not_complete(run_id, self._require(conn, run_id, lock=True))
            (info,) = read_infos(conn, select_runs().where(runs_t.c.id == run_id))
            me = Owner.current()
            if info.status == "running" and info.owner not in (None, f"{me.host}:{me.pid}"):
                raise ConfigError(
                    f"Run {run_id} in {self.url} is being written by process {info.owner} "
                    f"(last write {info.heartbeat}). Fix: wait for it to finish, or start a "
                    "new run.")
            conn.execute(sa.update(runs_t).where(runs_t.c.id == run_id)
                         .values(status="running", finished=None, **_owned(now_iso())))

    def heartbeat(self, run_id: str) -> None:
        """Record that this process, writing ``run_id``, is alive (a no-op once the run has
        ended)."""
        self._writable()
        with transaction(self._engine, write=True) as conn:
            conn.execute(sa.update(runs_t)
                         .where(runs_t.c.id == run_id, runs_t.c.status == "running")
                         .values(**_owned(now_iso())))

    def finish_run(self, run_id: str, *, summary: Mapping[str, Any], complete: bool,
                   tokens: Mapping[str, Any] | None = None,
                   timings: Mapping[str, Any] | None = None,
                   prompt_sha256: Mapping[str, str] | None = None) -> None:
        """End a run: status ``complete`` (or ``interrupted``), its summary, token counts and
        timings, the prompts' sha256 per metric (when known only once rows are scored), and
        one aggregate per ``summary["metrics"][name]`` mapping. Finishing an interrupted run
        again (after a resume) replaces all of these. A complete run raises ``ConfigError``,
        except for the process that completed it finishing it ``complete`` again (to amend
        its summary; ``update_summary`` is the way to add to it)."""
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
        self._writable()
        with transaction(self._engine, write=True) as conn:
            status = self._require(conn, run_id, lock=True)
            if status == "complete" and not (complete and self._owns(conn, run_id)):
                self._not_complete(run_id, status)
            conn.execute(sa.update(runs_t).where(runs_t.c.id == run_id).values(**values))
            conn.execute(sa.delete(aggregates_t).where(aggregates_t.c.run_id == run_id))
            aggs = [{"run_id": run_id, "metric": str(name), "data": dumps(agg)}
                    for name, agg in per_metric.items() if isinstance(agg, dict)]
            if aggs:
                conn.execute(sa.insert(aggregates_t), aggs)

    def update_summary(self, run_id: str, extra: Mapping[str, Any]) -> None:
        """Add the keys of ``extra`` to the run's stored summary (masked like it), whatever the
        run's status: figures computed after the run, such as a calibration's agreement. Rows,
        status and aggregates are left as they are.

        Example:
            >>> from assay.store import open_store
            >>> with open_store(":memory:") as store:
            ...     rid = store.create_run()
            ...     store.finish_run(rid, summary={"rows": 1}, complete=True)
            ...     store.update_summary(rid, {"calibration": {"kappa": 0.8}})
            ...     store.get(rid).summary
            {'rows': 1, 'calibration': {'kappa': 0.8}}
        """
        if not isinstance(extra, Mapping):
            raise ConfigError(f"Got extra={extra!r:.200}. Must be a mapping.")
        self._writable()
        with transaction(self._engine, write=True) as conn:
            self._require(conn, run_id, lock=True)
            old = conn.execute(sa.select(runs_t.c.summary).where(runs_t.c.id == run_id)).scalar()
            summary = {**(loads(old) or {}),
                       **sanitize(dict(extra), drop_secret_names=False)}
            conn.execute(sa.update(runs_t).where(runs_t.c.id == run_id)
                         .values(summary=dumps(summary)))

    def mark_interrupted(self, run_id: str) -> None:
        """Mark a ``running`` run (e.g. one whose process died) ``interrupted``; a complete or
        already interrupted run is left as it is."""
        self._writable()
        with transaction(self._engine, write=True) as conn:
            status = self._require(conn, run_id, lock=True)
            if status == "running":
                conn.execute(sa.update(runs_t).where(runs_t.c.id == run_id)
                             .values(status="interrupted"))

    def delete(self, run_id: str) -> None:
        """Remove a run with its rows, tags and aggregates (``run_id`` must be a full id)."""
        self._writable()
        with transaction(self._engine, write=True) as conn:
            self._require(conn, run_id, lock=True)
            for table in (aggregates_t, rows_t, tags_t):
                conn.execute(sa.delete(table).where(table.c.run_id == run_id))
            conn.execute(sa.delete(runs_t).where(runs_t.c.id == run_id))

    # -- helpers ----------------------------------------------------------------------------

    def _writable(self) -> None:
        if self.read_only:
            raise ConfigError(
                f"The run store {self.url} is read-only here (the file or its folder is not "
                "writable): it can be listed and read, not written. Fix: make both writable "
                f"(chmod u+w), or point {option('store')} / ASSAY_STORE at a writable path.")

    def _owns(self, conn: sa.Connection, run_id: str) -> bool:
        me = Owner.current()
        found = conn.execute(sa.select(runs_t.c.owner_host, runs_t.c.owner_pid)
                             .where(runs_t.c.id == run_id)).first()
        return found is not None and tuple(found) == (me.host, me.pid)

    def _not_complete(self, run_id: str, status: str) -> None:
        if status == "complete":
            raise ConfigError(f"Run {run_id} in {self.url} is complete: a complete run is never "
                              f"changed. Fix: start a new run (without {option('resume', True)}, or with "
                              f"another {option('out')}).")
