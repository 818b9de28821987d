"""Aligning a judge metric to human ratings: learn on train rows, measure on held-out rows.

:func:`align` (and :func:`align_async`, whose signature lists the options) splits the labelled
rows, tries the metric with few-shot examples and fitted score thresholds on the train rows,
and measures each variant on the held-out rows by the :data:`FIGURES`; it returns an
:class:`AlignmentResult` (the report ``alignment.json`` holds and the chosen metric).

Example:
    >>> FIGURES
    ('balanced_accuracy', 'class_weighted_f1', 'spearman', 'cohen_kappa')
"""

from ._align import AlignmentResult, align, align_async
from ._figures import FIGURES

__all__ = ["FIGURES", "AlignmentResult", "align", "align_async"]
