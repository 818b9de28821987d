"""The store's secret masking: :mod:`assay._secrets`, which every layer shares (judges mask
their ids and errors with it too), re-exported where the store's modules import it from.

Example:
    >>> sanitize({"api_key": "sk-abc", "model": "gpt-4o"})
    {'model': 'gpt-4o'}
"""

from __future__ import annotations

from .._secrets import MASK, is_secret_name, mask_secrets, sanitize

__all__ = ["MASK", "is_secret_name", "mask_secrets", "sanitize"]
