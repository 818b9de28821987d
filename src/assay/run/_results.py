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
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from ..metrics import call_failure_cause, unreadable_kind
from ._summary import RunSummary

__all__ = ["EvalResult", "ResultsWriter", "is_call_failure", "iter_jsonl_lines", "kept_results",
           "load_finished", "reorder_results", "rewrite_in_order"]


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


class ResultsWriter:
    """Appends one JSON line per finished row and flushes it at once (Ctrl-C keeps it)."""

    def __init__(self, path: Path, *, append: bool = False) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        if append and path.exists():
            _drop_torn_tail(path)
        self._f = path.open("a" if append else "w", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        self._f.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._f.flush()

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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


def rewrite_in_order(path: Path, records: Iterable[dict[str, Any]]) -> None:
    """Atomically replace the results file with ``records`` (input order)."""
    tmp = path.with_suffix(".jsonl.tmp")
    with tmp.open("w", encoding="utf-8") as f:
        for rec in records:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


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
    of a panel failed (those are scored again: the cache answers for the judges that did not
    fail, and never holds an answer that could not be read)."""
    return {k: v for k, v in record.items()
            if not (isinstance(v, Mapping) and (is_call_failure(v.get("error"))
                                                or unreadable_kind(v) is not None
                                                or _panel_failed(v)))}


def _panel_failed(result: Mapping[str, Any]) -> bool:
    """Whether a judge of the panel behind ``result`` failed its call."""
    details = result.get("details")
    panel = details.get("panel") if isinstance(details, Mapping) else None
    return isinstance(panel, Mapping) and any(
        isinstance(entry, Mapping) and is_call_failure(entry.get("error"))
        for entry in panel.values())
