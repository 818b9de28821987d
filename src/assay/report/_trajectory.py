"""An agent's trajectory made readable for the report and the web UI: each step as the call
(name and pretty arguments), the tool's result (cut to a readable length, the rest behind a
"show all"), the assistant's text between calls and its final answer; the reference calls;
and the agent metrics' findings beside the call or reference they name.

Plain data: the templates escape every text (the text under evaluation is data).

Example:
    >>> inputs = {"messages": [
    ...     {"role": "user", "content": "Weather in Paris?"},
    ...     {"role": "assistant", "content": "", "tool_calls": [
    ...         {"id": "c1", "type": "function",
    ...          "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
    ...     {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    ...     {"role": "assistant", "content": "It is sunny."}],
    ...     "reference_tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}
    >>> view = trajectory_view(inputs)
    >>> [(s.kind, s.title) for s in view.steps]
    [('user', 'user'), ('call', 'call 1: get_weather'), ('result', 'result of get_weather (c1)'), ('answer', 'final answer')]
    >>> print(view.steps[1].text)
    {
      "city": "Paris"
    }
    >>> view.references[0].title
    'reference 1: get_weather'
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._model import pretty_json

__all__ = ["RESULT_CHARS", "TrajectoryStep", "TrajectoryView", "call_findings", "call_step",
           "has_trajectory", "reference_text", "tool_call_parts", "trajectory_view"]

#: A tool result longer than this shows its start, the whole text behind "show all".
RESULT_CHARS = 600
_CALL_TEXT = re.compile(r"^call (\d+) ")


@dataclass
class TrajectoryStep:
    """One readable step: ``kind`` is ``system``, ``user``, ``call``, ``result``, ``text``
    (assistant text between calls) or ``answer`` (the last assistant text). ``text`` is what
    shows; ``full`` the whole text when ``text`` is cut (else ""); ``note`` a remark such as
    "arguments are not valid JSON"; ``findings`` the metrics' findings about this call."""

    kind: str
    title: str
    text: str
    full: str = ""
    note: str = ""
    findings: list[str] = field(default_factory=list)


@dataclass
class TrajectoryView:
    """The ``steps`` of a conversation with tool calls, its ``references`` (expected calls,
    shown as steps of kind ``reference``), findings that name no call (``other``) and
    ``notes`` (no final answer; an empty reference: no call expected)."""

    steps: list[TrajectoryStep]
    references: list[TrajectoryStep]
    other: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def calls(self) -> int:
        """How many calls the agent made."""
        return sum(1 for s in self.steps if s.kind == "call")


def has_trajectory(inputs: Mapping[str, Any] | None) -> bool:
    """Whether a row's inputs hold tool calls, tool results or reference calls.

    Example:
        >>> has_trajectory({"messages": [{"role": "user", "content": "Hi"}]})
        False
        >>> has_trajectory({"messages": [], "reference_tool_calls": []})
        True
    """
    if not inputs:
        return False
    turns = [t for t in inputs.get("messages") or [] if isinstance(t, Mapping)]
    return (isinstance(inputs.get("reference_tool_calls"), list)
            or any(t.get("tool_calls") or t.get("role") == "tool" for t in turns))


def call_findings(record: Mapping[str, Any] | None) -> tuple[dict[int, list[str]],
                                                             dict[int, list[str]], list[str]]:
    """The agent metrics' findings in a result record: ``(by call, by reference, other)``,
    positions 1-based, each text once (several metrics report the same finding).

    Example:
        >>> rec = {"id": "a", "tool_call_accuracy": {"value": 0, "details": {"findings": [
        ...     {"kind": "wrong_value", "call": 1, "reference": 1, "text": "call 1 f: wrong x"},
        ...     {"kind": "missing_call", "reference": 2, "text": "reference call 2 g: missing"}]}},
        ...     "tool_schema_validity": {"value": 0.5, "details": {"invalid": ["call 1 f: bad"]}}}
        >>> call_findings(rec)
        ({1: ['call 1 f: wrong x', 'call 1 f: bad']}, {2: ['reference call 2 g: missing']}, [])
    """
    by_call: dict[int, list[str]] = {}
    by_ref: dict[int, list[str]] = {}
    other: list[str] = []
    seen: set[str] = set()

    def add(text: str, call: Any, ref: Any) -> None:
        if text in seen:
            return
        seen.add(text)
        if isinstance(call, int):
            by_call.setdefault(call, []).append(text)
        elif isinstance(ref, int):
            by_ref.setdefault(ref, []).append(text)
        else:
            other.append(text)

    for key, result in (record or {}).items():
        details = result.get("details") if isinstance(result, Mapping) and key != "id" else None
        if not isinstance(details, Mapping):
            continue
        for f in details.get("findings") or []:
            if isinstance(f, Mapping) and f.get("text"):
                add(str(f["text"]), f.get("call"), f.get("reference"))
        for text in [*(details.get("invalid") or []), *(details.get("argument_errors") or [])]:
            m = _CALL_TEXT.match(str(text))
            add(str(text), int(m.group(1)) if m else None, None)
    return by_call, by_ref, other


def tool_call_parts(call: Mapping[str, Any]) -> tuple[str, str, str]:
    """``(name, call id, arguments text)`` of a call as inputs hold it, in OpenAI's shape
    (``{"id", "function": {"name", "arguments"}}``: the store keeps it so, datasets give it so).

    Example:
        >>> tool_call_parts({"id": "c1", "function": {"name": "f", "arguments": {"a": 1}}})
        ('f', 'c1', '{"a": 1}')
    """
    found = call.get("function")
    fn: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    name = fn.get("name", "?")
    args = fn.get("arguments", "{}")
    if not isinstance(args, str):
        args = json.dumps(args, ensure_ascii=False)
    return str(name), str(call.get("id") or ""), args


def reference_text(ref: Mapping[str, Any]) -> str:
    """A reference call's expected arguments, one line each: the value, the acceptable values
    (``accept`` overrides ``arguments``), or that the argument may be left out.

    Example:
        >>> print(reference_text({"name": "f", "arguments": {"city": "Paris", "n": 2},
        ...     "accept": {"city": ["Paris", "Paris, France"], "max": [200, None], "x": [None]}}))
        city: one of "Paris", "Paris, France"
        n: 2
        max: 200, or left out
        x: left out
        >>> reference_text({"name": "f"})
        '(no arguments)'
    """
    found_args, found_accept = ref.get("arguments"), ref.get("accept")
    args: Mapping[str, Any] = found_args if isinstance(found_args, Mapping) else {}
    accept: Mapping[str, Any] = found_accept if isinstance(found_accept, Mapping) else {}
    lines = []
    for name in dict.fromkeys([*args, *accept]):
        if name not in accept or not isinstance(accept[name], list):
            lines.append(f"{name}: {_json(args.get(name))}")
            continue
        values = [_json(v) for v in accept[name] if v is not None]
        text = ("one of " if len(values) > 1 else "") + ", ".join(values)
        if None in accept[name]:
            text = f"{text}, or left out" if values else "left out"
        lines.append(f"{name}: {text}")
    return "\n".join(lines) or "(no arguments)"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def call_step(n: int, call: Mapping[str, Any], findings: list[str]) -> TrajectoryStep:
    """The ``n``-th call of a conversation as a step: its name, its arguments as indented JSON
    (as written, with a note, when they are not valid JSON) and its ``findings``.

    Example:
        >>> step = call_step(2, {"id": "c", "function": {"name": "f", "arguments": "{x"}}, [])
        >>> step.title, step.text, step.note
        ('call 2: f', '{x', 'the arguments are not valid JSON')
    """
    name, _, args = tool_call_parts(call)
    try:
        text, note = pretty_json(json.loads(args)), ""
    except (ValueError, RecursionError):
        text, note = args, "the arguments are not valid JSON"
    return TrajectoryStep("call", f"call {n}: {name}", text, note=note, findings=findings)


def _cut(text: str) -> tuple[str, str]:
    if len(text) <= RESULT_CHARS:
        return text, ""
    return text[:RESULT_CHARS] + "…", text


def trajectory_view(inputs: Mapping[str, Any],
                    record: Mapping[str, Any] | None = None) -> TrajectoryView | None:
    """The readable trajectory of a row's inputs (``assay.data.row_inputs``' shape), with the
    findings of the result ``record``'s agent metrics; None when the row has no tool calls,
    tool results or reference calls."""
    if not has_trajectory(inputs):
        return None
    by_call, by_ref, other = call_findings(record)
    turns = [t for t in inputs.get("messages") or [] if isinstance(t, Mapping)]
    last = turns[-1] if turns else {}
    answered = (last.get("role") == "assistant" and not last.get("tool_calls")
                and bool(str(last.get("content") or "").strip()))
    last_text = len(turns) - 1 if answered else -1
    names: dict[str, str] = {}
    steps: list[TrajectoryStep] = []
    n = 0
    for i, turn in enumerate(turns):
        role, content = str(turn.get("role", "?")), str(turn.get("content") or "")
        if role == "tool":
            call_id = str(turn.get("tool_call_id") or "")
            text, full = _cut(content)
            title = f"result of {names.get(call_id, 'a call')}" + (f" ({call_id})" if call_id else "")
            note = f"{len(content)} characters; the first {RESULT_CHARS} shown" if full else ""
            steps.append(TrajectoryStep("result", title, text, full=full, note=note))
            continue
        if role != "assistant":
            steps.append(TrajectoryStep(role, role, content))
            continue
        if content.strip():
            kind = "answer" if i == last_text else "text"
            steps.append(TrajectoryStep(kind, "final answer" if kind == "answer"
                                        else "assistant", content))
        for call in turn.get("tool_calls") or []:
            if isinstance(call, Mapping):
                n += 1
                name, call_id, _ = tool_call_parts(call)
                names[call_id] = name
                steps.append(call_step(n, call, by_call.pop(n, [])))
    other += [t for texts in by_call.values() for t in texts]  # calls the inputs lack
    references = []
    for j, ref in enumerate(inputs.get("reference_tool_calls") or [], start=1):
        if not isinstance(ref, Mapping):
            continue
        references.append(TrajectoryStep("reference", f"reference {j}: {ref.get('name', '?')}",
                                         reference_text(ref), findings=by_ref.pop(j, [])))
    other += [t for texts in by_ref.values() for t in texts]
    notes = [] if answered or not turns else ["The conversation ends without a final answer."]
    if inputs.get("reference_tool_calls") == []:
        notes.append("Reference calls: none (the agent should call no tool).")
    return TrajectoryView(steps, references, other, notes)
