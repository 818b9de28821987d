"""Record an evaluation in the run store as it goes: the run when it starts, its rows in
batches as they finish, the summary at the end (``interrupted`` when it did not finish).

Rows are written in batched transactions: every ``batch_rows`` rows, or once the oldest
unwritten row has waited ``batch_seconds`` (checked on each ``add`` and by a background
thread), and always on ``flush``, ``finish`` and ``close``. A process killed outright loses at
most the rows not yet written, which are in ``results.jsonl`` already, and ``--resume``
re-adds them. The same thread refreshes the run's heartbeat at least every ``HEARTBEAT_S``
seconds, so ``assay runs`` tells a live run from a dead one.

Example:
    >>> from assay.store import open_store
    >>> store = open_store(":memory:")
    >>> rec = RunRecorder.start(store, kind="run", name="demo", tags=["ci"], dataset=None,
    ...                         metrics={"exact_match": "1"}, judge=None, settings={})
    >>> rec.add({"id": "q1", "exact_match": {"value": 1.0}})
    >>> rec.finish({"metrics": {"exact_match": {"mean": 1.0}}}, complete=True)
    >>> info = store.get(rec.run_id)
    >>> info.status, info.rows, info.name
    ('complete', 1, 'demo')
    >>> RunRecorder.start(store, kind="run", name="again", tags=[], dataset=None, metrics={},
    ...                   judge=None, settings={}, resume_id=rec.run_id)
    Traceback (most recent call last):
    ...
    assay.errors.ConfigError: Run ... is complete: a complete run is never changed. ...
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError, option
from ..store import ENV_VAR, HEARTBEAT_S, Store, open_store

__all__ = ["RunRecorder", "file_sha256", "open_run_store", "start_recording"]

log = logging.getLogger(__name__)


def file_sha256(path: str | Path) -> str | None:
    """The sha256 of a file's bytes, or None when it is not a file."""
    path = Path(path)
    if not path.is_file():
        return None
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def open_run_store(store: str | Path | Store | bool | None) -> Store | None:
    """``None``/``False``: no store; ``True``: the default one (``ASSAY_STORE`` or the user
    data dir); a path or URL; or a Store as it is.

    A store named explicitly, by the caller or by ``ASSAY_STORE``, must open (ConfigError
    otherwise, before any judge call; a read-only one raises when the run is created): CI that
    sets ``ASSAY_STORE`` is never left thinking a run was recorded. The user data dir's store
    is a convenience: when it cannot open or is read-only (say, a read-only home), a warning
    says why and the run goes on unrecorded.
    """
    if store is None or store is False:
        return None
    if isinstance(store, Store):
        return store
    if store is not True or os.environ.get(ENV_VAR, "").strip():
        return open_store(None if store is True else store)
    try:
        opened = open_store(None)
    except ConfigError as e:
        log.warning("this run is not recorded in the run store: %s", e)
        return None
    if opened.read_only:
        log.warning("this run is not recorded in the run store: %s is read-only here. Fix: "
                    "make it and its folder writable, or point %s / ASSAY_STORE at a "
                    "writable path.", opened.url, option("store"))
        opened.close()
        return None
    return opened


def start_recording(store: str | Path | Store | bool | None, *, previous_id: str | None,
                    unchanged: bool, **run: Any) -> tuple[RunRecorder | None, str | None]:
    """The recorder of an evaluation (``None`` when it is not recorded) and, when the store
    already holds it complete and unchanged, that run's id instead.

    ``previous_id`` is the stored run a resumed evaluation continues (its output folder's);
    ``unchanged`` says the resume has nothing to score. A resume of a run the store holds
    complete adds nothing when ``unchanged`` (no second run, no rows again), and is recorded
    as a new run otherwise (a complete run is never changed). A stored run not complete is
    continued; one the store does not hold is recorded anew. ``run`` goes to
    :meth:`RunRecorder.start`.

    Example:
        >>> store = open_store(":memory:")
        >>> first = RunRecorder.start(store, kind="run", name=None, tags=[], dataset=None,
        ...                           metrics={}, judge=None, settings={})
        >>> first.finish({}, complete=True)
        >>> start_recording(store, previous_id=first.run_id, unchanged=True, kind="run",
        ...                 name=None, tags=[], dataset=None, metrics={}, judge=None,
        ...                 settings={}) == (None, first.run_id)
        True
        >>> len(store.runs())
        1
    """
    run_store = open_run_store(store)
    if run_store is None:
        return None, None
    status = None
    if previous_id:
        try:
            info = run_store.get(previous_id)
            status = info.status if info.id == previous_id else None
        except ConfigError:
            status = None  # not in this store
    if status == "complete" and unchanged:
        if not isinstance(store, Store):
            run_store.close()
        return None, previous_id
    resume_id = previous_id if status not in (None, "complete") else None
    return RunRecorder.start(run_store, resume_id=resume_id, **run), None


class RunRecorder:
    """One run in the store: ``add`` each finished row (written in batches), ``finish`` with
    the summary (or ``close`` without one). See the module docstring for when rows are
    written; a write that fails in the background thread is raised by the next ``add``,
    ``flush`` or ``finish``."""

    def __init__(self, store: Store, run_id: str, *, batch_rows: int = 500,
                 batch_seconds: float = 0.5, heartbeat_s: float = HEARTBEAT_S) -> None:
        self.store = store
        self.run_id = run_id
        self.batch_rows, self.batch_seconds = batch_rows, batch_seconds
        self.heartbeat_s = heartbeat_s
        self._pending: dict[str, tuple[dict[str, Any], Mapping[str, Any] | None]] = {}
        self._oldest = 0.0  # monotonic time the oldest pending row arrived
        self._last_write = time.monotonic()
        self._lock = threading.Lock()  # guards _pending
        self._write_lock = threading.Lock()  # one write at a time, in order
        self._error: BaseException | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if store.url != "sqlite://":  # an in-memory store has no other reader to tell
            self._thread = threading.Thread(target=self._beat, name=f"assay-store-{run_id}",
                                            daemon=True)
            self._thread.start()

    @classmethod
    def start(cls, store: Store, *, kind: str, name: str | None, tags: Sequence[str],
              dataset: str | None, metrics: Mapping[str, str], judge: str | None,
              settings: Mapping[str, Any], resume_id: str | None = None,
              dataset_sha256: str | None = None, **options: Any) -> RunRecorder:
        """A new run, or the run ``resume_id`` when the store has it (a resumed evaluation
        adds its remaining rows to the same run, now owned by this process). ``options`` go
        to the constructor (``batch_rows``, ``batch_seconds``, ``heartbeat_s``).
        ``dataset_sha256``: the bytes read, when known (a piped dataset names no file to hash).

        Raises:
            ConfigError: ``resume_id`` names a complete run (never changed), or a run that
                another live process is writing.
        """
        if resume_id:
            try:
                found = store.get(resume_id).id == resume_id
            except ConfigError:
                found = False  # not in this store: record the resumed work as a new run
            if found:
                store.claim_run(resume_id)
                return cls(store, resume_id, **options)
        is_file = dataset is not None and Path(dataset).is_file()
        run_id = store.create_run(kind=kind, name=name, tags=tags,
                                  dataset=str(Path(dataset).resolve()) if is_file and dataset
                                  else dataset,
                                  dataset_sha256=dataset_sha256 or (
                                      file_sha256(dataset) if is_file and dataset else None),
                                  metrics=dict(metrics), judge=judge, settings=dict(settings))
        return cls(store, run_id, **options)

    def add(self, record: Mapping[str, Any], inputs: Mapping[str, Any] | None = None) -> None:
        """A finished row's record (and its input fields, ``assay.data.row_inputs``); written
        with the next batch."""
        self._raise_pending_error()
        now = time.monotonic()
        with self._lock:
            if not self._pending:
                self._oldest = now
            row_id = str(record["id"])
            old = self._pending.get(row_id)  # re-added before written: the latest, same place
            self._pending[row_id] = (dict(record), inputs if inputs is not None
                                     else old[1] if old else None)
            due = (len(self._pending) >= self.batch_rows
                   or now - self._oldest >= self.batch_seconds)
        if due:
            self.flush()

    def add_many(self, records: Iterable[Mapping[str, Any]]) -> None:
        """Several records at once, written now."""
        for record in records:
            self.add(record)
        self.flush()

    def flush(self) -> None:
        """Write the pending rows now, in one transaction (and refresh the heartbeat)."""
        self._raise_pending_error()
        self._write()

    def finish(self, summary: Mapping[str, Any], *, complete: bool,
               prompt_sha256: Mapping[str, str] | None = None) -> None:
        """Write the pending rows, stop the heartbeat and mark the run finished (or
        interrupted) with its summary and the sha256 of each metric's prompt (``{metric:
        sha256}``, as :class:`~assay.run._tally.RunTally` keeps). When the pending rows cannot
        be written (a full disk), the run is marked interrupted, never complete with rows
        missing, and the error is raised: ``--resume`` adds them."""
        self._stop_thread()
        try:
            self.flush()
        except BaseException:
            complete = False
            raise
        finally:
            judge = summary.get("judge") or {}
            tokens = {k: judge[k] for k in ("prompt_tokens", "processed_prompt_tokens",
                                            "completion_tokens", "requests", "cache_hits")
                      if k in judge}
            timings = {"elapsed_s": summary.get("elapsed_s")}
            self.store.finish_run(self.run_id, summary=summary, complete=complete,
                                  tokens=tokens, timings=timings,
                                  prompt_sha256=dict(prompt_sha256 or {}))

    def close(self) -> None:
        """Write the pending rows and stop the heartbeat, without finishing the run (it stays
        ``running`` and reads as ``interrupted`` once this process is gone)."""
        self._stop_thread()
        self.flush()

    # -- internals ----------------------------------------------------------------------

    def _write(self) -> None:
        with self._write_lock:
            with self._lock:
                pending, self._pending = self._pending, {}
            if not pending:
                return
            try:
                self.store.add_rows(
                    self.run_id, [rec for rec, _ in pending.values()],
                    inputs={r: i for r, (_, i) in pending.items() if i is not None} or None)
            except BaseException:
                with self._lock:  # keep them for a later try (finish / close)
                    self._pending = {**pending, **self._pending}
                raise
            self._last_write = time.monotonic()

    def _beat(self) -> None:
        """The background thread: write rows left waiting, refresh the heartbeat."""
        tick = max(0.05, min(self.batch_seconds, self.heartbeat_s))
        while not self._stop.wait(tick):
            try:
                with self._lock:
                    stale = bool(self._pending) and (
                        time.monotonic() - self._oldest >= self.batch_seconds)
                if stale:
                    self._write()
                elif time.monotonic() - self._last_write >= self.heartbeat_s:
                    with self._write_lock:
                        self.store.heartbeat(self.run_id)
                    self._last_write = time.monotonic()
            except BaseException as e:  # noqa: BLE001 - handed to the run's own thread
                self._error = e
                return

    def _raise_pending_error(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def _stop_thread(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        self._thread = None
