"""OTLP trace and span ids as one form: lower-case hex.

OTLP JSON writes ids in hex (``"5b8efff798038103d269b633813fc60c"``); protobuf's own JSON
mapping (``MessageToJson``, and files some tools write with it) writes the same bytes in
base64 (``"W47/95gDgQPSabYzgT/GDA=="``). Read as they are, the same trace in the two forms
would be two traces with two row ids; so every id is read as hex.

Example:
    >>> otlp_id("5B8EFFF798038103D269B633813FC60C"), otlp_id("W47/95gDgQPSabYzgT/GDA==")
    ('5b8efff798038103d269b633813fc60c', '5b8efff798038103d269b633813fc60c')
    >>> otlp_id("AAAAAAAAAAE="), otlp_id("t1"), otlp_id("")
    ('0000000000000001', 't1', '')
    >>> hex_ids({"traceId": "W47/95gDgQPSabYzgT/GDA==", "name": "chat"})
    {'traceId': '5b8efff798038103d269b633813fc60c', 'name': 'chat'}
"""

from __future__ import annotations

import base64
import binascii
import string
from typing import Any, TypeVar

__all__ = ["ID_KEYS", "hex_ids", "otlp_id"]

#: The id fields of spans, span links and log records.
ID_KEYS = ("traceId", "spanId", "parentSpanId")
_HEX = frozenset(string.hexdigits)
T = TypeVar("T")


def otlp_id(value: T) -> T | str:
    """A trace id (16 bytes) or span id (8 bytes) as lower-case hex, whether it was written in
    hex or in base64; any other value as it is (the reader reports what it cannot use)."""
    if not isinstance(value, str):
        return value
    if len(value) in (16, 32) and _HEX.issuperset(value):
        return value.lower()
    if len(value) in (12, 24):
        try:
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            return value
        if len(raw) in (8, 16):
            return raw.hex()
    return value


def hex_ids(item: Any) -> Any:
    """``item`` (a span or log record) with its ids as :func:`otlp_id` gives them: itself when
    they already are, else a shallow copy; anything but a dict as it is."""
    if not isinstance(item, dict):
        return item
    changed = {k: new for k in ID_KEYS if k in item and (new := otlp_id(item[k])) != item[k]}
    return {**item, **changed} if changed else item
