"""``assay serve`` end to end in headless Chromium (Selenium + chromedriver): the runs list,
a run's report (its filter and detail panel work under the report's Content-Security-Policy),
a row's own page, a comparison, and a screenshot that is not blank.

Needs Debian's ``chromium`` and ``chromium-driver`` (``/usr/bin/chromedriver``) and the
``selenium`` package; without them the module is skipped, unless ``ASSAY_REQUIRE_BROWSER=1``
makes that a failure. ``ASSAY_SCREENSHOT_DIR`` keeps the screenshots there.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest

from assay import RunOptions, evaluate

REQUIRED = os.environ.get("ASSAY_REQUIRE_BROWSER") == "1"
INSTALL = ("Fix: apt-get install -y chromium chromium-driver (Debian/Ubuntu), and "
           "pip install 'assay[dev]' (or 'selenium>=4.11').")
ROWS = [{"id": f"q{i}", "question": f"Question {i} about tent model {i}?",
         "answer": f"the answer is {i} kg", "ground_truth": f"answer {i} kg"} for i in range(1, 9)]
WAIT = 10  # seconds any one page state may take to appear


def _missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ModuleNotFoundError:
        return "needs the 'dev' extra: the selenium package is not installed"
    if not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")):
        return "no chromium browser on PATH"
    if not shutil.which("chromedriver"):
        return "no chromedriver on PATH"
    return None


def _need_browser() -> None:
    why = _missing()
    if why is None:
        return
    if REQUIRED:
        pytest.fail(f"ASSAY_REQUIRE_BROWSER=1 but {why}. {INSTALL}", pytrace=False)
    pytest.skip(f"browser tests skipped: {why}. {INSTALL}")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Two stored runs, served by uvicorn on 127.0.0.1 and a free port in a background thread."""
    _need_browser()
    tmp = tmp_path_factory.mktemp("browser")
    store = tmp / "runs.sqlite"
    data = tmp / "tents.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    base = evaluate(data, metrics="f1_score,exact_match",
                    run=RunOptions(store=store, run_name="base", tags=["nightly"]))
    fixed = tmp / "tents-fixed.jsonl"
    fixed.write_text("".join(json.dumps(dict(r, answer=r["ground_truth"]) if i % 2 else r) + "\n"
                             for i, r in enumerate(ROWS)), encoding="utf-8")
    better = evaluate(fixed, metrics="f1_score,exact_match",
                      run=RunOptions(store=store, run_name="better", tags=["nightly"]))

    with serving(store) as url:
        yield {"url": url, "base": base.summary["run_id"], "better": better.summary["run_id"]}


@contextlib.contextmanager
def serving(store: Path) -> Iterator[str]:
    """The web UI on ``store``, served by uvicorn on 127.0.0.1 and a free port in a background
    thread: its URL, until the block ends."""
    import uvicorn

    from assay.serve import create_app

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = create_app(store, allowed_hosts=["127.0.0.1", "localhost"])
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + WAIT
    while not srv.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(timeout=WAIT)
        sock.close()


def new_chromium(width: int = 1280, height: int = 900) -> Any:
    """A headless Chromium at ``width`` x ``height`` whose console is kept (for CSP checks);
    the caller quits it. The browser tests of every page start theirs here."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    browser = next(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")
                   if shutil.which(b))
    options.binary_location = browser  # type: ignore[assignment]
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    drv.set_page_load_timeout(WAIT * 2)
    return drv


@pytest.fixture(scope="module")
def driver(server: dict[str, Any]) -> Iterator[Any]:
    drv = new_chromium()
    try:
        yield drv
    finally:
        drv.quit()


def _wait(drv: Any, condition: Any, what: str) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(drv, WAIT, poll_frequency=0.05).until(condition, message=what)


def _visible_ids(drv: Any) -> list[str]:
    from selenium.webdriver.common.by import By

    return [tr.find_element(By.CSS_SELECTOR, "td.id").text
            for tr in drv.find_elements(By.CSS_SELECTOR, "#rowtable tbody tr")
            if tr.is_displayed()]


def _csp_violations(drv: Any) -> list[str]:
    return [e["message"] for e in drv.get_log("browser")
            if "Content Security Policy" in e["message"] or "Refused to" in e["message"]]


def _not_blank(png: bytes) -> tuple[int, float]:
    """(distinct colours, share of the commonest colour) of a PNG screenshot."""
    import matplotlib.image as mpimg

    assert png.startswith(b"\x89PNG\r\n\x1a\n"), "the screenshot is not a PNG"
    pixels = mpimg.imread(io.BytesIO(png), format="png")
    flat = np.round(pixels.reshape(-1, pixels.shape[-1]) * 255).astype(np.uint8)
    colours, counts = np.unique(flat, axis=0, return_counts=True)
    return len(colours), float(counts.max() / counts.sum())


def _save(png: bytes, name: str, tmp_path: Path) -> Path:
    folder = Path(os.environ.get("ASSAY_SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(png)
    return path


def test_list_run_filter_row_page_and_compare(driver: Any, server: dict[str, Any],
                                              tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    url, base, better = server["url"], server["base"], server["better"]

    # the runs list: both runs, newest first
    driver.get(url + "/")
    listed = [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#runs a.run-link")]
    assert listed == [better, base]

    # open the base run: its report, every row shown
    driver.find_element(By.CSS_SELECTOR, f'#runs a.run-link[href="/runs/{base}"]').click()
    _wait(driver, ec.presence_of_element_located((By.ID, "rowtable")), "the run page")
    assert driver.current_url == f"{url}/runs/{base}"
    assert _visible_ids(driver) == [r["id"] for r in ROWS]

    # typing in the filter hides the other rows (the report's script runs under its CSP)
    box = driver.find_element(By.ID, "filter")
    box.send_keys("model 3")
    _wait(driver, lambda d: _visible_ids(d) == ["q3"], "the filter to keep only q3")
    assert driver.find_element(By.ID, "shown").text == f"1 of {len(ROWS)} rows"
    box.clear()
    box.send_keys(" ")  # an input event with no terms: every row again
    _wait(driver, lambda d: len(_visible_ids(d)) == len(ROWS), "the filter to clear")

    # click a row: the detail panel opens with its inputs and a link to the row's own page
    driver.find_element(By.CSS_SELECTOR, '#rowtable tbody tr[data-i="4"]').click()
    _wait(driver, ec.visibility_of_element_located((By.ID, "panel")), "the detail panel")
    detail = driver.find_element(By.ID, "detail-4")
    assert detail.is_displayed() and "Question 5 about tent model 5?" in detail.text
    assert _csp_violations(driver) == []
    detail.find_element(By.CSS_SELECTOR, "a.row-page").click()
    _wait(driver, ec.url_to_be(f"{url}/runs/{base}/rows/q5"), "the row page")
    assert driver.find_element(By.TAG_NAME, "h1").text == "Row q5"
    body = driver.find_element(By.TAG_NAME, "body").text
    assert "Question 5 about tent model 5?" in body and "f1_score" in body
    driver.find_element(By.ID, "next-row").click()
    _wait(driver, ec.url_to_be(f"{url}/runs/{base}/rows/q6"), "the next row's page")

    # back to the list: A = the older run, B = the newest are preselected; compare them
    driver.find_element(By.LINK_TEXT, "All runs").click()
    _wait(driver, ec.presence_of_element_located((By.ID, "compare")), "the runs list")
    assert driver.find_element(By.CSS_SELECTOR, f'input[name="a"][value="{base}"]').is_selected()
    driver.find_element(By.CSS_SELECTOR, f'input[name="b"][value="{better}"]').click()
    driver.find_element(By.ID, "compare").click()
    _wait(driver, ec.presence_of_element_located((By.ID, "comparison")), "the comparison")
    parts = urlsplit(driver.current_url)
    assert (parts.path, parse_qs(parts.query)) == ("/compare", {"a": [base], "b": [better]})
    comparison = driver.find_element(By.ID, "comparison").text
    assert base in comparison and better in comparison and "f1_score" in comparison
    assert "B better" in comparison  # half the answers were fixed
    assert _csp_violations(driver) == []

    png = driver.get_screenshot_as_png()
    _save(png, "assay-serve-compare.png", tmp_path)
    colours, top_share = _not_blank(png)
    assert colours > 50 and top_share < 0.97, (colours, top_share)


def test_run_page_screenshot_is_not_blank(driver: Any, server: dict[str, Any],
                                          tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    driver.get(f"{server['url']}/runs/{server['better']}")
    _wait(driver, ec.presence_of_element_located((By.CSS_SELECTOR, "svg.hist")), "histograms")
    png = driver.get_screenshot_as_png()
    _save(png, "assay-serve-run.png", tmp_path)
    colours, top_share = _not_blank(png)
    assert colours > 50 and top_share < 0.97, (colours, top_share)
