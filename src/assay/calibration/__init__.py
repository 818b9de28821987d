"""Calibration of a judge against human ratings: agreement figures, a reliability curve, a
table, PNGs and JSON.

Example:
    >>> from assay.calibration import agreement_stats
    >>> s = agreement_stats(["TIE", "BASELINE", "CANDIDATE"], ["TIE", "CANDIDATE", "CANDIDATE"],
    ...                     labels=["BASELINE", "CANDIDATE", "TIE"], ordinal=False)
    >>> s["confusion_matrix"], round(s["exact_agreement"], 3), s["kappa_weights"]
    ([[0, 1, 0], [0, 1, 0], [0, 0, 1]], 0.667, 'none')
"""

from ._calibrate import CalibrationResult, HumanScale, calibrate, human_scale
from ._calibrate import _human_labels as human_labels
from ._report import comparison_table
from ._stats import agreement_stats

__all__ = ["CalibrationResult", "HumanScale", "agreement_stats", "calibrate", "comparison_table",
           "human_labels", "human_scale"]
