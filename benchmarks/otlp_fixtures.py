"""Write tests/data/otlp/: the conversation of tests/test_otlp_conventions.py traced by the real
instrumentation libraries, as OTLP JSON, so that the reader is checked against what they emit.

Each library goes in a scratch virtual environment of its own (they pin different
OpenTelemetry versions); OpenAI is answered by a canned ``httpx.MockTransport``, no network:

    python -m venv /tmp/oi && /tmp/oi/bin/pip install openinference-instrumentation \\
        opentelemetry-sdk opentelemetry-exporter-otlp-proto-common
    /tmp/oi/bin/python benchmarks/otlp_fixtures.py openinference tests/data/otlp/openinference_0.1.72.json

    python -m venv /tmp/tl && /tmp/tl/bin/pip install "opentelemetry-instrumentation-openai==0.40.14" \\
        openai httpx opentelemetry-sdk opentelemetry-exporter-otlp-proto-common
    /tmp/tl/bin/python benchmarks/otlp_fixtures.py openllmetry tests/data/otlp/openllmetry_0.40.14.json
    (0.62.4 the same: it writes the 1.37 attributes)

    python -m venv /tmp/v2 && /tmp/v2/bin/pip install "opentelemetry-instrumentation-openai-v2==2.1b0" \\
        openai httpx "opentelemetry-sdk==1.30.0" "opentelemetry-api==1.30.0" \\
        "opentelemetry-exporter-otlp-proto-common==1.30.0" "opentelemetry-proto==1.30.0" \\
        "opentelemetry-instrumentation==0.51b0" "opentelemetry-semantic-conventions==0.51b0"
    /tmp/v2/bin/python benchmarks/otlp_fixtures.py openai-v2 tests/data/otlp/openai_v2_2.1b0.jsonl

(``openai-v2`` 2.1b0 sends the messages as log records: the file has a traces line and a logs
line.) Trace and span ids come out base64-encoded, as protobuf's JSON mapping writes them.

``record`` runs tests/genai_app.py (the real libraries, the real ``openai`` client against a
fake OpenAI server on loopback, one call refused with 400) and writes what its standard OTLP/HTTP
exporters post, one export a line, traces and logs (metrics are left out); the libraries of the
project's dev extra, in its environment:

    python benchmarks/otlp_fixtures.py record openai-v2 tests/data/otlp/openai_v2_2.4b0_events.jsonl \
        OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental \
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=EVENT_ONLY
    python benchmarks/otlp_fixtures.py record openai-v2 tests/data/otlp/openai_v2_2.4b0_true.jsonl \
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true
    python benchmarks/otlp_fixtures.py record langchain tests/data/otlp/langchain_openinference_0.1.80.jsonl
"""
# mypy: ignore-errors
# (the libraries are not in the project's environment)

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

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
OPENING = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION}]
FOLLOW = [*OPENING, {"role": "assistant", "content": None, "tool_calls": [CALL]},
          {"role": "tool", "tool_call_id": "call_1", "content": RESULT}]


def tracer() -> tuple[Any, Any]:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    return provider, spans


def as_json(message: Any) -> str:
    from google.protobuf.json_format import MessageToDict

    return json.dumps(MessageToDict(message))


def openinference(out: Path) -> None:
    """The attributes that openinference-instrumentation's helpers build."""
    from openinference.instrumentation import (
        get_input_attributes,
        get_llm_attributes,
        get_output_attributes,
        get_span_kind_attributes,
        get_tool_attributes,
    )
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    provider, spans = tracer()
    t = provider.get_tracer("app")
    tools = [{"json_schema": json.dumps(TOOL)}]
    with t.start_as_current_span("agent", attributes=get_span_kind_attributes("agent")):
        with t.start_as_current_span("llm1", attributes={
                **get_span_kind_attributes("llm"), **get_llm_attributes(
                    input_messages=OPENING, tools=tools, output_messages=[
                        {"role": "assistant", "tool_calls": [
                            {"id": "call_1", "function": CALL["function"]}]}])}):
            pass
        with t.start_as_current_span("get_weather", attributes={
                **get_span_kind_attributes("tool"), **get_input_attributes(ARGS),
                **get_tool_attributes(name="get_weather", description="d", parameters=PARAMS),
                **get_output_attributes(RESULT)}):
            pass
        with t.start_as_current_span("llm2", attributes={
                **get_span_kind_attributes("llm"), **get_llm_attributes(
                    input_messages=[*OPENING, {"role": "assistant", "tool_calls": [
                        {"id": "call_1", "function": CALL["function"]}]},
                        {"role": "tool", "tool_call_id": "call_1", "content": RESULT}],
                    output_messages=[{"role": "assistant", "content": ANSWER}], tools=tools)}):
            pass
    out.write_text(as_json(encode_spans(spans.get_finished_spans())), encoding="utf-8")


def openai_app(out: Path, library: str) -> None:
    """Two chat completions of the agent, traced by an OpenAI instrumentation."""
    import httpx
    import openai
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    os.environ["TRACELOOP_TRACE_CONTENT"] = "true"
    os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "true"
    answers = [{"role": "assistant", "content": None, "tool_calls": [CALL]},
               {"role": "assistant", "content": ANSWER}]

    def handler(request: httpx.Request) -> httpx.Response:
        msg = answers.pop(0)
        return httpx.Response(200, json={
            "id": "x", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini",
            "choices": [{"index": 0, "message": msg,
                         "finish_reason": "tool_calls" if msg.get("tool_calls") else "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})

    provider, spans = tracer()
    logs = None
    if library == "openllmetry":
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor

        OpenAIInstrumentor().instrument(tracer_provider=provider)
    else:
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
        from opentelemetry.sdk._events import EventLoggerProvider
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import InMemoryLogExporter, SimpleLogRecordProcessor

        logs = InMemoryLogExporter()
        log_provider = LoggerProvider()
        log_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
        OpenAIInstrumentor().instrument(tracer_provider=provider,
                                        event_logger_provider=EventLoggerProvider(log_provider))
    client = openai.OpenAI(api_key="sk-canned", base_url="http://canned/v1",
                           http_client=httpx.Client(transport=httpx.MockTransport(handler)))
    with provider.get_tracer("app").start_as_current_span("agent"):
        for messages in (OPENING, FOLLOW):
            client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=[TOOL])
    lines = [as_json(encode_spans(spans.get_finished_spans()))]
    if logs is not None:
        from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs

        lines.append(as_json(encode_logs(logs.get_finished_logs())))
    out.write_text("".join(line + "\n" for line in lines) if logs else lines[0],
                   encoding="utf-8")


def record(library: str, out: Path, settings: list[str]) -> None:
    """What tests/genai_app.py's exporters post (traces and logs), one export a line."""
    import subprocess
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from google.protobuf.json_format import MessageToDict
    from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

    kinds = {"/v1/traces": trace_service_pb2.ExportTraceServiceRequest,
             "/v1/logs": logs_service_pb2.ExportLogsServiceRequest}
    lines: list[str] = []

    class Sink(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            if self.path in kinds:
                message = kinds[self.path]()
                message.ParseFromString(body)
                lines.append(json.dumps(MessageToDict(message)))
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    app = Path(__file__).resolve().parents[1] / "tests" / "genai_app.py"
    env = {**os.environ, **dict(s.split("=", 1) for s in settings)}
    subprocess.run([sys.executable, str(app), library,
                    f"http://127.0.0.1:{server.server_address[1]}", "--logs"],
                   check=True, env=env, timeout=120)
    server.shutdown()
    out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


if __name__ == "__main__":
    which, path = sys.argv[1], Path(sys.argv[2])
    if which == "record":
        record(sys.argv[2], Path(sys.argv[3]), sys.argv[4:])
        path = Path(sys.argv[3])
    elif which == "openinference":
        openinference(path)
    else:
        openai_app(path, which)
    print(f"wrote {path}")
