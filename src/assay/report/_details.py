"""A metric's details and a row's inputs made readable for the report and the web UI: the
usual evidence first, lists of records as tables, verdict-like values coloured.

Example:
    >>> [(i.label, i.kind, i.text) for i in detail_items({"level": "High", "raw_answer": "x"})]
    [('Severity level', 'scalar', 'High'), ("Judge's raw answer", 'scalar', 'x')]
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._model import fmt, pretty_json
from ._source import evidence_texts, marked_parts, reference_context, source_spans

__all__ = ["DETAIL_FIRST", "DETAIL_LABELS", "DETAIL_LAST", "DetailItem", "detail_items",
           "inputs_view"]

#: Headings for detail keys that metrics commonly write; other keys show as their name.
DETAIL_LABELS = {
    "ungrounded": "Ungrounded statements",
    "verdicts": "Statement verdicts",
    "intents": "Intents",
    "turns": "Per-turn results",
    "missing": "Missing ground-truth statements",
    "false_positives": "Unsupported statements (false positives)",
    "false_negatives": "Missing statements (false negatives)",
    "level": "Severity level",
    "worst_turn": "Worst turn",
    "raw_answer": "Judge's raw answer",
    "findings": "Mismatches",
    "invalid": "Invalid calls",
    "argument_errors": "Argument errors",
    "matched": "Matched calls",
}
#: Detail keys shown first, in this order (the evidence people look for).
DETAIL_FIRST = ("ungrounded", "findings", "invalid", "argument_errors", "level", "intents",
                "turns", "verdicts", "missing", "false_positives", "false_negatives")
#: Detail keys shown last, muted (provenance rather than evidence).
DETAIL_LAST = ("prompt_sha256", "raw_answer")


@dataclass
class DetailItem:
    """One entry of a metric's details, classified for display.

    ``kind`` is ``scalar`` (``text``, with ``css`` for verdict-like values), ``list`` (``items``: strings), ``table`` (``columns``
    and ``rows`` of (text, css class) cells) or ``json`` (``text``: indented JSON).
    """

    key: str
    label: str
    kind: str
    text: str = ""
    items: list[str] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    rows: list[list[tuple[str, str]]] = field(default_factory=list)
    css: str = ""
    muted: bool = False
    highlight: bool = False
    collapsed: bool = False


_GOOD = {"supported", "yes", "true", "none", "very low"}
_BAD = {"contradicted", "unsupported", "not supported", "no", "false", "medium", "high", "both"}
_WARN = {"not_verifiable", "low", "retrieval", "generation"}
#: Detail keys that list what went wrong: highlighted; a full ``verdicts`` list beside one is
#: shown collapsed.
_PROBLEMS = ("ungrounded", "missing", "false_positives", "false_negatives", "findings", "invalid",
             "argument_errors")
_VERDICT_COLUMNS = {"verdict", "supported", "useful", "level", "stage", "correct"}


def _cell(column: str, value: Any) -> tuple[str, str]:
    if isinstance(value, list) and all(not isinstance(v, (dict, list)) for v in value):
        text = ", ".join(fmt(v) for v in value)
    elif isinstance(value, (dict, list)):
        text = json.dumps(value, ensure_ascii=False, default=str)
    else:
        text = fmt(value)
    css = ""
    if column in _VERDICT_COLUMNS:
        low = text.lower()
        css = "good" if low in _GOOD else "bad" if low in _BAD else "warn" if low in _WARN else ""
    return text, css


def detail_items(details: Mapping[str, Any] | None, *,
                 beside_turns: bool = False) -> list[DetailItem]:
    """A metric's ``details`` made readable: lists of records as tables, lists of strings as
    lists, scalars as text, anything else as indented JSON; the usual evidence first. With
    ``beside_turns`` (the page shows the per-turn results beside each turn) the per-turn table
    is collapsed.

    Example:
        >>> items = detail_items({"prompt_sha256": "ab12", "ungrounded": [
        ...     {"statement": "It is red.", "verdict": "contradicted", "reason": "green"}]})
        >>> [(i.label, i.kind) for i in items]
        [('Ungrounded statements', 'table'), ('prompt sha256', 'scalar')]
        >>> items[0].rows[0]
        [('It is red.', ''), ('contradicted', 'bad'), ('green', '')]
        >>> turns = detail_items({"turns": [{"turn": 1, "value": 4}]}, beside_turns=True)[0]
        >>> turns.label, turns.collapsed
        ('Per-turn results, also beside each turn', True)
    """
    if not details:
        return []
    keys = list(details)
    order = ([k for k in DETAIL_FIRST if k in details]
             + [k for k in keys if k not in DETAIL_FIRST and k not in DETAIL_LAST]
             + [k for k in DETAIL_LAST if k in details])
    out = []
    for key in order:
        value = details[key]
        label = DETAIL_LABELS.get(key, key.replace("_", " "))
        folded = beside_turns and key == "turns"
        if folded:
            label += ", also beside each turn"
        item = DetailItem(key=key, label=label, kind="scalar", muted=key in DETAIL_LAST,
                          highlight=key in _PROBLEMS and bool(value),
                          collapsed=folded or (key == "verdicts"
                                               and any(k in details for k in _PROBLEMS)))
        if isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
            columns: list[str] = []
            for v in value:
                columns += [c for c in v if c not in columns]
            item.kind, item.columns = "table", columns
            item.rows = [[_cell(c, v.get(c)) for c in columns] for v in value]
        elif isinstance(value, list) and all(not isinstance(v, (Mapping, list)) for v in value):
            item.kind, item.items = "list", [fmt(v) for v in value]
            if not value:
                item.kind, item.text = "scalar", "none"
        elif key == "matched" and isinstance(value, list) and all(
                isinstance(v, list) and len(v) == 2 for v in value):  # agent metrics' pairs
            item.text = "; ".join(f"call {fmt(c)} = reference {fmt(r)}" for c, r in value)
        elif isinstance(value, (Mapping, list)):
            item.kind, item.text = "json", pretty_json(value)
        elif key.endswith("sha256") and isinstance(value, str) and len(value) > 16:
            item.text = value[:12] + "…"
        else:
            item.text, item.css = _cell(key, value)
        out.append(item)
    return out


def inputs_view(inputs: Mapping[str, Any],
                record: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Every input field a row view reads (None where the row has none), ready for a template:
    with ``sources`` (the row's source spans, :func:`source_spans`) and the context (or each
    of the ``contexts``) as ``(part, is_evidence)`` pieces with the spans' evidence marked.
    A QA row the app under test answered (its ``record``'s ``agent`` entry) shows that answer
    when the inputs, read from the dataset file, have none; a generated conversation shows
    the reference context its source points into (an extra field of a conversation row)."""
    contexts = inputs.get("contexts")
    sources = source_spans(inputs)
    evidence = evidence_texts(sources)
    context = inputs.get("context")
    if contexts:
        context = None  # shown chunk by chunk
    elif sources:
        context = reference_context(inputs)
    answer = inputs.get("answer")
    agent = record.get("agent") if record is not None else None
    if answer is None and isinstance(agent, Mapping) and isinstance(agent.get("answer"), str):
        answer = agent["answer"]
    return {
        "question": inputs.get("question"),
        "context": context,
        "contexts": [str(c) for c in contexts] if isinstance(contexts, list) else None,
        "sources": sources,
        "context_parts": (marked_parts(context, evidence)
                          if evidence and isinstance(context, str) else None),
        "contexts_parts": ([marked_parts(str(c), evidence) for c in contexts]
                           if evidence and isinstance(contexts, list) else None),
        "answer": answer,
        "ground_truth": inputs.get("ground_truth"),
        "messages": [{"role": str(t.get("role", "?")), "content": str(t.get("content", "")),
                      "citations": [{"id": c.get("id"), "title": c.get("title"),
                                     "content": c.get("content")}
                                    for c in t.get("citations") or [] if isinstance(c, Mapping)]}
                     for t in inputs.get("messages") or [] if isinstance(t, Mapping)],
    }
