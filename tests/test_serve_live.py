"""The live page of a watch run in ``assay serve`` (``/runs/{run}/live``), through Starlette's
TestClient: one chart series per metric against time (rows when times are missing), the
figures as a table, the latest flagged rows newest first, the alerts newest first, a reload
only while the run is live, and links from the runs list and the run page."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from starlette.testclient import TestClient

from assay.serve import create_app
from assay.store import Store, open_store
from assay.watch._alerts import AlertWatcher, parse_alert

T0 = datetime(2026, 11, 28, 7, 0, tzinfo=UTC)


def watch_record(i: int, groundedness: float | None, relevance: float | None = 0.9, *,
                 when: datetime | None = None, stamp: bool = True) -> dict[str, Any]:
    """A record as ``assay watch`` stores it: results, and the ``watch`` facts of its trace."""
    rec: dict[str, Any] = {
        "id": f"trace-{i:03d}",
        "groundedness": {"value": groundedness, "reason": f"claims of trace {i}"}
        if groundedness is not None else {"value": None, "error": "judge timed out"},
        "answer_relevance": {"value": relevance, "reason": "on topic"}}
    if stamp:
        rec["watch"] = {"trace_id": f"{i:032x}", "ended": "", "received": "",
                        "scored": (when or T0 + timedelta(seconds=10 * i)).isoformat()}
    return rec


def fill(store: Store, rid: str, values: list[float | None], *, start: int = 0,
         stamp: bool = True, rule: str = "groundedness<3.5 over 5") -> list[dict[str, Any]]:
    """Rows ``start...`` with these groundedness values, and the alerts they raise added to the
    run's summary (as ``assay watch`` keeps them)."""
    watcher = AlertWatcher([parse_alert(rule)])
    records = [watch_record(start + k, v, stamp=stamp) for k, v in enumerate(values)]
    alerts = [a.as_dict() for r in records for a in watcher.observe(r)]
    store.add_rows(rid, records)
    old = (store.get(rid).summary or {}).get("alerts") or []
    store.update_summary(rid, {"alerts": old + alerts})
    return alerts


@pytest.fixture
def store() -> Iterator[Store]:
    with open_store(":memory:") as s:
        yield s


def _client(store: Store) -> TestClient:
    return TestClient(create_app(store), follow_redirects=False)


def test_the_live_page_charts_each_metric_and_lists_flagged_rows_and_alerts(
        store: Store) -> None:
    rid = store.create_run(kind="watch", name="prod")
    alerts = fill(store, rid, [5, 5, 4, 5, 5, 1, 1, 2, 1, 5, 5, 5, 5, 5])
    assert [a["state"] for a in alerts] == ["firing", "resolved"]
    page = _client(store).get(f"/runs/{rid}/live")
    assert page.status_code == 200
    html = page.text
    assert "script" not in page.headers["Content-Security-Policy"]  # the site's policy as is
    assert '<meta http-equiv="refresh" content="5">' in html and "live</span>" in html
    # one series per metric, against time
    assert html.count('<polyline class="series"') == 2
    assert 'data-metric="groundedness"' in html and 'data-metric="answer_relevance"' in html
    assert "07:00:00 UTC" in html and "07:02:10 UTC" in html and "Metrics over time" in html
    # the alert bar is drawn on its metric's chart
    assert html.count('<line class="bar"') == 1
    # the text equivalent: the latest rolling mean over 20 of the 14 values
    assert 'aria-label="groundedness: rolling mean over 20 rows, 14 scored; from 5 to' in html
    # flagged rows (value 1 or 2 on a 1-5 scale: the report's bad band), newest first, linked
    flagged = html.split('id="flagged"')[1]
    order = [f"trace-{i:03d}" for i in (8, 7, 6, 5)]
    assert [flagged.index(f'data-row="{r}"') for r in order] == sorted(
        flagged.index(f'data-row="{r}"') for r in order)
    assert f'href="/runs/{rid}/rows/trace-008"' in flagged and "trace-004" not in flagged
    assert "claims of trace 8" in flagged
    # alerts, newest first, as their lines (escaped)
    part = html.split('id="alerts"')[1].split("</section>")[0]
    assert part.index("RESOLVED groundedness") < part.index("ALERT groundedness mean 3.2 over the last 5 rows")
    assert "&lt; 3.5 (firing)" in part


def test_unscored_results_count_as_unscored_not_as_values(store: Store) -> None:
    rid = store.create_run(kind="watch")
    fill(store, rid, [4, None, None, 4])
    html = _client(store).get(f"/runs/{rid}/live").text
    row = html.split('<tr data-metric="groundedness">')[1].split("</tr>")[0]
    assert [c.split(">")[1] for c in row.split("<td")[1:]] == [
        "groundedness</td", "2</td", "2</td", "4</td", "4</td", "4</td", "4</td"]
    assert "2 scored, 2 unscored" in html
    assert "No flagged rows" in html


def test_rows_stand_in_for_time_when_a_record_has_none(store: Store) -> None:
    rid = store.create_run(kind="watch")
    fill(store, rid, [5, 4, 3], stamp=False)
    html = _client(store).get(f"/runs/{rid}/live?window=2").text
    assert "Metrics over rows" in html and ">row 1</text>" in html and ">row 3</text>" in html
    assert "rolling mean over 2 scored rows" in html
    assert "latest 3.5" in html  # (4 + 3) / 2


def test_a_stopped_run_says_so_and_stops_reloading(store: Store) -> None:
    rid = store.create_run(kind="watch")
    fill(store, rid, [5, 5])
    store.mark_interrupted(rid)
    html = _client(store).get(f"/runs/{rid}/live").text
    assert 'http-equiv="refresh"' not in html
    assert "not live" in html and "process stopped" in html and "no longer reloads" in html


def test_the_runs_list_and_the_run_page_link_the_live_page_of_watch_runs(store: Store) -> None:
    watch = store.create_run(kind="watch", name="prod")
    plain = store.create_run(name="nightly")
    fill(store, watch, [5])
    client = _client(store)
    listing = client.get("/").text
    assert listing.count('class="live-link"') == 1
    assert f'href="/runs/{watch}/live"' in listing and f"/runs/{plain}/live" not in listing
    assert f'<a href="/runs/{watch}/live">Live view</a>' in client.get(f"/runs/{watch}").text
    assert "Live view" not in client.get(f"/runs/{plain}").text


def test_bad_requests_answer_with_what_to_do(store: Store) -> None:
    rid = store.create_run(kind="watch")
    client = _client(store)
    assert client.get(f"/runs/{rid}/live?window=0").status_code == 400
    bad = client.get(f"/runs/{rid}/live?limit=3")
    assert bad.status_code == 400 and "window" in bad.text
    moved = client.get(f"/runs/{rid[:15]}/live?window=7")
    assert moved.status_code == 307 and moved.headers["location"] == f"/runs/{rid}/live?window=7"
    assert client.get("/runs/nope/live").status_code == 404
    empty = client.get(f"/runs/{rid}/live")
    assert empty.status_code == 200 and "No scored rows yet" in empty.text
    assert "No alerts yet" in empty.text


def test_malformed_alerts_in_the_summary_are_left_out(store: Store) -> None:
    rid = store.create_run(kind="watch")
    fill(store, rid, [5])
    store.update_summary(rid, {"alerts": ["nonsense", {"at": "2026-11-28T07:00:00",
                                                       "message": "ALERT x (firing)",
                                                       "state": "firing", "rule": "x<1 over 5",
                                                       "bar": "high"}]})
    html = _client(store).get(f"/runs/{rid}/live").text
    assert "ALERT x (firing)" in html and "nonsense" not in html
    assert "1 firing" in html


def test_only_the_latest_rows_are_read(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    from assay.serve import _live

    monkeypatch.setattr(_live, "LIVE_ROWS", 3)
    rid = store.create_run(kind="watch")
    fill(store, rid, [1, 1, 1, 5, 5, 5])
    html = _client(store).get(f"/runs/{rid}/live").text
    assert "the latest 3 (from row 4) shown" in html
    assert "No flagged rows among the latest 3" in html


def test_rows_are_drawn_in_time_order_whatever_order_they_were_added_in(store: Store) -> None:
    rid = store.create_run(kind="watch")
    late, early = watch_record(1, 1.0, when=T0 + timedelta(minutes=5)), watch_record(2, 5.0)
    store.add_rows(rid, [late, early])  # a batch where the later trace came first
    html = _client(store).get(f"/runs/{rid}/live?window=1").text
    points = html.split('data-metric="groundedness" points="')[1].split('"')[0].split()
    xs = [float(p.split(",")[0]) for p in points]
    assert xs == sorted(xs) and len(xs) == 2
    assert "latest 1 " in html  # the latest in time is the bad one
