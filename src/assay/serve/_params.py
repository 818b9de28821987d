"""The query parameters of ``assay serve``, checked: each page names the ones it takes, and
anything else (an unknown name, a name given twice, a number that is not a whole number in
range) is refused with a message that says what was got, what is allowed and an example,
never ignored and never a server error.

Example:
    >>> from starlette.datastructures import QueryParams
    >>> window(QueryParams("page=3&limit=50"), total=1000)
    (100, 50)
    >>> try:
    ...     window(QueryParams("limit=5000"), total=1000)
    ... except ParamError as e:
    ...     print(e)
    Got limit='5000'. Must be a whole number from 1 to 1000, e.g. ?limit=100.
    >>> try:
    ...     allow(QueryParams("limt=5"), ("limit", "offset"))
    ... except ParamError as e:
    ...     print(e)
    Unknown query parameter 'limt'. This page takes: limit, offset.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from starlette.datastructures import QueryParams

__all__ = ["MAX_ROWS", "PAGE_ROWS", "ParamError", "allow", "number", "text", "window"]

#: Rows on a page of a run when the request names no ``limit``.
PAGE_ROWS = 100
#: The most rows one page (or one API response) may hold.
MAX_ROWS = 1000

_DIGITS = re.compile(r"[0-9]{1,12}")  # ASCII only: int() would also take "٣" or " 5"


class ParamError(ValueError):
    """A query parameter that cannot be used; the message says why and how to fix it."""


def allow(params: QueryParams, names: Sequence[str]) -> None:
    """Refuse a parameter not in ``names``, or one given more than once."""
    for key in params:
        if key not in names:
            takes = ", ".join(names) if names else "no query parameters"
            raise ParamError(f"Unknown query parameter {key!r}. This page takes: {takes}.")
        if len(params.getlist(key)) > 1:
            raise ParamError(f"Got {key} {len(params.getlist(key))} times. Give it once, "
                             f"e.g. ?{key}={params.getlist(key)[-1]}.")


def text(params: QueryParams, name: str) -> str:
    """The parameter's text, stripped ('' when absent)."""
    return (params.get(name) or "").strip()


def number(params: QueryParams, name: str, *, default: int | None, lo: int, hi: int,
           example: int) -> int | None:
    """The parameter as a whole number from ``lo`` to ``hi``; ``default`` when absent or
    empty."""
    raw = text(params, name)
    if not raw:
        return default
    value = int(raw) if _DIGITS.fullmatch(raw) else None
    if value is None or not lo <= value <= hi:
        raise ParamError(f"Got {name}={raw!r:.40}. Must be a whole number from {lo} to {hi}, "
                         f"e.g. ?{name}={example}.")
    return value


def window(params: QueryParams, *, total: int, default_limit: int = PAGE_ROWS,
           max_limit: int = MAX_ROWS) -> tuple[int, int]:
    """``(offset, limit)`` of the rows a request asks for out of ``total``: ``limit`` rows
    (default ``default_limit``, at most ``max_limit``) from ``offset`` (0-based), or from the
    start of ``page`` (1-based; not with ``offset``)."""
    limit = number(params, "limit", default=default_limit, lo=1, hi=max_limit,
                   example=default_limit)
    assert limit is not None
    pages = max((total - 1) // limit + 1, 1)
    if text(params, "page") and text(params, "offset"):
        raise ParamError("Got both page and offset. Give one: ?page=2 (1-based) or ?offset="
                         f"{limit} (rows to skip).")
    page = number(params, "page", default=None, lo=1, hi=pages, example=min(2, pages))
    if page is not None:
        return (page - 1) * limit, limit
    last = max(total - 1, 0)
    offset = number(params, "offset", default=0, lo=0, hi=last, example=min(limit, last))
    assert offset is not None
    return offset, limit
