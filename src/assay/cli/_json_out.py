"""``--json PATH`` where ``-`` means stdout: the JSON alone goes there (the human tables go to
stderr), so ``assay compare A B --json - | jq .`` reads clean JSON.

Example:
    >>> from pathlib import Path
    >>> to_stdout(Path("-")), to_stdout(Path("out/cmp.json")), to_stdout(None)
    (True, False, False)
    >>> write_json({"a": 1}, Path("-"))
    {
      "a": 1
    }
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["JSON_PATH_HELP", "to_stdout", "write_json"]

#: What a ``--json PATH`` option's help adds about ``-``.
JSON_PATH_HELP = "'-' writes it to stdout (the tables then go to stderr)."


def to_stdout(path: Path | None) -> bool:
    """Whether a ``--json`` path asks for stdout (``-``)."""
    return path is not None and str(path) == "-"


def write_json(data: Any, path: Path, *, ensure_ascii: bool = False) -> None:
    """Write ``data`` as indented JSON to ``path`` (its folder made), or to stdout for ``-``."""
    text = json.dumps(data, indent=2, ensure_ascii=ensure_ascii) + "\n"
    if to_stdout(path):
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
