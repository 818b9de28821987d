"""The CI gate: quality bars (``--fail-under``, ``--fail-over``, ``--max-drop``) checked
against a run's summary or a comparison of two runs; every failed bar is one message.

Example:
    >>> check_summary({"rows": 1, "metrics": {"f1_score": {"mean": 0.9}}},
    ...               fail_under={"f1_score": 0.8}, fail_over={})
    []
"""

from ._drop_outcomes import mean_drop_outcomes
from ._gate import check_comparison, check_summary, parse_bars
from ._junit import junit_xml, write_junit
from ._markdown import markdown_summary, summary_defects
from ._names import check_bar_names
from ._outcome import BarKind, BarOutcome, RowNote, Verdict, worst_verdict
from ._publish import publish_ci_outputs
from ._summary_outcomes import summary_outcomes

__all__ = ["BarKind", "BarOutcome", "RowNote", "Verdict", "check_bar_names", "check_comparison",
           "check_summary", "junit_xml", "markdown_summary", "mean_drop_outcomes", "parse_bars",
           "publish_ci_outputs", "summary_defects", "summary_outcomes", "worst_verdict",
           "write_junit"]
