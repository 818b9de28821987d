"""RGB-style robustness suites: noise, rejection, integration, counterfactual.

Example:
    >>> from assay.robustness import SUITES
    >>> SUITES
    ('noise', 'rejection', 'integration', 'counterfactual')
"""

from ._rgb import Instance, load_rgb
from ._suites import SUITES, begin_suite, run_suite, suite_failures, summarize, write_summary

__all__ = ["SUITES", "Instance", "begin_suite", "load_rgb", "run_suite", "suite_failures",
           "summarize", "write_summary"]
