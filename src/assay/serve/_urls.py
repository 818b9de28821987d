"""The URLs of ``assay serve``: row ids of any text in a path (``/``, ``#``, ``?``, ``%``,
spaces and newlines included), decoded exactly once, and the links between pages of rows.

Example:
    >>> href = paged_href("/runs/r1", 50)
    >>> href(0), href(100)
    ('/runs/r1?limit=50', '/runs/r1?offset=100&limit=50')
    >>> paged_href("/runs/r1", PAGE_ROWS)(200)
    '/runs/r1?offset=200'
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote, unquote

from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request

from ._params import PAGE_ROWS

__all__ = ["ROW_ROUTE", "RowIdConvertor", "paged_href", "row_id_of"]

#: The route of a row's page.
ROW_ROUTE = "/runs/{run_id}/rows/{row_id:assay_row_id}"


class RowIdConvertor(Convertor[str]):
    """A row id in a path: anything, ``/`` and newlines included (Starlette's ``path``
    stops at a newline)."""

    regex = "(?s:.+)"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return quote(value, safe="")


register_url_convertor("assay_row_id", RowIdConvertor())


def row_id_of(request: Request) -> str:
    """The row id of a row page's URL, percent-decoded exactly once from the raw path (a
    server or test client that decodes twice would turn a row id ``%2F`` into ``/``)."""
    raw = request.scope.get("raw_path")
    parts = raw.decode("latin-1").split("/", 4) if isinstance(raw, bytes) else []
    if len(parts) == 5 and parts[1] == "runs" and parts[3] == "rows":
        return unquote(parts[4], errors="replace")
    return str(request.path_params["row_id"])


def paged_href(path: str, limit: int) -> Callable[[int], str]:
    def href(offset: int) -> str:
        query = [f"offset={offset}"] if offset else []
        if limit != PAGE_ROWS:
            query.append(f"limit={limit}")
        return path + ("?" + "&".join(query) if query else "")
    return href
