"""The review queue that remembers (Starlette TestClient): the rater cookie set by a save and
read back, the store's last rater offered, the person's progress per metric, ``?metric=``
focusing one metric (and refused with the metric names when unknown), a pairwise row's
question before its two responses."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from assay.serve import create_app
from assay.serve._rater import RATER_COOKIE, choose_rater
from assay.serve._review_focus import focus_problem, progress
from assay.store import Label, Store, open_store

ROWS = 5


@pytest.fixture
def store() -> Iterator[Store]:
    with open_store(":memory:") as opened:
        yield opened


@pytest.fixture
def run_id(store: Store) -> str:
    """Two 1-5 judge metrics, a continuous one and a pairwise one."""
    rid = store.create_run(name="review me")
    store.add_rows(rid, [
        {"id": f"q{i}", "coherence": {"value": 3.0, "reason": "ok"},
         "fluency": {"value": 4.0, "reason": "reads well"},
         "f1_score": {"value": 0.5, "reason": None},
         "pref": {"value": 1.0, "reason": "B", "details": {"choice": "CANDIDATE"}}}
        for i in range(ROWS)],
        inputs={f"q{i}": {"question": f"Which tent {i}?", "answer": f"cand {i}",
                          "extra": {"baseline_model_response": f"base {i}"}}
                for i in range(ROWS)})
    store.finish_run(rid, complete=True, summary={"metrics": {
        "coherence": {"mean": 3.0}, "fluency": {"mean": 4.0}, "f1_score": {"mean": 0.5},
        "pref": {"mean": 1.0, "candidate_win_rate": 1.0, "choices": {"CANDIDATE": ROWS}}}})
    return rid


@pytest.fixture
def client(store: Store) -> TestClient:
    return TestClient(create_app(store))


def _save(client: TestClient, run_id: str, fields: dict[str, str]) -> Any:
    page = client.get(f"/runs/{run_id}/review")
    found = re.search(r'name="token" value="([^"]+)"', page.text)
    assert found
    return client.post(f"/runs/{run_id}/review", follow_redirects=False,
                       data={"token": found.group(1), "order": "run", **fields})


def _rater_field(html: str) -> str:
    found = re.search(r'id="rater" value="([^"]*)"', html)
    assert found
    return found.group(1)


def _checked(html: str, metric: str) -> list[str]:
    return re.findall(rf'name="value:{metric}" value="([^"]*)"[^>]*checked', html)


# -- the rater --------------------------------------------------------------------------------

def test_the_last_rater_of_the_store(store: Store, run_id: str) -> None:
    assert store.last_rater() is None
    other = store.create_run()
    store.add_rows(other, [{"id": "x"}])
    store.save_label(run_id, "q1", "coherence", rater="ann", value=2)
    store.save_label(other, "x", "fluency", rater="bob", value=3)  # another run counts too
    assert store.last_rater() == "bob"
    store.save_label(run_id, "q2", "coherence", rater="ann", value=4)
    assert store.last_rater() == "ann"
    store.delete_label(run_id, "q2", "coherence", rater="ann")
    store.delete_label(run_id, "q1", "coherence", rater="ann")
    assert store.last_rater() == "bob"


def test_choose_rater_order_url_then_cookie_then_last() -> None:
    def last() -> str:
        return "bob"

    assert choose_rater("cy", "ann", last).source == "query"
    assert choose_rater(" ", "ann%C3%A9", last) == choose_rater("", "anné", last)
    assert choose_rater("", "ann%C3%A9", last).name == "anné"
    assert choose_rater("", "a%00b", last).source == "last"  # a control character: not a name
    assert choose_rater("", None, lambda: None).source == ""


def test_a_save_sets_the_cookie_and_the_page_reads_it(client: TestClient, run_id: str) -> None:
    done = _save(client, run_id, {"row": "q0", "rater": "Zoë Ng", "value:coherence": "2"})
    assert done.status_code == 303
    cookie = done.headers["set-cookie"]
    assert cookie.startswith(f"{RATER_COOKIE}=Zo%C3%AB%20Ng;")
    assert "SameSite=lax" in cookie and "Max-Age=31536000" in cookie and "Path=/" in cookie
    fresh = TestClient(client.app)  # another browser: no cookie, the store's last rater
    offered = fresh.get(f"/runs/{run_id}/review").text
    assert _rater_field(offered) == "Zoë Ng" and "last used in this store" in offered
    assert _checked(offered, "coherence") == ["2"]  # the offered rater's label, shown
    fresh.cookies.set(RATER_COOKIE, "Al%20B")
    page = fresh.get(f"/runs/{run_id}/review").text
    assert _rater_field(page) == "Al B" and "remembered on this browser" in page
    assert _checked(page, "coherence") == [""]  # Al has no label here
    assert 'href="/runs/' in page and "rater=" not in re.search(
        r'id="next-row" href="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    named = fresh.get(f"/runs/{run_id}/review?rater=cy").text
    assert _rater_field(named) == "cy" and "rater-note" not in named


def test_no_rater_anywhere_leaves_the_field_empty(client: TestClient, run_id: str) -> None:
    page = client.get(f"/runs/{run_id}/review").text
    assert _rater_field(page) == "" and "rater-note" not in page
    assert "Enter your name as rater to count your labels" in page


# -- progress ---------------------------------------------------------------------------------

def test_progress_counts_the_raters_labels_per_metric() -> None:
    mine = [Label("r", f"q{i}", "coherence", "ann", 3, None, "") for i in range(12)]
    mine.append(Label("r", "q0", "fluency", "ann", 3, None, ""))
    got = progress(mine, ["coherence", "fluency", "pref"], total=50, focus="fluency")
    assert [(p["metric"], p["rated"], p["focused"]) for p in got] == [
        ("coherence", 12, False), ("fluency", 1, True), ("pref", 0, False)]
    assert got[0]["text"] == "12 of 50 rated by you for coherence"


def test_the_page_shows_progress_per_metric_or_for_the_focused_one(
        client: TestClient, store: Store, run_id: str) -> None:
    for i in range(3):
        store.save_label(run_id, f"q{i}", "coherence", rater="ann", value=3)
    store.save_label(run_id, "q0", "coherence", rater="bob", value=1)  # not ann's
    page = client.get(f"/runs/{run_id}/review?rater=ann").text
    items = re.findall(r'<li data-metric="([^"]+)"[^>]*>(\d+) of (\d+) rated by you', page)
    assert items == [("coherence", "3", "5"), ("fluency", "0", "5"), ("pref", "0", "5")]
    focused = client.get(f"/runs/{run_id}/review?rater=ann&metric=coherence").text
    assert '<ul id="progress" class="progress focus"' in focused
    assert re.search(r'<li data-metric="coherence" class="focused">3 of 5 rated by you',
                     focused)


# -- focus ------------------------------------------------------------------------------------

def test_metric_focus_puts_it_first_and_keeps_it_in_the_links(client: TestClient,
                                                              run_id: str) -> None:
    page = client.get(f"/runs/{run_id}/review?metric=fluency&rater=ann").text
    order = re.findall(r'<fieldset class="metric[^"]*" id="metric-([^"]+)"', page)
    assert order[0] == "fluency" and set(order) == {"fluency", "coherence", "f1_score", "pref"}
    assert re.search(r'<fieldset class="metric rateable focused" id="metric-fluency"', page)
    assert 'name="metric" id="focus-metric" value="fluency"' in page
    nxt = re.search(r'id="next-row" href="([^"]+)"', page)
    assert nxt and "metric=fluency" in nxt.group(1) and "row=q1" in nxt.group(1)
    assert "<kbd>m</kbd> focus the next metric" in page


def test_a_save_keeps_the_focus(client: TestClient, run_id: str) -> None:
    done = _save(client, run_id, {"row": "q0", "rater": "ann", "value:fluency": "5",
                                  "metric": "fluency", "then": "next", "next": "q1"})
    assert done.status_code == 303 and "metric=fluency" in done.headers["location"]
    assert "row=q1" in done.headers["location"]
    odd = _save(client, run_id, {"row": "q0", "rater": "ann", "metric": "nope"})
    assert "metric=" not in odd.headers["location"]  # an unknown focus is dropped, not an error


@pytest.mark.parametrize(("metric", "why"), [
    ("nope", "This run has no metric of that name"),
    ("f1_score", "f1_score is a continuous score, not rated here")])
def test_an_unknown_metric_is_a_400_naming_the_ones_to_focus(client: TestClient, run_id: str,
                                                             metric: str, why: str) -> None:
    page = client.get(f"/runs/{run_id}/review?metric={metric}")
    assert page.status_code == 400
    assert why in page.text
    assert "Focus one of: coherence, fluency, pref, e.g. ?metric=coherence." in page.text


def test_focus_problem_without_rateable_metrics() -> None:
    said = focus_problem("f1_score", rateable=[], shown=["f1_score"])
    assert said is not None and "no metric to rate" in said and "leave out ?metric=" in said
    assert focus_problem("a", rateable=["a"], shown=["a"]) is None


# -- a pairwise row ---------------------------------------------------------------------------

def test_a_pairwise_row_shows_the_question_then_both_responses(client: TestClient,
                                                               run_id: str) -> None:
    page = client.get(f"/runs/{run_id}/review").text
    question = page.index("Which tent 0?")
    a, b = page.index("Baseline response (A)"), page.index("Candidate response (B)")
    assert question < a < page.index("base 0") < b < page.index("cand 0")
    assert page.count("cand 0") == 1  # the answer is not shown a second time below
    assert '<div class="pair">' in page and '<div class="row-page single">' in page
