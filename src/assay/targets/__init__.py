"""The app under test, as the robustness suites, the red-team commands, the agent runner and
the simulators call it: a Python callable (``python:``), an OpenAI-compatible chat model
(``openai:``), an HTTP endpoint (``http:``) or the embedded model (``local``). Every call has a
deadline (see :mod:`assay.calls`); what the app's own model calls used, when it reports it,
is counted under an :class:`AppMeter` (see :mod:`assay.targets._usage`); rows the app (or a judge) left unscored are tallied with
their causes by :class:`FailureTally`.

Example:
    >>> import asyncio
    >>> target = make_target("python:examples.apps:echo_first_passage")
    >>> asyncio.run(target.answer("Where is Paris?", ["Paris is in France."], "en"))
    'Paris is in France.'
    >>> asyncio.run(close_target(target))
"""

# Each kind's module registers its prefix when imported, in this order (the order errors list).
from . import _python, _openai, _http, _local  # noqa: F401  # isort: skip
from ._failures import DEFAULT_MAX_FAILED_SHARE, FailureTally, cause_key, unscored_causes
from ._kinds import AgentTarget, AppTarget, ChatTarget, Target
from ._make import TARGET_KINDS, TARGETS_GROUP, close_target, make_target, register_target
from ._python import PythonTarget
from ._usage import AppMeter, app_call, metered_app, read_usage, report_app_usage

#: The built-in ``--target`` forms, as errors list them (``TARGET_KINDS.specs()`` adds
#: plugins'), read from the kinds the modules above registered.
TARGET_SPECS = TARGET_KINDS.builtin_specs()

__all__ = [
    "DEFAULT_MAX_FAILED_SHARE",
    "TARGETS_GROUP",
    "TARGET_KINDS",
    "TARGET_SPECS",
    "AgentTarget",
    "AppMeter",
    "AppTarget",
    "ChatTarget",
    "FailureTally",
    "PythonTarget",
    "Target",
    "app_call",
    "cause_key",
    "close_target",
    "make_target",
    "metered_app",
    "read_usage",
    "register_target",
    "report_app_usage",
    "unscored_causes",
]
