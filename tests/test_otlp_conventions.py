"""One conversation traced in every GenAI convention in use (semconv 1.37 attributes, the
1.27-1.36 span events, OpenLLMetry, OpenInference, the old gen_ai.prompt JSON) gives one row;
OpenInference retrieval gives contexts and citations; broken spans are counted, not raised."""

from __future__ import annotations

import gzip
import json
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli.main import app
from assay.data import Row, is_export, read_dataset, rows_from_records, traces_as_records
from assay.data._otlp import stream_traces
from assay.data._otlp_index import index_traces
from assay.data._read import _trace_index
from assay.data._source import open_source
from assay.errors import DataError
from assay.judges import FakeJudge, JudgeRequest
from assay.metrics import plan_metrics
from assay.run import JudgeOptions, RunOptions, evaluate

TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
SYSTEM = "You are a travel assistant."
QUESTION = "What's the weather in Paris?"
ARGS = json.dumps({"city": "Paris"})
RESULT = "18 C, sunny"
ANSWER = "It is 18 C and sunny in Paris."
PARAMS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOL = {"type": "function", "function": {"name": "get_weather",
                                         "description": "Current weather of a city",
                                         "parameters": PARAMS}}
CALL = {"id": "call_1", "type": "function",
        "function": {"name": "get_weather", "arguments": ARGS}}
#: The conversation in OpenAI form: what every trace below must read as.
OPENAI = {"id": TRACE_ID, "trace_id": TRACE_ID, "tools": [TOOL], "messages": [
    {"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION},
    {"role": "assistant", "content": "", "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "call_1", "content": RESULT},
    {"role": "assistant", "content": ANSWER}]}
Attrs = dict[str, Any]


def value(v: Any) -> dict[str, Any]:
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    return {"stringValue": v if isinstance(v, str) else json.dumps(v)}


def span(span_id: str, start: int, attrs: Attrs, events: list[tuple[str, Attrs]] | None = None,
         parent: str | None = "root", trace_id: str = TRACE_ID) -> dict[str, Any]:
    out: dict[str, Any] = {
        "traceId": trace_id, "spanId": span_id, "name": span_id,
        "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 5),
        "attributes": [{"key": k, "value": value(v)} for k, v in attrs.items()]}
    if parent:
        out["parentSpanId"] = parent
    if events:
        out["events"] = [{"name": n, "timeUnixNano": str(start + 1), "attributes": [
            {"key": k, "value": value(v)} for k, v in a.items()]} for n, a in events]
    return out


def export(spans: list[dict[str, Any]]) -> dict[str, Any]:
    return {"resourceSpans": [{"resource": {"attributes": [
        {"key": "service.name", "value": {"stringValue": "travel"}}]},
        "scopeSpans": [{"scope": {"name": "test"}, "spans": spans}]}]}


def semconv_137() -> list[dict[str, Any]]:
    def text(role: str, content: str) -> dict[str, Any]:
        return {"role": role, "parts": [{"type": "text", "content": content}]}
    call = {"role": "assistant", "parts": [{"type": "tool_call", "id": "call_1",
                                            "name": "get_weather", "arguments": {"city": "Paris"}}]}
    common = {"gen_ai.operation.name": "chat", "gen_ai.system_instructions":
              [{"type": "text", "content": SYSTEM}],
              "gen_ai.tool.definitions": [{"type": "function", **TOOL["function"]}]}
    return [
        span("c1", 100, {**common, "gen_ai.input.messages": [text("user", QUESTION)],
                         "gen_ai.output.messages": [call]}),
        span("t1", 200, {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
                         "gen_ai.tool.call.id": "call_1", "gen_ai.tool.call.result": RESULT}),
        span("c2", 300, {**common, "gen_ai.input.messages": [
            text("user", QUESTION), call, {"role": "tool", "parts": [
                {"type": "tool_call_response", "id": "call_1", "response": RESULT}]}],
            "gen_ai.output.messages": [text("assistant", ANSWER)]})]


def span_events() -> list[dict[str, Any]]:
    """Both event shapes: a JSON body in gen_ai.event.content (the Azure SDKs) and individual
    attributes (opentelemetry-instrumentation-openai before 1.37)."""
    def content(body: dict[str, Any]) -> Attrs:
        return {"gen_ai.system": "openai", "gen_ai.event.content": json.dumps(body)}
    history = [("gen_ai.system.message", content({"content": SYSTEM})),
               ("gen_ai.user.message", {"content": QUESTION})]
    chat = {"gen_ai.operation.name": "chat", "gen_ai.tool.definitions": [TOOL]}
    return [
        span("c1", 100, chat, [*history, ("gen_ai.choice", content(
            {"index": 0, "finish_reason": "tool_calls", "message": {"tool_calls": [CALL]}}))]),
        span("c2", 300, chat, [
            *history, ("gen_ai.assistant.message", {"tool_calls": json.dumps([CALL])}),
            ("gen_ai.tool.message", content({"id": "call_1", "content": RESULT})),
            ("gen_ai.choice", {"index": 0, "finish_reason": "stop",
                               "message": json.dumps({"content": ANSWER})})])]


def openllmetry() -> list[dict[str, Any]]:
    tools = {"llm.request.functions.0.name": "get_weather",
             "llm.request.functions.0.description": "Current weather of a city",
             "llm.request.functions.0.parameters": json.dumps(PARAMS)}
    prompt = {"llm.request.type": "chat", **tools,
              "gen_ai.prompt.0.role": "system", "gen_ai.prompt.0.content": SYSTEM,
              "gen_ai.prompt.1.role": "user", "gen_ai.prompt.1.content": QUESTION}
    return [
        span("c1", 100, {**prompt, "gen_ai.completion.0.role": "assistant",
                         "gen_ai.completion.0.finish_reason": "tool_calls",
                         "gen_ai.completion.0.tool_calls.0.id": "call_1",
                         "gen_ai.completion.0.tool_calls.0.name": "get_weather",
                         "gen_ai.completion.0.tool_calls.0.arguments": ARGS}),
        span("c2", 300, {**prompt, "gen_ai.prompt.2.role": "assistant",
                         "gen_ai.prompt.2.tool_calls.0.id": "call_1",
                         "gen_ai.prompt.2.tool_calls.0.name": "get_weather",
                         "gen_ai.prompt.2.tool_calls.0.arguments": ARGS,
                         "gen_ai.prompt.3.role": "tool", "gen_ai.prompt.3.tool_call_id": "call_1",
                         "gen_ai.prompt.3.content": RESULT,
                         "gen_ai.completion.0.role": "assistant",
                         "gen_ai.completion.0.content": ANSWER})]


def openinference() -> list[dict[str, Any]]:
    m = "llm.input_messages"
    llm = {"openinference.span.kind": "LLM", "llm.tools.0.tool.json_schema": json.dumps(TOOL),
           f"{m}.0.message.role": "system", f"{m}.0.message.content": SYSTEM,
           f"{m}.1.message.role": "user",
           f"{m}.1.message.contents.0.message_content.type": "text",
           f"{m}.1.message.contents.0.message_content.text": QUESTION}
    call = "message.tool_calls.0.tool_call"
    return [
        span("c1", 100, {**llm, "llm.output_messages.0.message.role": "assistant",
                         f"llm.output_messages.0.{call}.id": "call_1",
                         f"llm.output_messages.0.{call}.function.name": "get_weather",
                         f"llm.output_messages.0.{call}.function.arguments": ARGS}),
        span("t1", 200, {"openinference.span.kind": "TOOL", "tool.name": "get_weather",
                         "input.value": ARGS, "output.value": RESULT}),
        span("c2", 300, {**llm, f"{m}.2.message.role": "assistant",
                         f"{m}.2.{call}.id": "call_1",
                         f"{m}.2.{call}.function.name": "get_weather",
                         f"{m}.2.{call}.function.arguments": ARGS,
                         f"{m}.3.message.role": "tool", f"{m}.3.message.tool_call_id": "call_1",
                         f"{m}.3.message.content": RESULT,
                         "llm.output_messages.0.message.role": "assistant",
                         "llm.output_messages.0.message.content": ANSWER})]


def old_json() -> list[dict[str, Any]]:
    history = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION}]
    chat = {"gen_ai.operation.name": "chat", "gen_ai.tool.definitions": [TOOL]}
    return [
        span("c1", 100, {**chat, "gen_ai.prompt": history, "gen_ai.completion": [
            {"role": "assistant", "content": None, "tool_calls": [CALL]}]}),
        span("c2", 300, {**chat, "gen_ai.prompt": [
            *history, {"role": "assistant", "content": None, "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "call_1", "content": RESULT}],
            "gen_ai.completion": [{"role": "assistant", "content": ANSWER}]})]


CONVENTIONS: dict[str, Callable[[], list[dict[str, Any]]]] = {
    "semconv_137": semconv_137, "span_events": span_events, "openllmetry": openllmetry,
    "openinference": openinference, "old_json": old_json}


def root() -> dict[str, Any]:
    return span("root", 50, {"gen_ai.operation.name": "invoke_agent"}, parent=None)


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def expected() -> Row:
    return rows_from_records([OPENAI])[0]


@pytest.mark.parametrize("name", list(CONVENTIONS))
def test_every_convention_gives_the_same_row(tmp_path: Path, name: str) -> None:
    path = write(tmp_path / f"{name}.jsonl", [export([root(), *CONVENTIONS[name]()])])
    [row] = read_dataset(path)
    assert row.model_dump() == expected().model_dump()
    assert [(c.id, c.name, c.arguments()) for c in row.tool_calls()] == [
        ("call_1", "get_weather", {"city": "Paris"})]


FIXTURES = Path(__file__).parent / "data" / "otlp"  # written by benchmarks/otlp_fixtures.py


@pytest.mark.parametrize("name", ["openinference_0.1.72.json", "openllmetry_0.40.14.json",
                                  "openllmetry_0.62.4.json", "openai_v2_2.1b0.jsonl"])
def test_what_the_instrumentation_libraries_emit_reads_as_the_conversation(name: str) -> None:
    """The same conversation, traced by the libraries themselves (OpenInference's attribute
    helpers; OpenLLMetry's OpenAI instrumentation before and after it moved to the 1.37
    attributes; the official OpenAI instrumentation, whose events are log records)."""
    [row] = read_dataset(FIXTURES / name)
    assert row.messages == expected().messages
    # the 1.28 events carry no tool definitions: only the other conventions give tools
    assert row.tools == (None if name.startswith("openai_v2") else expected().tools)


def test_ids_written_in_base64_read_as_the_same_hex_trace(tmp_path: Path) -> None:
    """Protobuf's own JSON mapping (as the library fixtures were dumped) writes ids in base64;
    OTLP JSON in hex: the same trace either way is one row, its id the hex trace id."""
    import base64
    [fixture] = read_dataset(FIXTURES / "openai_v2_2.1b0.jsonl")
    raw = next(json.loads(x) for x in (FIXTURES / "openai_v2_2.1b0.jsonl").read_text()
               .splitlines() if "resourceSpans" in x)
    b64_id = raw["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
    assert fixture.id == base64.b64decode(b64_id).hex() and len(fixture.id) == 32
    hexed = export(CONVENTIONS["semconv_137"]())
    span = hexed["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    as_b64 = json.loads(json.dumps(hexed))
    for s in as_b64["resourceSpans"][0]["scopeSpans"][0]["spans"]:  # (span ids here are names)
        s["traceId"] = base64.b64encode(bytes.fromhex(s["traceId"])).decode()
    [one] = read_dataset(write(tmp_path / "hex.jsonl", [hexed]))
    [two] = read_dataset(write(tmp_path / "b64.jsonl", [as_b64]))
    assert one.model_dump() == two.model_dump() and one.id == span["traceId"]


def test_the_five_rows_are_equal_and_a_run_scores_one(tmp_path: Path) -> None:
    rows = [read_dataset(write(tmp_path / f"{n}.jsonl", [export(build())]))[0].model_dump()
            for n, build in CONVENTIONS.items()]
    assert all(r == rows[0] for r in rows[1:])
    out = tmp_path / "out"
    ran = CliRunner().invoke(app, ["run", str(tmp_path / "openllmetry.jsonl"), "--judge", "fake",
                                   "--metrics", "tool_schema_validity", "--out",
                                   str(out)])
    assert ran.exit_code == 0, ran.output
    [result] = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert result["id"] == TRACE_ID
    assert result["tool_schema_validity"]["value"] == 1.0


def rag_trace() -> list[dict[str, Any]]:
    docs = {"openinference.span.kind": "RETRIEVER", "input.value": QUESTION,
            "retrieval.documents.0.document.id": "w1",
            "retrieval.documents.0.document.content": "Paris today: 18 C, sunny.",
            "retrieval.documents.0.document.score": 0.9,
            "retrieval.documents.1.document.content": "Paris is the capital of France."}
    llm = {"openinference.span.kind": "LLM",
           "llm.input_messages.0.message.role": "user",
           "llm.input_messages.0.message.content": QUESTION,
           "llm.output_messages.0.message.role": "assistant",
           "llm.output_messages.0.message.content": ANSWER}
    return [span("root", 10, {"openinference.span.kind": "CHAIN", "session.id": "s-42"},
                 parent=None),
            span("r1", 20, docs), span("l1", 30, llm)]


def test_an_openinference_rag_trace_gives_contexts_citations_and_groundedness(
        tmp_path: Path) -> None:
    path = write(tmp_path / "rag.jsonl", [export(rag_trace())])
    [row] = read_dataset(path)
    assert row.id == "s-42"  # the root span's session.id
    assert row.contexts == ["Paris today: 18 C, sunny.", "Paris is the capital of France."]
    assert row.messages is not None
    answer = row.messages[-1]
    assert [(c.id, c.content) for c in answer.citations] == [
        ("w1", "Paris today: 18 C, sunny."), (None, "Paris is the capital of France.")]
    assert "citations" in row.fields()
    assert "groundedness" in {m.name for m in plan_metrics([row], "auto").metrics}
    asked: list[str] = []

    def judge(request: JudgeRequest) -> str:
        asked.append(request.messages[-1]["content"])
        return '{"score": 5, "reason": "Every claim is in the documents."}'
    result = evaluate(path, metrics="groundedness", judge=FakeJudge(judge),
                      judging=JudgeOptions(cache=None), run=RunOptions(out=tmp_path / "out"))
    assert result.rows[0]["groundedness"]["value"] == 5.0
    assert len(asked) == 1 and "Paris today: 18 C, sunny." in asked[0] and ANSWER in asked[0]


def test_conventions_mix_in_one_trace(tmp_path: Path) -> None:
    first, _, _ = semconv_137()
    second = openllmetry()[1]
    tool = openinference()[1]
    [row] = read_dataset(write(tmp_path / "mixed.jsonl", [export([root(), first, tool, second])]))
    assert row.model_dump() == expected().model_dump()


def any_value(v: Any) -> dict[str, Any]:
    """``v`` as an OTLP AnyValue, objects and lists included (a log record's body)."""
    if isinstance(v, dict):
        return {"kvlistValue": {"values": [{"key": k, "value": any_value(x)}
                                           for k, x in v.items()]}}
    if isinstance(v, list):
        return {"arrayValue": {"values": [any_value(x) for x in v]}}
    return value(v)


def test_events_sent_as_log_records_fill_their_spans(tmp_path: Path) -> None:
    """Semconv 1.28-1.36 instrumentations send the events as log records (the Events API):
    a Collector file with a traces line and a logs line gives the same row."""
    chat = {"gen_ai.operation.name": "chat", "gen_ai.tool.definitions": [TOOL]}
    spans = [root(), span("c1", 100, chat), span("c2", 300, chat)]
    history = [("gen_ai.system.message", {"content": SYSTEM}),
               ("gen_ai.user.message", {"content": QUESTION})]
    events = {"c1": [*history, ("gen_ai.choice", {"index": 0, "finish_reason": "tool_calls",
                                                  "message": {"tool_calls": [CALL]}})],
              "c2": [*history, ("gen_ai.assistant.message", {"tool_calls": [CALL]}),
                     ("gen_ai.tool.message", {"id": "call_1", "content": RESULT}),
                     ("gen_ai.choice", {"index": 0, "message": {"content": ANSWER}})]}
    logs = {"resourceLogs": [{"scopeLogs": [{"logRecords": [
        {"traceId": TRACE_ID, "spanId": sid, "timeUnixNano": str(200 * n + k),
         "attributes": [{"key": "event.name", "value": {"stringValue": name}}],
         "body": any_value(body)}
        for n, (sid, evs) in enumerate(events.items()) for k, (name, body) in enumerate(evs)]}]}]}
    [row] = read_dataset(write(tmp_path / "otel.jsonl", [export(spans), logs]))
    assert row.model_dump() == expected().model_dump()
    logs_first = write(tmp_path / "logs_first.jsonl", [logs, export(spans)])
    assert _trace_index(open_source(logs_first)) is not None  # read in one go too
    assert [r.model_dump() for r in read_dataset(logs_first)] == [expected().model_dump()]


def test_other_places_and_shapes_of_content() -> None:
    """Content on the 1.37 operation-details event; Azure's {"text": {"value"}} and OpenAI
    content parts in events; OpenLLMetry content as a JSON list of parts."""
    details = span("c1", 100, {"gen_ai.operation.name": "chat"}, [
        ("gen_ai.client.inference.operation.details", {
            "gen_ai.input.messages": [{"role": "user", "parts": [
                {"type": "text", "content": QUESTION}]}],
            "gen_ai.output.messages": [{"role": "assistant", "parts": [
                {"type": "text", "content": ANSWER}]}]})])
    azure = span("c1", 100, {"gen_ai.system": "az.ai.agents"}, [
        ("gen_ai.user.message", {"gen_ai.event.content": json.dumps(
            {"content": {"text": {"value": QUESTION}}, "role": "user"})}),
        ("gen_ai.choice", {"gen_ai.event.content": json.dumps(
            {"message": {"content": [{"type": "text", "text": ANSWER}]}})})])
    parts = span("c1", 100, {"llm.request.type": "chat", "gen_ai.prompt.0.role": "user",
                             "gen_ai.prompt.0.content": json.dumps(
                                 [{"type": "text", "text": QUESTION}]),
                             "gen_ai.completion.0.content": ANSWER})
    for one in (details, azure, parts):
        [(_, rec)] = list(traces_as_records([(1, export([one]))], "t", []))
        assert rec["messages"] == [{"role": "user", "content": QUESTION},
                                   {"role": "assistant", "content": ANSWER}]


def test_a_malformed_span_is_counted_never_raised(tmp_path: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    spans = semconv_137()
    bad = [span("b1", 150, {"gen_ai.operation.name": "chat", "gen_ai.input.messages": "{not json"}),
           span("b2", 160, {"openinference.span.kind": "LLM",
                            "llm.input_messages.0.message.contents.x": 3}),
           span("b3", 170, {"llm.request.type": "chat", "gen_ai.prompt.0.role": 3,
                            "gen_ai.prompt.0.tool_calls.0.name": {"no": "text"}}),
           span("b4", 180, {"gen_ai.operation.name": "chat"},
                [("gen_ai.choice", {"message": json.dumps({"tool_calls": "nope"})})]),
           {"spanId": "orphan"}, "not a span"]
    with caplog.at_level(logging.WARNING, logger="assay.data"):
        [row] = read_dataset(write(tmp_path / "bad.jsonl", [export([*spans, *bad])]))
    assert row.messages == expected().messages
    warning = " ".join(r.getMessage() for r in caplog.records)
    assert "5 spans could not be read and were left out" in warning  # b1, b3, b4, 2 orphans
    assert "span b1 (GenAI semantic conventions 1.37)" in warning


def test_collector_jsonl_with_traces_across_lines_and_gzipped(tmp_path: Path) -> None:
    other = "1" * 32
    a = [root(), *openinference()]
    b = [span(s["spanId"], int(s["startTimeUnixNano"]), {}, parent=None, trace_id=other)
         for s in a[:1]] + [{**s, "traceId": other} for s in openllmetry()]
    lines = [export([a[0], b[1]]), export([a[1], a[2]]), export([b[0], a[3]]), export([b[2]])]
    records = [json.dumps(r) + "\n" for r in lines]
    plain = tmp_path / "otel.jsonl"
    plain.write_text("".join(records), encoding="utf-8")
    zipped = tmp_path / "otel.jsonl.gz"
    zipped.write_bytes(gzip.compress(plain.read_bytes()))
    for path in (plain, zipped):
        rows = read_dataset(path)
        assert [(r.id, r.line) for r in rows] == [(TRACE_ID, 1), (other, 1)]
        assert rows[0].messages == rows[1].messages == expected().messages


def test_a_collector_file_hands_each_trace_on_once_its_last_line_is_read(
        tmp_path: Path) -> None:
    """Bounded memory: a trace's record comes before the lines after its last one are read."""
    traces = [[{**s, "traceId": f"{n:032x}"} for s in [root(), *semconv_137()]]
              for n in range(1, 4)]
    lines = [export(traces[0]), export(traces[1][:2]), export(traces[1][2:] + traces[2])]
    path = write(tmp_path / "otel.jsonl", lines)
    consumed: list[int] = []
    src = open_source(path)

    def records() -> Iterator[tuple[int, dict[str, Any]]]:
        for line, rec in src.reader.read(src, []):
            consumed.append(line)
            yield line, rec
    index = index_traces(src.reader.read(src, []))
    assert index is not None and index.ends == {1: [f"{1:032x}"], 3: [f"{2:032x}", f"{3:032x}"]}
    seen = []
    for line, rec in stream_traces(records(), "otel.jsonl", [], index):
        seen.append((rec["id"], line, consumed[-1]))
    assert seen == [(f"{1:032x}", 1, 1), (f"{2:032x}", 2, 3), (f"{3:032x}", 3, 3)]
    assert [r.id for r in read_dataset(path)] == [f"{n:032x}" for n in range(1, 4)]
    assert index_traces([(1, {"answer": "x"})]) is None  # other records: no index


def test_content_in_another_convention_is_read_and_a_bare_one_names_its_fix(
        tmp_path: Path) -> None:
    bare = [span("c1", 100, {"llm.request.type": "chat", "gen_ai.request.model": "gpt-4o"})]
    with pytest.raises(DataError) as e:
        read_dataset(write(tmp_path / "bare.jsonl", [export(bare)]))
    text = str(e.value)
    assert "no user message in the trace's chat spans" in text
    assert "TRACELOOP_TRACE_CONTENT=true" in text and "OTEL_INSTRUMENTATION" not in text
    assert ("(Found OpenLLMetry (Traceloop): no gen_ai.prompt.N.content or "
            "gen_ai.completion.N.content attributes.)") in text
    no_genai = [span("h1", 100, {"http.request.method": "GET"})]
    with pytest.raises(DataError) as e:
        read_dataset(write(tmp_path / "http.jsonl", [export(no_genai)]))
    assert "no model-call span in a convention assay reads" in str(e.value)
    only_answers = [span("c1", 100, {"openinference.span.kind": "LLM",
                                     "llm.output_messages.0.message.content": ANSWER})]
    with pytest.raises(DataError) as e:
        read_dataset(write(tmp_path / "answers.jsonl", [export(only_answers)]))
    assert "read as OpenInference; they hold only assistant" in str(e.value)
    assert "record message content" not in str(e.value)


def test_the_public_api_reads_one_spooled_trace() -> None:
    rec = export([root(), *span_events()])
    assert is_export(rec) and not is_export({"answer": "x"})
    problems: list[str] = []
    [(line, out)] = list(traces_as_records([(0, rec)], "spool", problems))
    assert (line, out["id"], out["trace_id"], problems) == (0, TRACE_ID, TRACE_ID, [])
    assert out["messages"][-1] == {"role": "assistant", "content": ANSWER}
