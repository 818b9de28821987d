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

from ._runner import AgentRunner, AgentStats, make_agent

__all__ = ["AgentRunner", "AgentStats", "make_agent"]
