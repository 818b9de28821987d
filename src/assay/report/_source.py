"""Where a generated row comes from: its ``source`` spans (``assay generate`` writes them), each
with the document's name, the offsets of the evidence in the document and the evidence text,
and the row's context with that evidence marked.

A span is ``{"doc": "faq.md", "start": 120, "end": 188, "text": "..."}`` in the row's extra
field ``source`` (the run store keeps it with the row's inputs). ``text`` is optional: without
it only the document and the offsets are shown (the document itself is not stored). The
evidence is marked where it occurs, as it is, in the context (``assay generate`` takes it from
the chunks the context holds).

Example:
    >>> inputs = {"context": "Returns. Refunds take 14 days. Ask us.",
    ...           "extra": {"source": [{"doc": "faq.md", "start": 9, "end": 30,
    ...                                 "text": "Refunds take 14 days."}]}}
    >>> spans = source_spans(inputs)
    >>> spans[0]["doc"], spans[0]["where"], spans[0]["in_context"]
    ('faq.md', 'characters 9-30', True)
    >>> marked_parts(inputs["context"], evidence_texts(spans))
    [('Returns. ', False), ('Refunds take 14 days.', True), (' Ask us.', False)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["SOURCE_FIELD", "SOURCE_KEYS", "evidence_texts", "marked_parts", "reference_context",
           "source_spans"]

#: The extra field of a row that holds its source spans.
SOURCE_FIELD = "source"
#: The keys of one span that are read: the document's name, the evidence's offsets in it
#: (start inclusive, end exclusive) and the evidence text.
SOURCE_KEYS = ("doc", "start", "end", "text")


def source_spans(inputs: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """The row's source spans ready for a template (``doc``, ``start``, ``end``, ``text``,
    ``where``: the offsets in words, ``in_context``: whether the evidence text occurs in the
    row's context), or None when the row names no source. Entries that are not objects are
    left out.

    Example:
        >>> source_spans({"extra": {"source": [{"doc": "a.md", "start": 0, "end": 4}]}})
        [{'doc': 'a.md', 'start': 0, 'end': 4, 'text': None, 'where': 'characters 0-4', 'in_context': False}]
        >>> source_spans({"extra": {"source": []}}) is None, source_spans({}) is None
        (True, True)
    """
    extra = inputs.get("extra")
    spans = extra.get(SOURCE_FIELD) if isinstance(extra, Mapping) else None
    if not isinstance(spans, list):
        return None
    texts = _context_texts(inputs)
    out = []
    for span in spans:
        if not isinstance(span, Mapping):
            continue
        start, end = _offset(span.get("start")), _offset(span.get("end"))
        given = span.get("text")
        text = given if isinstance(given, str) else None
        where = (f"characters {start}-{end}" if start is not None and end is not None
                 else "" if start is None and end is None
                 else f"from character {start}" if start is not None else f"to character {end}")
        out.append({"doc": str(span.get("doc") or "(no document named)"), "start": start,
                    "end": end, "text": text, "where": where,
                    "in_context": bool(text) and any(str(text) in t for t in texts)})
    return out or None


def evidence_texts(spans: Sequence[Mapping[str, Any]] | None) -> list[str]:
    """The evidence texts of ``spans`` that are given (not empty)."""
    return [str(s["text"]) for s in spans or [] if s.get("text")]


def marked_parts(text: str, evidence: Iterable[str]) -> list[tuple[str, bool]]:
    """``text`` cut into ``(part, is_evidence)`` pieces, in order: every occurrence of each
    evidence text is marked (overlapping ones merged).

    Example:
        >>> marked_parts("a b c b", ["b"])
        [('a ', False), ('b', True), (' c ', False), ('b', True)]
        >>> marked_parts("abc", ["ab", "bc"]), marked_parts("abc", [])
        ([('abc', True)], [('abc', False)])
    """
    ranges: list[tuple[int, int]] = []
    for piece in evidence:
        if not piece:
            continue
        at = text.find(piece)
        while at >= 0:
            ranges.append((at, at + len(piece)))
            at = text.find(piece, at + len(piece))
    merged: list[list[int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    parts: list[tuple[str, bool]] = []
    at = 0
    for start, end in merged:
        if start > at:
            parts.append((text[at:start], False))
        parts.append((text[start:end], True))
        at = end
    if at < len(text) or not parts:
        parts.append((text[at:], False))
    return parts


def reference_context(inputs: Mapping[str, Any]) -> str | None:
    """The row's context: its ``context`` field, or for a conversation (whose ``context`` is
    an extra field, as ``assay generate`` writes one) that extra field.

    Example:
        >>> reference_context({"messages": [], "extra": {"context": "Chunk."}})
        'Chunk.'
    """
    context = inputs.get("context")
    extra = inputs.get("extra")
    if context is None and inputs.get("messages") is not None and isinstance(extra, Mapping):
        context = extra.get("context")
    return context if isinstance(context, str) else None


def _context_texts(inputs: Mapping[str, Any]) -> list[str]:
    contexts = inputs.get("contexts")
    if isinstance(contexts, list):
        return [str(c) for c in contexts]
    context = reference_context(inputs)
    return [context] if context is not None else []


def _offset(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
