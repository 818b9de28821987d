"""The pages people read first, in headless Chromium at 1366x768: the compare page opens with
its warnings, the table of differences and their chart; a pairwise run is a win/tie/loss bar
with the choices named in the row table; a 0-1 metric that is always 1.0 fills the "0.9-1.0"
bin; the runs list preselects two runs of one dataset and shows the metric means unclipped.

Skipped without Chromium, chromedriver and selenium, unless ``ASSAY_REQUIRE_BROWSER=1`` (see
``test_serve_browser``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay import JudgeOptions, RunOptions, evaluate, load_metric_file
from assay.judges import FakeJudge, JudgeRequest
from test_serve_browser import _need_browser, _save, _wait, new_chromium, serving

WIDTH, HEIGHT = 1366, 768
METRICS = ("f1_score,exact_match,bleu_score,rouge_l,coherence,fluency,groundedness,relevance,"
           "similarity,retrieval_score,violence,self_harm")
ROWS = [{"id": f"q{i}", "question": f"How heavy is tent {i}?",
         "context": f"Tent {i} weighs {i} kg and sleeps {i % 3 + 1}.",
         "answer": f"Tent {i} weighs {i} kg.", "ground_truth": f"Tent {i} weighs {i} kg."}
        for i in range(1, 11)]


def _fill(schema: dict[str, Any], seed: int) -> Any:
    """A valid answer to a JSON schema: integers at their minimum plus ``seed`` (capped)."""
    if schema.get("type") == "object":
        return {k: _fill(v, seed) for k, v in (schema.get("properties") or {}).items()}
    if "enum" in schema:
        return schema["enum"][seed % len(schema["enum"])]
    if schema.get("type") == "integer":
        return min(int(schema.get("minimum", 0)) + seed, int(schema.get("maximum", 5)))
    return "scripted"


def _judge(seed: int) -> FakeJudge:
    def answer(req: JudgeRequest) -> str:
        return json.dumps(_fill(req.json_schema or {}, seed))
    return FakeJudge(answer, id="fake")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    _need_browser()
    tmp = tmp_path_factory.mktemp("compare-pages")
    store = tmp / "runs.sqlite"
    judging = JudgeOptions(cache=False)
    first, second = tmp / "tents.jsonl", tmp / "tents-v2.jsonl"
    first.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    second.write_text("".join(json.dumps(dict(r, answer="No idea.") if i % 2 else r) + "\n"
                              for i, r in enumerate(ROWS)), encoding="utf-8")
    base = evaluate(first, metrics=METRICS, judge=_judge(1), judging=judging,
                    run=RunOptions(store=store, out=tmp / "base", run_name="base"))
    other = evaluate(second, metrics=METRICS, judge=_judge(3), judging=judging,
                     run=RunOptions(store=store, out=tmp / "other", run_name="other data"))
    pairs = tmp / "pairs.jsonl"
    pairs.write_text("".join(json.dumps({"id": f"p{i}", "question": "Which is better?",
                                         "answer": a, "baseline_model_response": b}) + "\n"
                             for i, (a, b) in enumerate([("long good", "bad"), ("bad", "long good"),
                                                         ("same", "same"), ("long best", "ok")])))
    template = tmp / "pref.md"
    template.write_text("---\nname: pref\nkind: pairwise\n---\n"
                        "A: {{ response_a }}\nB: {{ response_b }}\n")

    def by_length(req: JudgeRequest) -> str:
        text = req.messages[-1]["content"]
        a = text.split("A: ")[1].split("\n")[0]
        b = text.split("B: ")[1].split("\n")[0]
        choice = "TIE" if len(a) == len(b) else "A" if len(a) > len(b) else "B"
        return json.dumps({"choice": choice, "reason": "the longer one"})

    pairwise = evaluate(pairs, metrics=[load_metric_file(template)],
                        judge=FakeJudge(by_length, id="len"), judging=judging,
                        run=RunOptions(store=store, out=tmp / "pairs", run_name="pairwise"))
    with serving(store) as url:
        yield {"url": url, "base": str(base.summary["run_id"]),
               "other": str(other.summary["run_id"]),
               "pairwise": str(pairwise.summary["run_id"])}


@pytest.fixture(scope="module")
def driver(server: dict[str, Any]) -> Iterator[Any]:
    drv = new_chromium(WIDTH, HEIGHT)
    drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
    try:
        yield drv
    finally:
        drv.quit()


def _box(drv: Any, selector: str) -> dict[str, float]:
    box = drv.execute_script(
        "const e = document.querySelector(arguments[0]); if (!e) return null;"
        "const r = e.getBoundingClientRect();"
        "return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,"
        " height: r.height, width: r.width};", selector)
    assert box is not None, f"no {selector} on the page"
    return dict(box)


def _open(drv: Any, url: str, selector: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    drv.get(url)
    _wait(drv, ec.presence_of_element_located((By.CSS_SELECTOR, selector)), selector)
    assert drv.execute_script("return [window.innerWidth, window.innerHeight]") == [WIDTH, HEIGHT]


def test_compare_page_first_screen_holds_warning_table_and_chart(
        driver: Any, server: dict[str, Any], tmp_path: Path) -> None:
    _open(driver, f"{server['url']}/compare?a={server['base']}&b={server['other']}",
          "#difference-chart svg.diffs")
    warning = driver.execute_script(
        "return [...document.querySelectorAll('p.note.warning')].map(p => p.textContent)")
    assert any("the runs scored different datasets" in w for w in warning), warning
    assert _box(driver, "p.note.warning")["bottom"] <= HEIGHT
    table, chart = _box(driver, "#differences"), _box(driver, "#difference-chart")
    assert 0 <= table["top"] and table["bottom"] <= HEIGHT, table
    assert 0 <= chart["top"] and chart["bottom"] <= HEIGHT and chart["right"] <= WIDTH, chart
    rows = driver.execute_script(
        "return [...document.querySelectorAll('#differences tbody tr')].map(r => r.cells[0]"
        ".textContent.trim().split(' ')[0])")
    marks = driver.execute_script(
        "return [...document.querySelectorAll('svg.diffs g.diff')].map(g => g.getAttribute"
        "('class').slice(5))")
    assert len(rows) == len(marks) == 12, (rows, marks)
    # half of B's answers say "No idea.": the word overlap falls, beyond noise
    verdicts = dict(zip(rows, driver.execute_script(
        "return [...document.querySelectorAll('#differences tbody tr')].map(r => "
        "r.cells[r.cells.length - 1].textContent)"), strict=True))
    assert verdicts["f1_score"] == "B worse" and marks[rows.index("f1_score")] == "worse"
    # the run's own report comes after what changed
    assert _box(driver, "#summary")["top"] > table["bottom"]
    _save(driver.get_screenshot_as_png(), "assay-compare-first-screen.png", tmp_path)


def test_pairwise_run_is_a_win_tie_loss_bar_with_words_in_the_rows(
        driver: Any, server: dict[str, Any]) -> None:
    _open(driver, f"{server['url']}/runs/{server['pairwise']}", "svg.pairwise")
    titles = driver.execute_script(
        "return [...document.querySelectorAll('svg.pairwise g.seg title')].map(t => "
        "t.textContent)")
    assert titles == ["CANDIDATE: 2 rows", "TIE: 1 row", "BASELINE: 1 row"], titles
    legend = driver.execute_script(
        "return [...document.querySelectorAll('svg.pairwise .key')].map(t => t.textContent)")
    assert legend == ["CANDIDATE 2", "TIE 1", "BASELINE 1"]
    widths = driver.execute_script(
        "return [...document.querySelectorAll('svg.pairwise g.seg rect')].map(r => "
        "r.getBoundingClientRect().width)")
    assert widths[0] == pytest.approx(2 * widths[1], rel=0.05) and widths[1] > 0
    label = driver.execute_script(
        "return document.querySelector('svg.pairwise').getAttribute('aria-label')")
    assert label == "pref: candidate better 2, tie 1, baseline better 1 (4 rows)"
    cells = driver.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('#rowtable tbody tr')].map("
        "r => [r.cells[0].textContent, r.cells[1].textContent]))")
    assert cells == {"p0": "CANDIDATE", "p1": "BASELINE", "p2": "TIE", "p3": "CANDIDATE"}
    assert "0.9-1.0" not in driver.find_element("id", "dist-pref").get_attribute("innerHTML")


def test_a_metric_always_one_fills_the_last_bin(driver: Any, server: dict[str, Any]) -> None:
    _open(driver, f"{server['url']}/runs/{server['base']}", "#dist-exact_match svg.hist")
    bars = driver.execute_script(
        "return [...document.querySelectorAll('#dist-exact_match g.bar')].map(g => "
        "[g.querySelector('title').textContent, g.querySelector('rect')"
        ".getBoundingClientRect().height])")
    assert bars[-1][0] == "0.9-1.0: 10 rows" and bars[-1][1] > 50, bars
    assert all(height == 0 for _, height in bars[:-1]), bars
    ticks = driver.execute_script(
        "return [...document.querySelectorAll('#dist-exact_match svg .tick')].map(t => "
        "t.textContent)")
    assert "1.0" in ticks and "0.8" in ticks, ticks


def test_runs_list_shows_the_metric_means_unclipped(driver: Any,
                                                   server: dict[str, Any]) -> None:
    _open(driver, f"{server['url']}/", "#runs")
    scroll = driver.execute_script(
        "const s = document.querySelector('#compare-form .scroll');"
        "return [s.scrollWidth, s.clientWidth]")
    assert scroll[0] <= scroll[1], f"the runs table overflows at {WIDTH} px: {scroll}"
    means = driver.execute_script(
        "return [...document.querySelectorAll('td.means .mean')].map(m => {"
        "const r = m.getBoundingClientRect(); return [m.textContent, r.left, r.right]})")
    assert len(means) >= 8, means  # 4 shown per 12-metric run
    for text, left, right in means:
        assert 0 <= left and right <= WIDTH, (text, left, right)


def test_runs_list_pairs_two_runs_of_one_dataset(driver: Any, tmp_path: Path) -> None:
    store = tmp_path / "runs.sqlite"
    data, other = tmp_path / "qa.jsonl", tmp_path / "other.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS[:3]), encoding="utf-8")
    other.write_text("".join(json.dumps(r) + "\n" for r in ROWS[3:6]), encoding="utf-8")
    ids = [str(evaluate(path, metrics="f1_score", run=RunOptions(store=store, out=tmp_path / name))
               .summary["run_id"]) for name, path in (("1", data), ("2", data), ("3", other))]
    with serving(store) as url:
        _open(driver, f"{url}/", "#runs")
        checked = driver.execute_script(
            "return ['a', 'b'].map(s => document.querySelector(`input[name=${s}]:checked`)"
            ".value)")
    assert checked == [ids[0], ids[1]]  # not the two newest: they scored different files
