"""An agent's trajectory in the HTML report and on the web UI's row page: readable steps (call,
pretty arguments, result, assistant text, final answer), reference calls, the agent metrics'
findings beside the call they name, long results cut, and every text escaped."""

from __future__ import annotations

import json
from typing import Any

from starlette.testclient import TestClient

from assay.data import row_inputs, rows_from_records
from assay.records import RunData
from assay.report import render_report
from assay.report._trajectory import RESULT_CHARS, trajectory_view
from assay.run import RunOptions, evaluate
from assay.serve import create_app

EVIL = "<script>alert('x')</script><!-- </pre> -->"
LONG = "".join(f"{{\"hotel_id\": {i}, \"price\": {100 + i}}}, " for i in range(200))
ROW: dict[str, Any] = {
    "id": "a1",
    "messages": [
        {"role": "system", "content": "You are a travel assistant."},
        {"role": "user", "content": "Book a hotel in Paris under 200 euros."},
        {"role": "assistant", "content": "Let me look.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {
                "name": "search_hotels", "arguments": "{\"city\": \"Lyon\", \"max_price\": 200}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": LONG},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c2", "type": "function", "function": {
                "name": "book_hotel", "arguments": "{hotel_id: 3"}}]},
        {"role": "tool", "tool_call_id": "c2", "content": EVIL},
        {"role": "assistant", "content": "Booked hotel 3 <b>now</b>."}],
    "reference_tool_calls": [
        {"name": "search_hotels", "arguments": {"city": "Paris", "max_price": 200},
         "accept": {"max_price": [200, None]}}],
}
METRICS = "tool_call_accuracy,trajectory_exact_match"


def _inputs() -> dict[str, Any]:
    return row_inputs(rows_from_records([ROW])[0])


def test_steps_in_order_with_pretty_arguments_results_and_answer() -> None:
    view = trajectory_view(_inputs())
    assert view is not None
    assert [(s.kind, s.title) for s in view.steps] == [
        ("system", "system"), ("user", "user"), ("text", "assistant"),
        ("call", "call 1: search_hotels"), ("result", "result of search_hotels (c1)"),
        ("call", "call 2: book_hotel"), ("result", "result of book_hotel (c2)"),
        ("answer", "final answer")]
    call = view.steps[3]
    assert json.loads(call.text) == {"city": "Lyon", "max_price": 200} and "\n  " in call.text
    broken = view.steps[5]
    assert broken.text == "{hotel_id: 3" and broken.note == "the arguments are not valid JSON"
    long = view.steps[4]
    assert len(long.text) == RESULT_CHARS + 1 and long.full == LONG
    assert str(len(LONG)) in long.note
    assert view.steps[6].text == EVIL and view.steps[6].full == ""
    assert view.steps[-1].text == "Booked hotel 3 <b>now</b>."
    (ref,) = view.references
    assert ref.title == "reference 1: search_hotels"
    assert ref.text == 'city: "Paris"\nmax_price: 200, or left out'


def test_a_conversation_without_tools_has_no_trajectory() -> None:
    plain = {"messages": [{"role": "user", "content": "Hi"},
                          {"role": "assistant", "content": "Hello"}]}
    assert trajectory_view(plain) is None


def test_findings_sit_beside_the_call_they_name_each_once() -> None:
    res = evaluate([ROW], metrics=METRICS, run=RunOptions(progress=False))
    (rec,) = res.rows
    view = trajectory_view(_inputs(), rec)
    assert view is not None
    first, second = (s for s in view.steps if s.kind == "call")
    assert len(first.findings) == 1 and "wrong value for 'city': 'Lyon'" in first.findings[0]
    assert len(second.findings) == 1 and "extra call" in second.findings[0]
    assert view.references[0].findings == [] and view.other == []


def test_the_report_renders_the_steps_escaped() -> None:
    res = evaluate([ROW], metrics=METRICS, run=RunOptions(progress=False))
    run = RunData(id="r", summary=res.summary, records=res.rows)
    html = render_report(run, inputs={"a1": _inputs()})
    assert "call 1: search_hotels" in html and "&#34;city&#34;: &#34;Lyon&#34;" in html
    assert "result of book_hotel (c2)" in html and "final answer" in html
    assert "Reference calls (1)" in html and "show all (" in html
    assert "extra call" in html and "Mismatches" in html
    assert "<script>alert" not in html and "&lt;script&gt;alert(" in html
    assert "<b>now</b>" not in html and "&lt;b&gt;now&lt;/b&gt;" in html
    assert html.count("<script>") == 1  # the report's own script only


def test_the_row_page_of_the_web_ui_renders_the_calls_escaped(tmp_path: Any) -> None:
    store = tmp_path / "runs.sqlite"
    res = evaluate([ROW], metrics=METRICS, run=RunOptions(store=store, progress=False))
    with TestClient(create_app(store)) as client:
        page = client.get(f"/runs/{res.summary['run_id']}/rows/a1")
    assert page.status_code == 200
    html = page.text
    assert "Conversation (7 turns, 2 tool calls)" in html
    assert "call 2: book_hotel" in html and "{hotel_id: 3" in html
    assert "the arguments are not valid JSON" in html and "extra call" in html
    assert "&lt;script&gt;alert(" in html and "<script" not in html


def test_no_final_answer_and_an_empty_reference_are_said() -> None:
    cut = {"messages": [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": "Checking.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"}],
        "reference_tool_calls": []}
    view = trajectory_view(cut)
    assert view is not None
    assert [s.kind for s in view.steps] == ["user", "text", "call", "result"]
    assert view.references == []
    assert view.notes == ["The conversation ends without a final answer.",
                          "Reference calls: none (the agent should call no tool)."]


def test_matched_pairs_read_as_calls_and_references() -> None:
    from assay.report._details import detail_items

    items = {i.key: i for i in detail_items({"matched": [[1, 2], [2, 1]], "findings": []})}
    assert (items["matched"].label, items["matched"].text) == (
        "Matched calls", "call 1 = reference 2; call 2 = reference 1")
    assert (items["findings"].label, items["findings"].text) == ("Mismatches", "none")
    assert not items["findings"].highlight
