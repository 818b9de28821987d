"""The evaluable items: QA rows and conversations.

Example:
    >>> row = Row(id="1", line=1, question="Who?", answer="Ada.")
    >>> row.kind, sorted(row.fields())
    ('qa', ['answer', 'question'])
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Citation", "Row", "Turn"]


class Citation(BaseModel):
    """A retrieved document that an assistant turn was grounded on."""

    model_config = ConfigDict(extra="allow")
    id: str | None = None
    title: str | None = None
    content: str


class Turn(BaseModel):
    """One message of a conversation; assistant turns may carry citations."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str
    citations: list[Citation] = Field(default_factory=list)


class Row(BaseModel):
    """One evaluable item: a QA row (question/answer/...) or a conversation (``messages``).

    ``id`` is the row's own ``id`` field when it has one, else its line number in the file.
    ``contexts`` keeps the retrieved chunks as a list when the input gave one; ``context`` is
    always their joined text. Unknown input fields are kept in ``extra``.
    """

    id: str
    line: int
    question: str | None = None
    context: str | None = None
    contexts: list[str] | None = None
    answer: str | None = None
    ground_truth: str | None = None
    messages: list[Turn] | None = None
    extra: dict[str, Any] = Field(default_factory=dict)

    @property
    def kind(self) -> Literal["qa", "conversation"]:
        """``conversation`` when the row has messages, else ``qa``."""
        return "conversation" if self.messages is not None else "qa"

    def fields(self) -> set[str]:
        """Names of the evaluable fields present (non-empty), e.g. ``{'question', 'answer'}``.

        For conversations: ``messages``, plus ``citations`` when any assistant turn has some.
        """
        if self.messages is not None:
            present = {"messages"}
            if any(t.citations for t in self.messages if t.role == "assistant"):
                present.add("citations")
            if self.ground_truth:
                present.add("ground_truth")
            return present
        names = ("question", "context", "answer", "ground_truth")
        return {n for n in names if getattr(self, n) not in (None, "")}

    def assistant_turns(self) -> list[tuple[int, Turn]]:
        """(index, turn) of every assistant turn of a conversation; empty for QA rows."""
        return [(i, t) for i, t in enumerate(self.messages or []) if t.role == "assistant"]

    def request_before(self, turn: int) -> int | None:
        """Index of the last user message before message ``turn`` (what that turn answers),
        or None when no user spoke first.

        Example:
            >>> row = Row(id="1", line=1, messages=[Turn(role="user", content="Hi"),
            ...     Turn(role="assistant", content="Hello"), Turn(role="assistant", content="?")])
            >>> row.request_before(1), row.request_before(2), row.request_before(0)
            (0, 0, None)
        """
        messages = self.messages or []
        return next((j for j in range(turn - 1, -1, -1) if messages[j].role == "user"), None)

    def user_request(self, turn: int) -> str | None:
        """The text of :meth:`request_before` ``turn``, or None."""
        j = self.request_before(turn)
        return None if j is None or self.messages is None else self.messages[j].content
