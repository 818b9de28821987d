"""Record an evaluation in the run store as it goes: the run when it starts, each row as it
finishes, the summary at the end (``interrupted`` when it did not finish).

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
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..store import Store, open_store

__all__ = ["RunRecorder", "file_sha256", "open_run_store"]

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

    A store named explicitly must open (ConfigError otherwise). The default store is a
    convenience: when it cannot open (say, a read-only home), a warning says why and the run
    goes on unrecorded.
    """
    if store is None or store is False:
        return None
    if isinstance(store, Store):
        return store
    if store is not True:
        return open_store(store)
    try:
        return open_store(None)
    except ConfigError as e:
        log.warning("this run is not recorded in the run store: %s", e)
        return None


class RunRecorder:
    """One run in the store: ``add`` each finished row, ``finish`` with the summary."""

    def __init__(self, store: Store, run_id: str) -> None:
        self.store = store
        self.run_id = run_id

    @classmethod
    def start(cls, store: Store, *, kind: str, name: str | None, tags: Sequence[str],
              dataset: str | None, metrics: Mapping[str, str], judge: str | None,
              settings: Mapping[str, Any], resume_id: str | None = None) -> RunRecorder:
        """A new run, or the run ``resume_id`` when the store has it (a resumed evaluation
        adds its remaining rows to the same run)."""
        if resume_id:
            try:
                if store.get(resume_id).id == resume_id:
                    return cls(store, resume_id)
            except ConfigError:
                pass  # not in this store: record the resumed work as a new run
        is_file = dataset is not None and Path(dataset).is_file()
        run_id = store.create_run(kind=kind, name=name, tags=tags,
                                  dataset=str(Path(dataset).resolve()) if is_file and dataset
                                  else dataset,
                                  dataset_sha256=file_sha256(dataset) if is_file and dataset
                                  else None,
                                  metrics=dict(metrics), judge=judge, settings=dict(settings))
        return cls(store, run_id)

    def add(self, record: Mapping[str, Any]) -> None:
        self.store.add_rows(self.run_id, [dict(record)])

    def add_many(self, records: Iterable[Mapping[str, Any]]) -> None:
        batch = [dict(r) for r in records]
        if batch:
            self.store.add_rows(self.run_id, batch)

    def finish(self, summary: Mapping[str, Any], *, complete: bool,
               prompt_sha256: Mapping[str, str] | None = None) -> None:
        """Mark the run finished (or interrupted) with its summary and the sha256 of each
        metric's prompt (``{metric: sha256}``, as :class:`~assay.run._tally.RunTally` keeps)."""
        judge = summary.get("judge") or {}
        tokens = {k: judge[k] for k in ("prompt_tokens", "completion_tokens", "requests",
                                        "cache_hits") if k in judge}
        timings = {"elapsed_s": summary.get("elapsed_s")}
        self.store.finish_run(self.run_id, summary=summary, complete=complete, tokens=tokens,
                              timings=timings,
                              prompt_sha256=dict(prompt_sha256 or {}))
