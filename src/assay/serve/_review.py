"""The review queue of ``assay serve``: ``/runs/{run}/review`` shows one row at a time (its
inputs, each metric's score and reason) with a form for a person's rating, pairwise choice and
comment; a POST saves them in the run store and redirects (post/redirect/get), so a reload
neither loses nor repeats a label.

The page remembers who rates (see ``_rater``: the URL's ``rater``, else this browser's cookie,
set by a save, else the store's last rater, offered as "last used"), so reopening it shows that
person's labels; ``metric`` focuses one metric (its controls first, the number keys rating it,
``m`` moving the focus on; see ``_review_focus``) and the page counts the person's progress.

The POST is refused (403) unless it carries this server's form token (a random value in the
page, which another site cannot read, kept across restarts by ``_form_token``) and, when the browser says where it comes from
(``Origin``, ``Sec-Fetch-Site``), it comes from this server's own pages: a web page elsewhere
cannot save labels through a server on localhost. The page's only script is
``/assets/review.js`` (keyboard shortcuts), allowed by its Content-Security-Policy.

Example:
    >>> from starlette.testclient import TestClient
    >>> from assay.serve import create_app
    >>> from assay.store import open_store
    >>> store = open_store(":memory:")
    >>> rid = store.create_run()
    >>> store.add_rows(rid, [{"id": "q1", "coherence": {"value": 4.0, "reason": "clear"}}])
    >>> page = TestClient(create_app(store)).get(f"/runs/{rid}/review")
    >>> page.status_code, "clear" in page.text, 'name="value:coherence"' in page.text
    (200, True, True)
    >>> store.close()
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from ..errors import ConfigError
from ..store import RunInfo
from ._form_token import kept_form_token
from ._params import text
from ._rater import RATER_COOKIE, choose_rater, remember_rater
from ._review_focus import focus_first, focus_problem, progress
from ._review_view import PAIRWISE_KEYS, RatingScale, queue_order, rating_scales
from ._site import HEADERS, SiteBase, check_params
from ._views import page_inputs, row_view

__all__ = ["MAX_FORM", "ORDERS", "REVIEW_CSP", "ReviewPages", "review_href"]

#: The review queue's orders: the run's row order, or the largest human-judge gaps first.
ORDERS = ("run", "disagreement")
#: The review page's policy: the site's, plus its one script from this server.
REVIEW_CSP = ("default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
              "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
_PARAMS = ("row", "order", "rater", "saved", "metric")
#: The largest form body a POST may send, in bytes.
MAX_FORM = 1 << 20


def _options(scale: RatingScale) -> list[dict[str, str]]:
    """The choices of one metric's control: value, shortcut key and text."""
    if scale.kind == "pairwise":
        return [{"value": str(v), "key": PAIRWISE_KEYS[str(v)][0],
                 "text": PAIRWISE_KEYS[str(v)][1]} for v in scale.values]
    numeric = all(isinstance(v, int) for v in scale.values)

    def key(i: int, v: int | str) -> str:  # a number's own digit; a named label's place
        if numeric:
            return str(v) if 0 <= int(v) <= 9 else ""
        return str(i + 1) if i < 9 else ""

    return [{"value": str(v), "key": key(i, v), "text": str(v)}
            for i, v in enumerate(scale.values)]


def review_href(run_id: str, **query: str) -> str:
    """The review page's URL with the non-empty ``query`` parameters.

    Example:
        >>> review_href("r1", row="q 1/a", order="run", rater="")
        '/runs/r1/review?row=q+1%2Fa&order=run'
    """
    kept = {k: v for k, v in query.items() if v}
    return f"/runs/{quote(run_id, safe='')}/review" + (f"?{urlencode(kept)}" if kept else "")


class ReviewPages(SiteBase):
    """The review page, its form's POST and its script, over one open store."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: The form token: a POST without it is refused. Kept across restarts, so that a form
        #: open during a restart still saves.
        self.form_token = kept_form_token()
        self.review_js = (resources.files("assay.serve") / "templates" / "review.js"
                          ).read_text(encoding="utf-8")

    def review_script(self, request: Request) -> Response:
        check_params(request, ())
        return Response(self.review_js, media_type="text/javascript",
                        headers={**HEADERS, "Cache-Control": "max-age=300"})

    def _queue(self, info: RunInfo, row: str, order: str) -> tuple[str, str | None, str | None,
                                                                    float | None]:
        """(row shown, previous row, next row, its disagreement) in the queue's order."""
        if order == "disagreement":
            records = self.store.rows(info.id)
            queue = queue_order(records, self.store.labels(info.id),
                                rating_scales(info, records))
            ids = [i for i, _ in queue]
            if not ids or (row and row not in ids):
                return row, None, None, None  # no rows, or no such row (a 404)
            at = ids.index(row) if row in ids else 0
            return (ids[at], ids[at - 1] if at > 0 else None,
                    ids[at + 1] if at + 1 < len(ids) else None, queue[at][1])
        if not row:
            first = self.store.rows_page(info.id, limit=1)
            row = str(first[0].get("id")) if first else ""
        return row, None, None, None

    def review_page(self, request: Request) -> Response:
        ref = request.path_params["run_id"]
        check_params(request, _PARAMS)
        info = self.find(ref)
        q = request.query_params
        if info.id != ref:
            return RedirectResponse(review_href(info.id, **{k: text(q, k) for k in _PARAMS}),
                                    status_code=307)
        order, focus = text(q, "order") or "run", text(q, "metric")
        who = choose_rater(text(q, "rater"), request.cookies.get(RATER_COOKIE),
                           self.store.last_rater)
        rater = who.name
        # the URLs carry a name the person gave; a remembered or offered one stays implicit
        named = rater if who.source == "query" else ""
        if order not in ORDERS:
            raise HTTPException(400, f"Got order={order!r:.40}. Must be one of "
                                     f"{', '.join(ORDERS)}, e.g. ?order=disagreement.")
        row, prev, nxt, gap = self._queue(info, text(q, "row"), order)
        context: dict[str, Any] = {
            "run": info, "order": order, "rater": rater, "rater_source": who.source,
            "focus": focus, "saved": text(q, "saved") == "1",
            "token": self.form_token, "row": None, "gap": gap, "orders": ORDERS,
            "any_labels": bool(row) and self.store.label_count(info.id) > 0}
        if row:
            inputs, note = page_inputs(self.store, info, [row])
            view = row_view(self.store, info, row, stats=self.stats.get(info), inputs=inputs)
            if view is None:
                raise HTTPException(404, f"Run {info.id} has no row {row!r}. Fix: open "
                                         f"{review_href(info.id)} to start from its first row.")
            if order == "run":
                prev, nxt = view["prev"], view["next"]
            rateable = self._add_labels(view, info, row, rater, view["record"])
            if focus:
                problem = focus_problem(focus, rateable=rateable,
                                        shown=[m["name"] for m in view["metrics"]])
                if problem:
                    raise HTTPException(400, problem)
            view["metrics"] = focus_first(view["metrics"], focus)
            extra = (inputs or {}).get(row, {}).get("extra") or {}
            context.update(row=view, inputs_note=note, prev=prev, next=nxt,
                           baseline=extra.get("baseline_model_response"),
                           rateable=bool(rateable),
                           progress=progress(self.store.labels(info.id, rater=rater), rateable,
                                             total=info.rows, focus=focus) if rater else None,
                           focus_hrefs={name: review_href(info.id, row=row, order=order,
                                                          rater=named, metric=name)
                                        for name in rateable},
                           hrefs={k: review_href(info.id, row=v, order=order, rater=named,
                                                 metric=focus)
                                  if v is not None else None
                                  for k, v in (("prev", prev), ("next", nxt))},
                           order_hrefs={o: review_href(info.id, order=o, rater=named,
                                                       metric=focus)
                                        for o in ORDERS})
        title = f"Review run {info.id}" + (f" ({info.name})" if info.name else "")
        body = self.render("review.html.j2", title=title,
                           crumbs=(("All runs", "/"), (f"Run {info.id}", f"/runs/{info.id}")),
                           **context)
        # same-origin: the browser then sends this page's Origin with the form, as checked
        return HTMLResponse(body, headers={**HEADERS, "Referrer-Policy": "same-origin",
                                           "Content-Security-Policy": REVIEW_CSP})

    def _add_labels(self, view: dict[str, Any], info: RunInfo, row: str, rater: str,
                    record: Mapping[str, Any]) -> list[str]:
        """Each metric of ``view`` with its scale, options, the judge's answer, ``rater``'s
        label and the other raters' labels; the names of the rateable ones."""
        labels = self.store.labels(info.id, row_id=row)
        scales = rating_scales(info, [record])
        for m in view["metrics"]:
            scale = scales.get(m["name"])
            mine = next((lb for lb in labels if lb.metric == m["name"] and lb.rater == rater),
                        None)
            found = record.get(m["name"])
            result: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
            m.update(scale=scale, options=_options(scale) if scale else [],
                     judged=scale.judge_label(result) if scale else None,
                     mine=None if mine is None else str(mine.value),
                     comment=mine.comment if mine else "",
                     others=[lb for lb in labels if lb.metric == m["name"] and lb.rater != rater])
        return [m["name"] for m in view["metrics"] if m["scale"]]

    async def review_save(self, request: Request) -> Response:
        check_params(request, ())
        _check_origin(request)
        form = await _read_form(request)
        if not secrets.compare_digest(str(form.get("token") or ""), self.form_token):
            raise HTTPException(403, "Refused: the form has no valid token of this server (it "
                                     "came from elsewhere, or from a server that could not keep "
                                     "its token). Fix: reload the review page and save again.")
        return await run_in_threadpool(self._save, request.path_params["run_id"], form)

    def _save(self, ref: str, form: Mapping[str, str]) -> Response:
        info = self.find(ref)
        row, rater = form.get("row") or "", (form.get("rater") or "").strip()
        chosen = form.get("order")
        order = chosen if chosen is not None and chosen in ORDERS else "run"
        if not rater:
            raise HTTPException(400, "Enter your name in the rater field, so that labels by "
                                     "different people stay apart; then save again.")
        found = self.store.row_at(info.id, row)
        if found is None:
            raise HTTPException(404, f"Run {info.id} has no row {row!r} to label.")
        given: dict[str, int | str | None] = {}  # every value checked before any is saved
        scales = rating_scales(info, [found[1]])
        for name, scale in scales.items():
            raw = form.get(f"value:{name}")
            if raw is None:
                continue  # not on the form: left as it is
            given[name] = scale.parse(raw) if raw.strip() else None  # empty: no label
            if raw.strip() and given[name] is None:
                raise HTTPException(400, f"Got {raw!r:.40} for {name}. Must be one of "
                                         f"{', '.join(str(v) for v in scale.values)}.")
        try:
            for name, value in given.items():
                if value is None:
                    self.store.delete_label(info.id, row, name, rater=rater)
                else:
                    self.store.save_label(info.id, row, name, rater=rater, value=value,
                                          comment=form.get(f"comment:{name}") or "")
        except ConfigError as e:
            raise HTTPException(400, str(e)) from None
        then = str(form.get("then") or "stay")
        target = str(form.get(then) or "") if then in ("next", "prev") else ""
        focus = form.get("metric") or ""
        done = RedirectResponse(review_href(info.id, row=target or row, order=order,
                                            rater=rater, saved="1",
                                            metric=focus if focus in scales else ""),
                                status_code=303)
        remember_rater(done, rater)  # this browser offers the name next time
        return done


async def _read_form(request: Request) -> Mapping[str, str]:
    """The posted form's fields (URL-encoded, as the review page sends it; the last value of
    a repeated name wins), read without a multipart parser; 400 for another body, 413 past
    ``MAX_FORM`` bytes."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise HTTPException(400, f"Got a {kind or 'missing'} body. The review form posts "
                                 "application/x-www-form-urlencoded fields.")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM:
            raise HTTPException(413, f"The form is over {MAX_FORM:,} bytes: shorten the "
                                     "comments and save again.")
    return dict(parse_qsl(body.decode("utf-8", errors="replace"), keep_blank_values=True))


def _check_origin(request: Request) -> None:
    """A 403 for a request a browser says comes from another site."""
    own = f"{request.url.scheme}://{request.headers.get('host', '')}"
    origin = request.headers.get("origin")
    site = request.headers.get("sec-fetch-site")
    if (origin is not None and origin != own) or site in ("cross-site", "same-site"):
        raise HTTPException(403, f"Refused: a form sent from {origin or site!r:.80}, not from "
                                 f"this server ({own}). Labels are saved from the review page "
                                 "of this server only.")
