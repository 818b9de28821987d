"""Checks on every value of a record, whatever its field: text that every later step can
encode and store, numbers JSON allows, bounded nesting and bounded field length.

Example:
    >>> limits = FieldLimits(max_field_chars=5, long_fields="truncate")
    >>> problems = []
    >>> clean_record({"answer": "abcdefgh", "n": float("nan")}, "d.jsonl line 1", limits, problems)
    {'answer': 'abcde', 'n': nan}
    >>> limits.truncated, problems
    (1, ["d.jsonl line 1, field 'n': nan is not a number JSON allows. Fix: write null, or the value as a string."])
"""

from __future__ import annotations

import logging
import math
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from ..errors import ConfigError, DataError, option

__all__ = ["MAX_DEPTH", "FieldLimits", "LongFields", "TooLongInt", "clean_record",
           "lone_surrogates", "parse_int"]

LongFields = Literal["refuse", "truncate"]

#: How deep objects and lists may nest inside one record.
MAX_DEPTH = 100
_SURROGATE = re.compile("[\ud800-\udfff]")
log = logging.getLogger("assay.data")


class TooLongInt:
    """Stands for a JSON integer with more digits than Python converts (``digits`` of them)."""

    def __init__(self, digits: int) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return f"<integer of {self.digits:,} digits>"


def parse_int(text: str) -> int | TooLongInt:
    """``json.loads``'s ``parse_int``: an int, or a :class:`TooLongInt` instead of ValueError.

    Example:
        >>> parse_int("42"), parse_int("9" * 5000)
        (42, <integer of 5,000 digits>)
    """
    try:
        return int(text)
    except ValueError:
        return TooLongInt(len(text.lstrip("-")))


@dataclass
class FieldLimits:
    """How long one text field may be, and what to do with a longer one.

    ``long_fields="refuse"`` makes it a problem (file, line, field, length, fix);
    ``"truncate"`` cuts it to ``max_field_chars`` and counts it in ``truncated``. An id is
    never cut (two ids could become one): a longer id is always a problem.

    Example:
        >>> FieldLimits(long_fields="cut")
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: Got long_fields='cut'. Must be one of: refuse, truncate.
    """

    max_field_chars: int = 100_000
    long_fields: LongFields = "refuse"
    truncated: int = 0
    first_truncated: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        allowed = get_args(LongFields)
        if self.long_fields not in allowed:
            raise ConfigError(f"Got long_fields={self.long_fields!r}. Must be one of: "
                              f"{', '.join(allowed)}.")
        if isinstance(self.max_field_chars, bool) or not isinstance(self.max_field_chars, int) \
                or self.max_field_chars < 1:
            raise ConfigError(f"Got max_field_chars={self.max_field_chars!r}. Must be a whole "
                              "number of characters, at least 1 (default 100,000).")

    def fit(self, text: str, where: str) -> tuple[str, dict[str, Any] | None]:
        """One text made during a run (an app's reply on its way to a judge or a simulated
        user) under the same rule as a dataset's fields: as it is when within the limit; cut
        to ``max_field_chars`` under ``truncate`` (counted, and the cut returned as a record
        ``{"field", "chars", "kept"}`` for the row to keep); under ``refuse``, a DataError
        naming ``where``, the length, the limit and both options.

        Example:
            >>> FieldLimits(max_field_chars=3, long_fields="truncate").fit("abcdef", "reply")
            ('abc', {'field': 'reply', 'chars': 6, 'kept': 3})
            >>> FieldLimits(max_field_chars=3).fit("abcdef", "reply")
            Traceback (most recent call last):
            ...
            assay.errors.DataError: 1 problem found; the text was not used.
              - reply: 6 characters, over the limit of 3. Fix: raise the limit (max_field_chars), or cut long texts to the limit (long_fields='truncate').
        """
        limit = self.max_field_chars
        if len(text) <= limit:
            return text, None
        if self.long_fields == "refuse":
            problem = (f"{where}: {len(text):,} characters, over the limit of {limit:,}. Fix: "
                       f"raise the limit ({option('max_field_chars')}), or cut long texts to "
                       f"the limit ({option('long_fields', 'truncate')}).")
            raise DataError([problem], outcome="the text was not used")
        if not self.truncated:
            self.first_truncated = f"{where}, {len(text):,} chars"
        self.truncated += 1
        return text[:limit], {"field": where, "chars": len(text), "kept": limit}

    def report(self, source: str) -> None:
        """Log one warning with how many fields of ``source`` were truncated, if any."""
        if self.truncated:
            log.warning("%s: %s field%s longer than %s characters truncated to that length "
                        "(the first: %s).", source, f"{self.truncated:,}",
                        "s" if self.truncated != 1 else "", f"{self.max_field_chars:,}",
                        self.first_truncated)


def clean_record(rec: dict[str, Any], where: str, limits: FieldLimits, problems: list[str], *,
                 id_key: str = "id", surrogates: bool = True) -> dict[str, Any]:
    """``rec`` with over-long text truncated (when ``limits`` says so); every value that later
    steps could not encode, store or print is added to ``problems`` as ``where, field ...``.

    ``surrogates=False`` skips the lone-surrogate check, for text that a strict decoder made
    (it cannot hold one).
    """
    limit = limits.max_field_chars
    for key, v in rec.items():  # the common case, flat short text, without building a walker
        kind = type(v)
        if kind is str:  # (ASCII text has no surrogate: isascii() is a flag, no scan)
            if len(v) > limit or "\x00" in v or (
                    surrogates and not v.isascii() and _SURROGATE.search(v)):
                break
        elif v is None or kind is bool:
            continue
        elif kind is int:
            if v.bit_length() > 4000:
                break
        elif kind is not float or not math.isfinite(v):
            break
        if surrogates and not (type(key) is str and key.isascii()) and _SURROGATE.search(key):
            break
    else:
        return rec
    return _Walk(where, limits, problems, surrogates, id_key).record(rec)


class _Walk:
    def __init__(self, where: str, limits: FieldLimits, problems: list[str], surrogates: bool,
                 id_key: str) -> None:
        self.where, self.limits, self.problems = where, limits, problems
        self.surrogates, self.id_key = surrogates, id_key
        digits = sys.get_int_max_str_digits()
        self.max_bits = int(digits * 3.32) - 8 if digits else 0

    def record(self, rec: dict[str, Any]) -> dict[str, Any]:
        out = self.value(rec, "", 0)
        return out if isinstance(out, dict) else rec

    def problem(self, path: str, what: str) -> None:
        self.problems.append(f"{self.where}, field {path!r}: {what}")

    def value(self, v: Any, path: str, depth: int) -> Any:
        if isinstance(v, str):
            return self.text(v, path)
        if isinstance(v, (dict, list)):
            if depth > MAX_DEPTH:
                self.problem(path, f"nested more than {MAX_DEPTH} levels deep. Fix: flatten "
                                   "it, or store it as one JSON string.")
                return v
            return self.container(v, path, depth)
        if isinstance(v, float) and not math.isfinite(v):
            self.problem(path, f"{v} is not a number JSON allows. Fix: write null, or the value "
                               "as a string.")
        elif isinstance(v, TooLongInt) or (isinstance(v, int) and self.max_bits
                                           and abs(v).bit_length() > self.max_bits
                                           and not _printable(v)):
            digits = f"{v.digits:,}" if isinstance(v, TooLongInt) else "over 4,300"
            self.problem(path, f"an integer of {digits} digits, more than Python converts. "
                               "Fix: write it as a string.")
        return v

    def container(self, v: dict[Any, Any] | list[Any], path: str, depth: int) -> Any:
        out: Any = None
        items = v.items() if isinstance(v, dict) else enumerate(v)
        for k, x in items:
            if isinstance(v, dict):
                if isinstance(k, str) and self.surrogates and _SURROGATE.search(k):
                    self.problem(_join(path, k), _SURROGATE_KEY)
                sub = _join(path, k)
            else:
                sub = f"{path}[{k}]"
            y = self.value(x, sub, depth + 1)
            if y is not x:
                if out is None:
                    out = dict(v) if isinstance(v, dict) else list(v)
                out[k] = y
        return v if out is None else out

    def text(self, s: str, path: str) -> str:
        if self.surrogates and (m := _SURROGATE.search(s)):
            self.problem(path, _surrogate_text(m))
        if (nul := s.find("\x00")) >= 0:
            self.problem(path, f"holds a NUL character (U+0000) at character {nul + 1}. Fix: "
                               "remove NUL characters from the text.")
        limit = self.limits.max_field_chars
        if len(s) <= limit:
            return s
        if self.limits.long_fields == "truncate" and path != self.id_key:
            if not self.limits.truncated:
                self.limits.first_truncated = f"{self.where}, field {path!r}, {len(s):,} chars"
            self.limits.truncated += 1
            return s[:limit]
        self.problem(path, f"{len(s):,} characters, over the limit of {limit:,}. Fix: shorten "
                           f"it, raise the limit ({option('max_field_chars')}), or cut long fields to "
                           f"the limit ({option('long_fields', 'truncate')}).")
        return s


def lone_surrogates(value: Any, where: str, problems: list[str], path: str = "",
                    depth: int = 0) -> None:
    """Add a problem (``where, field ...``) for each string in ``value``, field names too, that
    holds a lone surrogate: text decoded from a file cannot, a JSON ``\\ud800`` escape can. For
    a reader that checks its own records (``checks_surrogates``), so that others need not.

    Example:
        >>> problems = []
        >>> lone_surrogates({"a": ["ok", "x\\ud800"]}, "d.jsonl line 2", problems)
        >>> print(problems[0])  # doctest: +ELLIPSIS
        d.jsonl line 2, field 'a[1]': holds a lone surrogate '\\ud800' at character 2, ...
    """
    if isinstance(value, str):
        if m := _SURROGATE.search(value):
            problems.append(f"{where}, field {path!r}: {_surrogate_text(m)}")
    elif isinstance(value, dict) and depth <= MAX_DEPTH:
        for k, x in value.items():
            if isinstance(k, str) and _SURROGATE.search(k):
                problems.append(f"{where}, field {_join(path, k)!r}: {_SURROGATE_KEY}")
            lone_surrogates(x, where, problems, _join(path, k), depth + 1)
    elif isinstance(value, list) and depth <= MAX_DEPTH:
        for i, x in enumerate(value):
            lone_surrogates(x, where, problems, f"{path}[{i}]", depth + 1)


_SURROGATE_KEY = "the field name holds a lone surrogate. Fix: rename it."


def _surrogate_text(m: re.Match[str]) -> str:
    return (f"holds a lone surrogate {m.group()!a} at character {m.start() + 1}, which is not "
            "valid Unicode. Fix: remove it, or write the whole character (both halves of its "
            "pair).")


def _join(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


def _printable(v: int) -> bool:
    try:
        str(v)
    except ValueError:
        return False
    return True
