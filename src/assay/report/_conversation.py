"""A scored conversation made readable for the report and the web UI: each message as a bubble
by role (an assistant's tool calls inside its bubble, each call's result folded under it), each
metric's per-turn result beside the turn it names, and what the row says about how it was made
(a simulated user's scenario and stop reason, a multi-turn attack's outcome) at the top.

Plain data: the templates escape every text (the text under evaluation is data).

Example:
    >>> inputs = {"messages": [
    ...     {"role": "system", "content": "You help shoppers."},
    ...     {"role": "user", "content": "Where is order 42?"},
    ...     {"role": "assistant", "content": "", "tool_calls": [
    ...         {"id": "c1", "function": {"name": "track", "arguments": '{"order": 42}'}}]},
    ...     {"role": "tool", "tool_call_id": "c1", "content": "arrives Friday"},
    ...     {"role": "assistant", "content": "It arrives on Friday."}],
    ...     "extra": {"goal": "learn when order 42 arrives", "stop_reason": "goal_met"}}
    >>> record = {"id": "c", "coherence": {"value": 5.0, "details": {"turns": [
    ...     {"turn": 4, "value": 5.0, "reason": "clear"}, {"turn": 9, "value": 1.0}]}}}
    >>> view = conversation_view(inputs, record)
    >>> [(b.turn, b.role, [c.call.title for c in b.calls]) for b in view.bubbles]
    [(0, 'system', []), (1, 'user', []), (2, 'assistant', ['call 1: track']), (4, 'assistant', [])]
    >>> call = view.bubbles[2].calls[0]
    >>> call.result_turn, call.result.text
    (3, 'arrives Friday')
    >>> [(r.metric, r.reason) for r in view.bubbles[3].results]
    [('coherence', 'clear')]
    >>> [(r.turn, r.value) for r in view.loose]   # turn 9 is not in the conversation
    [(9, '1')]
    >>> [(f.label, f.text, f.css) for f in view.facts]
    [('Goal', 'learn when order 42 arrives', ''), ('Stop reason', 'goal_met', 'good')]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._conversation_facts import Fact, conversation_facts, success_message
from ._trajectory import (
    RESULT_CHARS,
    TrajectoryStep,
    TrajectoryView,
    call_findings,
    call_step,
    has_trajectory,
    tool_call_parts,
    trajectory_view,
)
from ._turn_results import TurnResult, turn_results

__all__ = ["MESSAGE_CHARS", "ConversationView", "ToolCallView", "TurnBubble",
           "conversation_view"]

#: A message longer than this shows its start, the whole text behind "show all".
MESSAGE_CHARS = 2000
#: A folded tool result's summary line shows this much of the result.
PREVIEW_CHARS = 90


@dataclass
class ToolCallView:
    """One call an assistant turn made (``call``: title, pretty arguments, the agent metrics'
    findings) and the tool message that answered it (``result``, at ``result_turn``; None when
    the conversation has none). ``preview`` is the result's start, for a folded result."""

    call: TrajectoryStep
    result: TrajectoryStep | None = None
    result_turn: int | None = None
    preview: str = ""


@dataclass
class TurnBubble:
    """One message shown as a bubble: its index in the messages (``turn``), ``role``, the
    ``text`` shown (``full``: the whole text when it is cut, with ``note`` saying so), its
    ``citations``, ``calls``, the ``results`` that name it (or a tool result folded into it)
    and ``marks`` (e.g. the turn where an attack succeeded)."""

    turn: int
    role: str
    text: str
    full: str = ""
    note: str = ""
    final: bool = False
    citations: list[dict[str, Any]] = field(default_factory=list)
    calls: list[ToolCallView] = field(default_factory=list)
    results: list[TurnResult] = field(default_factory=list)
    marks: list[str] = field(default_factory=list)


@dataclass
class ConversationView:
    """A conversation as bubbles, with the row's ``facts`` (scenario, stop reason, attack
    outcome), the per-turn results that name no turn of it (``loose``), and, for an agent's
    row, its reference calls and findings that name no call (``agent``)."""

    bubbles: list[TurnBubble]
    facts: list[Fact] = field(default_factory=list)
    loose: list[TurnResult] = field(default_factory=list)
    agent: TrajectoryView | None = None
    turns: int = 0

    @property
    def calls(self) -> int:
        """How many tool calls the conversation holds."""
        return sum(len(b.calls) for b in self.bubbles)

    @property
    def placed(self) -> set[str]:
        """The metrics with a result shown beside a turn."""
        return {r.metric for b in self.bubbles for r in b.results if r.origin == "metric"}


def clip(text: str, limit: int) -> tuple[str, str, str]:
    """``(shown, full, note)``: ``text`` itself, or when longer than ``limit`` its start with
    the whole text and a note saying how much is shown.

    Example:
        >>> clip("abcdef", 4)
        ('abcd…', 'abcdef', '6 characters; the first 4 shown')
        >>> clip("abc", 4)
        ('abc', '', '')
    """
    if len(text) <= limit:
        return text, "", ""
    return text[:limit] + "…", text, f"{len(text)} characters; the first {limit} shown"


def _citations(turn: Mapping[str, Any]) -> list[dict[str, Any]]:
    found = turn.get("citations") or []
    return [{"id": c.get("id"), "title": c.get("title"), "content": c.get("content")}
            for c in found if isinstance(c, Mapping)] if isinstance(found, list) else []


def _bubbles(turns: list[Mapping[str, Any]], by_call: Mapping[int, list[str]],
             agent: bool) -> tuple[list[TurnBubble], dict[int, int]]:
    """The bubbles, and where each message is shown: ``{message index: bubble position}`` (a
    tool result answering a call shows in the calling turn's bubble)."""
    bubbles: list[TurnBubble] = []
    shown_in: dict[int, int] = {}
    open_calls: dict[str, ToolCallView] = {}
    owner: dict[str, int] = {}
    n = 0
    for i, turn in enumerate(turns):
        role, content = str(turn.get("role", "?")), str(turn.get("content") or "")
        call_id = str(turn.get("tool_call_id") or "")
        if role == "tool" and call_id in open_calls:
            text, full, note = clip(content, RESULT_CHARS)
            view = open_calls.pop(call_id)
            name = view.call.title.split(": ", 1)[-1]
            view.result = TrajectoryStep("result", f"result of {name} ({call_id})", text,
                                         full=full, note=note)
            view.result_turn, view.preview = i, clip(" ".join(content.split()),
                                                     PREVIEW_CHARS)[0]
            shown_in[i] = owner[call_id]
            continue
        text, full, note = clip(content, MESSAGE_CHARS)
        bubble = TurnBubble(i, role, text, full, note, citations=_citations(turn))
        if role == "tool":
            bubble.note = (f"answers call {call_id}, which no earlier turn made" if call_id
                           else "names no call") + (f"; {note}" if note else "")
        for call in turn.get("tool_calls") or [] if role == "assistant" else []:
            if isinstance(call, Mapping):
                n += 1
                name, cid, _ = tool_call_parts(call)
                view = ToolCallView(call_step(n, call, list(by_call.get(n, []))))
                bubble.calls.append(view)
                if cid:
                    open_calls[cid], owner[cid] = view, len(bubbles)
        shown_in[i] = len(bubbles)
        bubbles.append(bubble)
    answers = [b for b in bubbles if b.role == "assistant" and b.text.strip() and not b.calls]
    if agent and answers and answers[-1] is bubbles[-1]:
        answers[-1].final = True
    return bubbles, shown_in


def conversation_view(inputs: Mapping[str, Any] | None, record: Mapping[str, Any] | None = None,
                      *, names: Iterable[str] | None = None) -> ConversationView | None:
    """The readable conversation of a row's inputs (``assay.data.row_inputs``' shape) with the
    results of its ``record`` (metrics in the order of ``names``; default: the record's) placed
    beside the turns they name; None when the row is not a conversation."""
    if not inputs or (not isinstance(inputs.get("messages"), list) and not has_trajectory(inputs)):
        return None
    turns = [t for t in inputs.get("messages") or [] if isinstance(t, Mapping)]
    agent = trajectory_view(inputs, record)
    by_call = call_findings(record)[0]
    bubbles, shown_in = _bubbles(turns, by_call, agent is not None)
    extra = inputs.get("extra") if isinstance(inputs.get("extra"), Mapping) else None
    loose: list[TurnResult] = []
    for result in turn_results(record, names=names, extra=extra):
        at = shown_in.get(result.turn) if result.turn is not None else None
        if at is None:
            loose.append(result)
            continue
        if bubbles[at].turn != result.turn:
            result.label = ", ".join(filter(None, [f"on the tool result (turn {result.turn})",
                                                   result.label]))
        bubbles[at].results.append(result)
    facts = conversation_facts(extra)
    won = success_message(extra)
    at = shown_in.get(won) if won is not None else None
    if at is not None:
        bubbles[at].marks.append("the attack succeeded here")
    for fact in facts:
        if fact.label == "Success turn":
            fact.note = ("its reply is marked below" if at is not None
                         else "its reply is not in these messages")
    return ConversationView(bubbles, facts, loose, agent, turns=len(turns))
