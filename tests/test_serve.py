"""``assay serve``: the runs list and its filters, run, row and comparison pages, the JSON API,
404s that say what to do, and a server bound to 127.0.0.1 unless told otherwise. Offline and
fast: lexical runs from ``evaluate`` and one run with judge-style results written by hand."""

from __future__ import annotations

import base64
import hashlib
import html as html_lib
import json
import re
import socket
from pathlib import Path
from typing import Any

import pytest
import typer
from starlette.applications import Starlette
from starlette.testclient import TestClient
from typer.testing import CliRunner

from assay import RunOptions, evaluate
from assay.cli.serve import serve
from assay.serve import create_app
from assay.serve._views import row_href
from assay.store import open_store

ROWS = [{"id": f"q{i}", "question": f"Question number {i}?", "answer": f"answer {i} words",
         "ground_truth": f"answer {i}"} for i in range(1, 6)]
HOSTILE = "<script>alert(1)</script>"
ODD_ID = "doc/7 #a?b"


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A store with three runs: ``base`` and ``better`` (lexical, on dataset files) and
    ``judged`` (written by hand: reasons, errors, details, an odd row id, no dataset)."""
    tmp = tmp_path_factory.mktemp("serve")
    store = tmp / "runs.sqlite"
    base = evaluate(_write(tmp / "base.jsonl", ROWS), metrics="f1_score,exact_match",
                    run=RunOptions(store=store, run_name="base", tags=["nightly"]))
    edited = [dict(r, answer=r["ground_truth"]) if r["id"] in ("q1", "q2") else r for r in ROWS]
    better = evaluate(_write(tmp / "candidate.jsonl", edited), metrics="f1_score,exact_match",
                      run=RunOptions(store=store, run_name="better", tags=["candidate", "nightly"]))
    with open_store(store) as opened:
        judged = opened.create_run(name="judged", tags=["judge"], judge="fake:scripted",
                                   metrics={"groundedness": "2"})
        opened.add_rows(judged, [
            {"id": "g1", "groundedness": {
                "value": 2.0, "weighted": 2.4, "reason": "The colour is not in the context.",
                "error": None, "details": {
                    "ungrounded": [{"statement": "It is red.", "verdict": "contradicted",
                                    "reason": "the context says green"}],
                    "prompt_sha256": "ab" * 32}}},
            {"id": "g2", "groundedness": {"value": None, "reason": None,
                                          "error": "judge output was not valid JSON",
                                          "details": {"raw_answer": HOSTILE}}},
            {"id": ODD_ID, "groundedness": {"value": 5.0, "reason": HOSTILE, "error": None,
                                            "details": {}}},
        ])
        opened.finish_run(judged, summary={"rows": 3, "rows_done": 3, "complete": True,
                                           "metrics": {"groundedness": {"mean": 3.5}}},
                          complete=True)
    return {"store": store, "base": base.summary["run_id"], "better": better.summary["run_id"],
            "judged": judged}


@pytest.fixture
def client(runs: dict[str, Any]) -> Any:
    with TestClient(create_app(runs["store"])) as c:
        yield c


def _ids_in_table(page: str, table_id: str) -> list[str]:
    body = page.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<td class="id">(?:<a [^>]*>)?([^<]*)<', body)


# ---------------------------------------------------------------- the runs list


def test_list_page_shows_every_run_newest_first(client: TestClient, runs: dict[str, Any]) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert _ids_in_table(page.text, "runs") == [runs["judged"], runs["better"], runs["base"]]
    for text in ("base", "better", "judged", "nightly", "candidate", "complete",
                 "fake:scripted", "candidate.jsonl", "f1_score", "exact_match", "groundedness"):
        assert text in page.text, text
    # two runs can be picked (A = baseline, B = candidate) and sent to /compare
    assert 'action="/compare"' in page.text
    assert len(re.findall(r'type="radio" name="a"', page.text)) == 3
    assert f'href="/runs/{runs["base"]}"' in page.text
    assert "<script" not in page.text and "http://" not in page.text
    assert "default-src 'none'" in page.headers["content-security-policy"]


@pytest.mark.parametrize(("query", "expected"), [
    ("tag=candidate", ["better"]),
    ("tag=nightly", ["better", "base"]),
    ("name=base", ["base"]),
    ("dataset=candidate", ["better"]),
    ("tag=nightly&name=base", ["base"]),
    ("limit=1", ["judged"]),
    ("tag=&name=&dataset=", ["judged", "better", "base"]),
])
def test_filters_narrow_the_list(client: TestClient, runs: dict[str, Any], query: str,
                                 expected: list[str]) -> None:
    page = client.get(f"/?{query}")
    assert page.status_code == 200
    assert _ids_in_table(page.text, "runs") == [runs[name] for name in expected]
    api = client.get(f"/api/runs?{query}").json()
    assert [r["id"] for r in api["runs"]] == [runs[name] for name in expected]


def test_filters_that_match_nothing_or_are_invalid(client: TestClient) -> None:
    page = client.get("/?tag=no-such-tag")
    assert page.status_code == 200 and "No runs match these filters" in page.text
    assert 'value="no-such-tag"' in page.text  # the form keeps what was typed
    bad = client.get("/?limit=0")
    assert bad.status_code == 400 and "Must be a whole number from 1 to 10000" in bad.text
    assert client.get("/api/runs?limit=x").json()["status"] == 400


def test_empty_store_says_how_to_record_a_run(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "empty.sqlite")) as c:
        page = c.get("/")
    assert page.status_code == 200 and "assay run DATA" in page.text


# ---------------------------------------------------------------- run and row pages


def test_run_page_is_the_report_with_every_row_and_links(client: TestClient,
                                                         runs: dict[str, Any]) -> None:
    run_id = runs["base"]
    page = client.get(f"/runs/{run_id}")
    assert page.status_code == 200
    html = page.text
    assert _ids_in_table(html, "rowtable") == [r["id"] for r in ROWS]
    assert '<a href="/">All runs</a>' in html
    for r in ROWS:  # each detail panel links to the row's own page
        assert f'class="row-page" href="{row_href(run_id, r["id"])}"' in html
    assert "Question number 3?" in html  # inputs found from the dataset file the run recorded
    # the report's CSP still pins its only script by hash: nothing executable was added
    scripts = re.findall(r"<script>(.*?)</script>", html, re.DOTALL)
    assert len(scripts) == 1 and html.count("<script") == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    meta = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert meta is not None
    csp = html_lib.unescape(meta.group(1))
    assert f"script-src 'sha256-{digest}'" in csp and "default-src 'none'" in csp
    assert not re.search(r"(src|href)=\"https?:", html)


def test_run_refs_redirect_to_the_full_id(client: TestClient, runs: dict[str, Any]) -> None:
    latest = client.get("/runs/latest", follow_redirects=False)
    assert latest.status_code == 307 and latest.headers["location"] == f"/runs/{runs['judged']}"
    prefix = runs["base"][:-1]
    found = client.get(f"/runs/{prefix}", follow_redirects=False)
    if found.status_code == 307:  # unless another run shares the prefix
        assert found.headers["location"] == f"/runs/{runs['base']}"
    row = client.get("/runs/latest/rows/g1", follow_redirects=False)
    assert row.headers["location"] == f"/runs/{runs['judged']}/rows/g1"


def test_row_page_shows_reason_error_and_details(client: TestClient,
                                                 runs: dict[str, Any]) -> None:
    run_id = runs["judged"]
    page = client.get(f"/runs/{run_id}/rows/g1")
    assert page.status_code == 200
    for text in ("Row g1", "Row 1 of 3", "groundedness", "2.4",
                 "The colour is not in the context.", "Ungrounded statements", "It is red.",
                 "contradicted", "the context says green", "prompt sha256",
                 "the run names no dataset file", f'href="/runs/{run_id}"'):
        assert text in page.text, text
    assert f'id="next-row" href="/runs/{run_id}/rows/g2"' in page.text
    unscored = client.get(f"/runs/{run_id}/rows/g2").text
    assert "unscored" in unscored and "judge output was not valid JSON" in unscored
    assert HOSTILE not in unscored and "&lt;script&gt;" in unscored  # hostile text stays text


def test_row_page_shows_the_inputs_from_the_dataset(client: TestClient,
                                                    runs: dict[str, Any]) -> None:
    page = client.get(f"/runs/{runs['better']}/rows/q2")
    assert page.status_code == 200
    for text in ("Question number 2?", "Ground truth", "f1_score", "exact_match", "Row 2 of 5",
                 "previous row", "next row"):
        assert text in page.text, text
    assert page.text.count("<script") == 0


def test_row_ids_with_slashes_and_query_characters_have_pages(client: TestClient,
                                                              runs: dict[str, Any]) -> None:
    href = row_href(runs["judged"], ODD_ID)
    assert "%2F" in href and "%23" in href and "%3F" in href
    page = client.get(href)
    assert page.status_code == 200 and "Row 3 of 3" in page.text
    report = client.get(f"/runs/{runs['judged']}").text
    assert f'href="{href}"' in report and HOSTILE not in report


def test_unknown_runs_and_rows_are_404_with_a_fix(client: TestClient,
                                                  runs: dict[str, Any]) -> None:
    for url in ("/runs/no-such-run", "/runs/no-such-run/rows/q1", "/compare?a=nope&b=latest"):
        page = client.get(url)
        text = html_lib.unescape(page.text)
        assert page.status_code == 404, url
        assert "No run 'no-such-run'" in text or "No run 'nope'" in text
        assert "Fix:" in text and 'href="/"' in text
    row = client.get(f"/runs/{runs['base']}/rows/q99")
    assert row.status_code == 404 and "has no row 'q99'" in html_lib.unescape(row.text)
    assert "q1" in row.text
    nowhere = client.get("/no/such/page")
    assert nowhere.status_code == 404 and "No page at /no/such/page" in nowhere.text
    api = client.get("/api/runs/no-such-run")
    assert api.status_code == 404 and "No run 'no-such-run'" in api.json()["error"]


# ---------------------------------------------------------------- comparison


def test_compare_page_renders_both_runs(client: TestClient, runs: dict[str, Any]) -> None:
    a, b = runs["base"], runs["better"]
    page = client.get(f"/compare?a={a}&b={b}")
    assert page.status_code == 200
    html = page.text
    comparison = html.split('id="comparison"', 1)[1].split("</section>", 1)[0]
    assert a in comparison and b in comparison and "f1_score" in comparison
    assert "Rows that changed most" in comparison
    assert f'<a href="/runs/{a}">' in html and f'<a href="/runs/{b}">' in html
    assert f'href="{row_href(b, "q1")}"' in html  # rows of B link to their pages
    by_prefix = client.get(f"/compare?a={a[:-1]}&b=latest", follow_redirects=False)
    if by_prefix.status_code == 307:
        assert by_prefix.headers["location"] == f"/compare?a={a}&b={runs['judged']}"


def test_compare_needs_two_runs(client: TestClient) -> None:
    page = client.get("/compare?a=latest")
    assert page.status_code == 400 and "/compare?a=BASELINE&amp;b=CANDIDATE" in page.text


# ---------------------------------------------------------------- JSON API


def test_api_json_shapes(client: TestClient, runs: dict[str, Any]) -> None:
    listing = client.get("/api/runs").json()
    assert set(listing) == {"store", "filters", "runs"}
    first = listing["runs"][0]
    for key in ("id", "name", "kind", "tags", "created", "status", "dataset", "judge",
                "metrics", "summary", "rows", "url", "api"):
        assert key in first, key
    assert first["url"] == f"/runs/{first['id']}" and first["api"] == f"/api/runs/{first['id']}"
    one = client.get(f"/api/runs/{runs['base']}").json()
    assert set(one) == {"run", "aggregates", "rows", "rows_total", "offset", "limit", "next"}
    assert one["run"]["name"] == "base" and one["run"]["rows"] == 5
    assert [r["id"] for r in one["rows"]] == [r["id"] for r in ROWS]
    assert (one["rows_total"], one["offset"], one["limit"], one["next"]) == (5, 0, 100, None)
    part = client.get(f"/api/runs/{runs['base']}?limit=2&offset=2").json()
    assert [r["id"] for r in part["rows"]] == ["q3", "q4"]
    assert part["next"] == f"/api/runs/{runs['base']}?offset=4&limit=2"
    assert [r["id"] for r in client.get(part["next"]).json()["rows"]] == ["q5"]
    assert set(one["aggregates"]) == {"f1_score", "exact_match"}
    assert client.get("/api/runs/latest").json()["run"]["id"] == runs["judged"]


# ---------------------------------------------------------------- hosts and the CLI


def test_allowed_hosts_reject_other_host_headers(runs: dict[str, Any]) -> None:
    app = create_app(runs["store"], allowed_hosts=["127.0.0.1", "localhost"])
    with TestClient(app, base_url="http://127.0.0.1:8400") as local:
        assert local.get("/").status_code == 200
    with TestClient(app, base_url="http://attacker.example") as rebound:
        assert rebound.get("/api/runs").status_code == 400


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cli() -> typer.Typer:
    cli = typer.Typer()
    cli.command("serve")(serve)
    return cli


@pytest.fixture
def uvicorn_calls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    import uvicorn

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append({"app": app, **kw}))
    return calls


def test_cli_binds_127_0_0_1_by_default(runs: dict[str, Any],
                                        uvicorn_calls: list[dict[str, Any]]) -> None:
    port = _free_port()
    result = CliRunner().invoke(_cli(), ["--store", str(runs["store"]), "--port", str(port)])
    assert result.exit_code == 0, result.output
    (call,) = uvicorn_calls
    assert call["host"] == "127.0.0.1" and call["port"] == port
    assert isinstance(call["app"], Starlette)
    assert f"http://127.0.0.1:{port}/" in result.output
    with TestClient(call["app"], base_url="http://evil.example") as c:  # loopback names only
        assert c.get("/").status_code == 400


def test_cli_host_option_and_its_warning(runs: dict[str, Any],
                                         uvicorn_calls: list[dict[str, Any]]) -> None:
    port = _free_port()
    result = CliRunner().invoke(_cli(), ["--store", str(runs["store"]), "--host", "0.0.0.0",
                                         "--port", str(port)])
    assert result.exit_code == 0, result.output
    assert uvicorn_calls[0]["host"] == "0.0.0.0"
    assert "anyone who can reach" in result.output


def test_cli_port_in_use_names_the_fix(runs: dict[str, Any],
                                       uvicorn_calls: list[dict[str, Any]]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = CliRunner().invoke(_cli(), ["--store", str(runs["store"]), "--port", str(port)])
    assert result.exit_code == 2 and "Fix: pick another port" in result.output
    assert uvicorn_calls == []


def test_row_and_run_pages_say_when_a_judged_text_is_in_an_unknown_language(
        tmp_path: Path) -> None:
    store = tmp_path / "runs.sqlite"
    with open_store(store) as opened:
        run_id = opened.create_run(name="thai", metrics={"coherence": "1"})
        opened.add_rows(run_id, [
            {"id": "t1", "coherence": {"value": 4.0, "reason": "ok", "error": None},
             "injection_language": {"answer": "th"}},
            {"id": "t2", "coherence": {"value": 5.0, "reason": "ok", "error": None}}])
        opened.finish_run(run_id, summary={
            "rows": 2, "rows_done": 2, "complete": True,
            "metrics": {"coherence": {"mean": 4.5}},
            "injection": {"mode": "mask", "flagged_rows": 0, "kinds": {},
                          "unknown_language": {"rows": 1, "languages": {"th": 1}}}},
            complete=True)
    with TestClient(create_app(store)) as client:
        marked = client.get(f"/runs/{run_id}/rows/t1").text
        plain = client.get(f"/runs/{run_id}/rows/t2").text
        run_page = " ".join(client.get(f"/runs/{run_id}").text.split())
    assert "answer in th, a language the injection detector does not know" in marked
    assert "injection detector does not know" not in plain
    assert "1 row(s) have a judged text in a language the injection detector does not know" \
        in run_page
