"""What a target is: the three ways the app under test is asked (a RAG answer, a chat reply,
an agent turn), and the system prompt a model target answers RAG questions with. The target
specs are the kinds registered in :mod:`assay.targets._make`.

Example:
    >>> sorted(RAG_SYSTEM)
    ['en', 'zh']
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["RAG_SYSTEM", "AgentTarget", "AppTarget", "ChatTarget", "Messages", "Target",
           "target_protocol_gaps"]

Messages = list[dict[str, str]]

RAG_SYSTEM = {
    "en": "Answer the question using the documents. If the documents do not contain the answer, "
          "say \"I can not answer the question because of the insufficient information in "
          "documents.\" If the documents contain factual errors, say so and give the correct "
          "answer.",
    "zh": "请根据文档回答问题。如果文档中没有答案，请回答\"文档信息不足，因此我无法基于提供的文档回答该问题。\""
          "如果文档中有事实性错误，请指出并给出正确答案。",
}


class Target(Protocol):
    """Answers a question from passages."""

    id: str

    async def answer(self, question: str, passages: list[str], lang: str) -> str: ...


class ChatTarget(Protocol):
    """Replies to a conversation."""

    id: str

    async def reply(self, messages: Messages) -> str: ...


class AgentTarget(Protocol):
    """Takes one agent turn: the new messages after ``messages`` (OpenAI-style dicts, with
    ``tool_calls`` and ``tool`` messages), given the row's OpenAI function ``tools`` or None."""

    id: str

    async def complete(self, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]] | None) -> Any: ...


class AppTarget(Target, ChatTarget, Protocol):
    """What ``make_target`` gives: the app under test asked for a RAG answer or a chat reply
    (a target that also takes agent turns has ``complete``, see :class:`AgentTarget`)."""


def target_protocol_gaps(target: object) -> list[str]:
    """What ``target`` lacks of :class:`AppTarget` (empty when it is one).

    Example:
        >>> class ChatOnly:
        ...     id = "chat-only"
        ...     async def reply(self, messages): ...
        >>> target_protocol_gaps(ChatOnly())
        ['answer()']
    """
    gaps = [] if isinstance(getattr(target, "id", None), str) else ["a string id"]
    return gaps + [f"{name}()" for name in ("answer", "reply")
                   if not callable(getattr(target, name, None))]
