"""Running an agent on rows before they are scored: ``assay run DATA --target ...``.

A target (``python:package.module:function`` or ``openai:MODEL``; ``http:URL`` and ``local``
as plain chat apps) takes the turn of each row whose last message is a user turn, and answers
the question of each QA row that has no answer; with tool functions
(``--tools python:module:TOOLS``) assay runs the calls it makes and asks again, up to a step
limit. See docs/agents.md.

Example:
    >>> agent = make_agent("python:examples.agent_app:agent", max_steps=4)
    >>> agent.id, agent.tools is None
    ('python:examples.agent_app:agent', True)
"""

from ._messages import (
    REPLY_SHAPE,
    final_answer,
    masked_message,
    openai_messages,
    pending_calls,
    question_row,
    reply_messages,
    with_messages,
)
from ._runner import AGENT_TARGETS, AgentRunner, AgentStats, make_agent
from ._tools import load_tools, run_tool_call

__all__ = ["AGENT_TARGETS", "REPLY_SHAPE", "AgentRunner", "AgentStats", "final_answer",
           "load_tools", "make_agent", "masked_message", "openai_messages", "pending_calls",
           "question_row", "reply_messages", "run_tool_call", "with_messages"]
