"""The rows an estimate renders, and the stand-ins it renders them with: each row's number
of listed items (:func:`expected_items`), carried to the requests it leads to through a
context variable (:data:`ROW`, set by :func:`rows_for_pass` in the task that scores the row),
the judge that records them with their row (:class:`RowRecorder`), an embedder that computes
nothing (:class:`UnitEmbedder`), and the rows as an app under test leaves them
(:class:`AppAnswered`).

Example:
    >>> rows = [Row(id="q", line=1, question="Q?", ground_truth="It is 1.3 kg.")]
    >>> [r.answer for r in AppAnswered(rows)]
    ['It is 1.3 kg.']
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterable, Iterator
from contextvars import ContextVar
from typing import Any

from ..calls import PlaceholderJudge
from ..data import Row
from ..judges import Accept, JudgeRequest, JudgeResponse

__all__ = ["APP_ANSWER", "ROW", "AppAnswered", "RowRecorder", "UnitEmbedder", "answered",
           "expected_items", "rows_for_pass"]

SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")
#: The row being scored, and how many items a listing answer for it lists: set by the row
#: source in the task that then scores the row (a worker of the engine), so each request
#: the metrics make for that row carries it.
ROW: ContextVar[tuple[str, int]] = ContextVar("assay_estimate_row", default=("", 1))


def expected_items(row: Row) -> int:
    """How many statements a decomposition of the row's answer is expected to list: one per
    sentence (the assistant turns' text for a conversation), at least one.

    Example:
        >>> expected_items(Row(id="1", line=1, answer="It is 1.3 kg. It packs small!"))
        2
    """
    text = row.answer or " ".join(t.content for t in row.messages or [] if t.role == "assistant")
    return max(1, len([s for s in SENTENCE_END.split(text.strip()) if s.strip()]))


#: The answer an app under test is assumed to give a QA row that has no ground truth.
APP_ANSWER = "The answer states one fact from the context, in a sentence of usual length."


def answered(rows: Iterable[Row]) -> Iterable[Row]:
    """The rows as an app under test leaves them: a QA row without an answer answered with
    its ground truth (else :data:`APP_ANSWER`)."""
    for row in rows:
        if row.messages is None and not row.answer:
            yield row.model_copy(update={"answer": row.ground_truth or APP_ANSWER})
        else:
            yield row


class AppAnswered:
    """``rows`` as :func:`answered` leaves them, each time they are iterated (each pass)."""

    def __init__(self, rows: Iterable[Row]) -> None:
        self.rows = rows

    def __iter__(self) -> Iterator[Row]:
        return iter(answered(self.rows))


async def rows_for_pass(rows: Iterable[Row], which: str) -> AsyncIterator[Row]:
    """The rows, each with its id and list length set (:data:`ROW`) in the task that takes
    it: the engine's worker, which then scores it."""
    for row in rows:
        items = expected_items(row)
        ROW.set((row.id, {"low": 1, "expected": items, "high": 2 * items}[which]))
        yield row


class UnitEmbedder:
    """Stands in for the run's embedder (a judge metric that also compares embeddings): the
    same vector for every text, computed at once (embedding calls are not estimated)."""

    id = "estimate"
    max_batch = 1024

    async def embed(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0] for _ in texts]

    async def aclose(self) -> None:
        return None


class RowRecorder(PlaceholderJudge):
    """A placeholder judge that keeps each request with its row and lists that row's
    number of items (:data:`ROW`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.asked: list[tuple[tuple[str, int], JudgeRequest]] = []

    async def complete(self, request: JudgeRequest, *,
                       accept: Accept | None = None) -> JudgeResponse:
        row = ROW.get()
        self.items = row[1]
        self.asked.append((row, request))
        return await super().complete(request, accept=accept)
