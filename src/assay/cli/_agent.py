"""``assay run --target/--tools/--max-steps``: the agent that completes rows before scoring.

Example:
    >>> agent_from_flags(None, None, 8) is None
    True
    >>> agent_from_flags("python:examples.agent_app:agent", None, 8).id
    'python:examples.agent_app:agent'
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from ..agents import AgentRunner, make_agent
from ..calls import DEFAULT_TIMEOUT, RetryPolicy
from ..data import FieldLimits
from ..errors import AssayError
from ._format import percent

__all__ = ["MaxStepsOption", "TargetOption", "ToolsOption", "agent_from_flags",
           "exit_if_agent_failed", "owning_agent"]

err = Console(stderr=True)
T = TypeVar("T")

#: ``--target``: the app that answers QA rows without an answer and rows ending with a user turn.
TargetOption = Annotated[str | None, typer.Option(
    help="The app under test answers each QA row that has a question and no answer (asked the "
         "question alone: it does its own retrieval) and takes the turn of each conversation "
         "whose last message is a user turn; then its answers are scored. "
         "python:package.module:function (called with (messages, tools), or (messages) when "
         "it takes one parameter; returns the answer or the new messages), openai:MODEL "
         "(given the row's tools), http:URL or local (plain chat apps). See docs/agents.md.")]
#: ``--tools``: the functions behind the tools, so assay runs the calls and loops.
ToolsOption = Annotated[str | None, typer.Option(
    help="With --target: python:package.module:TOOLS, a dict of tool name -> function (or a "
         "list of functions); assay runs the agent's calls and asks it again until it "
         "answers. Without it the calls are recorded as made.")]
#: ``--max-steps``: agent turns per row.
MaxStepsOption = Annotated[int, typer.Option(
    min=1, help="With --tools: agent turns per row; a row still calling tools then ends as "
                "it is (noted in results.jsonl).")]


def agent_from_flags(target: str | None, tools: str | None, max_steps: int,
                     timeout: float = DEFAULT_TIMEOUT, *, max_wait: float = RetryPolicy.max_wait,
                     limits: FieldLimits | None = None) -> AgentRunner | None:
    """The agent of ``--target`` (None without it), its calls and tools bounded by
    ``--timeout`` and ``--max-wait``, its messages by ``limits`` (``--max-field-chars``,
    ``--long-fields``); ``--tools`` alone is refused."""
    if target is None:
        if tools:
            raise AssayError("--tools needs --target: the agent whose calls the tools answer. "
                             "Add --target python:package.module:function or openai:MODEL.")
        return None
    return make_agent(target, tools=tools, max_steps=max_steps, timeout=timeout,
                      max_wait=max_wait, limits=limits)


async def owning_agent(agent: AgentRunner | None, work: Awaitable[T]) -> T:
    """Await ``work``, then close the agent's target (once, whatever happened)."""
    try:
        return await work
    finally:
        if agent is not None:
            await agent.aclose()


def exit_if_agent_failed(agent: AgentRunner | None, summary: Mapping[str, Any],
                         max_failed_share: float, resume_hint: str) -> None:
    """Say what the agent did; exit 3 when it failed on more than ``max_failed_share`` of the
    rows (as ``assay robustness`` and ``assay simulate`` do for their target)."""
    if agent is None:
        return
    s = agent.stats
    answered = f"{s.answered} questions answered, " if s.answered else ""
    err.print(f"agent {agent.id}: {s.rows} rows completed ({answered}{s.turns} agent turns, "
              f"{s.tool_calls} tool calls run), {s.failed} failed, {s.step_limit} stopped at "
              "the step limit", highlight=False, markup=False, soft_wrap=True)
    rows = int(summary.get("rows") or 0)
    share = s.failed / rows if rows else 0.0
    if s.failed and share > max_failed_share:
        err.print(f"[red]target failed:[/red] {escape(agent.id)} could not answer {s.failed} of "
                  f"{rows} rows ({percent(share)}, over {percent(max_failed_share)} "
                  "--max-failed-share); their metrics are unscored with the cause (see above). "
                  f"Fix the cause, then {escape(resume_hint)}", highlight=False, soft_wrap=True)
        raise typer.Exit(3)
