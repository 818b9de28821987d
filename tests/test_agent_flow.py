"""Rows with tool calls flow through everything a row flows through: ``assay run`` and
``--resume``, the run store (its inputs keep the tool calls and read back as the same row),
``assay compare``, ``assay report``, the web UI in Chromium and the Ray engine.

``examples/agent_calls.jsonl`` with the deterministic agent metrics: no judge needed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli.main import app
from assay.data import Row, read_dataset, row_inputs, rows_from_records
from assay.metrics import MetricResult, ScoreContext, mean_aggregate
from assay.records import load_finished
from assay.records._stored_row import StoredRow
from assay.run import JudgeOptions, RunOptions, evaluate
from assay.store import open_store
from test_ray_engine import ray_instance  # noqa: F401  (the shared Ray fixture and skip rule)
from test_serve_browser import (  # noqa: F401  (the browser fixture and helpers)
    _csp_violations,
    _need_browser,
    _wait,
    driver,
    serving,
)

DATA = Path(__file__).resolve().parents[1] / "examples" / "agent_calls.jsonl"
METRICS = "tool_call_accuracy,tool_call_f1,trajectory_exact_match"
NAMES = METRICS.split(",")
IDS = [json.loads(x)["id"] for x in DATA.read_text(encoding="utf-8").splitlines() if x.strip()]


def _run(*args: str) -> Any:
    result = CliRunner().invoke(app, ["run", *args])
    assert result.exit_code == 0, result.output
    return result


def _fixed(tmp: Path) -> Path:
    """The example with the agent of ``wrong_argument`` searching the right city."""
    lines = DATA.read_text(encoding="utf-8").splitlines()
    out = []
    for line in lines:
        rec = json.loads(line)
        if rec["id"] == "wrong_argument":
            call = rec["messages"][2]["tool_calls"][0]["function"]
            call["arguments"] = call["arguments"].replace("Lyon", "Paris")
        out.append(json.dumps(rec))
    path = tmp / "agent_fixed.jsonl"
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


def _calls(row: Row) -> list[tuple[str, str, Any]]:
    return [(c.id, c.name, c.arguments()) for c in row.tool_calls()]


class _StopsAt:
    """A metric that stops the run (Ctrl-C) on one row: a run cut part-way."""

    name, version = "stops_at", "1"
    required = frozenset({"messages"})
    conversation = needs_citations = uses_judge = False
    higher_is_better = True
    value_range = (0.0, 1.0)

    def __init__(self, row_id: str | None) -> None:
        self.row_id = row_id

    def applies(self, row: Row) -> str | None:
        return None

    async def score(self, row: Row, ctx: ScoreContext) -> MetricResult:
        if row.id == self.row_id:
            raise KeyboardInterrupt
        return MetricResult(value=float(len(row.tool_calls()) > 0))

    def aggregate(self, results: Any) -> dict[str, Any]:
        return mean_aggregate(results)


def test_resume_after_a_cut_run_gives_the_whole_run(tmp_path: Path) -> None:
    out, store = tmp_path / "out", tmp_path / "runs.sqlite"
    metrics: list[Any] = [*NAMES, _StopsAt("search_then_book")]
    with pytest.raises(KeyboardInterrupt):
        evaluate(DATA, metrics=metrics, judging=JudgeOptions(cache=False),
                 run=RunOptions(out=out, store=store, progress=False))
    first = load_finished(out / "results.jsonl")
    assert list(first) == IDS[:IDS.index("search_then_book")]
    resumed = evaluate(DATA, metrics=[*NAMES, _StopsAt(None)], judging=JudgeOptions(cache=False),
                       run=RunOptions(out=out, store=store, resume=True, progress=False))
    whole = evaluate(DATA, metrics=[*NAMES, _StopsAt(None)], judging=JudgeOptions(cache=False),
                     run=RunOptions(out=tmp_path / "whole", progress=False))
    assert resumed.summary["complete"] is True
    assert resumed.rows == whole.rows and [r["id"] for r in resumed.rows] == IDS
    assert {r["id"]: r["tool_call_accuracy"]["value"] for r in resumed.rows}["wrong_tool"] == 0.0
    with open_store(store) as opened:
        (info,) = opened.runs()
        stored = opened.inputs(info.id, IDS)
    assert info.status == "complete" and list(stored) == IDS  # every row's inputs, both halves
    by_id = {r.id: r for r in read_dataset(DATA)}
    assert all(stored[i] == row_inputs(by_id[i]) for i in IDS)


def test_the_store_keeps_tool_calls_and_reads_the_row_back(tmp_path: Path) -> None:
    store = tmp_path / "runs.sqlite"
    _run(str(DATA), "--metrics", METRICS, "--store", str(store), "--out", str(tmp_path / "o"))
    with open_store(store) as opened:
        (info,) = opened.runs()
        stored = opened.inputs(info.id, ["search_then_book"])["search_then_book"]
    calls = [c for t in stored["messages"] for c in t.get("tool_calls") or []]
    assert [c["function"]["name"] for c in calls] == ["search_hotels", "book_hotel"]
    assert [t["tool_call_id"] for t in stored["messages"] if t["role"] == "tool"] == ["c1", "c2"]
    assert stored["reference_tool_calls"][1]["name"] == "book_hotel"
    original = {r.id: r for r in read_dataset(DATA)}
    (tmp_path / "o").rename(tmp_path / "gone")  # no dataset file to fall back on: the store only
    found = StoredRow.find(info.id, "search_then_book", store=store)
    try:
        (back,) = rows_from_records([found.row_data()])
    finally:
        found.close()
    assert _calls(back) == _calls(original["search_then_book"]) != []
    assert back.reference_tool_calls == original["search_then_book"].reference_tool_calls


def test_compare_two_agent_runs(tmp_path: Path) -> None:
    store = tmp_path / "runs.sqlite"
    _run(str(DATA), "--metrics", METRICS, "--store", str(store), "--out", str(tmp_path / "a"))
    _run(str(_fixed(tmp_path)), "--metrics", METRICS, "--store", str(store),
         "--out", str(tmp_path / "b"))
    with open_store(store) as opened:
        b, a = (info.id for info in opened.runs())  # newest first
    result = CliRunner().invoke(app, ["compare", a, b, "--store", str(store),
                                      "--json", str(tmp_path / "cmp.json")])
    assert result.exit_code == 0, result.output
    cmp = json.loads((tmp_path / "cmp.json").read_text(encoding="utf-8"))
    acc = cmp["metrics"]["tool_call_accuracy"]
    assert acc["paired"] == len(IDS) and acc["diff"] == pytest.approx(1 / len(IDS))
    assert {(r["id"], r["metric"], r["a"], r["b"]) for r in cmp["changed"]} == {
        ("wrong_argument", name, 0.0, 1.0) for name in NAMES}


def test_report_shows_the_trajectory_as_turns(tmp_path: Path) -> None:
    store = tmp_path / "runs.sqlite"
    _run(str(DATA), "--metrics", METRICS, "--store", str(store), "--out", str(tmp_path / "o"))
    with open_store(store) as opened:
        (info,) = opened.runs()
    (tmp_path / "o").rename(tmp_path / "gone")  # the inputs come from the store
    html_path = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["report", info.id, "--store", str(store),
                                      "--out", str(html_path)])
    assert result.exit_code == 0, result.output
    html = html_path.read_text(encoding="utf-8")
    start = html.index("<h3>wrong_argument</h3>")
    detail = html[start:html.index("</article>", start)]
    assert "call 1: search_hotels" in detail and "&#34;city&#34;: &#34;Lyon&#34;" in detail
    assert "result of search_hotels (c1)" in detail and "Hotel 12 is 90 euros a night." in detail
    assert "reference 1: search_hotels" in detail
    assert "wrong value for &#39;city&#39;: &#39;Lyon&#39;" in detail
    booked = html[html.index("<h3>search_then_book</h3>"):]
    assert "Conversation (7 turns, 2 tool calls)" in booked[:booked.index("</article>")]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A stored agent run served by uvicorn on 127.0.0.1 (as test_serve_browser does)."""
    _need_browser()
    tmp = tmp_path_factory.mktemp("agent-browser")
    store = tmp / "runs.sqlite"
    res = evaluate(DATA, metrics=METRICS, run=RunOptions(store=store, progress=False))
    with serving(store) as url:
        yield {"url": url, "run": res.summary["run_id"]}


def test_web_ui_shows_the_turns_and_calls_in_chromium(driver: Any, server: dict[str, Any]) -> None:  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    url, run = server["url"], server["run"]
    driver.get(f"{url}/runs/{run}")
    _wait(driver, ec.presence_of_element_located((By.ID, "rowtable")), "the run page")
    i = IDS.index("wrong_argument")
    driver.find_element(By.CSS_SELECTOR, f'#rowtable tbody tr[data-i="{i}"]').click()
    _wait(driver, ec.visibility_of_element_located((By.ID, f"detail-{i}")), "the detail panel")
    turns = driver.find_elements(By.CSS_SELECTOR, f"#detail-{i} ol.chat > li.turn")
    assert [t.text.splitlines()[0] for t in turns] == [
        "system turn 0", "user turn 1", "assistant turn 2", "assistant turn 4 final answer"]
    call = turns[2].find_element(By.CSS_SELECTOR, ".call")  # inside the turn that made it
    assert call.text.splitlines()[0] == "call 1: search_hotels"
    assert '"city": "Lyon"' in call.text and "wrong value for 'city'" in call.text
    result = call.find_element(By.CSS_SELECTOR, "details.tool-result")  # folded under it
    assert result.get_attribute("data-turn") == "3" and result.get_attribute("open") is None
    assert result.text.startswith("result of search_hotels (c1) turn 3")
    result.find_element(By.TAG_NAME, "summary").click()
    _wait(driver, lambda d: result.get_attribute("open") is not None, "the result to unfold")
    assert result.find_element(By.CSS_SELECTOR, ".text").text == '[{"hotel_id": 12, "price": 90}]'
    assert _csp_violations(driver) == []

    driver.get(f"{url}/runs/{run}/rows/search_then_book")
    _wait(driver, ec.presence_of_element_located((By.CSS_SELECTOR, ".conversation")),
          "the row page")
    calls = driver.find_elements(By.CSS_SELECTOR, ".conversation .call")
    assert [c.text.splitlines()[0] for c in calls] == ["call 1: search_hotels",
                                                       "call 2: book_hotel"]
    assert '"nights": 2' in calls[1].text
    refs = driver.find_elements(By.CSS_SELECTOR, ".references li.step-reference")
    assert [r.text.splitlines()[0] for r in refs] == ["reference 1: search_hotels",
                                                      "reference 2: book_hotel"]


def test_the_ray_engine_gives_the_local_results(ray_instance: Any, tmp_path: Path) -> None:  # noqa: F811
    store = tmp_path / "runs.sqlite"
    local = evaluate(DATA, metrics=METRICS, run=RunOptions(out=tmp_path / "local", progress=False))
    on_ray = evaluate(DATA, metrics=METRICS, run=RunOptions(
        out=tmp_path / "ray", engine="ray", store=store, progress=False))
    assert on_ray.rows == local.rows and [r["id"] for r in on_ray.rows] == IDS
    assert on_ray.summary["metrics"] == local.summary["metrics"]
    assert ((tmp_path / "ray" / "results.jsonl").read_text(encoding="utf-8")
            == (tmp_path / "local" / "results.jsonl").read_text(encoding="utf-8"))
    with open_store(store) as opened:
        (info,) = opened.runs()
        stored = opened.inputs(info.id, IDS)
    by_id = {r.id: r for r in read_dataset(DATA)}
    assert info.settings["engine"] == "ray" and all(stored[i] == row_inputs(by_id[i]) for i in IDS)
