"""The live page of a watch run, ``/runs/{run}/live``: each metric's rolling mean over time
(inline SVG charts with the same figures as a table), the latest flagged rows (newest first,
each linking to its page), the run's alerts (newest first), and the traces the watch skipped
(no row: counted by reason, each reason with its fix, as the run's summary has them), and
what the app and the judge spent (:mod:`._live_spend`): dollars, tokens and p50 / p95
seconds per minute, and per trace for the latest scored traces.

While the run is live (status ``running``: its ``assay watch`` process still beats its
heartbeat, see ``assay.store``), the page reloads itself every ``LIVE_REFRESH_S`` seconds with
a ``<meta http-equiv="refresh">``: no script, so the site's Content-Security-Policy holds as
it is. Once the run stops (interrupted, or finished), the page says so and stops reloading.
It reads the run's latest ``LIVE_ROWS`` rows, never the whole run. The page suits any run
(rows then stand in for time); the runs list and run page link it for runs of kind ``watch``.

Query parameters: ``window``, the rows of the rolling mean (default ``DEFAULT_WINDOW``).

Example:
    >>> from starlette.testclient import TestClient
    >>> from assay.serve import create_app
    >>> from assay.store import open_store
    >>> store = open_store(":memory:")
    >>> rid = store.create_run(kind="watch", name="prod")
    >>> store.add_rows(rid, [{"id": "t1", "coherence": {"value": 1.0, "reason": "muddled"}}])
    >>> page = TestClient(create_app(store)).get(f"/runs/{rid}/live")
    >>> page.status_code, "muddled" in page.text, 'http-equiv="refresh"' in page.text
    (200, True, True)
    >>> store.close()
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from ..report import skipped_traces
from ._live_spend import spend_view
from ._live_view import heartbeat_age, live_view
from ._params import ParamError, number
from ._site import SiteBase, check_params
from ._views import row_href

__all__ = ["DEFAULT_WINDOW", "LIVE_REFRESH_S", "LIVE_ROWS", "live_endpoint", "live_href"]

#: Seconds between reloads of a live run's page.
LIVE_REFRESH_S = 5
#: The latest rows a live page reads.
LIVE_ROWS = 2000
#: Rows in the rolling mean when the request names no ``window``.
DEFAULT_WINDOW = 20


def live_href(run_id: str) -> str:
    """The URL path of a run's live page.

    Example:
        >>> live_href("20261128-070000-ab12")
        '/runs/20261128-070000-ab12/live'
    """
    return f"/runs/{quote(run_id, safe='')}/live"


def live_endpoint(site: SiteBase) -> Callable[[Request], Response]:
    """The endpoint of ``/runs/{run_id}/live`` over ``site``'s store (sync: Starlette runs it
    in a worker thread)."""

    def live_page(request: Request) -> Response:
        ref = request.path_params["run_id"]
        check_params(request, ("window",))
        info = site.find(ref)
        if info.id != ref:
            query = f"?{request.url.query}" if request.url.query else ""
            return RedirectResponse(live_href(info.id) + query, status_code=307)
        try:
            window = number(request.query_params, "window", default=DEFAULT_WINDOW, lo=1,
                            hi=LIVE_ROWS, example=DEFAULT_WINDOW) or DEFAULT_WINDOW
        except ParamError as e:
            raise HTTPException(400, str(e)) from None
        offset = max(info.rows - LIVE_ROWS, 0)
        records = site.store.rows_page(info.id, offset=offset, limit=LIVE_ROWS)
        view = live_view(records, summary=info.summary or {}, first_position=offset + 1,
                         window=window)
        spend = spend_view(records)
        for row in [*view["flagged"], *(spend["traces"] if spend else [])]:
            row["href"] = row_href(info.id, row["id"])
        live = info.status == "running"
        age = heartbeat_age(info.heartbeat)
        title = f"Live: run {info.id}" + (f" ({info.name})" if info.name else "")
        return site.page("live.html.j2", title=title,
                         crumbs=(("All runs", "/"), (f"Run {info.id}", f"/runs/{info.id}")),
                         run=info, view=view, spend=spend, live=live, refresh=LIVE_REFRESH_S if live else None,
                         skipped=skipped_traces(info.summary),
                         heartbeat_age=None if age is None else max(int(age), 0),
                         shown_from=offset + 1)

    return live_page
