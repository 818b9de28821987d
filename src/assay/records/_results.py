"""Per-row results on disk: appended as rows finish, read back for ``--resume``.

Example:
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> with ResultsWriter(out / "results.jsonl") as w:
    ...     w.write({"id": "1", "f1_score": {"value": 1.0}})
    >>> sorted(load_finished(out / "results.jsonl"))
    ['1']
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from .._files import atomic_write, writing
from ..errors import OutputError, option
from ..metrics import call_failure_cause, unreadable_kind
from ._summary import RunSummary

__all__ = ["EvalResult", "ResultsWriter", "attempt", "is_call_failure", "iter_jsonl_lines",
           "kept_results", "load_finished", "reorder_results", "result_value", "resume_hint",
           "rewrite_in_order", "write_summary"]


@dataclass(repr=False)
class EvalResult:
    """Per-row records (as in ``results.jsonl``), the summary (as in ``summary.json``), and
    one line for each metric the plan skipped.

    Example:
        >>> r = EvalResult(rows=[], summary={"rows": 0, "rows_done": 0, "complete": True,
        ...                                  "dataset": "<rows>", "lang": "en", "metrics": {}})
        >>> r.run_summary.complete
        True
    """

    rows: list[dict[str, Any]]  # empty when RunOptions(keep_rows=False)
    summary: dict[str, Any]
    skipped: list[str] = field(default_factory=list)
    out_dir: Path | None = None

    @property
    def run_summary(self) -> RunSummary:
        """The summary as a typed :class:`RunSummary` (``summary`` is its JSON form)."""
        return RunSummary.model_validate(self.summary)

    def __repr__(self) -> str:
        """The row count, not every record (``asyncio.run`` writes this repr at the end of
        each run, and a notebook prints it: a million records would take a while).

        Example:
            >>> EvalResult(rows=[{"id": "1"}], summary={"rows": 1}, out_dir=None)
            EvalResult(rows=<1 record>, summary={'rows': 1}, skipped=[], out_dir=None)
        """
        n = len(self.rows)
        return (f"EvalResult(rows=<{n} record{'s' if n != 1 else ''}>, summary={self.summary!r}, "
                f"skipped={self.skipped!r}, out_dir={self.out_dir!r})")

def is_call_failure(error: object) -> bool:
    """Whether an unscored result's reason is a failed judge or embedding call (not "does not
    apply", not an unparsable answer), also inside a conversation turn's reason.

    Example:
        >>> is_call_failure("judge call failed: HTTP 401: bad key"), is_call_failure("does not apply")
        (True, False)
    """
    return isinstance(error, str) and call_failure_cause(error) is not None


def iter_jsonl_lines(text: str) -> Iterable[str]:
    r"""The lines of a JSONL text, split on ``"\n"`` only (a trailing ``"\r"`` is dropped).

    ``str.splitlines()`` would also split on U+2028, U+2029, U+0085, ``\x0b``, ``\x0c`` and a
    lone ``\r``, which ``json.dumps(..., ensure_ascii=False)`` writes as they are inside
    strings, and so cut a record in two.

    Example:
        >>> text = '{"id": "a\u2028b\x85c"}\r\n{"id": 2}\n'
        >>> [json.loads(line)["id"] for line in iter_jsonl_lines(text)]
        ['a\u2028b\x85c', 2]
        >>> len(text.splitlines())
        4
    """
    for line in text.split("\n"):
        line = line.removesuffix("\r")
        if line.strip():
            yield line


def resume_hint() -> str:
    """What to do once a run's failed write is fixed: continue it."""
    return f"rerun with {option('resume', True)} (finished rows are kept)"


class ResultsWriter:
    """Appends one JSON line per finished row and flushes it at once (Ctrl-C keeps it).

    A write that fails (a full disk) raises an :class:`~assay.errors.OutputError` naming the
    file and the fix; after it the writer takes no more rows, and :meth:`close` drops what
    the disk refused (``--resume`` cuts a half-written last line and scores its row again).
    """

    def __init__(self, path: Path, *, append: bool = False) -> None:
        self.path = path
        self.failed: OutputError | None = None
        with writing("the run's results", path, then=resume_hint()):
            path.parent.mkdir(parents=True, exist_ok=True)
            if append and path.exists():
                _drop_torn_tail(path)
            self._f = path.open("a" if append else "w", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        if self.failed is not None:
            raise self.failed
        try:
            with writing("the run's results", self.path, then=resume_hint()):
                self._f.write(json.dumps(record, ensure_ascii=False) + "\n")
                self._f.flush()
        except OutputError as e:
            self.failed = e
            raise

    def close(self) -> None:
        if self.failed is not None:
            try:
                self._f.close()  # flushes what is buffered: the disk may refuse it again
            except OSError:
                pass
            return
        with writing("the run's results", self.path, then=resume_hint()):
            self._f.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_summary(out_dir: Path, summary: Mapping[str, Any]) -> None:
    """``summary.json``, whole or not at all (an :class:`~assay.errors.OutputError` when the
    disk refuses it)."""
    with atomic_write(out_dir / "summary.json", what="the run's summary",
                      then=resume_hint()) as f:
        f.write(json.dumps(summary, indent=2, ensure_ascii=False))


def attempt(failures: list[Exception], step: Callable[[], object]) -> bool:
    """Run one step of a run's wrap-up, keeping its error in ``failures`` (the caller raises
    the first once every step was tried, so a full disk still leaves the run marked
    interrupted); whether it succeeded.

    Example:
        >>> failures: list[Exception] = []
        >>> attempt(failures, lambda: 1 / 0), attempt(failures, lambda: None), len(failures)
        (False, True, 1)
    """
    try:
        step()
    except Exception as e:  # noqa: BLE001 - kept, and raised after the other steps
        failures.append(e)
        return False
    return True


def _drop_torn_tail(path: Path) -> None:
    """Cut a last line left half-written by a crash, so appends start on a fresh line."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        with path.open("r+b") as f:
            f.truncate(cut)


def load_finished(path: Path) -> dict[str, dict[str, Any]]:
    """``{row id: record}`` of the complete lines in a results file (a torn line is ignored)."""
    out: dict[str, dict[str, Any]] = {}
    if not path.exists():
        return out
    for line in iter_jsonl_lines(path.read_text(encoding="utf-8")):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(rec, dict) and "id" in rec:
            out[str(rec["id"])] = rec
    return out


def rewrite_in_order(path: Path, records: Iterable[dict[str, Any]], *,
                     what: str = "the run's results", then: str | None = None) -> None:
    """Atomically replace the results file with ``records`` (input order): a failed write
    (an :class:`~assay.errors.OutputError` naming ``what``) leaves the old file as it was."""
    with atomic_write(path, what=what, then=then or resume_hint()) as f:
        for rec in records:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")


def reorder_results(path: Path, ids: Iterable[str]) -> None:
    """Rewrite the results file with one record per id, in the order of ``ids`` (the last
    record of an id wins: a resumed run appends rows it scored again)."""
    rewrite_in_order(path, _in_order(load_finished(path), ids))


def _in_order(records: dict[str, dict[str, Any]], ids: Iterable[str]) -> Iterable[dict[str, Any]]:
    for row_id in ids:
        if row_id in records:
            yield records[row_id]


def kept_results(record: Mapping[str, Any]) -> dict[str, Any]:
    """The results of an earlier record that a resume keeps: all but those a failed judge or
    embedding call left unscored, those whose judge answer could not be read, or where a judge
    of a panel or a repeat (``--repeat``) failed so (those are scored again: the cache answers
    for the judges and repeats that did not fail, and never holds an answer that could not
    be read)."""
    return {k: v for k, v in record.items()
            if not (isinstance(v, Mapping) and (is_call_failure(v.get("error"))
                                                or unreadable_kind(v) is not None
                                                or _panel_failed(v) or _repeat_failed(v)))}


def _panel_failed(result: Mapping[str, Any]) -> bool:
    """Whether a judge of the panel behind ``result`` failed its call."""
    details = result.get("details")
    panel = details.get("panel") if isinstance(details, Mapping) else None
    return isinstance(panel, Mapping) and any(
        isinstance(entry, Mapping) and is_call_failure(entry.get("error"))
        for entry in panel.values())


def _repeat_failed(result: Mapping[str, Any]) -> bool:
    """Whether a repeat behind ``result`` failed its call or gave an answer that could not be
    read (``details.unscored_repeats``)."""
    details = result.get("details")
    missed = details.get("unscored_repeats") if isinstance(details, Mapping) else None
    return isinstance(missed, list) and any(
        isinstance(entry, Mapping) and (is_call_failure(entry.get("error"))
                                        or entry.get("unreadable") is not None)
        for entry in missed)


def result_value(record: Mapping[str, Any], metric: str) -> float | None:
    """The numeric value of ``metric`` in one result record; None when unscored, absent or not
    a finite number (what every reader of runs counts: report, compare, watch's alerts).

    Example:
        >>> result_value({"m": {"value": 4}}, "m"), result_value({"m": {"value": None}}, "m")
        (4.0, None)
        >>> result_value({"m": {"value": True}}, "m"), result_value({"m": 4}, "m")
        (None, None)
    """
    result = record.get(metric)
    if not isinstance(result, Mapping):
        return None
    v = result.get("value")
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
        return None
    return float(v)
