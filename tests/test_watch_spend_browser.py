"""The spend part of a watch run's live page in headless Chromium: the dollars and seconds
charts (the app and the judge apart, a minute with an unpriced trace marked), the per-minute
table, the latest traces with their figures, the totals with the unknown price's reason; it
fits 1366 px and breaks no Content-Security-Policy rule. Skipped without Chromium, as
``test_serve_browser`` says (``ASSAY_REQUIRE_BROWSER=1`` makes that a failure)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from assay.store import open_store
from test_serve_browser import _csp_violations, _need_browser, _not_blank, _save, _wait, serving
from test_serve_browser import driver as driver  # noqa: PLC0414 - the module's browser, on our server

T0 = datetime(2026, 12, 8, 2, 0, 5, tzinfo=UTC)
UNPRICED = "no price for model 'acme-internal-llm-7' (add it to a --prices file)"


def spend_record(i: int) -> dict[str, Any]:
    """Trace ``i``, scored 25 s after the one before (four minutes hold nine); trace 4's model
    has no price."""
    unpriced = i == 4
    return {"id": f"trace-{i:03d}", "fluency": {"value": 4.0, "reason": "clear"},
            "watch": {"trace_id": f"{i:032x}", "ended": "", "received": "",
                      "scored": (T0 + timedelta(seconds=25 * i)).isoformat(),
                      "app": {"usd": None if unpriced else 0.0045,
                              "unknown_reason": UNPRICED if unpriced else None,
                              "requests": 1, "prompt_tokens": 1200, "completion_tokens": 300,
                              "models": ["acme-internal-llm-7" if unpriced else "shop-model"],
                              "latency_s": 2.0 + i / 10, "llm_s": 1.5},
                      "judge": {"usd": 0.00056, "requests": 1, "prompt_tokens": 500,
                                "completion_tokens": 20, "latency_s": 0.4}}}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    _need_browser()
    path = tmp_path_factory.mktemp("spend") / "runs.sqlite"
    store = open_store(path)
    rid = store.create_run(kind="watch", name="prod-chat")
    store.add_rows(rid, [spend_record(i) for i in range(9)])
    with serving(path) as url:
        yield {"url": url, "run": rid}
    store.close()


def test_the_live_page_charts_and_tables_the_spend_per_minute_and_per_trace(
        driver: Any, server: dict[str, Any], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    import assay.serve._live as live_module

    monkeypatch.setattr(live_module, "LIVE_REFRESH_S", 600)  # no reload while it is read
    driver.set_window_size(1366, 900)
    driver.get(f"{server['url']}/runs/{server['run']}/live")
    _wait(driver, ec.presence_of_element_located((By.ID, "spend")), "the spend section")

    usd = driver.find_elements(By.CSS_SELECTOR, "#spend-chart-usd polyline.series")
    assert [s.get_dom_attribute("data-series") for s in usd] == ["app $", "judge $"]
    assert [len(s.get_dom_attribute("points").split()) for s in usd] == [4, 4]
    marks = driver.find_elements(By.CSS_SELECTOR, "#spend-chart-usd circle.unpriced")
    assert len(marks) == 1  # trace 4's minute: its app total is unknown
    seconds = driver.find_elements(By.CSS_SELECTOR, "#spend-chart-seconds polyline.series")
    assert len(seconds) == 4
    charts = driver.find_elements(By.CSS_SELECTOR, "#spend figure.live-chart svg[role=img]")
    assert len(charts) == 2 and all(c.is_displayed() and c.size["width"] > 300 for c in charts)

    minutes = [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
               for tr in driver.find_elements(By.CSS_SELECTOR, "#minute-table tbody tr")]
    # newest first: 02:03 holds traces 7 and 8; 02:01 holds 3 and 4 (unpriced); 02:00 0-2
    assert [m[0] for m in minutes] == ["02:03", "02:02", "02:01", "02:00"]
    assert [m[1] for m in minutes] == ["2", "2", "2", "3"]
    assert minutes[0][4] == "$0.00900" and minutes[2][4] == "unknown"
    assert minutes[0][8] == "$0.00112"
    latest = driver.find_element(By.CSS_SELECTOR, "#trace-spend tbody tr")
    assert latest.get_dom_attribute("data-row") == "trace-008"
    unpriced = driver.find_element(By.CSS_SELECTOR, '#trace-spend tr[data-row="trace-004"]')
    assert UNPRICED in unpriced.text and "$0" not in unpriced.find_elements(
        By.TAG_NAME, "td")[4].text
    totals = driver.find_element(By.ID, "spend-totals").text
    assert "the app unknown (1 trace unpriced" in totals and "the priced ones: $0.0360" in totals
    assert "the judge $0.00504 ($0.00504 for 9 requests" in totals

    assert driver.execute_script("return document.documentElement.scrollWidth") <= 1366
    section = driver.find_element(By.ID, "spend")
    driver.execute_script("arguments[0].scrollIntoView()", section)
    png = section.screenshot_as_png
    _save(png, "live-spend.png", tmp_path)
    colours, commonest = _not_blank(png)
    assert colours > 20 and commonest < 0.97
    assert _csp_violations(driver) == []
