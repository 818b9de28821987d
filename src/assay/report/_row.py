"""One row as the report's detail panel and the web UI's row and review pages show it, built in
one place for all three: its inputs (a conversation as turns, with each metric's per-turn
results beside the turn they name) and each metric's result with its evidence.

Example:
    >>> inputs = {"messages": [{"role": "user", "content": "Hi"},
    ...                        {"role": "assistant", "content": "Hello!"}]}
    >>> record = {"id": "c", "fluency": {"value": 5.0, "reason": "mean of 1",
    ...           "details": {"turns": [{"turn": 1, "value": 5.0, "reason": "natural"}]}}}
    >>> parts = row_input_parts(inputs, record, names=["fluency"])
    >>> [(r.metric, r.reason) for r in parts["conversation"].bubbles[1].results]
    [('fluency', 'natural')]
    >>> metric = metric_views(record, ["fluency"], lambda name, v: "v-good",
    ...                       conversation=parts["conversation"])[0]
    >>> metric["value"], [(i.label, i.collapsed) for i in metric["evidence"]]
    (5.0, [('Per-turn results, also beside each turn', True)])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._conversation import ConversationView, conversation_view
from ._details import detail_items, inputs_view
from ._model import pretty_json, value_of

__all__ = ["metric_views", "row_input_parts"]


def row_input_parts(inputs: Mapping[str, Any] | None, record: Mapping[str, Any], *,
                    names: Sequence[str] | None = None) -> dict[str, Any]:
    """What a page shows of a row's inputs: ``inputs`` (:func:`inputs_view`), ``conversation``
    (:func:`conversation_view`, None for a QA row) and ``extra`` (the row's other fields as
    indented JSON); all None when the inputs are not known."""
    if inputs is None:
        return {"inputs": None, "conversation": None, "extra": None}
    return {"inputs": inputs_view(inputs, record),
            "conversation": conversation_view(inputs, record, names=names),
            "extra": pretty_json(inputs["extra"]) if inputs.get("extra") else None}


def metric_views(record: Mapping[str, Any], names: Sequence[str],
                 css: Callable[[str, float | None], str], *,
                 conversation: ConversationView | None = None) -> list[dict[str, Any]]:
    """Each metric of ``names`` the ``record`` has a result for: its value, ``css(name, value)``,
    whether it does not apply (``na``), weighted value, reason, error and evidence (the
    per-turn table collapsed when the ``conversation`` shows those results beside the turns)."""
    placed = conversation.placed if conversation is not None else set()
    views = []
    for name in names:
        result = record.get(name)
        if not isinstance(result, Mapping):
            continue
        value = value_of(record, name)
        error = result.get("error")
        views.append({
            "name": name, "value": value, "css": css(name, value),
            "na": value is None and str(error or "").startswith("does not apply"),
            "weighted": result.get("weighted"), "reason": result.get("reason"), "error": error,
            "evidence": detail_items(result.get("details"), beside_turns=name in placed),
        })
    return views
