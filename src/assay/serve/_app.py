"""The Starlette app of ``assay serve``: a web UI and JSON API over a run store.

Routes (every one a GET, which never writes to the store, except the review form's POST):

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
- ``/runs/{run}/review``: the review queue, one row at a time (``row``, ``order`` ``run`` or
  ``disagreement``, ``rater``, ``metric`` to focus one) with a form for a person's labels; a POST to the same URL saves
  them (this server's pages only: a form token and the browser's ``Origin`` are checked) and
  redirects back (see ``_review``).
- ``/runs/{run}/live``: a watch run's live page: each metric's rolling mean over time, the
  latest flagged rows and the alerts; it reloads itself while the run is live (see ``_live``).
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
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.routing import Route

from ..store import Store, open_store
from ._live import live_endpoint
from ._pages import Site
from ._site import DEFAULT_LIMIT
from ._urls import ROW_ROUTE

__all__ = ["DEFAULT_LIMIT", "create_app"]


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
    site = Site(opened, page_cache_bytes=page_cache_bytes)

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
        Route("/runs/{run_id}/review", site.review_page, methods=["GET"]),
        Route("/runs/{run_id}/review", site.review_save, methods=["POST"]),
        Route("/runs/{run_id}/live", live_endpoint(site)),
        Route("/assets/assay.css", site.stylesheet),
        Route("/assets/review.js", site.review_script),
    ]
    middleware = ([Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))]
                  if allowed_hosts else [])
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan,
                    exception_handlers={HTTPException: site.http_error})
    app.state.store = opened
    app.state.stats = site.stats
    app.state.pages = site.pages
    return app
