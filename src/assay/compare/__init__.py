"""Compare two runs: paired mean differences with bootstrap intervals, defect rates, and the
rows that changed most (the data behind ``assay compare`` and the comparison report), and a
warning for each fact that makes two runs unlike: judge, dataset, metric version, prompt; and
the verdict of each ``--max-drop`` bar (pass, fail or inconclusive) from the paired difference.

Example:
    >>> from assay.records import RunData
    >>> a = RunData("a", {}, [{"id": "q1", "f1_score": {"value": 0.5}}])
    >>> compare_runs(a, a)["metrics"]["f1_score"]["diff"]
    0.0
"""

from ._attacks import check_comparable, compare_attack_runs
from ._bar_names import check_drop_names
from ._compare import compare_runs
from ._latency import latency_lines
from ._verdict import allowed_text, check_margins, check_shared_rows, decide_drops, with_verdicts

__all__ = ["allowed_text", "check_comparable", "check_drop_names", "check_margins", "check_shared_rows", "compare_attack_runs", "compare_runs",
           "decide_drops", "latency_lines", "with_verdicts"]
