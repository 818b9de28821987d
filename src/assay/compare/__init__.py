"""Compare two runs: paired mean differences with bootstrap intervals, defect rates, and the
rows that changed most (the data behind ``assay compare`` and the comparison report), and a
warning for each fact that makes two runs unlike: judge, dataset, metric version, prompt.

Example:
    >>> from assay.records import RunData
    >>> a = RunData("a", {}, [{"id": "q1", "f1_score": {"value": 0.5}}])
    >>> compare_runs(a, a)["metrics"]["f1_score"]["diff"]
    0.0
"""

from ._attacks import check_comparable, compare_attack_runs, kind_of
from ._compare import compare_runs, paired_bootstrap_ci
from ._provenance import (
    NO_SHARED_ROWS,
    PROVENANCE_KEYS,
    comparison_warnings,
    provenance_of,
    provenance_warnings,
)

__all__ = ["NO_SHARED_ROWS", "PROVENANCE_KEYS", "check_comparable", "compare_attack_runs",
           "compare_runs", "comparison_warnings", "kind_of", "paired_bootstrap_ci",
           "provenance_of", "provenance_warnings"]
