"""Following growing OTLP JSON files: the OpenTelemetry Collector's file exporter writes one
export per line (``.jsonl``); so does an app appending its exports. Lines of logs exports
(``resourceLogs``) give the GenAI events that join their spans (see ``_logs``).

Each complete line is read once: its spans and the file's new offset are written to the spool
in one transaction, so a restart goes on from where it stopped, neither losing nor repeating a
line. A last line without its newline waits until it is complete. A file that shrank or was
replaced (a rotation) is read again from its start.

Example:
    >>> import tempfile, pathlib
    >>> from assay.watch._spool import Spool
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> spool = Spool(folder / "spool")
    >>> path = folder / "traces.jsonl"
    >>> line = ('{"resourceSpans": [{"scopeSpans": [{"spans": '
    ...         '[{"traceId": "t1", "spanId": "a"}]}]}]}')
    >>> _ = path.write_text(line + "\\n" + line[:20])
    >>> follower = FileFollower(path, spool)
    >>> follower.poll(), follower.bad_lines
    (1, 0)
    >>> with path.open("a") as f: _ = f.write(line[20:].replace('"a"', '"b"') + "\\n")
    >>> follower.poll(), FileFollower(path, spool).poll()
    (1, 0)
    >>> spool.close()
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from ._decode import spans_of
from ._logs import genai_records
from ._spool import Spool

__all__ = ["FileFollower"]

log = logging.getLogger("assay.watch")

#: The most bytes read from a file in one poll.
_CHUNK = 8 << 20


class FileFollower:
    """Reads the new complete lines of ``path`` into ``spool`` on each :meth:`poll`."""

    def __init__(self, path: str | Path, spool: Spool) -> None:
        self.path = Path(path)
        self.key = str(self.path.resolve())
        self.spool = spool
        self.bad_lines = 0
        self.log_lines = 0  # OTLP logs exports read (their GenAI events join their spans)
        self.bad_spans = 0
        self.spans = 0

    def poll(self) -> int:
        """Read what was appended since the last poll; the number of new spans spooled."""
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            return 0
        offset, inode = self.spool.offset(self.key)
        if (inode is not None and inode != stat.st_ino) or stat.st_size < offset:
            offset = 0  # rotated or truncated: the new file from its start
        if stat.st_size == offset:
            return 0
        with self.path.open("rb") as f:
            f.seek(offset)
            data = f.read(_CHUNK)
        end = data.rfind(b"\n")
        if end < 0:
            return 0  # a partial line: wait for the rest
        spans = []
        logs: list[tuple[dict[str, Any], dict[str, Any]]] = []
        at = offset  # the byte where each line starts
        for line in data[:end].split(b"\n"):
            start, at = at, at + len(line) + 1
            if not line.strip():
                continue
            try:
                export = json.loads(line)
            except (ValueError, RecursionError) as e:  # nested too deeply for the parser
                export = f"not JSON ({e or 'nested too deeply'})"
            if isinstance(export, dict) and isinstance(export.get("resourceLogs"), list):
                records, _ = genai_records(export)  # GenAI events: read with their spans
                logs.extend(records)
                self.log_lines += 1
                continue
            if not isinstance(export, dict) or not isinstance(export.get("resourceSpans"), list):
                export = export if isinstance(export, str) else "no resourceSpans list"
                self.bad_lines += 1
                log.warning("%s: the line at byte %d is not an OTLP JSON export (%s); left "
                            "out", self.path, start, export)
                continue
            found, bad = spans_of(export)
            spans.extend(found)
            self.bad_spans += len(bad)
        new = self.spool.add_followed(self.key, spans, offset + end + 1, stat.st_ino, logs)
        self.spans += new
        return new
