"""What a conversation row says about how it was made, read from its extra fields, for the top
of the conversation: a simulated user's scenario (``goal``, ``expected_outcome``, ``persona``)
and why it stopped (``stop_reason``, ``stop_detail``), as ``assay simulate --scenarios``
writes them; a multi-turn attack's ``strategy``, ``success``, ``success_turn`` (the attack's
turn, 1, 2, ...: its reply is found through the row's ``exchanges``), ``backtracks`` and
``unrated`` (why its outcome is unknown); and the row's ``error``, if any.

The scenario's fields are read from the row itself or from an object in its ``scenario``
field (the row's own win).

Example:
    >>> facts = conversation_facts({"scenario": {"goal": "get a refund", "persona": {
    ...     "name": "Ana", "mood": "impatient"}}, "stop_reason": "stuck",
    ...     "stop_detail": "asked the same thing three times"})
    >>> [(f.label, f.text, f.css) for f in facts]  # doctest: +NORMALIZE_WHITESPACE
    [('Goal', 'get a refund', ''), ('Persona', 'name: Ana\\nmood: impatient', ''),
     ('Stop reason', 'stuck', 'warn'), ('Stop detail', 'asked the same thing three times', '')]
    >>> facts[2].note
    'the conversation stopped moving toward the goal'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._model import fmt, pretty_json

__all__ = ["ATTACK_FIELDS", "SCENARIO_FIELDS", "STOP_REASONS", "Fact", "conversation_facts",
           "success_message"]

#: A scenario's fields shown, with their headings.
SCENARIO_FIELDS = (("scenario_id", "Scenario"), ("goal", "Goal"),
                   ("expected_outcome", "Expected outcome"), ("persona", "Persona"))
#: Each stop reason a simulated user writes: its colour and what it means.
STOP_REASONS = {
    "goal_met": ("good", "the simulated user reached its goal"),
    "stuck": ("warn", "the conversation stopped moving toward the goal"),
    "max_turns": ("warn", "the turn limit came first"),
    "app_failed": ("bad", "the app under test failed to answer"),
    "user_failed": ("bad", "the model playing the user failed"),
}
#: A multi-turn attack's fields shown, with their headings.
ATTACK_FIELDS = (("strategy", "Attack strategy"), ("success", "Attack succeeded"),
                 ("success_turn", "Success turn"), ("backtracks", "Backtracks"),
                 ("unrated", "Outcome unknown"))


@dataclass
class Fact:
    """One line at the top of a conversation: ``label``, ``text``, a ``css`` colour and a
    ``note`` (what the value means)."""

    label: str
    text: str
    css: str = ""
    note: str = ""


def _text(value: Any) -> str:
    """A field's value as text: strings as they are, a flat object as ``key: value`` lines,
    a list of strings joined, anything else as indented JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and all(not isinstance(v, (Mapping, list))
                                          for v in value.values()):
        return "\n".join(f"{k}: {fmt(v)}" for k, v in value.items())
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ", ".join(value)
    if isinstance(value, (Mapping, list)):
        return pretty_json(value)
    return fmt(value)


def _fields(extra: Mapping[str, Any] | None) -> dict[str, Any]:
    """The row's extra fields with its ``scenario`` object's fields beneath them."""
    extra = extra or {}
    scenario = extra.get("scenario")
    merged = dict(scenario) if isinstance(scenario, Mapping) else {}
    if isinstance(scenario, str):
        merged["scenario_id"] = scenario
    merged.update({k: v for k, v in extra.items() if k != "scenario"})
    return merged


def success_message(extra: Mapping[str, Any] | None) -> int | None:
    """The index in the messages of the reply that made an attack succeed: the exchange of its
    ``exchanges`` rated a success at the ``success_turn`` and kept in the messages; None when
    the row names none.

    Example:
        >>> success_message({"success": True, "success_turn": 2, "exchanges": [
        ...     {"turn": 1, "message": 1, "success": False},
        ...     {"turn": 2, "message": 3, "success": True}]})
        3
        >>> success_message({"success": False, "success_turn": None, "exchanges": []}) is None
        True
    """
    fields = _fields(extra)
    turn = fields.get("success_turn")
    exchanges = fields.get("exchanges")
    if not fields.get("success") or turn is None or not isinstance(exchanges, list):
        return None
    for e in exchanges:
        if isinstance(e, Mapping) and e.get("success") is True and e.get("turn") == turn:
            message = e.get("message")
            if isinstance(message, int) and not isinstance(message, bool):
                return message
    return None


def conversation_facts(extra: Mapping[str, Any] | None) -> list[Fact]:
    """The scenario, stop and attack fields the row has (:data:`SCENARIO_FIELDS`,
    ``stop_reason``, ``stop_detail``, :data:`ATTACK_FIELDS`) and its ``error``, in that order.

    Example:
        >>> [(f.label, f.text, f.css) for f in conversation_facts(
        ...     {"strategy": "crescendo", "success": True, "success_turn": 5, "backtracks": 2,
        ...      "error": None})]
        ... # doctest: +NORMALIZE_WHITESPACE
        [('Attack strategy', 'crescendo', ''), ('Attack succeeded', 'yes', 'bad'),
         ('Success turn', 'attack turn 5', ''), ('Backtracks', '2', '')]
        >>> conversation_facts({"answer": "x"})
        []
    """
    fields = _fields(extra)
    facts = [Fact(label, _text(fields[key])) for key, label in SCENARIO_FIELDS
             if fields.get(key) not in (None, "")]
    reason = fields.get("stop_reason")
    if reason not in (None, ""):
        css, meaning = STOP_REASONS.get(str(reason), ("", ""))
        facts.append(Fact("Stop reason", _text(reason), css, meaning))
    if fields.get("stop_detail") not in (None, ""):
        facts.append(Fact("Stop detail", _text(fields["stop_detail"])))
    for key, label in ATTACK_FIELDS:
        value = fields.get(key)
        if value is None or value == "":
            continue
        css = ("bad" if value else "good") if key == "success" and isinstance(value, bool) \
            else "warn" if key == "unrated" else ""
        text = f"attack turn {fmt(value)}" if key == "success_turn" else _text(value)
        facts.append(Fact(label, text, css))
    if fields.get("error") not in (None, ""):
        facts.append(Fact("Error", _text(fields["error"]), "bad"))
    return facts
