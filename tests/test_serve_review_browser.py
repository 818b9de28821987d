"""The review queue in headless Chromium: from the run page to the review page, a rating given
with a shortcut key, a comment and the rater typed, saved, still there after a reload, and in
``assay labels export``; the page's script runs under its Content-Security-Policy.

Skipped like ``test_serve_browser.py`` without Chromium, chromedriver and selenium (a failure
with ``ASSAY_REQUIRE_BROWSER=1``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay import JudgeOptions, RunOptions, evaluate, load_metric_file
from assay.cli.main import app
from assay.judges import FakeJudge, JudgeRequest
from assay.store import open_store
from test_serve_browser import _csp_violations, _need_browser, _not_blank, _save, _wait, serving
from test_serve_browser import driver as driver  # noqa: PLC0414 - the module's browser, on our server

ANSWERS = ["ok", "a fine answer", "a longer answer than that", "x"]


def _by_length(req: JudgeRequest) -> str:
    answer = req.messages[-1]["content"].split("<answer>")[1].split("</answer>")[0].strip()
    return json.dumps({"score": min(5, 1 + len(answer) // 6), "reason": f"{len(answer)} chars"})


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One coherence run by a length-counting judge, served on 127.0.0.1."""
    _need_browser()
    tmp = tmp_path_factory.mktemp("review")
    data = tmp / "qa.jsonl"
    data.write_text("".join(json.dumps({"id": f"r{i}", "question": f"Question {i}?",
                                        "answer": a}) + "\n" for i, a in enumerate(ANSWERS)))
    store = tmp / "runs.sqlite"
    result = evaluate(data, metrics="coherence", judge=FakeJudge(_by_length, id="len"),
                      judging=JudgeOptions(cache=False),
                      run=RunOptions(store=store, out=tmp / "run"))
    pairs = tmp / "pairs.jsonl"
    pairs.write_text("".join(json.dumps({"id": f"p{i}", "question": "Which?", "answer": a,
                                         "baseline_model_response": b}) + "\n"
                             for i, (a, b) in enumerate([("good", "bad"), ("bad", "good")])))
    template = tmp / "pref.md"
    template.write_text("---\nname: pref\nkind: pairwise\n---\n"
                        "A: {{ response_a }}\nB: {{ response_b }}\n")
    pairwise = evaluate(pairs, metrics=[load_metric_file(template)],
                        judge=FakeJudge('{"choice": "TIE", "reason": "same to me"}', id="tie"),
                        judging=JudgeOptions(cache=False),
                        run=RunOptions(store=store, out=tmp / "pairs-run"))
    with serving(store) as url:
        yield {"url": url, "store": store, "run": str(result.summary["run_id"]), "tmp": tmp,
               "pairwise": str(pairwise.summary["run_id"])}


def _checked(drv: Any) -> list[str]:
    from selenium.webdriver.common.by import By

    return [e.get_attribute("value") for e in drv.find_elements(
        By.CSS_SELECTOR, 'input[name="value:coherence"]') if e.is_selected()]


def test_label_with_a_shortcut_survives_a_reload_and_exports(driver: Any,
                                                              server: dict[str, Any],
                                                              tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as ec

    url, run = server["url"], server["run"]
    driver.get(f"{url}/runs/{run}")
    _wait(driver, ec.presence_of_element_located((By.LINK_TEXT, "Review rows")), "the run page")
    driver.find_element(By.LINK_TEXT, "Review rows").click()
    _wait(driver, ec.presence_of_element_located((By.ID, "label-form")), "the review page")
    assert "Question 0?" in driver.find_element(By.ID, "inputs").text
    assert "2 chars" in driver.find_element(By.ID, "review").text  # the judge's reason
    assert _checked(driver) == [""]

    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys("4")  # the shortcut rates the highlighted metric
    _wait(driver, lambda d: _checked(d) == ["4"], "the 4 key to pick the rating 4")
    driver.find_element(By.ID, "rater").send_keys("ann")
    comment = driver.find_element(By.CSS_SELECTOR, 'input[name="comment:coherence"]')
    comment.send_keys("reads well")
    comment.send_keys(Keys.ESCAPE)  # leave the text field: shortcuts work again
    body.send_keys("s")  # save and stay
    _wait(driver, lambda d: "saved=1" in d.current_url, "the save to redirect")
    assert driver.find_element(By.ID, "saved").text == "Labels saved."
    assert _csp_violations(driver) == []

    driver.refresh()
    _wait(driver, ec.presence_of_element_located((By.ID, "label-form")), "the reloaded page")
    assert _checked(driver) == ["4"]
    assert driver.find_element(By.CSS_SELECTOR, 'input[name="comment:coherence"]'
                               ).get_attribute("value") == "reads well"
    assert driver.find_element(By.ID, "rater").get_attribute("value") == "ann"
    png = driver.get_screenshot_as_png()
    _save(png, "assay-serve-review.png", tmp_path)
    colours, top_share = _not_blank(png)
    assert colours > 50 and top_share < 0.97, (colours, top_share)
    with open_store(server["store"]) as store:
        assert [(x.row_id, x.value, x.rater) for x in store.labels(run)] == [("r0", 4, "ann")]

    driver.find_element(By.TAG_NAME, "body").send_keys("n")  # nothing changed: just move on
    _wait(driver, lambda d: "row=r1" in d.current_url, "n to open the next row")
    assert _checked(driver) == [""]

    out = Path(server["tmp"]) / "rated.jsonl"
    done = CliRunner().invoke(app, ["labels", "export", run, "--out", str(out),
                                    "--store", str(server["store"])])
    assert done.exit_code == 0, done.output
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines == [{"question": "Question 0?", "answer": "ok", "id": "r0",
                      "coherence/human_rating": 4, "coherence/human_comment": "reads well"}]


def test_pairwise_choice_by_key_then_enter_saves_and_moves_on(driver: Any,
                                                              server: dict[str, Any]) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as ec

    run = server["pairwise"]
    driver.get(f"{server['url']}/runs/{run}/review?rater=bob")
    _wait(driver, ec.presence_of_element_located((By.ID, "label-form")), "the review page")
    review = driver.find_element(By.ID, "review").text
    assert "TIE" in review and "same to me" in review  # the judge's choice and reason
    assert "Baseline response (A)" in driver.find_element(By.ID, "inputs").text

    def chosen(d: Any) -> list[str]:
        return [e.get_attribute("value") for e in d.find_elements(
            By.CSS_SELECTOR, 'input[name="value:pref"]') if e.is_selected()]

    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys("b")
    _wait(driver, lambda d: chosen(d) == ["CANDIDATE"], "b to choose the candidate")
    body.send_keys(Keys.ENTER)  # save and go to the next row
    _wait(driver, lambda d: "row=p1" in d.current_url, "Enter to save and open the next row")
    assert chosen(driver) == [""]
    assert _csp_violations(driver) == []
    with open_store(server["store"]) as store:
        assert [(x.row_id, x.value, x.rater) for x in store.labels(run)] == [
            ("p0", "CANDIDATE", "bob")]
