"""Anthropic content blocks and OpenTelemetry GenAI traces (OTLP JSON) read as the same rows as
OpenAI tool-call conversations: equal messages, tools, references and metric values."""

from __future__ import annotations

import asyncio
import copy
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli.main import app
from assay.data import DatasetStream, Row, read_dataset, rows_from_records
from assay.errors import DataError
from assay.metrics import ScoreContext, get_metric, plan_metrics
from assay.metrics.agent import AGENT_JUDGED

ROOT = Path(__file__).resolve().parents[1]
OPENAI = [json.loads(x) for x in (ROOT / "examples" / "agent_calls.jsonl").read_text(
    encoding="utf-8").splitlines() if x.strip()]
TRACE = ROOT / "examples" / "agent_trace.json"  # the trace of OPENAI[0] ("correct_search")


def anthropic(rec: dict[str, Any]) -> dict[str, Any]:
    """The Anthropic Messages form of a two-step OpenAI example row, written out by hand."""
    m = rec["messages"]
    call = m[2]["tool_calls"][0]
    return {
        "id": rec["id"], "system": m[0]["content"],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": m[1]["content"]}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": call["id"],
                                               "name": call["function"]["name"],
                                               "input": json.loads(call["function"]["arguments"])}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"],
                                          "content": [{"type": "text", "text": m[3]["content"]}]}]},
            {"role": "assistant", "content": [{"type": "text", "text": m[4]["content"]}]}],
        "tools": [{"name": t["function"]["name"], "description": t["function"]["description"],
                   "input_schema": t["function"]["parameters"]} for t in rec["tools"]],
        "reference_tool_calls": rec["reference_tool_calls"]}


def same(a: Row, b: Row) -> None:
    assert a.messages == b.messages
    assert (a.tools, a.reference_tool_calls) == (b.tools, b.reference_tool_calls)
    assert [(c.id, c.name, c.arguments()) for c in a.tool_calls()] == \
        [(c.id, c.name, c.arguments()) for c in b.tool_calls()]


def accuracy(row: Row) -> float | None:
    metric = get_metric("tool_call_accuracy")
    return asyncio.run(metric.score(row, ScoreContext(judge=None))).value


def write_jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _two_step(rec: dict[str, Any]) -> bool:
    """A row :func:`anthropic` can write: five messages, arguments a JSON object (Anthropic's
    ``input`` is always one, so an agent's broken JSON has no Anthropic form)."""
    if len(rec["messages"]) != 5 or not rec["messages"][2].get("tool_calls"):
        return False
    try:
        return isinstance(json.loads(rec["messages"][2]["tool_calls"][0]["function"]["arguments"]),
                          dict)
    except ValueError:
        return False


@pytest.mark.parametrize("rec", [r for r in OPENAI if _two_step(r)], ids=lambda r: r["id"])
def test_anthropic_and_openai_give_equal_rows_and_scores(rec: dict[str, Any]) -> None:
    openai_row, anthropic_row = rows_from_records([rec, {**anthropic(rec), "id": "a"}])
    same(openai_row, anthropic_row)
    assert openai_row.messages is not None and openai_row.messages[0].role == "system"
    assert accuracy(openai_row) == accuracy(anthropic_row)
    assert "system" not in anthropic_row.extra


def test_a_failing_agent_fails_in_both_forms() -> None:
    wrong = next(r for r in OPENAI if r["id"] == "wrong_argument")
    rows = rows_from_records([wrong, {**anthropic(wrong), "id": "a"}])
    assert [accuracy(r) for r in rows] == [0.0, 0.0]  # a failing agent fails in both forms


def test_mixed_text_and_tool_results_and_a_file_mixing_forms(tmp_path: Path) -> None:
    rec = anthropic(OPENAI[0])
    rec["messages"][2]["content"].append({"type": "text", "text": "Book the cheaper one."})
    rec["messages"][2]["content"][0]["is_error"] = True
    rec["messages"][3] = {"role": "assistant", "content": "Booking hotel 3."}  # plain text
    path = write_jsonl(tmp_path / "mixed.jsonl", [OPENAI[0], {**rec, "id": "blocks"}])
    plain, blocks = read_dataset(path)
    assert blocks.messages is not None
    assert [(t.role, t.tool_call_id) for t in blocks.messages] == [
        ("system", None), ("user", None), ("assistant", None), ("tool", "c1"), ("user", None),
        ("assistant", None)]
    assert blocks.messages[3].content.startswith("Error: [{")
    assert blocks.messages[4].content == "Book the cheaper one."
    assert plain.tool_calls() == blocks.tool_calls()


def test_a_tool_result_answering_no_tool_use_is_named() -> None:
    rec = anthropic(OPENAI[0])
    rec["messages"][2]["content"][0]["tool_use_id"] = "toolu_missing"
    rec["messages"][1]["content"][0].pop("name")
    with pytest.raises(DataError) as e:
        rows_from_records([rec, {**anthropic(OPENAI[0]), "id": "ok"},
                           {**anthropic(OPENAI[0]), "id": "bad2", "messages": [
                               {"role": "user", "content": [
                                   {"type": "tool_result", "tool_use_id": "x", "content": "1"}]}]}])
    text = str(e.value)
    assert "<records> line 1, field 'messages[1].content[0].name': missing or not text" in text
    assert ("<records> line 3, field 'messages[0].content[0].tool_use_id': 'x' answers no "
            "earlier tool call. Fix:") in text
    assert "line 2" not in text


def test_broken_blocks_are_named() -> None:
    with pytest.raises(DataError) as e:
        rows_from_records([{"system": 5, "messages": [
            {"role": "user", "content": ["hi"]},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "a", "name": "f", "input": "x"},
                {"type": "tool_result", "tool_use_id": "a", "content": "1"}]}]}])
    assert [p.split(". Fix")[0] for p in e.value.problems] == [
        ("<records> line 1, field 'messages[0].content[0]': expected a content block "
        "{\"type\", ...}, got str"),
        ("<records> line 1, field 'messages[1].content[0].input': expected an object of "
        "arguments, got str"),
        ("<records> line 1, field 'messages[1].content[1].type': a tool_result block in a "
        "message of role 'assistant'"),
        "<records> line 1, field 'system': expected text or a list of text blocks, got int"]


def test_two_tool_use_blocks_of_one_message_with_one_id_are_named() -> None:
    rec = anthropic(OPENAI[0])
    blocks = rec["messages"][1]["content"]
    blocks.append({**blocks[0], "input": {"city": "Rome"}})
    with pytest.raises(DataError) as e:
        rows_from_records([{**anthropic(OPENAI[0]), "id": "ok"}, rec])
    assert [p.split(" (a tool")[0] for p in e.value.problems] == [
        (f"<records> line 2, field 'messages[1].content[1].id': {blocks[0]['id']!r} is also "
         "the id of content[0] of this message. Fix: give each tool_use block of a message its "
         "own 'id'")]


def test_trace_gives_the_same_row_as_the_openai_form() -> None:
    trace_row = read_dataset(TRACE)[0]
    openai_row = rows_from_records([OPENAI[0]])[0]
    same(trace_row, openai_row)
    assert trace_row.id == "correct_search"  # the root span's gen_ai.conversation.id
    assert trace_row.extra == {"trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
                               "conversation_id": "correct_search"}
    assert accuracy(trace_row) == accuracy(openai_row) == 1.0
    stream = DatasetStream(TRACE)  # what `assay run` reads
    assert stream.check() == 1 and [r.messages for r in stream] == [openai_row.messages]


def export_lines(tmp_path: Path, mutate: Any = None) -> Path:
    """The trace written as JSONL: one export per line, one scope's spans per export, plus a
    plain OpenAI row; ``mutate(spans)`` edits the spans first."""
    export = json.loads(TRACE.read_text(encoding="utf-8"))
    spans = [s for ss in export["resourceSpans"][0]["scopeSpans"] for s in ss["spans"]]
    if mutate:
        mutate(spans)
    resource = export["resourceSpans"][0]["resource"]
    lines = [{"resourceSpans": [{"resource": resource, "scopeSpans": [{"spans": [s]}]}]}
             for s in reversed(spans)]  # out of time order, as batches arrive
    return write_jsonl(tmp_path / "traces.jsonl", [*lines, OPENAI[1]])


def test_jsonl_exports_are_grouped_by_trace_and_mixed_with_rows(tmp_path: Path) -> None:
    plain, trace_row = read_dataset(export_lines(tmp_path))
    assert plain.id == "wrong_tool"
    same(trace_row, rows_from_records([OPENAI[0]])[0])


def test_an_undecodable_span_is_skipped_and_counted(tmp_path: Path,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    def add_bad(spans: list[dict[str, Any]]) -> None:
        bad = copy.deepcopy(spans[1])  # the second chat span, output not JSON
        bad["spanId"] = "badbadbadbad0000"
        for kv in bad["attributes"]:
            if kv["key"] == "gen_ai.output.messages":
                kv["value"] = {"stringValue": '[{"role": "assistant", "parts": [trunc'}
        spans.append(bad)
        spans.append({"spanId": "no-trace", "name": "orphan"})
    with caplog.at_level(logging.WARNING, logger="assay.data"):
        rows = read_dataset(export_lines(tmp_path, add_bad))
    same(rows[1], rows_from_records([OPENAI[0]])[0])  # nothing of the bad span got in
    warnings = [r.getMessage() for r in caplog.records if "could not be read" in r.getMessage()]
    assert len(warnings) == 1 and "2 spans could not be read" in warnings[0]


def test_a_trace_without_user_messages_is_named(tmp_path: Path) -> None:
    def drop_content(spans: list[dict[str, Any]]) -> None:
        for s in spans:
            s["attributes"] = [kv for kv in s["attributes"] if not kv["key"].startswith(
                ("gen_ai.input", "gen_ai.output", "gen_ai.system"))]
    with pytest.raises(DataError) as e:
        read_dataset(export_lines(tmp_path, drop_content))
    assert ("traces.jsonl line 1 (trace 4bf92f3577b34da6a3ce929d0e0e4736): no user message in "
            "the trace's chat spans. Fix: record message content") in str(e.value)


def test_older_attributes_and_plain_text_are_read(tmp_path: Path) -> None:
    def attr(key: str, value: Any) -> dict[str, Any]:
        kind = "intValue" if isinstance(value, int) else "stringValue"
        return {"key": key, "value": {kind: str(value) if kind == "intValue" else value}}
    completion = [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c7", "type": "function", "function": {"name": "get_weather",
                                                       "arguments": '{"city": "Oslo"}'}}]}]
    spans = [
        {"traceId": "ab" * 16, "spanId": "1", "startTimeUnixNano": "100", "attributes": [
            attr("gen_ai.operation.name", "chat"), attr("gen_ai.system_instructions", "Be brief."),
            attr("gen_ai.prompt", "Weather in Oslo?"),
            attr("gen_ai.completion", json.dumps(completion))]},
        {"traceId": "ab" * 16, "spanId": "2", "startTimeUnixNano": 200, "attributes": [
            attr("gen_ai.operation.name", "execute_tool"), attr("gen_ai.tool.name", "get_weather"),
            attr("gen_ai.tool.call.result", "rain, 4 C")]},  # no call id: matched by name
        {"traceId": "ab" * 16, "spanId": "3", "startTimeUnixNano": "300", "attributes": [
            attr("gen_ai.operation.name", "chat"), attr("gen_ai.completion", "Rain, 4 C.")]}]
    path = write_jsonl(tmp_path / "old.jsonl", [{"resourceSpans": [{"scopeSpans": [
        {"spans": spans}]}]}])
    row = read_dataset(path)[0]
    assert row.id == "ab" * 16 and row.messages is not None
    assert [(t.role, t.content, t.tool_call_id) for t in row.messages] == [
        ("system", "Be brief.", None), ("user", "Weather in Oslo?", None), ("assistant", "", None),
        ("tool", "rain, 4 C", "c7"), ("assistant", "Rain, 4 C.", None)]
    assert [(c.name, c.arguments()) for c in row.tool_calls()] == [("get_weather",
                                                                     {"city": "Oslo"})]


def without_references(tmp_path: Path) -> Path:
    export = json.loads(TRACE.read_text(encoding="utf-8"))
    for ss in export["resourceSpans"][0]["scopeSpans"]:
        for s in ss["spans"]:
            s["attributes"] = [kv for kv in s["attributes"]
                               if kv["key"] != "assay.reference_tool_calls"]
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    return path


def test_references_come_only_from_the_assay_attribute(tmp_path: Path) -> None:
    row = read_dataset(without_references(tmp_path))[0]
    assert row.reference_tool_calls is None
    plan = plan_metrics([row], "auto")
    planned = {m.name for m in plan.metrics}
    assert {m.name for m in AGENT_JUDGED} <= planned and "tool_call_accuracy" not in planned
    assert any(line.startswith("tool_call_accuracy: skipped") and "reference_tool_calls" in line
               for line in plan.skipped)


def test_assay_run_on_a_trace(tmp_path: Path) -> None:
    out = tmp_path / "out"
    ok = CliRunner().invoke(app, ["run", str(TRACE), "--metrics",
                                  "tool_call_accuracy,tool_call_f1", "--out", str(out)])
    assert ok.exit_code == 0, ok.output
    result = json.loads((out / "results.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert result["id"] == "correct_search"
    assert result["tool_call_accuracy"]["value"] == 1.0
    refused = CliRunner().invoke(app, ["run", str(without_references(tmp_path)), "--metrics",
                                       "tool_call_accuracy", "--out", str(tmp_path / "o2")])
    assert refused.exit_code != 0
    assert "row has no reference_tool_calls" in refused.output
