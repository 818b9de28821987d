"""The app under test, as the robustness suites, the red-team commands, the agent runner and
the simulators call it: a Python callable (``python:``), an OpenAI-compatible chat model
(``openai:``), an HTTP endpoint (``http:``) or the embedded model (``local``). Every call has a
deadline (see :mod:`assay.calls`); rows the app (or a judge) left unscored are tallied with
their causes by :class:`FailureTally`.

Example:
    >>> import asyncio
    >>> target = make_target("python:examples.apps:echo_first_passage")
    >>> asyncio.run(target.answer("Where is Paris?", ["Paris is in France."], "en"))
    'Paris is in France.'
    >>> asyncio.run(close_target(target))
"""

from ._failures import DEFAULT_MAX_FAILED_SHARE, FailureTally, cause_key, unscored_causes
from ._kinds import TARGET_SPECS, AgentTarget, ChatTarget, Target
from ._make import close_target, make_target

__all__ = [
    "DEFAULT_MAX_FAILED_SHARE",
    "TARGET_SPECS",
    "AgentTarget",
    "ChatTarget",
    "FailureTally",
    "Target",
    "cause_key",
    "close_target",
    "make_target",
    "unscored_causes",
]
