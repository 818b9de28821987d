"""The web UI's site object: one open store, its caches, and what every endpoint shares (pages
with their security headers, run lookup, query checks, the JSON API and the error pages).

Example:
    >>> from assay.store import open_store
    >>> store = open_store(":memory:")
    >>> site = SiteBase(store, page_cache_bytes=0)
    >>> site.report("<p>x</p>").headers["Content-Security-Policy"]
    "frame-ancestors 'none'"
    >>> store.close()
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from typing import Any

import jinja2
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from ..errors import ConfigError
from ..report import JOB_KINDS, template_environment
from ..store import KINDS, RunInfo, Store
from ._cache import PageCache, StatsCache
from ._params import ParamError, allow, number, text, window
from ._views import json_safe, run_json

__all__ = ["DEFAULT_LIMIT", "HEADERS", "SiteBase", "check_params"]

#: Runs listed when the request names no ``limit``.
DEFAULT_LIMIT = 100
#: The most runs one list may show.
MAX_RUNS = 10_000
_FILTERS = ("tag", "name", "dataset", "kind", "limit")
_PAGING = ("limit", "offset", "page")

#: The policy of the pages rendered here (reports carry their own, stricter, in a meta tag).
_PAGE_CSP = ("default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
             "base-uri 'none'; frame-ancestors 'none'")
#: Sent with every response: no framing by other sites, no sniffing, no referrer leaks.
HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


def _environment() -> jinja2.Environment:
    return template_environment("assay.serve")


def _stylesheet() -> str:
    def read(package: str, name: str) -> str:
        return (resources.files(package) / "templates" / name).read_text(encoding="utf-8")
    return read("assay.report", "report.css") + "\n" + read("assay.serve", "serve.css")


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def check_params(request: Request, names: tuple[str, ...]) -> None:
    """A 400 naming what is allowed when the request has a query parameter outside ``names``."""
    try:
        allow(request.query_params, names)
    except ParamError as e:
        raise HTTPException(400, str(e)) from None


class SiteBase:
    """What the endpoints share, over one open store (every endpoint is sync: Starlette runs it in a
    worker thread, as SQLAlchemy's blocking calls need)."""

    def __init__(self, store: Store, *, page_cache_bytes: int) -> None:
        self.store = store
        self.css = _stylesheet()
        self.stats = StatsCache(store)
        self.pages = PageCache(page_cache_bytes)

    # -- helpers ---------------------------------------------------------------------------

    def render(self, template: str, *, title: str,
               crumbs: Sequence[tuple[str, str]] = (("All runs", "/"),), **context: Any) -> str:
        return _environment().get_template(template).render(
            title=title, crumbs=list(crumbs), **{"kinds": KINDS, "job_kinds": JOB_KINDS,
                                                 **context})

    def page(self, template: str | bytes, *, title: str = "", status: int = 200,
             **context: Any) -> HTMLResponse:
        """A page of this site: ``template`` rendered, or a page already rendered (bytes)."""
        body = template if isinstance(template, bytes) else self.render(
            template, title=title, **context)
        return HTMLResponse(body, status_code=status,
                            headers={**HEADERS, "Content-Security-Policy": _PAGE_CSP})

    @staticmethod
    def report(html: str | bytes) -> HTMLResponse:
        # The report's meta tag holds its policy (its script pinned by hash); the header only
        # adds what a meta tag cannot say.
        return HTMLResponse(html, headers={**HEADERS,
                                           "Content-Security-Policy": "frame-ancestors 'none'"})

    def find(self, ref: str) -> RunInfo:
        """The run ``ref`` names, or a 404 whose message lists candidates and the fix."""
        try:
            return self.store.get(ref)
        except ConfigError as e:
            raise HTTPException(404, f"{e} Or pick one on the runs list at /.") from None

    def filters(self, request: Request) -> dict[str, Any]:
        q = request.query_params
        check_params(request, _FILTERS)
        found: dict[str, Any] = {k: text(q, k) for k in ("tag", "name", "dataset", "kind")}
        if found["kind"] and found["kind"] not in KINDS:
            raise HTTPException(400, f"Got kind={found['kind']!r}. Must be one of "
                                     f"{', '.join(KINDS)} (or empty for any kind).")
        try:
            found["limit"] = number(q, "limit", default=DEFAULT_LIMIT, lo=1, hi=MAX_RUNS,
                                    example=DEFAULT_LIMIT)
        except ParamError as e:
            raise HTTPException(400, str(e)) from None
        return found

    def window(self, request: Request, info: RunInfo) -> tuple[int, int]:
        """(offset, limit) of the rows of ``info`` the request asks for."""
        check_params(request, _PAGING)
        try:
            return window(request.query_params, total=info.rows)
        except ParamError as e:
            raise HTTPException(400, f"{e} Run {info.id} has {info.rows} rows.") from None

    def listed(self, f: dict[str, Any]) -> list[RunInfo]:
        return self.store.runs(tag=f["tag"] or None, name=f["name"] or None,
                               dataset=f["dataset"] or None, kind=f["kind"] or None,
                               limit=f["limit"])

    # -- JSON --------------------------------------------------------------------------------

    def api_runs(self, request: Request) -> Response:
        f = self.filters(request)
        return JSONResponse({"store": self.store.url, "filters": f,
                             "runs": [run_json(info) for info in self.listed(f)]},
                            headers=HEADERS)

    def api_run(self, request: Request) -> Response:
        info = self.find(request.path_params["run_id"])
        offset, limit = self.window(request, info)
        rows = self.store.rows_page(info.id, offset=offset, limit=limit)
        nxt = offset + len(rows)
        return JSONResponse({"run": run_json(info),
                             "aggregates": json_safe(self.store.aggregates(info.id)),
                             "rows_total": info.rows, "offset": offset, "limit": limit,
                             "next": (f"/api/runs/{info.id}?offset={nxt}&limit={limit}"
                                      if nxt < info.rows else None),
                             "rows": json_safe(rows)}, headers=HEADERS)

    # -- errors ------------------------------------------------------------------------------

    async def http_error(self, request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        status = exc.status_code
        message = exc.detail if status != 404 or exc.detail != "Not Found" else (
            f"No page at {request.url.path}. Fix: start from the runs list at /.")
        if _is_api(request):
            return JSONResponse({"error": message, "status": status}, status_code=status,
                                headers=HEADERS)
        titles = {400: "Bad request", 403: "Forbidden", 404: "Not found",
                  405: "Method not allowed"}
        return self.page("error.html.j2", title=titles.get(status, f"Error {status}"),
                         status=status, message=message)

    def stylesheet(self, request: Request) -> Response:
        check_params(request, ())
        return Response(self.css, media_type="text/css",
                        headers={**HEADERS, "Cache-Control": "max-age=300"})
