"""Rows an agent completes before they are scored (``evaluate(..., agent=...)``).

A row the agent wants (a conversation whose last message is a user turn, a QA row with a
question and no answer) is completed once: the agent's new messages (or its answer) and how
the run went are kept in the row's record under ``"agent"``
(``results.jsonl`` and the run store), and the completed row is what gets scored and stored. A
resumed run replays that entry instead of asking the agent again; a row whose agent call
failed (its entry has a ``failure``, every metric is unscored with that reason) is asked
again. (Not ``error``: readers of a record take a mapping with an ``error`` for a metric.)
Up to ``agent.concurrency`` rows are completed ahead of the scorer, handed on in dataset order.

Example:
    >>> import asyncio
    >>> from assay.data import rows_from_records
    >>> class Echo:
    ...     id, concurrency = "echo", 2
    ...     def wants(self, row): return row.messages[-1].role == "user"
    ...     async def complete(self, row): return {"target": self.id, "messages": ["hi"]}
    ...     def apply(self, row, entry): return row.model_copy(update={"answer": "done"})
    ...     def summary(self): return {}
    >>> rows = rows_from_records([{"id": "a", "messages": [{"role": "user", "content": "Hi"}]}])
    >>> stage = AgentStage(Echo(), ["exact_match"])
    >>> async def go():
    ...     return [(row.answer, prev) async for row, prev in stage.rows((r, {}) for r in rows)]
    >>> asyncio.run(go())
    [('done', {})]
    >>> stage.finish({"id": "a", "exact_match": {"value": 1.0}})
    {'id': 'a', 'agent': {'target': 'echo', 'messages': ['hi']}, 'exact_match': {'value': 1.0}}
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from typing import Any, Protocol

from ..data import Row
from ..metrics import MetricResult
from ..records import ROW_LATENCY

__all__ = ["AGENT_KEY", "ANSWER_TO_COME", "AgentStage", "RowAgent", "planned_row"]

#: The record field that holds a row's agent run.
AGENT_KEY = "agent"
#: The answer the metric planner sees on a QA row the agent will answer (never scored).
ANSWER_TO_COME = "(the answer of the app under test)"

Pair = tuple[Row, dict[str, Any]]


class RowAgent(Protocol):
    """What a run asks of an agent (``assay.agents.AgentRunner`` is one)."""

    id: str
    #: Rows completed at once.
    concurrency: int

    def wants(self, row: Row) -> bool:
        """Whether the agent completes ``row`` (else it is scored as it is)."""
        ...

    async def complete(self, row: Row) -> dict[str, Any]:
        """The record entry of one run of the agent on ``row``: its new ``messages`` (its
        ``answer`` for a QA row), or a ``failure`` (``"target call failed: ..."``) when the agent could not answer."""
        ...

    def apply(self, row: Row, entry: Mapping[str, Any]) -> Row:
        """``row`` with the entry's messages appended, or its answer (no agent call)."""
        ...

    def summary(self) -> dict[str, Any]:
        """What the agent did in this run, for ``summary.json`` (``"agent"``)."""
        ...


def planned_row(agent: RowAgent, row: Row) -> Row:
    """``row`` as the metric planner should see it: a QA row the agent answers has an answer
    (:data:`ANSWER_TO_COME`), so ``metrics="auto"`` plans the metrics that read it. A
    conversation is planned as it is (its fields do not change with the agent's turns).

    Example:
        >>> class Asks:
        ...     def wants(self, row): return row.answer is None
        >>> row = Row(id="q", line=1, question="Who?", ground_truth="Ada.")
        >>> sorted(planned_row(Asks(), row).fields())
        ['answer', 'ground_truth', 'question']
    """
    if row.messages is None and agent.wants(row):
        return row.model_copy(update={"answer": ANSWER_TO_COME})
    return row


class AgentStage:
    """Completes the rows of a run with ``agent`` and adds each entry to its row's record."""

    def __init__(self, agent: RowAgent, metrics: Sequence[str]) -> None:
        self.agent = agent
        self.metrics = list(metrics)
        self._entries: dict[str, dict[str, Any]] = {}  # rows handed on, until their record

    async def rows(self, pairs: Iterable[Pair]) -> AsyncIterator[Pair]:
        """``(completed row, previous results)`` for each ``(row, previous)``, in order."""
        ahead: deque[asyncio.Task[Pair]] = deque()
        try:
            for pair in pairs:
                ahead.append(asyncio.ensure_future(self._one(*pair)))
                if len(ahead) >= max(1, self.agent.concurrency):
                    yield await ahead.popleft()
            while ahead:
                yield await ahead.popleft()
        finally:
            for task in ahead:
                task.cancel()
            await asyncio.gather(*ahead, return_exceptions=True)

    def failed(self, row_id: str) -> dict[str, Any] | None:
        """The record of a row the agent could not complete (every metric unscored with the
        agent's error), or None when it was completed."""
        entry = self._entries.get(row_id)
        if entry is None or not entry.get("failure"):
            return None
        unscored = MetricResult(value=None, error=str(entry["failure"])).as_record()
        return self.finish({"id": row_id, **{name: dict(unscored) for name in self.metrics}})

    def finish(self, record: dict[str, Any]) -> dict[str, Any]:
        """``record`` with its row's agent entry (as is for a row the agent did not run)."""
        entry = self._entries.pop(str(record["id"]), None)
        if entry is None:
            return record
        rest = {k: v for k, v in record.items() if k != "id"}
        if isinstance(entry.get("seconds"), (int, float)):  # the app's seconds on the row
            rest[ROW_LATENCY] = {**(rest.get(ROW_LATENCY) or {}), "app_s": entry["seconds"]}
        return {"id": record["id"], AGENT_KEY: entry, **rest}

    async def _one(self, row: Row, previous: dict[str, Any]) -> Pair:
        if not self.agent.wants(row):
            return row, previous
        kept = previous.get(AGENT_KEY)
        finished = all(name in previous for name in self.metrics)
        if isinstance(kept, Mapping) and not kept.get("failure"):
            if not finished:  # scored again: its record keeps the entry
                self._entries[row.id] = dict(kept)
            return self.agent.apply(row, kept), previous
        if finished:  # scored earlier without an agent: kept as it is
            return row, previous
        entry = await self.agent.complete(row)
        self._entries[row.id] = entry
        previous = {k: v for k, v in previous.items() if k != AGENT_KEY}
        return (row if entry.get("failure") else self.agent.apply(row, entry)), previous
