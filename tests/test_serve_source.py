"""A generated row's source in the web UI and the HTML report: beside the row, each ``source``
span's document, offsets and evidence text, and the row's context with the evidence marked.
The run is made as a user makes it: ``examples/faq_questions.jsonl`` answered by a ``python:``
app with ``--target``, stored, then served (TestClient; and in headless Chromium when it is
installed, as in ``test_serve_browser``)."""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from assay.agents import make_agent
from assay.records import load_run_dir
from assay.report import inputs_for_run, render_report
from assay.run import RunOptions, evaluate
from assay.serve import create_app
from assay.serve._views import row_href
from assay.store import Store, open_store

ROOT = Path(__file__).resolve().parents[1]
FAQ = ROOT / "examples" / "faq_questions.jsonl"
REFUND = "Refunds are paid within 14 days of the return reaching us."
MARKED = f'<mark class="evidence">{REFUND}</mark>'


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("source")
    store_path = tmp / "runs.sqlite"
    result = evaluate(FAQ, metrics="f1_score", agent=make_agent("python:examples.apps:faq_app"),
                      run=RunOptions(out=tmp / "out", store=store_path, progress=False))
    with open_store(store_path) as store:
        plain = store.create_run(name="offsets only")
        store.add_rows(plain, [{"id": "o1", "f1_score": {"value": 1.0}},
                               {"id": "o2", "f1_score": {"value": 0.0}}], inputs={
            "o1": {"question": "Q?", "answer": "A.", "context": "Alpha <b>beta</b> gamma.",
                   "extra": {"source": [{"doc": "notes.md", "start": 3, "end": 9}]}},
            "o2": {"question": "Q?", "answer": "A.", "context": "x <script>alert(1)</script> y",
                   "extra": {"source": [{"doc": "<evil>.md", "start": 2, "end": 27,
                                         "text": "<script>alert(1)</script>"}]}}})
        store.finish_run(plain, summary={"metrics": {"f1_score": {"mean": 0.5}}}, complete=True)
        yield {"store": store, "run": result.summary["run_id"], "plain": plain,
               "out": tmp / "out"}


@pytest.fixture(scope="module")
def client(made: dict[str, Any]) -> TestClient:
    return TestClient(create_app(made["store"]))


def _text(page: str) -> str:
    return " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_the_row_page_shows_each_span_and_marks_its_evidence_in_the_context(
        client: TestClient, made: dict[str, Any]) -> None:
    page = client.get(row_href(made["run"], "faq-refund"))
    assert page.status_code == 200
    assert MARKED in page.text
    text = _text(page.text)
    assert "Source (1 span) returns.md characters 49-107 " + REFUND in text
    assert "Answer " + REFUND in text  # the app's answer, stored with the row's inputs
    two = _text(client.get(row_href(made["run"], "faq-warranty-stove")).text)
    assert ("Source (2 spans) warranty.md characters 10-45 Every tent has a two-year "
            "warranty.") in two
    assert two.count("Stoves are covered for one year.") >= 2  # in the context and the span
    chat = client.get(row_href(made["run"], "faq-chat-express")).text  # a conversation
    assert ('<mark class="evidence">Standard shipping takes 3 to 5 working days.</mark>'
            in chat)
    none = client.get(row_href(made["run"], "faq-store-hours")).text
    assert "Source (" not in none and "<mark" not in none  # an unanswerable row has no span


def test_a_span_without_its_text_shows_the_document_and_offsets_and_marks_nothing(
        client: TestClient, made: dict[str, Any]) -> None:
    page = client.get(row_href(made["plain"], "o1")).text
    text = _text(page)
    assert "Source (1 span) notes.md characters 3-9 (evidence text not stored)" in text
    assert "<mark" not in page
    assert "Alpha &lt;b&gt;beta&lt;/b&gt; gamma." in page  # data, escaped


def test_evidence_is_escaped_like_any_text(client: TestClient, made: dict[str, Any]) -> None:
    page = client.get(row_href(made["plain"], "o2")).text
    assert "<script>alert" not in page and "<evil>" not in page
    assert '<mark class="evidence">&lt;script&gt;alert(1)&lt;/script&gt;</mark>' in page
    assert "&lt;evil&gt;.md" in page


def test_the_run_page_and_the_html_report_show_the_source_too(
        client: TestClient, made: dict[str, Any]) -> None:
    assert MARKED in client.get(f"/runs/{made['run']}").text
    run = load_run_dir(made["out"])
    inputs, note = inputs_for_run(run)  # from the dataset file, which has no answers
    assert note is None and inputs is not None
    report = render_report(run, inputs=inputs)
    assert MARKED in report and "returns.md" in report
    assert "Answer " + REFUND in _text(report)  # the app's answer, from the row's record


def test_the_row_page_shows_the_marked_evidence_in_a_browser(made: dict[str, Any]) -> None:
    from test_serve_browser import _csp_violations, _need_browser, new_chromium, serving

    _need_browser()
    from selenium.webdriver.common.by import By

    store: Store = made["store"]
    with serving(Path(store.url.removeprefix("sqlite:///"))) as url:
        drv = new_chromium()
        try:
            drv.get(url + row_href(made["run"], "faq-refund"))
            mark = drv.find_element(By.CSS_SELECTOR, "#inputs mark.evidence")
            assert mark.is_displayed() and mark.text == REFUND
            assert mark.value_of_css_property("background-color") not in (
                "rgba(0, 0, 0, 0)", "transparent")
            span = drv.find_element(By.CSS_SELECTOR, "#inputs li.source")
            assert "returns.md" in span.text and REFUND in span.text
            assert _csp_violations(drv) == []
        finally:
            drv.quit()
