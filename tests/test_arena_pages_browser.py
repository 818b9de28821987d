"""An arena run's page in headless Chromium at 1400x900 (issue 48 part 6): the first screen
holds the leaderboard (interval bars on one axis) and the win-matrix heat map; a pair opens
both answers under the systems' names and the judge's reason for each order; the page
breaks no Content-Security-Policy rule.

Skipped without Chromium, chromedriver and selenium, unless ``ASSAY_REQUIRE_BROWSER=1`` (see
``test_serve_browser``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from test_arena_pages import EXPECTED, make_arena
from test_serve_browser import _need_browser, _save, _wait, new_chromium, serving

WIDTH, HEIGHT = 1400, 900


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    _need_browser()
    store, run_id = make_arena(tmp_path_factory.mktemp("arena-browser"))
    with serving(store) as url:
        yield {"url": url, "run": run_id}


@pytest.fixture(scope="module")
def driver(server: dict[str, str]) -> Iterator[Any]:
    drv = new_chromium(WIDTH, HEIGHT)
    drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
    try:
        yield drv
    finally:
        drv.quit()


def _open(drv: Any, url: str, selector: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    drv.get(url)
    _wait(drv, ec.presence_of_element_located((By.CSS_SELECTOR, selector)), selector)


def _box(drv: Any, selector: str) -> dict[str, float]:
    box = drv.execute_script(
        "const e = document.querySelector(arguments[0]); if (!e) return null;"
        "const r = e.getBoundingClientRect();"
        "return {top: r.top, bottom: r.bottom, left: r.left, right: r.right};", selector)
    assert box is not None, f"no {selector} on the page"
    return dict(box)


def _on_first_screen(drv: Any, selector: str) -> None:
    box = _box(drv, selector)
    assert 0 <= box["top"] and box["bottom"] <= HEIGHT, (selector, box)
    assert 0 <= box["left"] and box["right"] <= WIDTH, (selector, box)


def test_first_screen_holds_the_board_and_the_heat_map(driver: Any, server: dict[str, str],
                                                       tmp_path: Path) -> None:
    _open(driver, f"{server['url']}/runs/{server['run']}", "svg.heat")
    for selector in ("#leaderboard", "#judge-position", "p.missing", "#win-matrix svg.heat"):
        _on_first_screen(driver, selector)
    ranks = driver.execute_script(
        "return [...document.querySelectorAll('#leaderboard tbody tr')].map(r => "
        "[r.cells[0].textContent, r.cells[1].textContent])")
    assert ranks == [["1", "best"], ["2", "good"], ["3", "worst"]]
    # the interval bars share one axis: the dots fall left to right as the ratings do
    dots = driver.execute_script(
        "return [...document.querySelectorAll('#leaderboard svg.interval circle')].map(c => "
        "c.getBoundingClientRect().left)")
    assert len(dots) == 3 and dots[0] > dots[1] > dots[2], dots
    cells = driver.execute_script(
        "return [...document.querySelectorAll('svg.heat g.cell')].map(g => [g.dataset.row, "
        "g.dataset.col, g.querySelector('text.share').textContent, "
        "g.querySelector('text.n').textContent])")
    assert {(r, c): (s, n) for r, c, s, n in cells} == {
        key: (f"{won / n:.0%}", f"n={n}") for key, (won, n) in EXPECTED.items()}
    _save(driver.get_screenshot_as_png(), "assay-arena-first-screen.png", tmp_path)
    errors = [e for e in driver.get_log("browser") if "Content Security Policy" in e["message"]]
    assert errors == []


def test_a_pair_opens_both_answers_and_both_reasons(driver: Any, server: dict[str, str],
                                                    tmp_path: Path) -> None:
    _open(driver, f"{server['url']}/runs/{server['run']}", "#pairlist")
    pair = driver.find_element("css selector", 'details.arena-pair[data-id="r1 | best vs worst"], '
                                               'details.arena-pair[data-id="r1 | worst vs best"]')
    assert not driver.find_element("css selector", "#pairlist").find_elements(
        "css selector", "details[open]")
    driver.execute_script("arguments[0].scrollIntoView()", pair)
    pair.find_element("css selector", "summary").click()
    answers = driver.execute_script(
        "return [...arguments[0].querySelectorAll('.answer')].map(a => [a.dataset.system, "
        "a.querySelector('.text').textContent, a.getBoundingClientRect().left, "
        "a.getBoundingClientRect().top])", pair)
    by_system = {name: text for name, text, _, _ in answers}
    assert by_system == {"best": "quality 3 answer 1", "worst": "quality 0 answer 1"}
    assert answers[0][2] < answers[1][2] and answers[0][3] == answers[1][3]  # side by side
    assert all(a[0] not in ("candidate", "baseline") for a in answers)
    orders = driver.execute_script(
        "return [...arguments[0].querySelectorAll('li.order')].map(o => o.textContent)", pair)
    assert len(orders) == 2
    assert {o.split(" shown first")[0] for o in orders} == {"best", "worst"}
    assert all("chose best" in o for o in orders), orders
    assert {o.split(": ")[-1] for o in orders} == {"A 3 / B 0", "A 0 / B 3"}
    assert all(driver.execute_script(
        "return arguments[0].getBoundingClientRect().height > 0", e) for e in
        pair.find_elements("css selector", "li.order"))
    _save(driver.get_screenshot_as_png(), "assay-arena-pair.png", tmp_path)
