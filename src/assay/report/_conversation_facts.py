"""What a conversation row says about how it was made, read from its extra fields, for the top
of the conversation: a simulated user's scenario (``goal``, ``expected_outcome``, ``persona``)
and why it stopped (``stop_reason``, ``stop_detail``), as ``assay simulate --scenarios``
writes them; a multi-turn attack's ``strategy``, ``success``, ``success_turn`` and
``backtracks``.

The scenario's fields are read from the row itself or from an object in its ``scenario``
field (the row's own win). A turn is an index into the row's messages.

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
           "success_turn"]

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
                 ("success_turn", "Success turn"), ("backtracks", "Backtracks"))


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


def success_turn(extra: Mapping[str, Any] | None) -> int | None:
    """The turn where an attack succeeded (its row's ``success_turn``), None when not given.

    Example:
        >>> success_turn({"success": True, "success_turn": 5}), success_turn({"success": False})
        (5, None)
    """
    turn = _fields(extra).get("success_turn")
    return turn if isinstance(turn, int) and not isinstance(turn, bool) else None


def conversation_facts(extra: Mapping[str, Any] | None) -> list[Fact]:
    """The scenario, stop and attack fields the row has (:data:`SCENARIO_FIELDS`,
    ``stop_reason``, ``stop_detail``, :data:`ATTACK_FIELDS`), in that order.

    Example:
        >>> [(f.label, f.text, f.css) for f in conversation_facts(
        ...     {"strategy": "crescendo", "success": True, "success_turn": 5, "backtracks": 2})]
        ... # doctest: +NORMALIZE_WHITESPACE
        [('Attack strategy', 'crescendo', ''), ('Attack succeeded', 'yes', 'bad'),
         ('Success turn', '5', ''), ('Backtracks', '2', '')]
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
        css = ("bad" if value else "good") if key == "success" and isinstance(value, bool) else ""
        facts.append(Fact(label, _text(value), css))
    return facts
