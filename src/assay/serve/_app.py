"""The Starlette app of ``assay serve``: a read-only web UI and JSON API over a run store.

Routes (every one a GET; nothing on them writes to the store):

- ``/``: the runs list, filtered by the ``tag``, ``name``, ``dataset`` and ``limit`` query
  parameters, with A/B choices and a button to compare two runs.
- ``/runs/{run}``: the run's HTML report (as ``assay report`` writes it) over one page of its
  rows (``limit``, default 100, at most 1000, from ``offset`` or ``page``) with links to the
  other pages, a link back to the list and, in each row's detail panel, a link to the row's
  own page. The summary and distributions cover every row: they come from the stored summary
  and from statistics computed once per run (``StatsCache``), so a page costs its rows.
- ``/runs/{run}/rows/{row}``: one row: its inputs and, per metric, the value, reason, error
  and details. ``{row}`` is the row id, percent-encoded (``/``, ``#``, ``?``, ``%``, spaces
  and newlines included).
- ``/compare?a=RUN_A&b=RUN_B``: the report of B compared with A (the baseline).
- ``/api/runs`` (the same filters) and ``/api/runs/{run}`` (its rows by ``limit`` and
  ``offset``, with ``rows_total`` and the URL of the ``next`` page): JSON.

``{run}`` may be a full id, a unique prefix of one or ``latest``: the pages redirect to the
full id so their URLs stay valid; unknown runs and rows answer 404 with a message that says
what to do; a query parameter a page does not take, or a bad value, answers 400 saying what
is allowed. Pages make no request outside the server: no CDN, inline SVG charts.

Example:
    >>> from starlette.testclient import TestClient
    >>> from assay.store import open_store
    >>> store = open_store(":memory:")
    >>> rid = store.create_run(name="smoke")
    >>> store.add_rows(rid, [{"id": "q1", "exact_match": {"value": 1.0}}])
    >>> store.finish_run(rid, summary={"metrics": {"exact_match": {"mean": 1.0}}}, complete=True)
    >>> client = TestClient(create_app(store))
    >>> [r["name"] for r in client.get("/api/runs").json()["runs"]]
    ['smoke']
    >>> client.get("/runs/nope").status_code
    404
    >>> store.close()
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from ..compare import compare_runs
from ..errors import AssayError, ConfigError
from ..report import Pager, calibration_of, render_report, template_environment
from ..run import RunData
from ..store import RunInfo, Store, open_store
from ._cache import PageCache, StatsCache
from ._params import ParamError, allow, number, text, window
from ._urls import ROW_ROUTE, paged_href, row_id_of
from ._views import (
    add_links,
    json_safe,
    page_inputs,
    row_href,
    row_view,
    run_data,
    run_json,
    run_line,
    run_meta,
)

__all__ = ["DEFAULT_LIMIT", "create_app"]

#: Runs listed when the request names no ``limit``.
DEFAULT_LIMIT = 100
#: The most runs one list may show.
MAX_RUNS = 10_000
_FILTERS = ("tag", "name", "dataset", "limit")
_PAGING = ("limit", "offset", "page")

#: The policy of the pages rendered here (reports carry their own, stricter, in a meta tag).
_PAGE_CSP = ("default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
             "base-uri 'none'; frame-ancestors 'none'")
#: Sent with every response: no framing by other sites, no sniffing, no referrer leaks.
_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}

def _environment() -> jinja2.Environment:
    return template_environment("assay.serve")


def _stylesheet() -> str:
    def read(package: str, name: str) -> str:
        return (resources.files(package) / "templates" / name).read_text(encoding="utf-8")
    return read("assay.report", "report.css") + "\n" + read("assay.serve", "serve.css")


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def _params(request: Request, names: tuple[str, ...]) -> None:
    try:
        allow(request.query_params, names)
    except ParamError as e:
        raise HTTPException(400, str(e)) from None


class _Site:
    """The endpoints, over one open store (every endpoint is sync: Starlette runs it in a
    worker thread, as SQLAlchemy's blocking calls need)."""

    def __init__(self, store: Store, *, page_cache_bytes: int) -> None:
        self.store = store
        self.css = _stylesheet()
        self.stats = StatsCache(store)
        self.pages = PageCache(page_cache_bytes)

    # -- helpers ---------------------------------------------------------------------------

    def render(self, template: str, *, title: str,
               crumbs: Sequence[tuple[str, str]] = (("All runs", "/"),), **context: Any) -> str:
        return _environment().get_template(template).render(title=title, crumbs=list(crumbs),
                                                            **context)

    def page(self, template: str | bytes, *, title: str = "", status: int = 200,
             **context: Any) -> HTMLResponse:
        """A page of this site: ``template`` rendered, or a page already rendered (bytes)."""
        body = template if isinstance(template, bytes) else self.render(
            template, title=title, **context)
        return HTMLResponse(body, status_code=status,
                            headers={**_HEADERS, "Content-Security-Policy": _PAGE_CSP})

    @staticmethod
    def report(html: str | bytes) -> HTMLResponse:
        # The report's meta tag holds its policy (its script pinned by hash); the header only
        # adds what a meta tag cannot say.
        return HTMLResponse(html, headers={**_HEADERS,
                                           "Content-Security-Policy": "frame-ancestors 'none'"})

    def find(self, ref: str) -> RunInfo:
        """The run ``ref`` names, or a 404 whose message lists candidates and the fix."""
        try:
            return self.store.get(ref)
        except ConfigError as e:
            raise HTTPException(404, f"{e} Or pick one on the runs list at /.") from None

    def filters(self, request: Request) -> dict[str, Any]:
        q = request.query_params
        _params(request, _FILTERS)
        found: dict[str, Any] = {k: text(q, k) for k in ("tag", "name", "dataset")}
        try:
            found["limit"] = number(q, "limit", default=DEFAULT_LIMIT, lo=1, hi=MAX_RUNS,
                                    example=DEFAULT_LIMIT)
        except ParamError as e:
            raise HTTPException(400, str(e)) from None
        return found

    def window(self, request: Request, info: RunInfo) -> tuple[int, int]:
        """(offset, limit) of the rows of ``info`` the request asks for."""
        _params(request, _PAGING)
        try:
            return window(request.query_params, total=info.rows)
        except ParamError as e:
            raise HTTPException(400, f"{e} Run {info.id} has {info.rows} rows.") from None

    def listed(self, f: dict[str, Any]) -> list[RunInfo]:
        return self.store.runs(tag=f["tag"] or None, name=f["name"] or None,
                               dataset=f["dataset"] or None, limit=f["limit"])

    # -- pages -------------------------------------------------------------------------------

    def runs_page(self, request: Request) -> Response:
        f = self.filters(request)
        runs = [run_line(info) for info in self.listed(f)]
        return self.page("runs.html.j2", title="assay runs", crumbs=(), runs=runs, filters=f,
                         filtered=any(f[k] for k in ("tag", "name", "dataset")),
                         store_url=self.store.url)

    def run_page(self, request: Request) -> Response:
        ref = request.path_params["run_id"]
        info = self.find(ref)
        offset, limit = self.window(request, info)
        if info.id != ref:
            query = f"?{request.url.query}" if request.url.query else ""
            return RedirectResponse(f"/runs/{quote(info.id, safe='')}{query}", status_code=307)
        key = self.pages.key(info, "run", offset, limit)
        cached = self.pages.get(key)
        if cached is not None:
            return self.report(cached)
        stats = self.stats.get(info)
        records = self.store.rows_page(info.id, offset=offset, limit=limit)
        ids = [str(r.get("id")) for r in records]
        inputs, note = page_inputs(self.store, info, ids)
        data = RunData(id=info.id, summary=dict(info.summary or {}), records=records,
                       meta=run_meta(info))
        title = f"assay run {info.id}" + (f" ({info.name})" if info.name else "")
        pager = Pager(offset=offset, limit=limit, total=info.rows,
                      href=paged_href(f"/runs/{quote(info.id, safe='')}", limit))
        html = render_report(data, inputs=inputs, inputs_note=note, title=title,
                             calibration=calibration_of(data.summary), stats=stats,
                             pager=pager)
        return self.report(self.pages.put(key, add_links(
            html, nav={"All runs": "/", "JSON": f"/api/runs/{info.id}"},
            row_link=lambda i: row_href(info.id, ids[i]) if i < len(ids) else None)))

    def row_page(self, request: Request) -> Response:
        ref, row_id = request.path_params["run_id"], row_id_of(request)
        _params(request, ())
        info = self.find(ref)
        if info.id != ref:
            return RedirectResponse(row_href(info.id, row_id), status_code=307)
        key = self.pages.key(info, "row", row_id)
        cached = self.pages.get(key)
        if cached is not None:
            return self.page(cached)
        inputs, note = page_inputs(self.store, info, [row_id])
        view = row_view(self.store, info, row_id, stats=self.stats.get(info), inputs=inputs)
        if view is None:
            shown = ", ".join(repr(str(r.get("id")))
                              for r in self.store.rows_page(info.id, limit=5))
            raise HTTPException(404, f"Run {info.id} has no row {row_id!r} (its {info.rows} "
                                     f"rows start {shown or 'nowhere: it has none'}). Fix: open "
                                     f"the run page /runs/{info.id} and pick a row there.")
        hrefs = {k: row_href(info.id, view[k]) if view[k] is not None else None
                 for k in ("prev", "next")}
        return self.page(self.pages.put(key, self.render(
            "row.html.j2", title=f"Row {row_id}",
            crumbs=(("All runs", "/"), (f"Run {info.id}", f"/runs/{info.id}")),
            row=view, run=info, hrefs=hrefs, inputs_note=note)))

    def compare_page(self, request: Request) -> Response:
        _params(request, ("a", "b"))
        a_ref, b_ref = text(request.query_params, "a"), text(request.query_params, "b")
        if not a_ref or not b_ref:
            raise HTTPException(400, "Pick two runs to compare: /compare?a=BASELINE&b=CANDIDATE "
                                     "(run ids, unique prefixes or 'latest'), or choose A and B "
                                     "on the runs list.")
        a_info, b_info = self.find(a_ref), self.find(b_ref)
        if (a_info.id, b_info.id) != (a_ref, b_ref):
            return RedirectResponse(f"/compare?a={quote(a_info.id)}&b={quote(b_info.id)}",
                                    status_code=307)
        a, b = run_data(self.store, a_info), run_data(self.store, b_info)
        try:
            comparison = compare_runs(a, b)
        except AssayError as e:
            raise HTTPException(400, f"Cannot compare {a.id} with {b.id}: {e}") from None
        inputs, note = page_inputs(self.store, b_info, [str(r.get("id")) for r in b.records])
        html = render_report(b, inputs=inputs, inputs_note=note, comparison=comparison, other=a,
                             title=f"assay compare: A {a.id} → B {b.id}")
        ids = [str(r.get("id")) for r in b.records]
        return self.report(add_links(
            html, nav={"All runs": "/", f"Run A {a.id}": f"/runs/{a.id}",
                       f"Run B {b.id}": f"/runs/{b.id}"},
            row_link=lambda i: row_href(b.id, ids[i]) if i < len(ids) else None))

    def stylesheet(self, request: Request) -> Response:
        _params(request, ())
        return Response(self.css, media_type="text/css",
                        headers={**_HEADERS, "Cache-Control": "max-age=300"})

    # -- JSON --------------------------------------------------------------------------------

    def api_runs(self, request: Request) -> Response:
        f = self.filters(request)
        return JSONResponse({"store": self.store.url, "filters": f,
                             "runs": [run_json(info) for info in self.listed(f)]},
                            headers=_HEADERS)

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
                             "rows": json_safe(rows)}, headers=_HEADERS)

    # -- errors ------------------------------------------------------------------------------

    async def http_error(self, request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        status = exc.status_code
        message = exc.detail if status != 404 or exc.detail != "Not Found" else (
            f"No page at {request.url.path}. Fix: start from the runs list at /.")
        if _is_api(request):
            return JSONResponse({"error": message, "status": status}, status_code=status,
                                headers=_HEADERS)
        titles = {400: "Bad request", 404: "Not found", 405: "Method not allowed"}
        return self.page("error.html.j2", title=titles.get(status, f"Error {status}"),
                         status=status, message=message)


def create_app(store: str | Path | Store | None = None, *,
               allowed_hosts: Sequence[str] | None = None,
               page_cache_bytes: int = 32 << 20) -> Starlette:
    """The web UI over the run store ``store`` (a path or URL as ``assay.store.open_store``
    takes, ``None`` for ``ASSAY_STORE`` or the default store, or an open ``Store``).

    A store opened here is closed when the app shuts down; a ``Store`` passed in is left open.
    ``allowed_hosts`` (e.g. ``["127.0.0.1", "localhost"]``) rejects requests whose ``Host``
    header names another host, which stops DNS-rebinding pages from reading a local server;
    ``None`` accepts any host. Rendered pages of finished runs are kept, up to
    ``page_cache_bytes`` (0: none).

    Raises:
        ConfigError: the store cannot be opened (the message says how to fix it).
    """
    opened = store if isinstance(store, Store) else open_store(store)
    owned = not isinstance(store, Store)
    site = _Site(opened, page_cache_bytes=page_cache_bytes)

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            if owned:
                opened.close()

    routes = [
        Route("/", site.runs_page),
        Route("/runs/{run_id}", site.run_page),
        Route(ROW_ROUTE, site.row_page),
        Route("/compare", site.compare_page),
        Route("/api/runs", site.api_runs),
        Route("/api/runs/{run_id}", site.api_run),
        Route("/assets/assay.css", site.stylesheet),
    ]
    middleware = ([Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))]
                  if allowed_hosts else [])
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan,
                    exception_handlers={HTTPException: site.http_error})
    app.state.store = opened
    app.state.stats = site.stats
    app.state.pages = site.pages
    return app
