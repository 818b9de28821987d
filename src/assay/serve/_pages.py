"""The web UI's HTML pages: the runs list, a run's report (one page of rows at a time), one
row, and two runs compared (the review queue is in ``_review``).

Example:
    >>> from starlette.testclient import TestClient
    >>> from assay.serve import create_app
    >>> from assay.store import open_store
    >>> store = open_store(":memory:")
    >>> rid = store.create_run(name="smoke")
    >>> store.finish_run(rid, summary={"metrics": {}}, complete=True)
    >>> "smoke" in TestClient(create_app(store)).get("/").text
    True
    >>> store.close()
"""

from __future__ import annotations

from urllib.parse import quote

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from ..compare import check_comparable, compare_attack_runs, compare_runs
from ..errors import AssayError
from ..records import RunData
from ..report import Pager, calibration_of, render_report
from ._arena_page import arena_page
from ._live import live_href
from ._params import text
from ._review import ReviewPages, review_href
from ._runs_list import preselected_pair
from ._site import check_params
from ._urls import paged_href, row_id_of
from ._views import add_links, page_inputs, row_href, row_view, run_data, run_line, run_meta

__all__ = ["Site"]


class Site(ReviewPages):
    """Every endpoint of the web UI: the pages here, the review queue from
    :class:`ReviewPages`, the JSON API and errors from :class:`SiteBase`."""

    # -- pages -------------------------------------------------------------------------------

    def runs_page(self, request: Request) -> Response:
        f = self.filters(request)
        listed = self.listed(f)
        runs = [run_line(info) for info in listed]
        pair_a, pair_b = preselected_pair(listed)
        return self.page("runs.html.j2", title="assay runs", crumbs=(), runs=runs, filters=f,
                         pair={"a": pair_a, "b": pair_b},
                         filtered=any(f[k] for k in ("tag", "name", "dataset", "kind")),
                         store_url=self.store.url)

    def run_page(self, request: Request) -> Response:
        ref = request.path_params["run_id"]
        info = self.find(ref)
        offset, limit = self.window(request, info)
        if info.id != ref:
            query = f"?{request.url.query}" if request.url.query else ""
            return RedirectResponse(f"/runs/{quote(info.id, safe='')}{query}", status_code=307)
        if info.kind == "arena":  # its leaderboard and pairs; the report when it has no board
            key = self.pages.key(info, "arena", "arena" in (info.summary or {}), offset, limit)
            page = self.pages.get(key) or arena_page(self, info, offset, limit)
            if page is not None:
                return self.page(page if isinstance(page, bytes) else self.pages.put(key, page))
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
            html, nav={"All runs": "/", "Review rows": review_href(info.id),
                       **({"Live view": live_href(info.id)} if info.kind == "watch" else {}),
                       "JSON": f"/api/runs/{info.id}"},
            row_link=lambda i: row_href(info.id, ids[i]) if i < len(ids) else None)))

    def row_page(self, request: Request) -> Response:
        ref, row_id = request.path_params["run_id"], row_id_of(request)
        check_params(request, ())
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
        check_params(request, ("a", "b"))
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
            if check_comparable(a, b) == "attack":
                return self.page("compare_attacks.html.j2",
                                 title=f"assay compare: A {a.id} → B {b.id}",
                                 comparison=compare_attack_runs(a, b))
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
