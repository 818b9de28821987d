"""RGB-style robustness suites: noise, rejection, integration, counterfactual.

Example:
    >>> from assay.robustness import SUITES
    >>> SUITES
    ('noise', 'rejection', 'integration', 'counterfactual')
"""

from ._failures import DEFAULT_MAX_FAILED_SHARE, FailureTally, cause_key, unscored_causes
from ._rgb import Instance, build_passages, load_rgb, matches_answer
from ._suites import (
    SUITES,
    flags_error,
    is_rejection,
    run_suite,
    suite_failures,
    summarize,
    write_summary,
)
from ._targets import TARGET_SPECS, AgentTarget, ChatTarget, Target, close_target, make_target

__all__ = ["DEFAULT_MAX_FAILED_SHARE", "SUITES", "TARGET_SPECS", "AgentTarget", "ChatTarget",
           "FailureTally",
           "Instance", "Target", "build_passages", "cause_key", "close_target", "flags_error",
           "is_rejection", "load_rgb", "make_target", "matches_answer",
           "run_suite", "suite_failures", "summarize", "unscored_causes", "write_summary"]
