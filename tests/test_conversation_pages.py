"""A simulated conversation in the web UI, as a user meets it: scored by ``assay.evaluate``
into a store, served by uvicorn, opened in headless Chromium (as ``test_serve_browser``
does). The run page's detail panel and the row's own page show each message as a turn, each
metric's reason inside the turn it names, the tool result folded under its call, the stop
reason on top; and the attack transcript's success turn marked. The row page is checked
through the app too (TestClient), without a browser.

``ASSAY_SCREENSHOT_DIR`` keeps the screenshots there."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from assay.serve import create_app
from test_conversation_view import REASONS, score_fixture
from test_report import parse
from test_serve_browser import (  # noqa: F401  (the browser fixture and helpers)
    _csp_violations,
    _need_browser,
    _not_blank,
    _save,
    _wait,
    driver,
    serving,
)

STOVES = REASONS["stoves boil"][1]
REFUND = REASONS["opened refund R-77"][1]


def _stored(tmp: Path) -> tuple[Path, str]:
    store = tmp / "runs.sqlite"
    result = score_fixture(store=store)
    return store, str(result.summary["run_id"])


def test_the_row_page_places_each_reason_in_its_turn(tmp_path: Path) -> None:
    store, run = _stored(tmp_path)
    with TestClient(create_app(store)) as client:
        page = client.get(f"/runs/{run}/rows/refund-chat")
        attack = client.get(f"/runs/{run}/rows/attack-crescendo").text
    assert page.status_code == 200
    html = page.text
    tree = parse(html)
    assert tree.problems == []
    turn6 = html[html.index('data-turn="6"'):html.index("</li>\n</ol>", html.index('data-turn="6"'))]
    assert "Our stoves boil water" in turn6 and "R6 &lt;i&gt;talks&lt;/i&gt; about stoves" in turn6
    assert "R4 confirms" not in turn6
    assert '<dd class="fact warn"><span class="fact-text">max_turns</span>' in html
    assert "&lt;script&gt;alert(&#39;user&#39;)" in html and "<script" not in html
    assert 'class="turn role-assistant marked has-results" data-turn="3"' in attack


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    _need_browser()
    store, run = _stored(tmp_path_factory.mktemp("conversation-browser"))
    with serving(store) as url:
        yield {"url": url, "run": run}


_TURN_OF = "return arguments[0].closest('li.turn').dataset.turn;"
_BEFORE = "return !!(arguments[0].compareDocumentPosition(arguments[1]) & 4);"


def test_reasons_sit_beside_their_turns_in_chromium(driver: Any, server: dict[str, Any],  # noqa: F811
                                                    tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    url, run = server["url"], server["run"]
    driver.get(f"{url}/runs/{run}")
    _wait(driver, ec.presence_of_element_located((By.ID, "rowtable")), "the run page")
    driver.find_element(By.CSS_SELECTOR, '#rowtable tbody tr[data-i="0"]').click()
    detail = _wait(driver, ec.visibility_of_element_located((By.ID, "detail-0")),
                   "the detail panel")

    # the stop reason and the scenario head the conversation
    facts = detail.find_element(By.CSS_SELECTOR, "dl.conversation-facts")
    assert "max_turns (the turn limit came first)" in facts.text
    assert "get a refund for order A1006 <b>now</b>" in facts.text  # as text, not markup
    assert facts.location["y"] < detail.find_element(By.CSS_SELECTOR, "ol.chat").location["y"]

    # every turn in order, the tool result not a turn of its own
    turns = detail.find_elements(By.CSS_SELECTOR, "ol.chat > li.turn")
    assert [t.get_attribute("data-turn") for t in turns] == ["0", "1", "2", "4", "5", "6"]

    # each reason inside the turn it names, after that turn's message and before the next turn
    reasons = {(driver.execute_script(_TURN_OF, r),
                r.find_element(By.XPATH, "ancestor::li[@data-metric]").get_attribute(
                    "data-metric")): r.text
               for r in detail.find_elements(By.CSS_SELECTOR, ".turn-result .reason")}
    assert reasons[("6", "coherence")] == STOVES and reasons[("6", "relevance")] == STOVES
    assert reasons[("4", "coherence")] == REFUND
    turn6 = detail.find_element(By.CSS_SELECTOR, 'li.turn[data-turn="6"]')
    message = turn6.find_element(By.CSS_SELECTOR, ".bubble > .text")
    reason = turn6.find_element(By.CSS_SELECTOR, '.turn-result[data-metric="coherence"] .reason')
    assert message.text == "Our stoves boil water in 3 minutes." and reason.is_displayed()
    assert driver.execute_script(_BEFORE, message, reason)
    turn5 = detail.find_element(By.CSS_SELECTOR, 'li.turn[data-turn="5"]')
    assert driver.execute_script(_BEFORE, turn5, reason)
    assert abs(reason.location["y"] - message.location["y"]) < 200  # on screen beside it

    # the tool result is folded under its call, inside the turn that called
    result = detail.find_element(By.CSS_SELECTOR, 'li.turn[data-turn="2"] .call details.tool-result')
    assert result.get_attribute("data-turn") == "3" and result.get_attribute("open") is None
    assert _csp_violations(driver) == []
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", turn5)
    _save(driver.get_screenshot_as_png(), "assay-serve-conversation-panel.png", tmp_path)

    # the row's own page: the same turns; the attack's success turn marked
    driver.get(f"{url}/runs/{run}/rows/refund-chat")
    stop = _wait(driver, ec.visibility_of_element_located(
        (By.CSS_SELECTOR, "dl.conversation-facts")), "the row page")
    assert "max_turns" in stop.text and "3 user turns, the most allowed" in stop.text
    cell = driver.find_element(By.CSS_SELECTOR,
                               'li.turn[data-turn="6"] .turn-result[data-metric="relevance"]')
    assert STOVES in cell.text
    png = driver.get_screenshot_as_png()
    _save(png, "assay-serve-conversation-row.png", tmp_path)
    colours, top_share = _not_blank(png)
    assert colours > 50 and top_share < 0.97, (colours, top_share)
    driver.get(f"{url}/runs/{run}/rows/attack-crescendo")
    marked = _wait(driver, ec.visibility_of_element_located((By.CSS_SELECTOR, "li.turn.marked")),
                   "the attack's row page")
    assert marked.get_attribute("data-turn") == "3"
    assert "the attack succeeded here" in marked.text and "R-a3 gives a plan" in marked.text
    _save(driver.get_screenshot_as_png(), "assay-serve-attack-row.png", tmp_path)
    assert _csp_violations(driver) == []
