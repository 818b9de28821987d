"""An agent run on a row: ask the target for its turn, run the tools it calls, ask again.

The loop, per row whose last message is a user turn:

1. the target gets the conversation so far and the row's ``tools`` and returns its new
   messages (assistant turns with or without ``tool_calls``; ``tool`` messages when it ran its
   tools itself);
2. with tool functions (``tools=``), the calls no ``tool`` message answers yet are run and
   answered, and the target is asked again; without them, the calls are recorded as made;
3. the run ends when no call is left unanswered, or after ``max_steps`` target turns (the
   conversation is kept as it is and the entry's ``note`` says the limit was hit: a finding,
   not an error).
4. with ``limits`` (``--max-field-chars``, ``--long-fields``), a message of the target longer
   than the limit fails the row (``refuse``) or is cut to it (``truncate``), the cut recorded
   in the entry's ``truncated`` list, before any judge or simulated user reads it.

A target that fails (after retries for rate limits, server errors and calls past their
``timeout``) leaves the row with a ``failure`` (``target call failed: ...``), never a made-up
conversation; a reply of the wrong
shape is a ConfigError naming the row and the shape to return.

Example:
    >>> import asyncio
    >>> from assay.data import rows_from_records
    >>> row = rows_from_records([{"id": "w1", "messages": [
    ...     {"role": "user", "content": "Weather in Oslo?"}]}])[0]
    >>> agent = make_agent("python:examples.agent_app:agent",
    ...                    tools="python:examples.agent_app:TOOLS")
    >>> entry = asyncio.run(agent.complete(row))
    >>> entry["steps"], [m["role"] for m in entry["messages"]], entry["messages"][-1]["content"]
    (2, ['assistant', 'tool', 'assistant'], 'In Oslo it is 3 °C and light rain.')
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .._secrets import mask_secrets
from ..calls import DEFAULT_TIMEOUT, RetryPolicy, check_timeout
from ..costs import APP_USAGE
from ..data import FieldLimits, Row
from ..errors import ConfigError, DataError, JudgeError, option
from ..targets import (
    AgentTarget,
    AppMeter,
    ChatTarget,
    PythonTarget,
    close_target,
    make_target,
)
from ._messages import (
    final_answer,
    masked_message,
    openai_messages,
    pending_calls,
    question_row,
    reply_messages,
    with_messages,
)
from ._tools import load_tools, run_tool_call

__all__ = ["AGENT_TARGETS", "AgentRunner", "AgentStats", "make_agent"]

#: The targets that can take an agent turn with tools (``http:`` and ``local`` answer QA
#: rows and plain conversations with a chat reply).
AGENT_TARGETS = ("python:package.module:function", "openai:MODEL", "openai:MODEL@URL")


@dataclass
class AgentStats:
    """What the agent did in a run (rows replayed from an earlier run are not counted)."""

    rows: int = 0
    #: Of ``rows``, the QA rows whose question the target answered.
    answered: int = 0
    failed: int = 0
    step_limit: int = 0
    turns: int = 0
    tool_calls: int = 0


class AgentRunner:
    """Completes rows with ``target``; runs their tool calls with ``tools`` when given, each
    within ``tool_timeout`` seconds (the target's own calls have the target's deadline).

    A target without agent turns (``http:``, ``local``: a :class:`~assay.targets.ChatTarget`)
    is asked for a chat reply, without the row's tools. ``max_wait``: seconds one target call
    may wait on rate limits (429) in all; ``limits``: the long-text rule for the target's
    messages (``None``: none, they are kept as they are)."""

    def __init__(self, target: AgentTarget | ChatTarget, *,
                 tools: Mapping[str, Callable[..., Any]] | None = None, max_steps: int = 8,
                 concurrency: int = 4, max_attempts: int = 4,
                 tool_timeout: float = DEFAULT_TIMEOUT, max_wait: float = RetryPolicy.max_wait,
                 limits: FieldLimits | None = None) -> None:
        if max_steps < 1:
            raise ConfigError(f"Got {option('max_steps', max_steps)}. Must be at least 1.")
        self.target, self.tools, self.max_steps = target, tools, max_steps
        self.tool_timeout = check_timeout(tool_timeout)
        self.id = target.id
        self.concurrency = concurrency
        self.stats = AgentStats()
        self._retry = RetryPolicy(max_attempts=max_attempts, max_wait=max_wait)
        self.limits = limits

    @property
    def takes_tools(self) -> bool:
        """Whether the target is offered the row's tools (an agent, not a plain chat app)."""
        return bool(getattr(self.target, "takes_tools", hasattr(self.target, "complete")))

    def wants(self, row: Row) -> bool:
        """A conversation whose last message is a user turn, or a QA row with a question and
        no answer (the app answers the question; the row's reference ``context`` is not
        shown to it)."""
        if row.messages is not None:
            return bool(row.messages) and row.messages[-1].role == "user"
        return bool(row.question) and row.answer is None

    async def complete(self, row: Row) -> dict[str, Any]:
        """Run the agent on ``row``: the record entry (``target``, ``messages`` or, for a QA
        row, ``answer``, ``steps``, ``seconds``, ``app_usage`` (what the app reported its
        calls used, see :class:`~assay.targets.AppMeter`), and ``note`` at the step limit; or
        ``failure``, with the ``app_usage`` of the calls answered before it)."""
        started = time.monotonic()
        meter = AppMeter(self.id)
        qa = row.messages is None
        asked = ([{"role": "user", "content": row.question or ""}] if qa
                 else openai_messages(row))
        tools = [t.openai() for t in row.tools] if row.tools and self.takes_tools else None
        new: list[dict[str, Any]] = []
        steps, note = 0, None
        try:
            while True:
                conversation = [*asked, *new]
                raw = await meter.call(lambda: self._retry.call(
                    lambda: self._turn(conversation, tools)))  # noqa: B023 - awaited here
                new += reply_messages(raw, row_id=row.id, target=self.id)
                steps += 1
                pending = pending_calls(new)
                if not pending or self.tools is None:
                    break
                if steps >= self.max_steps:
                    note = (f"stopped at the step limit: {steps} agent turns, still calling "
                            f"tools ({option('max_steps', self.max_steps)})")
                    break
                for call in pending:
                    new.append(await run_tool_call(call, self.tools,
                                                   timeout=self.tool_timeout))
                    self.stats.tool_calls += 1
        except JudgeError as e:
            return self._failed(f"target call failed: {e}", meter)
        except ConfigError:
            raise
        except Exception as e:  # noqa: BLE001 - the agent's own bug: the row says why
            return self._failed(f"target call failed: {type(e).__name__}: {e}", meter)
        try:
            new, cuts = self._fit(new)
        except DataError as e:
            return self._failed(e.problems[0], meter)
        # what the app said is recorded and read by a judge: no key it echoed (as its errors)
        new = [masked_message(m) for m in new]
        # a ConfigError when assay cannot read the messages
        with_messages(question_row(row) if qa else row, new, target=self.id)
        self.stats.rows += 1
        self.stats.turns += steps
        entry: dict[str, Any] = {"target": self.id}
        if qa:
            self.stats.answered += 1
            entry["answer"] = final_answer(new)
            if len(new) > 1:  # it called tools on the way: how it got there
                entry["messages"] = new
        else:
            entry["messages"] = new
        entry.update(steps=steps, seconds=round(time.monotonic() - started, 3))
        entry[APP_USAGE] = meter.as_dict()
        if cuts:
            entry["truncated"] = cuts
        if row.tools and tools is None:
            entry["note"] = "asked without the row's tools: the target takes no tool definitions"
        if note:
            self.stats.step_limit += 1
            entry["note"] = note
        return entry

    def _fit(self, new: list[dict[str, Any]]
             ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The target's messages within :attr:`limits` (as they are without limits) and the
        cuts made (``field`` counts from the first new message).

        Raises:
            DataError: a message is longer than the limit and long texts are refused.
        """
        if self.limits is None:
            return new, []
        fitted, cuts = [], []
        for i, message in enumerate(new):
            content = message.get("content")
            if isinstance(content, str):
                text, cut = self.limits.fit(content, f"the app's {message.get('role')} message")
                if cut is not None:
                    message = {**message, "content": text}
                    cuts.append({**cut, "field": f"messages[{i}].content"})
            fitted.append(message)
        return fitted, cuts

    async def _turn(self, conversation: list[dict[str, Any]],
                    tools: list[dict[str, Any]] | None) -> Any:
        """One turn of the target: an agent turn, or a chat app's reply (its text)."""
        complete = getattr(self.target, "complete", None)
        if complete is None:  # http:, local
            return await self.target.reply(conversation)  # type: ignore[union-attr]
        return await complete(conversation, tools)

    def apply(self, row: Row, entry: Mapping[str, Any]) -> Row:
        """``row`` with the entry's messages appended, or a QA row with the entry's
        ``answer`` (no target call)."""
        if row.messages is None:
            return row.model_copy(update={"answer": str(entry.get("answer") or "")})
        return with_messages(row, list(entry.get("messages") or []),
                             target=str(entry.get("target", self.id)))

    def summary(self) -> dict[str, Any]:
        """``{"target", "rows", "answered", "failed", "step_limit", "turns", "tool_calls"}``:
        the rows this run completed (rows replayed on resume are not counted)."""
        return {"target": self.id, **dataclasses.asdict(self.stats)}

    async def aclose(self) -> None:
        """Close the target's connections."""
        await close_target(self.target)

    def _failed(self, error: str, meter: AppMeter | None = None) -> dict[str, Any]:
        """The row's entry for a failed target call, its text masked of secrets (a target's
        error may quote a refused key), with what the app's answered calls used, if any."""
        self.stats.failed += 1
        return {"target": self.id, "failure": mask_secrets(error),
                **({APP_USAGE: meter.as_dict()} if meter is not None and meter.calls else {})}


def make_agent(target: str | Callable[..., Any], *,
               tools: str | Mapping[str, Callable[..., Any]] | None = None, max_steps: int = 8,
               concurrency: int = 4, timeout: float = DEFAULT_TIMEOUT,
               max_wait: float = RetryPolicy.max_wait,
               limits: FieldLimits | None = None) -> AgentRunner:
    """An :class:`AgentRunner` from a target spec (any of ``assay.targets.TARGET_SPECS``, or
    a Python function) and, optionally, a tools spec (``python:package.module:TOOLS``, or the
    dict of name -> function), which needs a target
    that takes tool definitions (:data:`AGENT_TARGETS`); ``timeout``: seconds one target call
    or tool call may take in all; ``max_wait`` and ``limits``: as :class:`AgentRunner`'s.

    Example:
        >>> make_agent("local", tools="python:examples.agent_app:TOOLS")
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: Got target='local' with tools: ...
    """
    if tools and isinstance(target, str) and not target.startswith(("python:", "openai:")):
        raise ConfigError(f"Got {option('target', mask_secrets(target))} with {option('tools')}:"
                          " that target takes no tool definitions. A target that runs tools "
                          f"must be one of {', '.join(AGENT_TARGETS)}.")
    functions = load_tools(tools) if isinstance(tools, str) and tools else tools or None
    made = (make_target(target, timeout=timeout) if isinstance(target, str)
            else PythonTarget(target, timeout=check_timeout(timeout)))
    return AgentRunner(made, tools=functions, max_steps=max_steps,
                       concurrency=concurrency, tool_timeout=timeout, max_wait=max_wait,
                       limits=limits)
