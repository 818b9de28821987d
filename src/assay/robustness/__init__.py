"""RGB-style robustness suites: noise, rejection, integration, counterfactual.

Example:
    >>> from assay.robustness import SUITES
    >>> SUITES
    ('noise', 'rejection', 'integration', 'counterfactual')
"""

from ._rgb import Instance, build_passages, load_rgb, matches_answer
from ._suites import SUITES, flags_error, is_rejection, run_suite, summarize, write_summary
from ._targets import TARGET_SPECS, ChatTarget, Target, make_target

__all__ = ["SUITES", "TARGET_SPECS", "ChatTarget", "Instance", "Target", "build_passages", "flags_error",
           "is_rejection", "load_rgb", "make_target", "matches_answer", "run_suite",
           "summarize", "write_summary"]
