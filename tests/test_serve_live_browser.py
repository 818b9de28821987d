"""The live page of a watch run in headless Chromium: the charts (one series per metric), the
flagged rows and the alert line are there, the page fits 1366 px, and rows added to the run
while it is open show up after its own reload. Skipped without Chromium, as
``test_serve_browser`` says (``ASSAY_REQUIRE_BROWSER=1`` makes that a failure)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.serve._live import LIVE_REFRESH_S as SHIPPED_REFRESH_S
from assay.store import open_store
from test_serve_browser import _csp_violations, _need_browser, _not_blank, _save, _wait, serving
from test_serve_browser import driver as driver  # noqa: PLC0414 - the module's browser, on our server
from test_serve_live import fill

RELOAD_WAIT = 15  # seconds: the page reloads every 5


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A store with one live watch run (this process writes it, so its heartbeat is alive),
    served on loopback."""
    _need_browser()
    path = tmp_path_factory.mktemp("live") / "runs.sqlite"
    store = open_store(path)
    rid = store.create_run(kind="watch", name="prod-chat")
    fill(store, rid, [5, 5, 4, 5, 5, 1, 1, 2, 1, 5, 5, 5, 5, 5, 4, 4])
    with serving(path) as url:
        yield {"url": url, "run": rid, "store": store}
    store.close()


def test_the_live_page_shows_charts_flagged_rows_alerts_and_updates_itself(
        driver: Any, server: dict[str, Any], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    import assay.serve._live as live_module

    # no reload while the first screen is read (a reload mid-read makes its elements stale
    # on a loaded machine); the reloading itself is checked below, at the shipped interval
    monkeypatch.setattr(live_module, "LIVE_REFRESH_S", 600)
    url, rid, store = server["url"], server["run"], server["store"]
    driver.set_window_size(1366, 900)
    driver.get(f"{url}/")
    driver.find_element(By.CSS_SELECTOR, f'a.live-link[href="/runs/{rid}/live"]').click()
    _wait(driver, ec.presence_of_element_located((By.ID, "over-time")), "the live page")
    assert driver.current_url == f"{url}/runs/{rid}/live"

    series = driver.find_elements(By.CSS_SELECTOR, "#over-time svg polyline.series")
    assert sorted(s.get_dom_attribute("data-metric") for s in series) == [
        "answer_relevance", "groundedness"]
    assert [len(s.get_dom_attribute("points").split()) for s in series] == [16, 16]
    charts = driver.find_elements(By.CSS_SELECTOR, "#over-time figure.live-chart svg")
    assert len(charts) == 2 and all(c.is_displayed() and c.size["width"] > 300 for c in charts)
    labels = [svg.get_dom_attribute("aria-label")
              for svg in driver.find_elements(By.CSS_SELECTOR, "#over-time svg")]
    assert labels[0].startswith("groundedness: rolling mean over 20 rows, 16 scored")
    flagged = [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#flagged a.row-link")]
    assert flagged == ["trace-008", "trace-007", "trace-006", "trace-005"]
    alerts = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#alerts li")]
    assert len(alerts) == 2 and "RESOLVED groundedness" in alerts[0]
    assert "ALERT groundedness mean 3.2 over the last 5 rows < 3.5 (firing)" in alerts[1]
    assert driver.find_element(By.CSS_SELECTOR, "#live-status .badge").text == "live"
    # readable at 1366 px: nothing runs off to the side
    assert driver.execute_script("return document.documentElement.scrollWidth") <= 1366
    png = driver.get_screenshot_as_png()
    _save(png, "live.png", tmp_path)
    colours, commonest = _not_blank(png)
    assert colours > 20 and commonest < 0.97
    assert _csp_violations(driver) == []

    # new rows arrive: a bad one among them; the page shows them after its own reload
    monkeypatch.setattr(live_module, "LIVE_REFRESH_S", SHIPPED_REFRESH_S)
    driver.refresh()
    _wait(driver, ec.presence_of_element_located((By.CSS_SELECTOR, 'meta[http-equiv="refresh"]')),
          "the page with its reload")
    fill(store, rid, [1, 1, 1, 1, 1], start=16)

    def reloaded(d: Any) -> Any:
        """What the page shows once it reloaded with the new rows, read in one go (a read
        that meets the next reload is stale: the wait asks again)."""
        flagged = [a.text for a in d.find_elements(By.CSS_SELECTOR, "#flagged a.row-link")]
        if flagged[:1] != ["trace-020"]:
            return False
        series = d.find_elements(By.CSS_SELECTOR, "#over-time svg polyline.series")
        return ({len(s.get_dom_attribute("points").split()) for s in series},
                d.find_element(By.CSS_SELECTOR, "#alerts li").text)

    points, alert = WebDriverWait(
        driver, RELOAD_WAIT, poll_frequency=0.2,
        ignored_exceptions=(StaleElementReferenceException,)).until(
        reloaded, message="the page to reload with the new rows")
    assert points == {21}
    assert "ALERT groundedness" in alert

    # once the run stops, the page says so and reloads no more
    store.mark_interrupted(rid)
    driver.refresh()
    _wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#live-status .badge").text
          == "interrupted", "the stopped state")
    assert driver.find_elements(By.CSS_SELECTOR, 'meta[http-equiv="refresh"]') == []
