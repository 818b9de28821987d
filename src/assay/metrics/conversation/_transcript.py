"""A conversation as the judged conversation metrics read it: the app's instructions (the system
messages it starts with), a numbered transcript of the rest, and the scenario's texts (``goal``,
``expected_outcome``: extra fields of the row, as ``assay simulate`` writes them). The
transcript leads each turn with its index into ``messages``, so the judge can name the turn
it means; the answer that names one is read by :func:`parse_named_turn`.

Example:
    >>> from assay.data import Row, Turn
    >>> row = Row(id="c", line=1, extra={"goal": "Book a ticket to Lyon."}, messages=[
    ...     Turn(role="system", content="You sell train tickets."),
    ...     Turn(role="user", content="I'm Ana. One ticket to Lyon, please."),
    ...     Turn(role="assistant", content="Sure. What is your name?")])
    >>> view = ConversationView.of(row)
    >>> view.instructions, view.goal, view.expected_outcome
    ('You sell train tickets.', 'Book a ticket to Lyon.', None)
    >>> print(view.transcript)
    [1] user: I'm Ana. One ticket to Lyon, please.
    [2] assistant: Sure. What is your name?
    >>> parse_named_turn('{"score": 2, "reason": "Asks for the name again.", "turn": 2}')
    (2, 'Asks for the name again.', 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...asking import RATING_SCHEMA, json_object, parse_rating
from ...data import Row
from .._turns import history_text

__all__ = ["NAMED_TURN_SCHEMA", "ConversationView", "instructions_of", "parse_named_turn",
           "place_turn", "scenario_text", "scenario_text_problem"]

#: The answer of a rubric over a whole conversation: a 1-5 score, a reason, and the index (in
#: ``messages``) of the assistant turn the reason is about, or null. The score comes first, so
#: its token's probabilities are read at one position.
NAMED_TURN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {**RATING_SCHEMA["properties"], "turn": {"type": ["integer", "null"]}},
    "required": ["score", "reason", "turn"],
    "additionalProperties": False,
}


def scenario_text(row: Row, field: str) -> str | None:
    """The row's ``field`` (an extra field such as ``expected_outcome``) as text: a string, or
    a list of strings as one line each; None when absent, blank or not text.

    Example:
        >>> row = Row(id="1", line=1, extra={"expected_outcome": ["Refund issued.", "Mail sent."]})
        >>> print(scenario_text(row, "expected_outcome"))
        - Refund issued.
        - Mail sent.
        >>> scenario_text(row, "goal") is None
        True
    """
    value = row.extra.get(field)
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        lines = [f"- {v.strip()}" for v in value if v.strip()]
        return "\n".join(lines) or None
    return None


def scenario_text_problem(row: Row, field: str) -> str | None:
    """Why the row's ``field`` cannot be read as text (it is given, but is neither a string nor a
    list of strings), else None.

    Example:
        >>> scenario_text_problem(Row(id="1", line=1, extra={"goal": 7}), "goal")
        'its goal is not text (got int): give a string or a list of strings'
    """
    value = row.extra.get(field)
    if value is None or isinstance(value, str) or (
            isinstance(value, list) and all(isinstance(v, str) for v in value)):
        return None
    return (f"its {field} is not text (got {type(value).__name__}): give a string or a list "
            "of strings")


@dataclass(frozen=True)
class ConversationView:
    """The texts of one conversation: ``instructions`` (its leading system messages, or None),
    ``transcript`` (every later turn, numbered by its index in ``messages``), and the scenario's
    ``goal`` and ``expected_outcome`` (None where the row has none)."""

    instructions: str | None
    transcript: str
    goal: str | None
    expected_outcome: str | None

    @classmethod
    def of(cls, row: Row) -> ConversationView:
        """Read ``row`` (a conversation). A system message after the first other turn stays in
        the transcript, where it was said."""
        messages = row.messages or []
        start = _first_after_system(row)
        return cls(instructions=instructions_of(row),
                   transcript=history_text(messages[start:], number_from=start) or "",
                   goal=scenario_text(row, "goal"),
                   expected_outcome=scenario_text(row, "expected_outcome"))


def _first_after_system(row: Row) -> int:
    """The index of the conversation's first turn that is not a system message."""
    messages = row.messages or []
    return next((i for i, t in enumerate(messages) if t.role != "system"), len(messages))


def instructions_of(row: Row) -> str | None:
    """The text of the system messages a conversation starts with (the app's role and
    instructions), or None when it starts with none (or they are blank).

    Example:
        >>> from assay.data import Turn
        >>> instructions_of(Row(id="1", line=1, messages=[
        ...     Turn(role="system", content="Be brief."), Turn(role="user", content="Hi")]))
        'Be brief.'
    """
    lead = (row.messages or [])[:_first_after_system(row)]
    return "\n".join(t.content for t in lead if t.content.strip()) or None


def parse_named_turn(text: str) -> tuple[int, str, Any] | None:
    """``(score, reason, turn)`` from a JSON answer, or None when it is not a valid rating (see
    :func:`~assay.asking.parse_rating`: strict). ``turn`` is what the answer gave (None
    when it gave none): :func:`place_turn` checks it against the conversation.

    Example:
        >>> parse_named_turn('{"score": 5, "reason": "Kept every detail."}')
        (5, 'Kept every detail.', None)
        >>> parse_named_turn('{"turn": 3, "reason": "no score"}') is None
        True
    """
    rated = parse_rating(text)
    if rated is None:
        return None
    obj = json_object(text) or {}
    return rated[0], rated[1], obj.get("turn")


def place_turn(details: dict[str, Any], row: Row) -> dict[str, Any]:
    """``details`` with the turn the judge named (``details["turn"]``) kept when it is an
    integer index of an assistant turn of ``row``; any other value the judge gave moves to
    ``turn_ignored`` (a page could not place it beside a turn).

    Example:
        >>> from assay.data import Turn
        >>> row = Row(id="1", line=1, messages=[Turn(role="user", content="Hi"),
        ...                                     Turn(role="assistant", content="Hello")])
        >>> place_turn({"turn": 1}, row), place_turn({"turn": 0}, row), place_turn({}, row)
        ({'turn': 1}, {'turn_ignored': 0}, {})
    """
    if "turn" not in details:
        return details
    turn = details.pop("turn")
    if turn is None:
        return details
    messages = row.messages or []
    if (isinstance(turn, float) and turn.is_integer()):
        turn = int(turn)
    if (isinstance(turn, int) and not isinstance(turn, bool) and 0 <= turn < len(messages)
            and messages[turn].role == "assistant"):
        details["turn"] = turn
    else:
        details["turn_ignored"] = turn
    return details
