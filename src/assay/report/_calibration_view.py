"""The calibration section of the report: each judge's agreement figures, confusion matrix
(as an HTML table: the PNGs ``assay calibrate`` writes stay in its folder) and reliability
curve (inline SVG with a table of its bins), side by side.

Example:
    >>> v = calibration_view({"metric": "m", "reports": {"j": {"n_rows": 3, "labels": ["a"],
    ...                        "confusion_matrix": [[2]]}}})
    >>> v["figures"], v["judges"][0]["matrix"][0]["cells"][0]["n"], v["judges"][0]["curve"]
    ([('rows', ['3'])], 2, None)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._text import percent
from ._model import fmt
from ._reliability_chart import reliability_chart

__all__ = ["CALIBRATION_FIGURES", "calibration_view"]

#: Figures of a calibration report, in display order: (label, key).
CALIBRATION_FIGURES = (
    ("rows", "n_rows"), ("compared", "n_compared"), ("unscored", "unscored"),
    ("no human label", "no_human"), ("balanced accuracy", "balanced_accuracy"),
    ("class-weighted F1", "class_weighted_f1"), ("exact agreement", "exact_agreement"),
    ("Cohen's kappa", "cohen_kappa"), ("kappa weights", "kappa_weights"),
    ("Spearman", "spearman"), ("Kendall tau", "kendall"), ("within one", "within_one"),
    ("positive label", "positive_label"), ("TPR", "tpr"), ("TNR", "tnr"), ("FPR", "fpr"),
    ("FNR", "fnr"),
)


def calibration_view(calibration: Mapping[str, Any]) -> dict[str, Any]:
    """The calibration section's data: figures per judge, confusion matrices, reliability
    curves."""
    reports = {str(k): v for k, v in (calibration.get("reports") or {}).items()
               if isinstance(v, Mapping)}
    figures = [(label, [_figure(r, key) for r in reports.values()])
               for label, key in CALIBRATION_FIGURES
               if any(r.get(key) is not None for r in reports.values())]
    judges = []
    for name, stats in reports.items():
        labels = [str(x) for x in stats.get("labels") or []]
        matrix = stats.get("confusion_matrix") or []
        top = max((max(row) for row in matrix if row), default=0) or 1
        per_class = stats.get("per_class")
        judges.append({
            "name": name, "labels": labels,
            "matrix": [{"label": labels[r] if r < len(labels) else str(r),
                        "cells": [{"n": n, "alpha": round(0.08 + 0.8 * n / top, 2) if n else 0,
                                   "diag": r == c} for c, n in enumerate(row)]}
                       for r, row in enumerate(matrix)],
            "per_class": [(str(k), v) for k, v in per_class.items() if isinstance(v, Mapping)]
            if isinstance(per_class, Mapping) else [],
            "curve": reliability_chart(stats.get("reliability")),
        })
    return {"metric": calibration.get("metric"), "names": list(reports), "figures": figures,
            "judges": judges}


def _figure(report: Mapping[str, Any], key: str) -> str:
    value = report.get(key)
    if key == "unscored" and value is not None and report.get("unscored_share") is not None:
        return f"{fmt(value)} ({percent(report['unscored_share'])})"
    return fmt(value)
