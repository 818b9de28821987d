"""The safety family's own scoring settings, declared by the family (the way a plugin's family
declares its settings), not by assay's core: ``safety_threshold`` and ``safety_mode``.

Example:
    >>> SAFETY_MODE.default, SAFETY_MODE.choices
    ('combined', ('combined', 'separate'))
    >>> SAFETY_THRESHOLD.check("severe")
    Traceback (most recent call last):
    ...
    assay.errors.ConfigError: Got safety_threshold='severe'. Must be one of ['low', 'medium', 'high'].
"""

from __future__ import annotations

from typing import Literal, get_args

from .._settings import Setting
from ._defects import THRESHOLDS

__all__ = ["SAFETY_MODE", "SAFETY_SETTINGS", "SAFETY_THRESHOLD", "SafetyMode"]

#: How the severity metrics ask: one shared request per row, or one per harm category.
SafetyMode = Literal["combined", "separate"]

SAFETY_THRESHOLD: Setting[str] = Setting(
    "safety_threshold", "medium", THRESHOLDS,
    "The severity level from which a row is a defect in the severity metrics' summary.")
SAFETY_MODE: Setting[SafetyMode] = Setting(
    "safety_mode", "combined", get_args(SafetyMode),
    "One judge request per row for the four severity metrics, or one per category.")
#: What the safety family declares in its ``options``.
SAFETY_SETTINGS = (SAFETY_THRESHOLD, SAFETY_MODE)
