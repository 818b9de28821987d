"""One job: the way every command that makes rows runs (``simulate``, ``jailbreak``,
``robustness``, ``generate``; ``evaluate`` claims its folder and scores on the same loop): its
output held, its items worked ``parallel`` at a time (:func:`~assay.records.work_each`),
each row written once every earlier item's is (evaluate's ordered writer,
:class:`~assay.records.ResultSink`), the file rewritten in item order at the end (a
resume's kept rows among the new), the run recorded in the run store with its kind.

* **The output is held** for the job's life by the one output lock (:func:`hold_output`: a
  folder's ``.assay.lock``, or ``.FILE.jsonl.lock`` beside a file), so a second writer, from
  the CLI or from Python, is refused at once, naming the holder.
* **One resume rule** (:meth:`Job.begin`): an output that holds an earlier run's files is
  refused without ``resume`` or ``overwrite``, and a resume whose settings differ is refused
  naming each difference (:func:`~assay.records._side_run.check_resume_files`). The manifest
  ``FILE.run.json`` holds the settings and the job's ``status``: ``running``, ``complete`` or
  ``interrupted``, the stored run's id and the owner.
* **Ctrl-C** (or a crash) keeps every row written; the manifest says ``interrupted``, the
  stored run too, and the error goes on (the CLI exits 130).

Example:
    >>> import asyncio, json, tempfile
    >>> from pathlib import Path
    >>> from assay.store import open_store
    >>> store = open_store(":memory:")
    >>> out = Path(tempfile.mkdtemp()) / "sq.jsonl"
    >>> async def square(n: int) -> dict:
    ...     await asyncio.sleep(0.01 * (3 - n))  # the last finishes first
    ...     return {"id": str(n), "square": n * n}
    >>> async def main() -> str | None:
    ...     with Job(out, kind="generate", store=store) as job:
    ...         job.begin({"numbers": 3}, keys=("numbers",), words=WORDS)
    ...         done = await job.run([1, 2, 3], square, key=str, parallel=3)
    ...         return job.finish({"rows": len(done.rows)})
    >>> run_id = asyncio.run(main())
    >>> [json.loads(line)["id"] for line in out.read_text().splitlines()]
    ['1', '2', '3']
    >>> json.loads(out.with_name("sq.run.json").read_text())["status"]
    'complete'
    >>> info = store.get(run_id)
    >>> info.kind, info.status, info.rows
    ('generate', 'complete', 3)
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Awaitable, Callable, Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

from .._files import beside, write_json
from ..store import Store
from ._manifest import RunManifest, stored_run_of
from ._outdir import OutputClaim, _owner, hold_output, lock_output
from ._pool import JobRows, check_parallel, work_each
from ._progress import RowProgress
from ._recording import RunRecorder, open_run_store, start_recording
from ._results import ResultsWriter, load_finished, rewrite_in_order
from ._side_run import ResumeWords, check_resume_files, plain_difference
from ._sink import ResultSink

__all__ = ["WORDS", "Job", "JobRows"]

Item = TypeVar("Item")
Done = TypeVar("Done")

#: How a refusal names a job's output when its command says nothing more specific.
WORDS = ResumeWords(holds="an earlier run's rows", contents="the rows",
                    made="made with other inputs or settings", same="the same inputs and options")


class Job:
    """One producer's run on its output ``out`` (a file ``FILE.jsonl``, or a folder with
    ``folder=True``), recorded in ``store`` (as :func:`~assay.records.open_run_store` takes
    it; None or False: not recorded) as a run of ``kind`` with its ``name``, ``tags``,
    ``dataset``, ``judge`` and ``settings``.

    Use it as a context manager (it holds the output lock inside), call :meth:`begin` once
    the output may be written, :meth:`run` for each set of items, then :meth:`finish`.
    Leaving the block on an error (Ctrl-C included) marks the job ``interrupted``.
    """

    def __init__(self, out: str | Path, *, kind: str, folder: bool = False,
                 store: str | Path | Store | bool | None = None, name: str | None = None,
                 tags: Sequence[str] = (), dataset: str | None = None, judge: str | None = None,
                 settings: Mapping[str, Any] | None = None) -> None:
        self.out = Path(out)
        self.kind, self.folder, self.name, self.dataset = kind, folder, name, dataset
        self.tags, self.judge = list(tags), judge
        self.settings = dict(settings or {})
        self._store_arg = store
        self._held = ExitStack()
        self._store: Store | None = None
        self._recorder: RunRecorder | None = None
        self._manifest_path: Path | None = None
        self._manifest: dict[str, Any] | None = None
        #: A folder's claim (its lock, and its ``run.json`` when :meth:`begin` gets a
        #: :class:`~assay.records.RunManifest`: evaluate's run folder).
        self.claim: OutputClaim | None = None
        self.run_id: str | None = None
        self.finished = False

    @property
    def rows_path(self) -> Path:
        """The rows file: ``out`` itself, or ``out/results.jsonl`` for a folder."""
        return self.out / "results.jsonl" if self.folder else self.out

    def __enter__(self) -> Self:
        if self.folder:
            self.claim = lock_output(self.out)
            self._held.callback(self.claim.release)
        else:
            self._held.enter_context(hold_output(self.out))
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        try:
            if not self.finished:
                self._end(None, complete=False)
        finally:
            if self._store is not None and not isinstance(self._store_arg, Store):
                self._store.close()
            self._held.close()

    def begin(self, manifest: Mapping[str, Any] | RunManifest | None = None, *, keys: Sequence[str] = (),
              words: ResumeWords = WORDS, resume: bool = False, overwrite: bool = False,
              existing: Sequence[Path] | None = None,
              difference: Callable[[str, Any, Any], str] = plain_difference,
              settings: Mapping[str, Any] | None = None,
              manifest_path: Path | None = None, judge: str | None = None) -> None:
        """Check that this job may write its output, write its manifest (``status``
        ``running``) and start its stored run, with ``settings`` (default: those given to
        the constructor, else the manifest) and ``judge`` (the model's id, once it is open).
        A resume continues the stored run the earlier manifest names when the store holds it
        unfinished (a complete run is never changed: the resume is recorded as a new run).

        With a ``manifest`` (written to ``manifest_path``; default ``FILE.run.json`` beside a
        file output), the one resume rule applies: the earlier run's files (``existing``;
        default: the rows file and the manifest) are refused without ``resume`` or
        ``overwrite``, and a resume whose ``keys`` differ from the manifest's is refused, each
        difference said by ``difference``. A :class:`~assay.records.RunManifest` (a folder
        job: evaluate's run folder) goes to the folder's ``run.json`` by the folder's claim
        (:meth:`~assay.records.OutputClaim.begin`: a resume names each difference of dataset,
        metrics, judge and judging). Without one, the caller has checked its own output.

        Raises:
            ConfigError: the output may not be written, saying why and the fix.
        """
        self._store = open_run_store(self._store_arg)  # one that cannot open stops it here
        if judge is not None:
            self.judge = judge
        previous_id: str | None = None
        if settings is not None or not self.settings:
            self.settings = dict(settings if settings is not None else
                                 manifest if isinstance(manifest, Mapping) else {})
        if isinstance(manifest, RunManifest):
            if self.claim is None:
                raise TypeError("A RunManifest is the manifest of a folder job (folder=True).")
            self.claim.begin(manifest, resume=resume, overwrite=overwrite)
            previous = self.claim.previous
            previous_id = previous.run_id if resume and previous is not None else None
        elif manifest is not None:
            path = manifest_path or beside(self.out, ".run.json")
            found = [p for p in (self.rows_path, path) if p.exists()] if existing is None \
                else list(existing)
            check_resume_files(found, rows=self.out, manifest_path=path,
                               manifest=manifest, keys=keys, words=words, resume=resume,
                               overwrite=overwrite, difference=difference)
            previous_id = stored_run_of(path) if resume else None
            self._manifest_path, self._manifest = path, dict(manifest)
            self._write_manifest("running")
        if self._store is not None:
            # unchanged=False: a recorder always (a new run when the earlier one is complete)
            self._recorder, _ = start_recording(
                self._store, previous_id=previous_id, unchanged=False, kind=self.kind,
                name=self.name, tags=self.tags, dataset=self.dataset, metrics={},
                judge=self.judge, settings=self.settings)
            self.run_id = self._recorder.run_id if self._recorder is not None else None
            self._write_manifest("running")

    async def run(self, items: Sequence[Item], work: Callable[[Item], Awaitable[dict[str, Any]]],
                  *, key: Callable[[Item], str], parallel: int = 4, resume: bool = False,
                  keep: Callable[[dict[str, Any]], bool] = lambda row: True,
                  rows: Path | None = None, record: bool = True, progress: bool = False,
                  description: str = "working", what: str = "the rows") -> JobRows:
        """Work every item not finished yet, ``parallel`` at a time, each row written to
        ``rows`` (default: :attr:`rows_path`) and added to the stored run (unless
        ``record`` is False) as it finishes; then rewrite the file in item order.

        ``resume`` keeps the rows of the file that ``keep`` accepts (the last line of an id
        wins) and works only the rest. The first error of ``work`` cancels the rest and is
        raised; the rows written so far stay.

        Raises:
            ConfigError: ``parallel`` is not a whole number of at least 1.
        """
        check_parallel(parallel)  # before the file is touched
        path = rows or self.rows_path
        kept = {k: v for k, v in load_finished(path).items() if keep(v)} if resume else {}
        done = {key(i): kept[key(i)] for i in items if key(i) in kept}
        pending = [i for i in items if key(i) not in done]
        recorder = self._recorder if record else None
        if recorder is not None and done:
            recorder.add_many(done.values())
        # evaluate's writer: each row written (and stored) once every earlier item's is
        sink = ResultSink(None, writer=ResultsWriter(path, append=resume), recorder=recorder,
                          window=len(pending) + 1)  # a repeated id: the last one wins
        for item in pending:
            sink.expect(key(item))

        def write(item: Item, row: dict[str, Any]) -> None:
            done[key(item)] = row
            sink.add(row, key=key(item))

        try:
            await self.each(pending, work, write, parallel=parallel, progress=progress,
                            description=description, total=len(items))
        finally:
            sink.close()  # rows held for an unfinished earlier item: written all the same
        ordered = [done[key(i)] for i in items if key(i) in done]
        rewrite_in_order(path, ordered, what=what)
        return JobRows(ordered, len(pending))

    async def each(self, items: Sequence[Item] | AsyncIterable[Item],
                   work: Callable[[Item], Awaitable[Done]],
                   write: Callable[[Item, Done], None], *, parallel: int = 4,
                   progress: bool = False, description: str = "working",
                   total: int | None = None) -> None:
        """The loop under :meth:`run` (:func:`~assay.records.work_each`), for a
        producer that writes its own files (generate's rounds: passed and rejected
        candidates): ``work`` every item, ``parallel`` at a time, handing each result to
        ``write`` as it finishes, with progress (``total`` items, those not in ``items`` done
        already). ``items`` may be an async iterable, read only as workers free up. The first
        error cancels the rest (no new item starts) and is raised.

        Raises:
            ConfigError: ``parallel`` is not a whole number of at least 1.
        """
        check_parallel(parallel)
        if total is None:
            total = len(items) if isinstance(items, Sequence) else 0
        left = len(items) if isinstance(items, Sequence) else total

        with RowProgress(total, enabled=progress, done=total - left,
                         description=description) as bar:
            def finished(item: Item, result: Done) -> None:
                write(item, result)
                bar.advance()

            await work_each(items, work, finished, parallel=parallel)

    def record(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Add ``rows`` to the stored run now: the rows a producer wrote itself, in their
        final order (generate's, once its near-duplicates are out)."""
        if self._recorder is not None:
            self._recorder.add_many(rows)

    def update_manifest(self, **fields: Any) -> None:
        """Set ``fields`` in the manifest and write it (the status kept)."""
        if self._manifest is not None:
            self._manifest.update(fields)
        self._write_manifest("running")

    def finish(self, summary: Mapping[str, Any], *, summary_path: Path | None = None,
               what: str = "the summary") -> str | None:
        """Write ``summary`` (to ``summary_path`` when given), mark the manifest and the
        stored run ``complete``; returns the stored run's id (None: not recorded)."""
        if summary_path is not None:
            write_json(summary_path, dict(summary), what)
        self._end(summary, complete=True)
        return self.run_id

    def _end(self, summary: Mapping[str, Any] | None, *, complete: bool) -> None:
        self.finished = True
        try:
            if self._recorder is not None:
                self._recorder.finish(dict(summary or {}), complete=complete)
        finally:
            self._write_manifest("complete" if complete else "interrupted")

    def abandon(self) -> None:
        """The job failed before working anything (say, its store would not open): forget it
        (a folder that held no run is left as it was found; see
        :meth:`~assay.records.OutputClaim.abandon`) and release the output."""
        self.finished = True
        if self.claim is not None:
            self.claim.abandon()
        self.close()

    def close(self) -> None:
        """Release the output (what leaving the ``with`` block does, once finished)."""
        self.__exit__(None, None, None)

    def _write_manifest(self, status: str) -> None:
        if self.claim is not None and self.claim.manifest is not None:
            self.claim.finish(status=status, run_id=self.run_id)
            return
        if self._manifest_path is None or self._manifest is None:
            return
        write_json(self._manifest_path, {**self._manifest, "status": status,
                                         "run_id": self.run_id, "owner": _owner()},
                   "the run's manifest")
