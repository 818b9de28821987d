"""RGB-style robustness suites: noise, rejection, integration, counterfactual.

Example:
    >>> from assay.robustness import SUITES
    >>> SUITES
    ('noise', 'rejection', 'integration', 'counterfactual')
"""

from ._rgb import Instance, build_passages, load_rgb, matches_answer
from ._suites import (
    SUITES,
    begin_suite,
    flags_error,
    is_rejection,
    run_suite,
    suite_failures,
    summarize,
    write_summary,
)

__all__ = ["SUITES", "Instance", "begin_suite", "build_passages", "flags_error", "is_rejection", "load_rgb",
           "matches_answer", "run_suite", "suite_failures", "summarize", "write_summary"]
