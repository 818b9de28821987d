"""What a target is: the three ways the app under test is asked (a RAG answer, a chat reply,
an agent turn), the target specs, and the system prompt a model target answers RAG questions
with.

Example:
    >>> TARGET_SPECS[-1]
    'local'
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["RAG_SYSTEM", "TARGET_SPECS", "AgentTarget", "ChatTarget", "Messages", "Target"]

Messages = list[dict[str, str]]

TARGET_SPECS = ("python:package.module:function", "openai:MODEL", "openai:MODEL@URL", "http:URL",
                "local")

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
