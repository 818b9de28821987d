"""Aligning a judge metric to human ratings: learn on train rows, measure on held-out rows.

Example:
    >>> from assay.align import stratified_split
    >>> train, heldout = stratified_split(["a"] * 6 + ["b"] * 6, heldout=0.3, seed=1)
    >>> len(train), len(heldout), set(train) & set(heldout)
    (8, 4, set())
"""

from ._figures import FIGURES, compare_figures
from ._mapping import apply_thresholds, crossval_labels, fit_thresholds
from ._split import MIN_ROWS, stratified_split

__all__ = ["FIGURES", "MIN_ROWS", "apply_thresholds", "compare_figures", "crossval_labels",
           "fit_thresholds", "stratified_split"]
