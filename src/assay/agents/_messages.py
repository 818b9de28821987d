"""A row's conversation as OpenAI-style dicts for an agent, and the agent's reply checked and
appended to it.

Example:
    >>> from assay.data import rows_from_records
    >>> row = rows_from_records([{"id": "r1", "messages": [{"role": "user", "content": "2+2?"}]}])[0]
    >>> openai_messages(row)
    [{'role': 'user', 'content': '2+2?'}]
    >>> new = reply_messages("4.", row_id="r1", target="python:m:f")
    >>> [t.content for t in with_messages(row, new, target="python:m:f").messages]
    ['2+2?', '4.']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._secrets import mask_secrets
from ..data import Row, Turn, rows_from_records
from ..errors import ConfigError, DataError

__all__ = ["REPLY_SHAPE", "final_answer", "masked_message", "openai_messages", "pending_calls",
           "question_row", "reply_messages", "with_messages"]

#: What an agent returns, for error messages.
REPLY_SHAPE = ('a list of the NEW messages, OpenAI-style dicts: {"role": "assistant", "content": '
               '"...", "tool_calls": [{"id", "type": "function", "function": {"name", '
               '"arguments"}}]} and {"role": "tool", "tool_call_id": "...", "content": "..."} '
               '(or the answer as a string)')


def openai_messages(row: Row) -> list[dict[str, Any]]:
    """The row's messages in the OpenAI chat shape (an assistant turn that only calls tools
    has ``content: None``; citations are left out)."""
    out: list[dict[str, Any]] = []
    for turn in row.messages or []:
        message: dict[str, Any] = {"role": turn.role, "content": turn.content}
        if turn.tool_calls:
            message["content"] = turn.content or None
            message["tool_calls"] = [c.openai() for c in turn.tool_calls]
        if turn.tool_call_id is not None:
            message["tool_call_id"] = turn.tool_call_id
        out.append(message)
    return out


def reply_messages(raw: Any, *, row_id: str, target: str) -> list[dict[str, Any]]:
    """An agent's reply as a list of message dicts: a string is one assistant answer; a
    list must hold assistant and tool messages. Anything else is a ConfigError naming the row
    and the shape to return.

    Example:
        >>> reply_messages({"content": "hi"}, row_id="r1", target="python:m:f")
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: Row 'r1': the agent python:m:f returned a dict, not ...
    """
    def refuse(what: str) -> ConfigError:
        return ConfigError(f"Row {row_id!r}: the agent {target} returned {what}, not "
                           f"{REPLY_SHAPE}. Fix the agent to return that shape.")

    if isinstance(raw, str):
        return [{"role": "assistant", "content": raw}]
    if not isinstance(raw, (list, tuple)):
        raise refuse(_a_value(raw))
    if not raw:
        raise refuse("no messages")
    for i, message in enumerate(raw):
        if not isinstance(message, dict):
            raise refuse(f"{_a_value(message)} as message {i}")
        if message.get("role") not in ("assistant", "tool"):
            raise refuse(f"a message {i} with role {message.get('role')!r} (only assistant "
                         "and tool messages are new)")
    return [dict(m) for m in raw]


def pending_calls(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool calls among ``messages`` that no ``tool`` message answers yet, in order.

    Example:
        >>> calls = [{"id": "c1", "function": {"name": "f"}}, {"id": "c2", "function": {}}]
        >>> pending_calls([{"role": "assistant", "content": None, "tool_calls": calls},
        ...                {"role": "tool", "tool_call_id": "c1", "content": "ok"}])
        [{'id': 'c2', 'function': {}}]
    """
    answered = {m.get("tool_call_id") for m in messages if m.get("role") == "tool"}
    return [c for m in messages if m.get("role") == "assistant"
            for c in m.get("tool_calls") or [] if isinstance(c, dict)
            and c.get("id") not in answered]


def with_messages(row: Row, new: Sequence[dict[str, Any]], *, target: str) -> Row:
    """``row`` with ``new`` appended, read and checked as the dataset's own messages are
    (a call without an id, a tool message that answers no call: a ConfigError naming the row
    and each problem)."""
    record: dict[str, Any] = {"id": row.id, "messages": [*openai_messages(row), *new]}
    try:
        read = rows_from_records([record])[0]
    except DataError as e:
        problems = "; ".join(p.split(", field ", 1)[-1] for p in e.problems)
        raise ConfigError(f"Row {row.id!r}: the agent {target} returned messages assay cannot "
                          f"read: {problems}. Fix the agent to return {REPLY_SHAPE}.") from None
    return row.model_copy(update={"messages": read.messages})


def question_row(row: Row) -> Row:
    """A QA row's question as a one-turn conversation (what the app is asked; the row's
    reference ``context`` and ``ground_truth`` are not part of it).

    Example:
        >>> from assay.data import Row
        >>> [t.content for t in question_row(Row(id="q", line=1, question="Who?")).messages]
        ['Who?']
    """
    return row.model_copy(update={"messages": [Turn(role="user", content=row.question or "")]})


def final_answer(new: Sequence[dict[str, Any]]) -> str:
    """The text of the last assistant message of ``new`` that has some: the app's answer to a
    question ("" when it gave none).

    Example:
        >>> final_answer([{"role": "assistant", "content": None, "tool_calls": []},
        ...               {"role": "tool", "tool_call_id": "c1", "content": "3 C"},
        ...               {"role": "assistant", "content": "It is 3 C."}])
        'It is 3 C.'
    """
    texts = [m.get("content") for m in new if m.get("role") == "assistant"]
    return next((str(t) for t in reversed(texts) if isinstance(t, str) and t.strip()), "")


def _a_value(value: object) -> str:
    """What a value is, in words: ``None``, ``an int``, ``a dict``.

    Example:
        >>> [_a_value(v) for v in (None, 3, {}, b"x")]
        ['None', 'an int', 'a dict', 'a bytes']
    """
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def masked_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """An app's message with secrets masked in its text and its tool calls' arguments (ids
    are kept, so calls still match their results).

    Example:
        >>> masked_message({"role": "assistant", "content": "Your key: sk-proj-a1b2c3d4e5f6",
        ...                 "tool_calls": [{"id": "c1", "type": "function", "function": {
        ...                     "name": "f", "arguments": '{"key": "sk-proj-a1b2c3d4e5f6"}'}}]})
        ... # doctest: +NORMALIZE_WHITESPACE
        {'role': 'assistant', 'content': 'Your key: ***', 'tool_calls': [{'id': 'c1',
         'type': 'function', 'function': {'name': 'f', 'arguments': '{"key": "***"}'}}]}
    """
    out = dict(message)
    if isinstance(out.get("content"), str):
        out["content"] = mask_secrets(out["content"])
    if isinstance(out.get("tool_calls"), list):
        out["tool_calls"] = [_masked_call(c) for c in out["tool_calls"]]
    return out


def _masked_call(call: Any) -> Any:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("arguments"), str):
        return call
    return {**call, "function": {**function, "arguments": mask_secrets(function["arguments"])}}
