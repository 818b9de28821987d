"""An agent app traced by a real GenAI instrumentation library, for the ``assay watch`` tests:
the real ``openai`` client (or LangChain's ``ChatOpenAI``) calls a fake OpenAI server on
loopback (started here, in a thread) three times in one trace: a tool call, the answer after
the tool's result, and a call the server refuses with 400. Spans (and, for the libraries that
send them, log records and metrics) go through the standard OTLP/HTTP exporters to ENDPOINT.

Usage: python tests/genai_app.py LIBRARY ENDPOINT [--logs] [--metrics] [--slash]

(``--slash``: the signal endpoints end in ``/``, as ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` often
does.)

LIBRARY: ``openai-v2`` (opentelemetry-instrumentation-openai-v2), ``openllmetry``
(opentelemetry-instrumentation-openai), ``openinference`` (openinference-instrumentation-openai)
or ``langchain`` (openinference-instrumentation-langchain and -openai, as a LangChain app has
both). The capture settings are the caller's environment. Prints ``flushed`` at the end.
"""
# mypy: ignore-errors
# (the instrumentation libraries are test-only packages, not typed)

from __future__ import annotations

import argparse
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SYSTEM = "You are a travel assistant."
QUESTION = "What's the weather in Paris?"
RESULT = "18 C, sunny"
ANSWER = "It is 18 C and sunny in Paris."
BAD_QUESTION = "And in Lyon?"
PARAMS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOL = {"type": "function", "function": {"name": "get_weather",
                                         "description": "Current weather of a city",
                                         "parameters": PARAMS}}
CALL = {"id": "call_1", "type": "function",
        "function": {"name": "get_weather", "arguments": json.dumps({"city": "Paris"})}}


class FakeOpenAI(BaseHTTPRequestHandler):
    """Chat completions: a tool call, then the answer; 400 for the question about Lyon."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
        said = json.dumps(body.get("messages"))
        if BAD_QUESTION in said:
            return self._send(400, {"error": {
                "message": "Invalid value for 'temperature': must be at most 2.",
                "type": "invalid_request_error", "param": "temperature",
                "code": "invalid_value"}})
        last = body["messages"][-1]
        msg: dict[str, Any] = ({"role": "assistant", "content": ANSWER}
                               if last.get("role") == "tool" else
                               {"role": "assistant", "content": None, "tool_calls": [CALL]})
        return self._send(200, {
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1,
            "model": "gpt-4o-mini", "choices": [{
                "index": 0, "message": msg,
                "finish_reason": "tool_calls" if msg.get("tool_calls") else "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})

    def _send(self, code: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


def providers(endpoint: str, *, logs: bool, metrics: bool, slash: str = ""
              ) -> tuple[Any, Any, Any]:
    """Tracer, logger and meter providers exporting over OTLP/HTTP to ``endpoint``."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create({"service.name": "travel"})
    tracer = TracerProvider(resource=resource)
    tracer.add_span_processor(BatchSpanProcessor(
        OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces{slash}"), schedule_delay_millis=100))
    logger = meter = None
    if logs:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor

        logger = LoggerProvider(resource=resource)
        logger.add_log_record_processor(BatchLogRecordProcessor(
            OTLPLogExporter(endpoint=f"{endpoint}/v1/logs{slash}"), schedule_delay_millis=100))
    if metrics:
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

        meter = MeterProvider(resource=resource, metric_readers=[PeriodicExportingMetricReader(
            OTLPMetricExporter(endpoint=f"{endpoint}/v1/metrics{slash}"),
            export_interval_millis=200)])
    return tracer, logger, meter


def instrument(library: str, tracer: Any, logger: Any, meter: Any) -> None:
    kw: dict[str, Any] = {"tracer_provider": tracer}
    if meter is not None:
        kw["meter_provider"] = meter
    if library == "openai-v2":
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

        if logger is not None:
            kw["logger_provider"] = logger
            try:  # the older releases take an event logger provider
                from opentelemetry.sdk._events import EventLoggerProvider
                kw["event_logger_provider"] = EventLoggerProvider(logger)
            except ImportError:
                pass
        OpenAIInstrumentor().instrument(**kw)
    elif library == "openllmetry":
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor

        OpenAIInstrumentor().instrument(**kw)
    else:
        from openinference.instrumentation.openai import OpenAIInstrumentor

        OpenAIInstrumentor().instrument(tracer_provider=tracer)
        if library == "langchain":
            from openinference.instrumentation.langchain import LangChainInstrumentor

            LangChainInstrumentor().instrument(tracer_provider=tracer)


def run_openai(base_url: str, tracer: Any) -> None:
    import openai

    client = openai.OpenAI(api_key="sk-test", base_url=base_url, max_retries=0)
    opening = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION}]
    with tracer.get_tracer("travel.app").start_as_current_span("agent"):
        first = client.chat.completions.create(model="gpt-4o-mini", messages=opening,
                                               tools=[TOOL])
        call = first.choices[0].message.tool_calls[0]
        follow = [*opening, {"role": "assistant", "content": None, "tool_calls": [
            {"id": call.id, "type": "function", "function": {
                "name": call.function.name, "arguments": call.function.arguments}}]},
            {"role": "tool", "tool_call_id": call.id, "content": RESULT}]
        second = client.chat.completions.create(model="gpt-4o-mini", messages=follow,
                                                tools=[TOOL])
        try:
            client.chat.completions.create(model="gpt-4o-mini", messages=[
                *follow, {"role": "assistant", "content": second.choices[0].message.content},
                {"role": "user", "content": BAD_QUESTION}], temperature=2)
        except openai.BadRequestError:
            pass


def run_langchain(base_url: str, tracer: Any) -> None:
    import openai
    from langchain_core.messages import HumanMessage, SystemMessage
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI

    @tool
    def get_weather(city: str) -> str:
        """Current weather of a city."""
        return RESULT

    llm = ChatOpenAI(model="gpt-4o-mini", api_key="sk-test", base_url=base_url,
                     max_retries=0).bind_tools([get_weather])
    messages: list[Any] = [SystemMessage(SYSTEM), HumanMessage(QUESTION)]
    with tracer.get_tracer("travel.app").start_as_current_span("agent"):
        first = llm.invoke(messages)
        messages.append(first)
        for call in first.tool_calls:
            messages.append(get_weather.invoke(call))
        messages.append(llm.invoke(messages))
        try:
            llm.invoke([*messages, HumanMessage(BAD_QUESTION)])
        except openai.BadRequestError:
            pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("library")
    parser.add_argument("endpoint")
    parser.add_argument("--logs", action="store_true")
    parser.add_argument("--metrics", action="store_true")
    parser.add_argument("--slash", action="store_true")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    tracer, logger, meter = providers(args.endpoint, logs=args.logs, metrics=args.metrics,
                                      slash="/" if args.slash else "")
    instrument(args.library, tracer, logger, meter)
    (run_langchain if args.library == "langchain" else run_openai)(base_url, tracer)
    ok = tracer.force_flush(30_000)
    for p in (logger, meter):
        if p is not None:
            ok = p.force_flush(30_000) and ok
            p.shutdown()
    tracer.shutdown()
    server.shutdown()
    print("flushed" if ok else "not flushed", flush=True)


if __name__ == "__main__":
    main()
