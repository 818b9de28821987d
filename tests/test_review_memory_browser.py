"""The review queue that remembers, and the calibration run's reliability curve, in headless
Chromium: the rater kept across a new browser visit (same cookie jar) with their labels shown,
``?metric=`` focusing one metric (the number keys rate it, ``m`` moves the focus, which stays
on the next row), a pairwise row's question above the two responses side by side, and the
reliability curve of a stored calibration run.

Skipped like ``test_serve_browser.py`` without Chromium, chromedriver and selenium (a failure
with ``ASSAY_REQUIRE_BROWSER=1``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import assay
from assay import JudgeOptions, RunOptions, evaluate, load_metric_file
from assay.judges import FakeJudge
from assay.store import open_store
from test_serve_browser import (
    _csp_violations,
    _need_browser,
    _save,
    _wait,
    new_chromium,
    serving,
)
from test_serve_review_browser import ANSWERS, _by_length


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A run with two rateable metrics, a pairwise run and a calibration run, served."""
    _need_browser()
    tmp = tmp_path_factory.mktemp("memory")
    store = tmp / "runs.sqlite"
    data = tmp / "qa.jsonl"
    data.write_text("".join(json.dumps({"id": f"r{i}", "question": f"Question {i}?",
                                        "answer": a, "coherence/human_rating": 1 + i}) + "\n"
                            for i, a in enumerate(ANSWERS)))
    judge = FakeJudge(_by_length, id="len")
    two = evaluate(data, metrics="coherence,fluency", judge=judge,
                   judging=JudgeOptions(cache=False), run=RunOptions(store=store, out=tmp / "r"))
    pairs = tmp / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": "p0", "question": "Which tent is lighter?",
                                 "answer": "The candidate says: the Trail 2 at 1.2 kg.",
                                 "baseline_model_response": "The baseline says: the Dome."})
                     + "\n")
    template = tmp / "pref.md"
    template.write_text("---\nname: pref\nkind: pairwise\n---\n"
                        "A: {{ response_a }}\nB: {{ response_b }}\n")
    pairwise = evaluate(pairs, metrics=[load_metric_file(template)],
                        judge=FakeJudge('{"choice": "TIE", "reason": "same"}', id="tie"),
                        judging=JudgeOptions(cache=False),
                        run=RunOptions(store=store, out=tmp / "p"))
    calibrated = assay.calibrate(data, metric="coherence", judges=[judge], out=tmp / "cal",
                                 cache=None, store=str(store))
    with open_store(store) as opened:
        calib_run = next(r.id for r in opened.runs() if r.kind == "calibration")
    with serving(store) as url:
        yield {"url": url, "store": store, "run": str(two.summary["run_id"]),
               "pairwise": str(pairwise.summary["run_id"]), "calibration": calib_run,
               "curve": calibrated.reports["len"]["reliability"]}


def _new_driver(width: int = 1366, height: int = 768) -> Any:
    return new_chromium(width, height)


@pytest.fixture()
def driver(server: dict[str, Any]) -> Iterator[Any]:
    drv = _new_driver()
    try:
        yield drv
    finally:
        drv.quit()


def _checked(drv: Any, metric: str) -> list[str]:
    from selenium.webdriver.common.by import By

    return [e.get_attribute("value") for e in drv.find_elements(
        By.CSS_SELECTOR, f'input[name="value:{metric}"]') if e.is_selected()]


def _open_review(drv: Any, url: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    drv.get(url)
    _wait(drv, ec.presence_of_element_located((By.ID, "label-form")), f"the review page {url}")


def test_the_rater_is_remembered_across_a_new_browser_visit(server: dict[str, Any],
                                                            tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    url, run = server["url"], server["run"]
    first = _new_driver()
    try:
        _open_review(first, f"{url}/runs/{run}/review")
        assert first.find_element(By.ID, "rater").get_attribute("value") == ""
        first.find_element(By.ID, "rater").send_keys("ann")
        first.find_element(By.TAG_NAME, "body").click()
        first.find_element(By.TAG_NAME, "body").send_keys("4")  # coherence, the first metric
        _wait(first, lambda d: _checked(d, "coherence") == ["4"], "4 to rate coherence")
        first.find_element(By.TAG_NAME, "body").send_keys("s")
        _wait(first, lambda d: "saved=1" in d.current_url, "the save")
        cookies = first.get_cookies()
    finally:
        first.quit()
    (kept,) = [c for c in cookies if c["name"] == "assay_rater"]
    assert kept["value"] == "ann" and kept["sameSite"] == "Lax" and kept.get("expiry")

    second = _new_driver()  # a new visit: nothing in the URL, the same cookie jar
    try:
        second.get(url + "/")
        for cookie in cookies:
            second.add_cookie({k: cookie[k] for k in ("name", "value", "path", "sameSite",
                                                      "expiry") if k in cookie})
        second.get(f"{url}/runs/{run}")
        _wait(second, ec.presence_of_element_located((By.LINK_TEXT, "Review rows")),
              "the run page")
        second.find_element(By.LINK_TEXT, "Review rows").click()
        _wait(second, ec.presence_of_element_located((By.ID, "label-form")), "the review page")
        assert "rater=" not in second.current_url
        assert second.find_element(By.ID, "rater").get_attribute("value") == "ann"
        assert second.find_element(By.ID, "rater-note").text == "remembered on this browser"
        assert _checked(second, "coherence") == ["4"]  # ann's label, shown
        assert "rated by you" in second.find_element(By.ID, "metric-coherence").text
        progress = second.find_element(By.ID, "progress").text
        assert "1 of 4 rated by you for coherence" in progress
        assert "0 of 4 rated by you for fluency" in progress
        assert _csp_violations(second) == []
        _save(second.get_screenshot_as_png(), "assay-serve-review-remembered.png", tmp_path)
    finally:
        second.quit()


def test_the_last_rater_is_offered_and_another_name_takes_only_what_it_set(
        driver: Any, server: dict[str, Any]) -> None:
    from selenium.webdriver.common.by import By

    url, run = server["url"], server["run"]
    with open_store(server["store"]) as store:
        store.save_label(run, "r2", "coherence", rater="eve", value=5)  # the last rater
    _open_review(driver, f"{url}/runs/{run}/review?row=r2")  # no cookie in this browser
    rater = driver.find_element(By.ID, "rater")
    assert rater.get_attribute("value") == "eve"
    assert driver.find_element(By.ID, "rater-note").text.startswith("last used in this store")
    assert _checked(driver, "coherence") == ["5"]  # eve's label, shown
    rater.clear()
    rater.send_keys("dee")  # not eve: the label shown is eve's, not to be copied to dee
    driver.find_element(By.CSS_SELECTOR, 'input[name="value:fluency"][value="3"]').click()
    driver.find_element(By.ID, "save").click()
    _wait(driver, lambda d: "saved=1" in d.current_url, "the save")
    with open_store(server["store"]) as store:
        assert [(x.metric, x.value) for x in store.labels(run, rater="dee")] == [("fluency", 3)]
        assert [(x.metric, x.value) for x in store.labels(run, rater="eve")] == [
            ("coherence", 5)]
    assert _checked(driver, "coherence") == [""] and _checked(driver, "fluency") == ["3"]


def test_metric_focus_number_keys_and_the_cycle_key(driver: Any, server: dict[str, Any]) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    url, run = server["url"], server["run"]
    _open_review(driver, f"{url}/runs/{run}/review?rater=bob&metric=fluency")
    sets = driver.find_elements(By.CSS_SELECTOR, "fieldset.rateable")
    assert [s.get_attribute("data-metric") for s in sets] == ["fluency", "coherence"]
    assert "focused" in sets[0].get_attribute("class") and "active" in sets[0].get_attribute(
        "class")
    assert "m" in driver.find_element(By.ID, "shortcuts").text  # the key is in the help
    assert driver.find_element(By.ID, "progress").text == "0 of 4 rated by you for fluency"

    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys("2")
    _wait(driver, lambda d: _checked(d, "fluency") == ["2"], "2 to rate the focused metric")
    assert _checked(driver, "coherence") == [""]

    body.send_keys("m")  # the focus moves on to coherence
    _wait(driver, lambda d: "metric=coherence" in d.current_url, "m to move the focus")
    assert "focused" in sets[1].get_attribute("class")
    assert "focused" not in sets[0].get_attribute("class")
    assert driver.find_element(By.ID, "focus-metric").get_attribute("value") == "coherence"
    assert "metric=coherence" in driver.find_element(By.ID, "next-row").get_attribute("href")
    body.send_keys("5")
    _wait(driver, lambda d: _checked(d, "coherence") == ["5"], "5 to rate coherence now")
    assert _checked(driver, "fluency") == ["2"]

    body.send_keys(Keys.ENTER)  # save and next: the focus stays on coherence
    _wait(driver, lambda d: "row=r1" in d.current_url, "Enter to save and open the next row")
    assert "metric=coherence" in driver.current_url
    first = driver.find_elements(By.CSS_SELECTOR, "fieldset.rateable")[0]
    assert first.get_attribute("data-metric") == "coherence"
    assert "focused" in first.get_attribute("class")
    assert driver.find_element(By.ID, "progress").text == "1 of 4 rated by you for coherence"
    assert _csp_violations(driver) == []
    with open_store(server["store"]) as store:
        assert sorted((x.row_id, x.metric, x.value) for x in store.labels(run, rater="bob")) == [
            ("r0", "coherence", 5), ("r0", "fluency", 2)]


def test_a_pairwise_row_question_first_responses_side_by_side(driver: Any,
                                                              server: dict[str, Any],
                                                              tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    _open_review(driver, f"{server['url']}/runs/{server['pairwise']}/review?rater=cy")
    question = driver.find_element(By.XPATH, "//h5[text()='Question']")
    a = driver.find_element(By.CSS_SELECTOR, ".pair .response-a")
    b = driver.find_element(By.CSS_SELECTOR, ".pair .response-b")
    assert "The baseline says" in a.text and "The candidate says" in b.text
    assert question.location["y"] < a.location["y"]
    assert a.location["y"] == b.location["y"] and a.location["x"] < b.location["x"]
    assert a.location["y"] + a.size["height"] < 768  # both on the first screen
    _save(driver.get_screenshot_as_png(), "assay-serve-review-pairwise.png", tmp_path)
    driver.set_window_size(900, 900)  # narrow: one above the other
    _wait(driver, lambda d: b.location["y"] > a.location["y"], "the responses to stack")


def test_the_calibration_run_shows_its_reliability_curve(driver: Any, server: dict[str, Any],
                                                         tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    driver.get(f"{server['url']}/runs/{server['calibration']}")
    _wait(driver, ec.presence_of_element_located((By.ID, "calibration")), "the calibration")
    section = driver.find_element(By.ID, "calibration")
    (svg,) = section.find_elements(By.CSS_SELECTOR, "svg.reliability")
    bins = server["curve"]["bins"]
    assert len(bins) >= 2
    assert len(svg.find_elements(By.CSS_SELECTOR, "circle")) == len(bins)
    counts = [t.text for t in svg.find_elements(By.CSS_SELECTOR, "text.count")]
    assert counts == [f"n={b['n']}" for b in bins]
    assert svg.find_elements(By.CSS_SELECTOR, "line.identity")
    assert svg.get_attribute("role") == "img" and "reliability curve" in svg.get_attribute(
        "aria-label")
    rows = section.find_elements(By.CSS_SELECTOR, "table.reliability-bins tbody tr")
    assert [r.find_elements(By.TAG_NAME, "td")[1].text for r in rows] == [
        str(b["n"]) for b in bins]
    assert len(section.find_elements(By.CSS_SELECTOR, "table.confusion")) == 1
    assert not section.find_elements(By.TAG_NAME, "img")  # one confusion matrix: the table
    driver.execute_script("arguments[0].scrollIntoView()", section)
    _save(driver.get_screenshot_as_png(), "assay-serve-calibration.png", tmp_path)
