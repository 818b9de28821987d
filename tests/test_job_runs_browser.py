"""A stored attack run and a generated test set in headless Chromium: the attack run's page
opens a transcript's panel with its exchanges and verdicts under the report's
Content-Security-Policy, and a generated row's page shows its evidence marked in its source.

Skipped without Chromium, chromedriver and selenium, unless ``ASSAY_REQUIRE_BROWSER=1`` (see
``test_serve_browser``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.store import open_store
from test_job_runs import DATA, KINDS, _record, _rows
from test_serve_browser import _csp_violations, _need_browser, _save, _wait, new_chromium, serving


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    _need_browser()
    path = tmp_path_factory.mktemp("job-runs") / "runs.sqlite"
    ids: dict[str, Any] = {}
    with open_store(path) as store:
        for name in ("generate", "attack"):
            rows, summary = KINDS[name]
            ids[name] = _record(store, name, _rows(rows),
                                json.loads((DATA / summary).read_text(encoding="utf-8")), name)
    with serving(path) as url:
        yield {"url": url, **ids}


def test_attack_exchanges_and_generated_evidence_in_chromium(server: dict[str, Any],
                                                             tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    driver = new_chromium()
    try:
        driver.get(f"{server['url']}/runs/{server['attack']}")
        assert "Success rates (95% Wilson intervals)" in driver.find_element(By.ID, "job").text
        driver.find_element(By.XPATH, '//table[@id="rowtable"]//td[@class="id"][text()="v1"]'
                                      "/..").click()
        _wait(driver, ec.visibility_of_element_located((By.ID, "panel")), "the detail panel")
        table = driver.find_element(By.CSS_SELECTOR, "article.detail:not([hidden]) "
                                                     "table.exchanges")
        assert table.is_displayed()
        cells = [tr.text for tr in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
        assert len(cells) == 4 and "(backtracked)" in cells[1] and "6 High (violence)" in cells[3]
        assert _csp_violations(driver) == []
        _save(driver.get_screenshot_as_png(), "attack-run.png", tmp_path)

        driver.get(f"{server['url']}/runs/{server['generate']}/rows/multi-0002")
        marks = driver.find_elements(By.CSS_SELECTOR, "mark.evidence")
        assert len(marks) == 2 and all(m.is_displayed() for m in marks)
        assert marks[0].text == _rows("generate.jsonl")[1]["source"][0]["text"]
        assert _csp_violations(driver) == []
    finally:
        driver.quit()
