"""Where a job's rows go as they finish: its rows file (``results.jsonl``, in the order the
rows were handed out), the run store, the running aggregates (a ``tally``: evaluate's
``RunTally``), the progress bar and, when asked, a list for the caller. Every job writes its
rows through it: evaluate streaming its dataset, :meth:`assay.records.Job.run` its items.

Rows finish in any order. The sink numbers each row as it is handed out, writes a finished
record as soon as every earlier row is written, and holds the ones that finished early; when
``window`` rows are out and unwritten, :meth:`ResultSink.room` makes the feeder wait, so memory
stays bounded however large the dataset. If the run stops early, the held records are written
too (out of order: ``--resume`` reads them by id), so no scored row is lost. A row's input
fields, given to :meth:`ResultSink.expect`, wait with it and go to the run store with its
record, in the order of ``results.jsonl`` (the recorder writes them in batches: its ``finish``
or ``close`` writes the last ones).

Example:
    >>> class Seen(list):
    ...     def add(self, record): self.append(record["id"])  # a tally: sees every record
    >>> sink = ResultSink(Seen(), keep=True)
    >>> for row_id in ("a", "b"): sink.expect(row_id)
    >>> sink.add({"id": "b", "exact_match": {"value": 0.0}})
    >>> sink.add({"id": "a", "exact_match": {"value": 1.0}})
    >>> [r["id"] for r in sink.kept], sink.tally
    (['a', 'b'], ['b', 'a'])
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Generic, Protocol, TypeVar

from ._progress import RowProgress
from ._recording import RunRecorder
from ._results import ResultsWriter

__all__ = ["ResultSink"]


class Tally(Protocol):
    """What counts a job's rows as they finish (evaluate's ``RunTally``)."""

    def add(self, record: dict[str, Any]) -> None: ...


TallyT = TypeVar("TallyT", bound=Tally | None)


class ResultSink(Generic[TallyT]):
    """Takes each finished record once: counts it (``tally``; None: not counted), stores it,
    writes it, shows progress. A row is known by ``key`` (default: its ``id``).

    ``ordered``: write ``results.jsonl`` in the order rows were handed out (:meth:`expect`);
    otherwise (a resumed run appending to its earlier file) in the order they finish.
    ``keep``: also collect the records, in order, in :attr:`kept` (the Python API returns them;
    the command line does not, so its memory stays flat).
    """

    def __init__(self, tally: TallyT, *, writer: ResultsWriter | None = None,
                 recorder: RunRecorder | None = None, progress: RowProgress | None = None,
                 keep: bool = False, ordered: bool = True, window: int = 4096) -> None:
        self.tally = tally
        self.writer, self.recorder, self.progress = writer, recorder, progress
        self.keep, self.ordered, self.window = keep, ordered, window
        self.kept: list[dict[str, Any]] = []
        self._seq: dict[str, int] = {}  # row id -> position, for rows handed out, not written
        self._inputs: dict[str, Mapping[str, Any]] = {}  # row id -> inputs, until its record
        self._held: dict[int, tuple[str, dict[str, Any]]] = {}
        self._next = 0  # position of the next record to write
        self._handed = 0
        self._room = asyncio.Event()
        self._room.set()

    async def room(self) -> None:
        """Wait until fewer than ``window`` rows are out and unwritten."""
        while len(self._seq) >= self.window:
            self._room.clear()
            await self._room.wait()

    def expect(self, row_id: str, inputs: Mapping[str, Any] | None = None) -> None:
        """Note that the row ``row_id`` is handed out for scoring (its place in the output),
        with its input fields for the run store (``assay.data.row_inputs(row)``; pass them
        only when a store records the run, to keep memory flat otherwise)."""
        self._seq[row_id] = self._handed
        self._handed += 1
        if inputs is not None:
            self._inputs[row_id] = inputs

    def add(self, record: dict[str, Any], *, new: bool = True,
            inputs: Mapping[str, Any] | None = None, key: str | None = None) -> None:
        """A finished row's record. ``new=False``: a row already in ``results.jsonl`` (resume),
        counted and stored but not written again. ``inputs``: the row's input fields, when
        :meth:`expect` did not get them (a resumed row). ``key``: the row's key as handed out
        (default: its ``id``)."""
        row_id = str(record["id"]) if key is None else key
        if self.tally is not None:
            self.tally.add(record)
        if inputs is not None:
            self._inputs[row_id] = inputs
        if self.progress is not None:
            self.progress.advance()
        if not new:
            self._emit(row_id, record, write=False)
            return
        seq = self._seq.get(row_id)
        if seq is None or not self.ordered:
            self._seq.pop(row_id, None)
            self._emit(row_id, record)
            self._wake()
            return
        if seq == self._next and not self._held:  # in order (always, scored in line)
            del self._seq[row_id]
            self._next += 1
            self._emit(row_id, record)
            self._wake()
            return
        self._held[seq] = (row_id, record)
        while self._next in self._held:
            held_id, held = self._held.pop(self._next)
            del self._seq[held_id]
            self._next += 1
            self._emit(held_id, held)
        self._wake()

    def close(self) -> None:
        """Write the records held back for earlier rows that never finished (a stopped run),
        and close the results file."""
        for seq in sorted(self._held):
            self._emit(*self._held.pop(seq))
        self._seq.clear()
        self._inputs.clear()
        if self.writer is not None:
            self.writer.close()

    def _emit(self, row_id: str, record: Mapping[str, Any], *, write: bool = True) -> None:
        """Write the record to results.jsonl and hand it to the store: both in the same order,
        so the stored run lists its rows as results.jsonl does."""
        inputs = self._inputs.pop(row_id, None)
        if write and self.writer is not None:
            self.writer.write(record if isinstance(record, dict) else dict(record))
        if self.recorder is not None:
            self.recorder.add(record, inputs)
        if self.keep:
            self.kept.append(dict(record))

    def _wake(self) -> None:
        if len(self._seq) < self.window:
            self._room.set()
