"""Tool calls, tool definitions and reference calls of a conversation row, checked.

Structural breakage is bad input, reported like every other problem (file, line, field, fix):
a call without an id or a function name, two calls of one message with the same id, a ``tool``
message whose ``tool_call_id`` answers no earlier call, ``tools`` or ``reference_tool_calls``
not of the documented shapes. An agent's own mistakes are not: arguments that are not valid JSON, a call to an undeclared tool, are
read as they are and scored by the agent metrics.

Example:
    >>> problems = []
    >>> calls = tool_calls([{"id": "c1", "type": "function",
    ...                      "function": {"name": "f", "arguments": "{not json"}}],
    ...                     "d.jsonl line 1, field 'messages[1].tool_calls", problems)
    >>> [(c.id, c.name, c.arguments_text) for c in calls], problems
    ([('c1', 'f', '{not json')], [])
    >>> tool_calls([{"function": {"arguments": "{}"}}], "d.jsonl line 2, field 'm", problems)
    >>> problems[0]
    "d.jsonl line 2, field 'm[0].id': missing. Fix: give every tool call a text 'id'."
"""

from __future__ import annotations

import json
from typing import Any

from ._models import ReferenceCall, ToolCall, ToolSpec, Turn

__all__ = ["duplicate_id_problem", "message_tool_fields", "reference_calls", "tool_calls",
           "tool_results_problems", "tool_specs"]

_CALL_SHAPE = '{"id", "type": "function", "function": {"name", "arguments"}}'
_TOOL_SHAPE = '{"type": "function", "function": {"name", "description", "parameters"}}'
_REF_SHAPE = '{"name", "arguments": {...}, "accept": {"ARG": [values]}}'


def _kind(value: Any) -> str:
    return "missing" if value is None else f"got {type(value).__name__}"


def _text(value: Any) -> str | None:
    """``value`` as an id or name: text, or an integer written as text; None otherwise."""
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def tool_calls(raw: Any, field: str, problems: list[str]) -> list[ToolCall] | None:
    """The calls of one assistant message's ``tool_calls`` (``field`` is ``"<where>, field
    '<path>"``, without the closing quote); None after adding a problem."""
    if not isinstance(raw, list):
        problems.append(f"{field}': expected a list of tool calls, {_kind(raw)}. Fix: write "
                        f"tool_calls as a JSON list of {_CALL_SHAPE}.")
        return None
    out: list[ToolCall] = []
    ok = True
    first_with_id: dict[str, int] = {}
    for j, call in enumerate(raw):
        at = f"{field}[{j}]"
        if not isinstance(call, dict):
            problems.append(f"{at}': expected an object, {_kind(call)}. Fix: use {_CALL_SHAPE}.")
            ok = False
            continue
        call_type = call.get("type")
        if call_type is not None and call_type != "function":
            problems.append(f"{at}.type': got {json.dumps(call_type, default=str)}; only "
                            "'function' calls are read. Fix: use type 'function'.")
            ok = False
        call_id = _text(call.get("id"))
        if call_id is None:
            problems.append(f"{at}.id': {'missing' if call.get('id') is None else 'not text'}. "
                            "Fix: give every tool call a text 'id'.")
            ok = False
        elif call_id in first_with_id:
            problems.append(duplicate_id_problem(at, call_id,
                                                 f"tool_calls[{first_with_id[call_id]}]"))
            ok = False
        else:
            first_with_id[call_id] = j
        function = call.get("function")
        if not isinstance(function, dict):
            problems.append(f"{at}.function': expected an object, {_kind(function)}. Fix: "
                            "write the call as {\"function\": {\"name\", \"arguments\"}}.")
            ok = False
            continue
        raw_name = function.get("name")
        name = raw_name if isinstance(raw_name, str) and raw_name.strip() else None
        if name is None:
            problems.append(f"{at}.function.name': {_kind(function.get('name'))}. Fix: name "
                            "the function called, as text.")
            ok = False
        args = function.get("arguments", "{}")
        if isinstance(args, dict):  # some producers give the object itself
            args = json.dumps(args, ensure_ascii=False)
        if not isinstance(args, str):
            problems.append(f"{at}.function.arguments': expected the arguments as a JSON "
                            f"string, {_kind(args)}. Fix: write them as a string such as "
                            "\"{\\\"city\\\": \\\"Paris\\\"}\".")
            ok = False
        if ok and call_id is not None and name is not None and isinstance(args, str):
            out.append(ToolCall(id=call_id, name=name, arguments_text=args))
    return out if ok else None


def duplicate_id_problem(at: str, call_id: str, first: str, kind: str = "tool call") -> str:
    """The problem of a call (``at``: its field, without the closing quote) whose id an
    earlier call of the same message (its field ``first``) has: a tool result could not say
    which call it answers.

    Example:
        >>> duplicate_id_problem("d.jsonl line 3, field 'messages[1].tool_calls[1]", "c1",
        ...                      "tool_calls[0]")
        "d.jsonl line 3, field 'messages[1].tool_calls[1].id': 'c1' is also the id of tool_calls[0] of this message. Fix: give each tool call of a message its own 'id' (a tool result names the call it answers by its id)."
    """
    return (f"{at}.id': {call_id!r} is also the id of {first} of this message. Fix: give "
            f"each {kind} of a message its own 'id' (a tool result names the call it answers "
            "by its id).")


def message_tool_fields(message: dict[str, Any], role: Any, field: str,
                        problems: list[str]) -> tuple[list[ToolCall], str | None]:
    """``(tool calls, tool_call_id)`` of one message (``field``: ``"<where>, field
    'messages[i]"``): an assistant's calls, a tool message's id; problems are added.

    Example:
        >>> problems = []
        >>> message_tool_fields({"role": "tool", "content": "4"}, "tool", "f 'm[2]", problems)
        ([], None)
        >>> problems
        ["f 'm[2].tool_call_id': missing. Fix: give the id of the tool call this message answers."]
    """
    raw, call_id = message.get("tool_calls"), message.get("tool_call_id")
    calls: list[ToolCall] = []
    if raw is not None and role != "assistant":
        problems.append(f"{field}.tool_calls': only assistant messages call tools. Fix: move "
                        "the calls to an assistant message.")
    elif raw is not None:
        calls = tool_calls(raw, f"{field}.tool_calls", problems) or []
    if role != "tool":
        return calls, None
    if not isinstance(call_id, str) or not call_id:
        problems.append(f"{field}.tool_call_id': {'missing' if call_id is None else 'not text'}. "
                        "Fix: give the id of the tool call this message answers.")
        return calls, None
    return calls, call_id


def tool_results_problems(turns: list[Turn], where: str,
                          fields: list[str] | None = None) -> list[str]:
    """A problem for every ``tool`` message whose ``tool_call_id`` answers no earlier call
    (``fields``: where each turn's id is in the input, default ``messages[i].tool_call_id``).

    Example:
        >>> turns = [Turn(role="tool", content="42", tool_call_id="c9")]
        >>> tool_results_problems(turns, "d.jsonl line 1")[0].split(". Fix")[0]
        "d.jsonl line 1, field 'messages[0].tool_call_id': 'c9' answers no earlier tool call"
    """
    problems: list[str] = []
    called: set[str] = set()
    for i, turn in enumerate(turns):
        called.update(c.id for c in turn.tool_calls or [])
        if turn.role == "tool" and turn.tool_call_id not in called:
            at = fields[i] if fields else f"messages[{i}].tool_call_id"
            problems.append(f"{where}, field '{at}': {turn.tool_call_id!r} answers no earlier "
                            "tool call. Fix: use the 'id' of a call an earlier assistant "
                            "message made.")
    return problems


def tool_specs(raw: Any, where: str, problems: list[str]) -> list[ToolSpec] | None:
    """The row's ``tools``: OpenAI function tools (``{"type": "function", "function": {...}}``,
    or the flat ``{"name", "parameters"}``); None after adding a problem."""
    if not isinstance(raw, list):
        problems.append(f"{where}, field 'tools': expected a list of tools, {_kind(raw)}. "
                        f"Fix: write tools as a JSON list of {_TOOL_SHAPE}.")
        return None
    out: list[ToolSpec] = []
    for j, tool in enumerate(raw):
        at = f"{where}, field 'tools[{j}]"
        spec = tool.get("function", tool) if isinstance(tool, dict) else None
        if not isinstance(spec, dict):
            problems.append(f"{at}': expected {_TOOL_SHAPE}, {_kind(tool)}. Fix: use that "
                            "shape.")
            return None
        if isinstance(tool, dict) and tool.get("type", "function") not in ("function", "custom"):
            problems.append(f"{at}.type': got {json.dumps(tool.get('type'), default=str)}; "
                            "only 'function' tools are read. Fix: use type 'function'.")
            return None
        sub = ".function" if spec is not tool else ""
        if not isinstance(spec.get("name"), str) or not spec["name"].strip():
            problems.append(f"{at}{sub}.name': {_kind(spec.get('name'))}. Fix: name the "
                            "function, as text.")
            return None
        params = spec.get("parameters", spec.get("input_schema"))  # Anthropic: input_schema
        if params is not None and not isinstance(params, dict):
            problems.append(f"{at}{sub}.parameters': expected a JSON Schema object, "
                            f"{_kind(params)}. Fix: write it as {{\"type\": \"object\", "
                            "\"properties\": {...}}.")
            return None
        desc = spec.get("description")
        out.append(ToolSpec(name=spec["name"], parameters=params,
                            description=desc if isinstance(desc, str) else None))
    return out


def reference_calls(raw: Any, where: str, problems: list[str]) -> list[ReferenceCall] | None:
    """The row's ``reference_tool_calls`` (the expected trajectory, in order); None after
    adding a problem."""
    if not isinstance(raw, list):
        problems.append(f"{where}, field 'reference_tool_calls': expected a list of calls, "
                        f"{_kind(raw)}. Fix: write it as a JSON list of {_REF_SHAPE}.")
        return None
    out: list[ReferenceCall] = []
    for j, ref in enumerate(raw):
        at = f"{where}, field 'reference_tool_calls[{j}]"
        if not isinstance(ref, dict):
            problems.append(f"{at}': expected {_REF_SHAPE}, {_kind(ref)}. Fix: use that shape.")
            return None
        if not isinstance(ref.get("name"), str) or not ref["name"].strip():
            problems.append(f"{at}.name': {_kind(ref.get('name'))}. Fix: name the expected "
                            "function, as text.")
            return None
        args, accept = ref.get("arguments", {}), ref.get("accept", {})
        if not isinstance(args, dict):
            problems.append(f"{at}.arguments': expected an object of argument values, "
                            f"{_kind(args)}. Fix: write it as {{\"ARG\": value}} (not a "
                            "JSON string).")
            return None
        if not isinstance(accept, dict):
            problems.append(f"{at}.accept': expected an object of lists, {_kind(accept)}. "
                            "Fix: write it as {\"ARG\": [value, ...]}.")
            return None
        bad = [k for k, v in accept.items() if not isinstance(v, list) or not v]
        if bad:
            problems.append(f"{at}.accept.{bad[0]}': expected a non-empty list of acceptable "
                            "values. Fix: write it as [value, ...] (null in it: may be left "
                            "out).")
            return None
        out.append(ReferenceCall(name=ref["name"], arguments=args, accept=accept))
    return out
