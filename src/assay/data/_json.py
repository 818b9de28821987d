"""A JSON array of rows (``.json``), parsed whole: use JSON Lines for very large datasets.

A ``.json`` file that holds JSON Lines is read as such; one OTLP trace export (an object with
``resourceSpans``) is one record, which ``_otlp`` turns into conversations; any other single
object, or an item that is not an object, is a problem naming what the file holds and the fix.

Example:
    >>> import tempfile, pathlib
    >>> from assay.data import Source
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.json"
    >>> _ = p.write_text('[{"answer": "x"}, 3]')
    >>> problems = []
    >>> list(JSON_ARRAY.read(Source(p, JSON_ARRAY, "utf-8"), problems))
    [(1, {'answer': 'x'})]
    >>> print(problems[0])  # doctest: +ELLIPSIS
    /.../d.json item 2: expected an object, got a int. Fix: make every item of the array a {...} object.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ._clean import lone_surrogates
from ._jsonl import FAILED, SURROGATE_ESCAPE, describe, jsonl_records, loads
from ._otlp import is_export
from ._source import Source

__all__ = ["JSON_ARRAY", "JsonArrayReader"]


class JsonArrayReader:
    """The ``json`` reader: one JSON array of row objects (also a file with no known suffix
    whose text starts with ``[``). Records are numbered by their position in the array."""

    name = "json"
    suffixes = (".json",)
    unit = "item"
    #: It reports lone surrogates itself, only in a file that escapes one.
    checks_surrogates = True

    def read(self, source: Source, problems: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
        """(position, object) for each item of the array in ``source``."""
        text = source.text(problems)
        if text is None or not text.strip():
            return
        if (nul := text.find("\x00")) >= 0:
            line = text.count("\n", 0, nul) + 1
            col = nul - text.rfind("\n", 0, nul)
            problems.append(f"{source.path} line {line}, column {col}: a NUL byte (0x00), which "
                            "JSON text never holds. Fix: remove NUL bytes, e.g. tr -d '\\000' < "
                            "IN > OUT.")
            return
        doc = loads(text, str(source.path), problems, "repair the JSON array")
        if doc is FAILED:
            if problems and "Extra data" in problems[-1] and text.lstrip().startswith("{"):
                problems.pop()  # JSON Lines in a .json file: read them as such
                yield from jsonl_records(enumerate(text.split("\n"), start=1), source.path,
                                         problems)
            return
        surrogates = bool(SURROGATE_ESCAPE.search(text))
        if isinstance(doc, dict) and is_export(doc):  # one OTLP trace export
            if surrogates:
                lone_surrogates(doc, f"{source.path} item 1", problems)
            yield 1, doc
            return
        if isinstance(doc, dict):
            problems.append(_one_object(str(source.path), doc))
            return
        if not isinstance(doc, list):
            problems.append(f"{source.path}: the file holds {describe(doc)}, not an array of "
                            "rows. Fix: write the rows as a JSON array of objects.")
            return
        for i, item in enumerate(doc, start=1):
            if type(item) is dict:
                if surrogates:
                    lone_surrogates(item, f"{source.path} item {i}", problems)
                yield i, item
            else:
                problems.append(f"{source.path} item {i}: expected an object, got "
                                f"{describe(item)}. Fix: make every item of the array a {{...}} "
                                "object.")

    @staticmethod
    def sniff(text: str) -> bool:
        """Whether a file starting with ``text`` looks like a JSON array."""
        return text[:1] == "["


JSON_ARRAY = JsonArrayReader()


def _one_object(path: str, doc: dict[str, Any]) -> str:
    lists = [k for k, v in doc.items() if isinstance(v, list) and v
             and all(isinstance(x, dict) for x in v)]
    hint = (f" The rows seem to be under {lists[0]!r}: jq '.{lists[0]}' FILE > rows.json."
            if len(lists) == 1 else "")
    shown = ", ".join(repr(k) for k in list(doc)[:5])
    keys = shown + (f", ... {len(doc) - 5} more" if len(doc) > 5 else "")
    return (f"{path}: one JSON object (keys {keys}), not an array of rows. Fix: write the rows "
            f"as an array, [{{...}}, {{...}}], or as JSON Lines (one object per line in a .jsonl "
            f"file).{hint}")
