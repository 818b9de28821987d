"""The review queue of ``assay serve`` (Starlette TestClient): the page, saving a label with
post/redirect/get, reloads, the cross-site refusals, pairwise choices and the
disagreements-first order."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from assay.serve import create_app
from assay.serve._form_token import TOKEN_FILE, kept_form_token
from assay.store import Store, open_store

ROWS = 4


@pytest.fixture
def store() -> Iterator[Store]:
    with open_store(":memory:") as opened:
        yield opened


@pytest.fixture
def run_id(store: Store) -> str:
    """A 1-5 judge metric (coherence), a continuous one (f1_score) and a pairwise one (pref)."""
    rid = store.create_run(name="review me")
    store.add_rows(rid, [
        {"id": f"q{i}",
         "coherence": {"value": float(i + 1), "reason": f"<b>clear</b> {i}", "weighted": None},
         "f1_score": {"value": 0.5, "reason": None},
         "pref": {"value": 1.0, "reason": "B is longer", "details": {"choice": "CANDIDATE"}}}
        for i in range(ROWS)],
        inputs={f"q{i}": {"question": f"Q{i} <script>alert(1)</script>?", "answer": f"A{i}",
                          "extra": {"baseline_model_response": f"base {i}"}}
                for i in range(ROWS)})
    store.finish_run(rid, complete=True, summary={"metrics": {
        "coherence": {"mean": 2.5}, "f1_score": {"mean": 0.5},
        "pref": {"mean": 1.0, "candidate_win_rate": 1.0, "choices": {"CANDIDATE": ROWS}}}})
    return rid


@pytest.fixture
def client(store: Store) -> TestClient:
    return TestClient(create_app(store))


def _token(html: str) -> str:
    found = re.search(r'name="token" value="([^"]+)"', html)
    assert found, "the page has no form token"
    return found.group(1)


def _post(client: TestClient, run_id: str, fields: dict[str, str], **headers: str) -> Any:
    page = client.get(f"/runs/{run_id}/review")
    data = {"token": _token(page.text), "order": "run", **fields}
    return client.post(f"/runs/{run_id}/review", data=data, headers=headers,
                       follow_redirects=False)


def _checked(html: str, metric: str) -> list[str]:
    return re.findall(rf'name="value:{metric}" value="([^"]*)"[^>]*checked', html)


def test_page_shows_the_row_the_judge_and_the_form(client: TestClient, run_id: str) -> None:
    page = client.get(f"/runs/{run_id}/review")
    assert page.status_code == 200
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "default-src 'none'" in csp and "unsafe" not in csp
    html = page.text
    assert re.findall(r"<script[^>]*>", html) == ['<script src="/assets/review.js" defer>']
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<b>clear</b>" not in html
    assert "&lt;b&gt;clear&lt;/b&gt; 0" in html and "B is longer" in html
    assert "Baseline response (A)" in html and "base 0" in html
    assert 'name="value:coherence" value="5" data-key="5"' in html
    assert 'name="value:pref" value="BASELINE" data-key="a"' in html
    assert 'name="value:f1_score"' not in html  # continuous: shown, not rated
    assert _checked(html, "coherence") == [""]  # "no label" until one is saved
    for shortcut in ("<kbd>1</kbd>", "<kbd>a</kbd>", "<kbd>t</kbd>", "<kbd>n</kbd>",
                     "<kbd>p</kbd>", "<kbd>s</kbd>", "<kbd>Enter</kbd>"):
        assert shortcut in html, shortcut
    assert "disagreements first (once rows have labels)" in html
    script = client.get("/assets/review.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert "keydown" in script.text
    run_page = client.get(f"/runs/{run_id}")
    assert f'href="/runs/{run_id}/review"' in run_page.text


def test_save_redirects_and_a_reload_shows_the_label_once(client: TestClient, run_id: str,
                                                         store: Store) -> None:
    fields = {"row": "q1", "rater": "ann", "value:coherence": "4",
              "comment:coherence": "<i>too long</i>", "value:pref": "tie", "then": "stay"}
    saved = _post(client, run_id, fields)
    assert saved.status_code == 303
    assert saved.headers["location"] == f"/runs/{run_id}/review?row=q1&order=run&rater=ann&saved=1"
    for _ in range(2):  # the page after the redirect, then a reload of it
        page = client.get(saved.headers["location"])
        assert _checked(page.text, "coherence") == ["4"] and _checked(page.text, "pref") == ["TIE"]
        assert "Labels saved." in page.text and 'value="&lt;i&gt;too long&lt;/i&gt;"' in page.text
    again = _post(client, run_id, fields)  # the same form sent twice: still one label each
    assert again.status_code == 303
    assert [(x.metric, x.value, x.comment) for x in store.labels(run_id)] == [
        ("coherence", 4, "<i>too long</i>"), ("pref", "TIE", None)]
    other = client.get(f"/runs/{run_id}/review?row=q1&rater=bob")
    assert _checked(other.text, "coherence") == [""] and "ann: <b>4</b>" in other.text
    cleared = _post(client, run_id, {"row": "q1", "rater": "ann", "value:coherence": ""})
    assert cleared.status_code == 303
    assert [x.metric for x in store.labels(run_id)] == ["pref"]


def test_save_and_next_goes_to_the_next_row(client: TestClient, run_id: str) -> None:
    page = client.get(f"/runs/{run_id}/review?row=q1&rater=ann")
    assert 'name="next" value="q2"' in page.text and 'id="next-row"' in page.text
    done = client.post(f"/runs/{run_id}/review", follow_redirects=False, data={
        "token": _token(page.text), "row": "q1", "rater": "ann", "value:coherence": "2",
        "then": "next", "next": "q2", "prev": "q0", "order": "run"})
    assert done.headers["location"] == f"/runs/{run_id}/review?row=q2&order=run&rater=ann&saved=1"


def test_cross_site_posts_are_refused(client: TestClient, run_id: str, store: Store) -> None:
    fields = {"row": "q0", "rater": "mallory", "value:coherence": "1"}
    foreign = _post(client, run_id, fields, origin="http://evil.example")
    assert foreign.status_code == 403 and "Refused" in foreign.text
    assert "evil.example" in foreign.text
    assert _post(client, run_id, fields, origin="null").status_code == 403
    assert _post(client, run_id, fields, **{"sec-fetch-site": "cross-site"}).status_code == 403
    no_token = client.post(f"/runs/{run_id}/review", data=fields, follow_redirects=False)
    assert no_token.status_code == 403 and "token" in no_token.text
    wrong = client.post(f"/runs/{run_id}/review", data={**fields, "token": "guess"},
                        follow_redirects=False)
    assert wrong.status_code == 403
    assert store.labels(run_id) == []
    own = _post(client, run_id, fields, origin="http://testserver")  # this server's page
    assert own.status_code == 303 and len(store.labels(run_id)) == 1


def test_bad_forms_say_what_to_fix(client: TestClient, run_id: str, store: Store) -> None:
    no_rater = _post(client, run_id, {"row": "q0", "rater": " ", "value:coherence": "3"})
    assert no_rater.status_code == 400 and "rater" in no_rater.text
    off_scale = _post(client, run_id, {"row": "q0", "rater": "ann", "value:coherence": "9"})
    assert off_scale.status_code == 400 and "1, 2, 3, 4, 5" in off_scale.text
    no_row = _post(client, run_id, {"row": "zz", "rater": "ann", "value:coherence": "3"})
    assert no_row.status_code == 404
    page = client.get(f"/runs/{run_id}/review")
    json_body = client.post(f"/runs/{run_id}/review", json={"token": _token(page.text)},
                            follow_redirects=False)
    assert json_body.status_code == 400 and "x-www-form-urlencoded" in json_body.text
    assert store.labels(run_id) == []
    assert client.get(f"/runs/{run_id}/review?order=best").status_code == 400
    assert client.get(f"/runs/{run_id}/review?row=zz").status_code == 404
    assert client.get(f"/runs/{run_id}/review?rows=1").status_code == 400
    assert client.get("/runs/nope/review").status_code == 404
    short = client.get(f"/runs/{run_id[:12]}/review?row=q2", follow_redirects=False)
    assert short.status_code == 307
    assert short.headers["location"] == f"/runs/{run_id}/review?row=q2"


def test_disagreements_first_once_labels_exist(client: TestClient, run_id: str,
                                               store: Store) -> None:
    # the judge rated q0..q3 as 1..4; ann rates them all 4: gaps 3/4, 2/4, 1/4, 0
    for i in (1, 3, 0):
        store.save_label(run_id, f"q{i}", "coherence", rater="ann", value=4)
    page = client.get(f"/runs/{run_id}/review?rater=ann")
    link = re.search(r'id="order-disagreement" href="([^"]+)"', page.text)
    assert link, "the disagreements-first link appears once labels exist"
    first = client.get(link.group(1).replace("&amp;", "&"))
    assert "<code>q0</code>" in first.text and "<b>0.75</b>" in first.text
    order = ["q0"]
    nxt = re.search(r'id="next-row" href="([^"]+)"', first.text)
    while nxt:
        page = client.get(nxt.group(1).replace("&amp;", "&"))
        order.append(re.search(r"<code>([^<]+)</code>", page.text).group(1))
        nxt = re.search(r'id="next-row" href="([^"]+)"', page.text)
    assert order == ["q0", "q1", "q3", "q2"]  # gap 0.75, 0.5, 0 (agrees), then unlabelled
    assert "No label on this row" in page.text


def test_a_run_without_rows_or_rateable_metrics(client: TestClient, store: Store) -> None:
    empty = store.create_run()
    assert "has no rows to review yet" in client.get(f"/runs/{empty}/review").text
    lexical = store.create_run()
    store.add_rows(lexical, [{"id": "a", "f1_score": {"value": 1.0}}])
    page = client.get(f"/runs/{lexical}/review")
    assert "No metric of this run has a discrete scale" in page.text


def test_a_custom_label_scale_is_rated_by_its_labels(client: TestClient, store: Store) -> None:
    rid = store.create_run()
    store.add_rows(rid, [{"id": "a", "tone": {"value": 0.0, "details": {"label": "rude"}}},
                         {"id": "b", "tone": {"value": 2.0, "details": {"label": "warm"}}}])
    store.finish_run(rid, complete=True, summary={"metrics": {
        "tone": {"mean": 1.0, "labels": {"rude": 1, "plain": 0, "warm": 1}}}})
    page = client.get(f"/runs/{rid}/review")
    assert 'name="value:tone" value="plain" data-key="2"' in page.text
    assert '<b class="judged">rude</b>' in page.text
    done = client.post(f"/runs/{rid}/review", follow_redirects=False, data={
        "token": _token(page.text), "row": "a", "rater": "ann", "value:tone": "WARM"})
    assert done.status_code == 303
    assert [(x.row_id, x.value) for x in store.labels(rid)] == [("a", "warm")]
    first = client.get(f"/runs/{rid}/review?order=disagreement")
    assert "<code>a</code>" in first.text and "<b>1</b>" in first.text  # rude vs warm: ends


def test_shortcut_keys_of_each_kind_of_scale() -> None:
    from assay.serve._review import _options
    from assay.serve._review_view import RatingScale

    def keys(kind: str, values: list[int | str]) -> dict[str, str]:
        return {o["value"]: o["key"] for o in _options(RatingScale("m", kind, values))}

    assert keys("labels", list(range(11)))["0"] == "0"  # a number's own digit
    assert keys("labels", list(range(11)))["10"] == ""  # no single key for 10
    assert keys("labels", ["rude", "plain", "warm"]) == {"rude": "1", "plain": "2", "warm": "3"}
    assert keys("pairwise", ["BASELINE", "CANDIDATE", "TIE"]) == {
        "BASELINE": "a", "CANDIDATE": "b", "TIE": "t"}


def test_one_bad_value_saves_nothing_of_the_form(client: TestClient, run_id: str,
                                                 store: Store) -> None:
    bad = _post(client, run_id, {"row": "q0", "rater": "ann", "value:coherence": "3",
                                 "value:pref": "maybe"})
    assert bad.status_code == 400 and "BASELINE, CANDIDATE, TIE" in bad.text
    assert store.labels(run_id) == []
    assert client.get(f"/runs/{run_id}/review?order=disagreement&row=zz").status_code == 404


def test_a_form_open_during_a_restart_still_saves(store: Store, run_id: str) -> None:
    before = TestClient(create_app(store))
    page = before.get(f"/runs/{run_id}/review?row=q1&rater=ann")
    after = TestClient(create_app(store))  # the server was restarted; the page was not
    saved = after.post(f"/runs/{run_id}/review", follow_redirects=False, data={
        "token": _token(page.text), "row": "q1", "rater": "ann", "value:coherence": "2",
        "order": "run"})
    assert saved.status_code == 303
    assert [(lb.row_id, lb.value) for lb in store.labels(run_id)] == [("q1", 2)]


def test_a_token_that_cannot_be_kept_is_made_per_start(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    first, second = kept_form_token(blocked), kept_form_token(blocked)
    assert first != second and len(first) >= 40
    (tmp_path / "short").mkdir()
    (tmp_path / "short" / TOKEN_FILE).write_text("cut")
    assert kept_form_token(tmp_path / "short") != "cut"
