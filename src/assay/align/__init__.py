"""Aligning a judge metric to human ratings: learn on train rows, measure on held-out rows.

Example:
    >>> from assay.align import stratified_split
    >>> train, heldout = stratified_split(["a"] * 6 + ["b"] * 6, heldout=0.3, seed=1)
    >>> len(train), len(heldout), set(train) & set(heldout)
    (8, 4, set())
"""

from ._align import AlignmentResult, align, align_async
from ._candidates import metric_file_text, pick_examples, with_examples
from ._figures import FIGURES, compare_figures
from ._mapping import apply_thresholds, crossval_labels, fit_thresholds
from ._split import MIN_ROWS, stratified_split

__all__ = ["FIGURES", "MIN_ROWS", "AlignmentResult", "align", "align_async", "apply_thresholds",
           "compare_figures", "crossval_labels", "fit_thresholds", "metric_file_text",
           "pick_examples", "stratified_split", "with_examples"]
