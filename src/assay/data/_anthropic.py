"""Messages whose ``content`` is a list of blocks (Anthropic's Messages API), as the OpenAI
messages the rest of the reader checks.

A message is read this way when its ``content`` is a list, so one file (one conversation,
even) may mix both forms:

- ``{"type": "text", "text": ...}`` blocks are the message's text (joined by a blank line); an
  OpenAI content-part list of text parts is read the same way.
- ``{"type": "tool_use", "id", "name", "input": {...}}`` in an assistant message is a tool
  call; ``arguments_text`` is ``input`` written as JSON.
- ``{"type": "tool_result", "tool_use_id", "content": text | [text blocks], "is_error"?}`` in a
  user message is a ``tool`` turn answering that call (its text starts with ``Error: `` when
  ``is_error``). A user message of tool results only gives no user turn; with text as well, the
  tool turns come first, then the user's text.
- Other blocks (``thinking``, ``image``, ...) hold no text to rate and are left out.

Example:
    >>> problems = []
    >>> out = expand_message({"role": "assistant", "content": [
    ...     {"type": "text", "text": "Let me look."},
    ...     {"type": "tool_use", "id": "t1", "name": "f", "input": {"x": 1}}]}, "messages[1]",
    ...     "d.jsonl line 1", problems)
    >>> [(m["content"], m["tool_calls"][0]["function"]) for m, _, _ in out]
    [('Let me look.', {'name': 'f', 'arguments': '{"x": 1}'})]
    >>> out = expand_message({"role": "user", "content": [
    ...     {"type": "tool_result", "tool_use_id": "t1", "content": "2"},
    ...     {"type": "text", "text": "Thanks"}]}, "messages[2]", "d.jsonl line 1", problems)
    >>> [(m["role"], m["content"], path, key) for m, path, key in out], problems
    ([('tool', '2', 'messages[2].content[0]', 'tool_use_id'), ('user', 'Thanks', 'messages[2]', 'tool_call_id')], [])
"""

from __future__ import annotations

import json
from typing import Any

from ._models import Turn
from ._tools import duplicate_id_problem

__all__ = ["expand_message", "system_turn"]

#: (message, its field label, the name of its call-id key in the input)
Expanded = tuple[dict[str, Any], str, str]
_TOOL_USE = '{"type": "tool_use", "id", "name", "input": {...}}'


def _text_of(blocks: list[Any], field: str, problems: list[str]) -> str | None:
    """The joined text of the ``text`` blocks of ``blocks``; None after adding a problem."""
    texts: list[str] = []
    for j, block in enumerate(blocks):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            problems.append(f"{field}[{j}]': expected a content block {{\"type\", ...}}, got "
                            f"{type(block).__name__}. Fix: write blocks such as "
                            "{\"type\": \"text\", \"text\": \"...\"}.")
            return None
        if block["type"] == "text":
            if not isinstance(block.get("text"), str):
                problems.append(f"{field}[{j}].text': missing or not text. Fix: write the "
                                "block's text as a string.")
                return None
            texts.append(block["text"])
    return "\n\n".join(texts)


def _tool_use(block: dict[str, Any], at: str, problems: list[str]) -> dict[str, Any] | None:
    """An OpenAI tool call from a ``tool_use`` block (``at``: its field, no closing quote)."""
    call_id, name, args = block.get("id"), block.get("name"), block.get("input", {})
    for key, value in (("id", call_id), ("name", name)):
        if not isinstance(value, str) or not value.strip():
            problems.append(f"{at}.{key}': missing or not text. Fix: give every {_TOOL_USE} "
                            f"block a text {key!r}.")
            return None
    if not isinstance(args, dict):
        problems.append(f"{at}.input': expected an object of arguments, got "
                        f"{type(args).__name__}. Fix: write input as {{\"ARG\": value}}.")
        return None
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}


def _tool_result(block: dict[str, Any], at: str, problems: list[str]) -> dict[str, Any] | None:
    """A ``tool`` message from a ``tool_result`` block."""
    call_id, raw = block.get("tool_use_id"), block.get("content", "")
    if not isinstance(call_id, str) or not call_id:
        problems.append(f"{at}.tool_use_id': missing or not text. Fix: give the 'id' of the "
                        "tool_use block this result answers.")
        return None
    text = raw if isinstance(raw, str) else (
        _text_of(raw, f"{at}.content", problems) if isinstance(raw, list) else None)
    if text is None:
        if not isinstance(raw, (str, list)):
            problems.append(f"{at}.content': expected text or a list of text blocks, got "
                            f"{type(raw).__name__}. Fix: write the tool's output as a string.")
        return None
    if block.get("is_error") is True:
        text = f"Error: {text}"
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def expand_message(message: dict[str, Any], path: str, where: str,
                   problems: list[str]) -> list[Expanded]:
    """The OpenAI-form messages of one message whose ``content`` is a list of blocks, each
    with its field path (``path``: the message's, e.g. ``messages[2]``) and the name of its
    call-id key. Problems name ``where`` and the field; a block that breaks is left out."""
    role, blocks = message.get("role"), message["content"]
    field = f"{where}, field '{path}.content"
    text = _text_of(blocks, field, problems)
    if text is None:
        return []
    calls: list[dict[str, Any]] = []
    results: list[Expanded] = []
    first_with_id: dict[str, int] = {}  # tool_use ids of this message: each its own
    for j, block in enumerate(blocks):
        at, kind = f"{field}[{j}]", block["type"]
        here = f"{path}.content[{j}]"
        if kind in ("tool_use", "tool_result") and role != ("assistant" if kind == "tool_use"
                                                          else "user"):
            owner = "assistant" if kind == "tool_use" else "user"
            problems.append(f"{at}.type': a {kind} block in a message of role {role!r}. Fix: only "
                            f"{owner} messages hold {kind} blocks.")
        elif kind == "tool_use" and (call := _tool_use(block, at, problems)) is not None:
            if call["id"] in first_with_id:
                problems.append(duplicate_id_problem(
                    at, call["id"], f"content[{first_with_id[call['id']]}]", "tool_use block"))
            else:
                first_with_id[call["id"]] = j
                calls.append(call)
        elif kind == "tool_result" and (result := _tool_result(block, at, problems)):
            results.append((result, here, "tool_use_id"))
    out = {**message, "content": text}
    if calls:
        out["tool_calls"] = [*(message.get("tool_calls") or []), *calls]
    has_text = any(isinstance(b, dict) and b.get("type") == "text" for b in blocks)
    if results and not has_text:
        return results  # a user message that only returns tool results: no user turn
    return [*results, (out, path, "tool_call_id")]


def system_turn(raw: Any, where: str, problems: list[str]) -> Turn | None:
    """The turn of a row's top-level ``system`` (text, or a list of text blocks), or None
    (after adding a problem when it is neither).

    Example:
        >>> system_turn([{"type": "text", "text": "Be brief."}], "d.jsonl line 1", []).content
        'Be brief.'
    """
    text = raw if isinstance(raw, str) else (
        _text_of(raw, f"{where}, field 'system", problems) if isinstance(raw, list) else None)
    if text is None and not isinstance(raw, list):
        problems.append(f"{where}, field 'system': expected text or a list of text blocks, got "
                        f"{type(raw).__name__}. Fix: write the system prompt as a string.")
    return None if text is None else Turn(role="system", content=text)


