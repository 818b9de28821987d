"""``ScoreExporter``: scores sent back as ``gen_ai.evaluation.result`` events over OTLP/HTTP
JSON, to a real HTTP server in the test: the body is a valid ``ExportTraceServiceRequest``,
429 and 503 are retried after Retry-After, a dead endpoint is counted, nothing raises, and no
header value reaches the log."""

from __future__ import annotations

import asyncio
import base64
import importlib.util
import json
import logging
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

import pytest

from assay.errors import ConfigError
from assay.watch._export_otlp import ScoreExporter, evaluation_request

if TYPE_CHECKING:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest


def _proto_missing() -> bool:
    """Whether the 'watch' extra's protobuf classes, which read the sent body back, are missing
    (the exporter itself sends OTLP/JSON and needs no extra: the other tests run without it)."""
    try:
        return any(importlib.util.find_spec(m) is None
                   for m in ("google.protobuf", "opentelemetry.proto"))
    except ModuleNotFoundError:
        return True


requires_proto = pytest.mark.skipif(
    _proto_missing(), reason="reads the body with protobuf: pip install 'assay[watch]'")

TRACE = "0af7651916cd43dd8448eb211c80319c"
ROOT = "b7ad6b7169203331"
RECORD = {
    "id": TRACE,
    "groundedness": {"value": 4.0, "reason": "every claim is in the context"},
    "answer_relevance": {"value": None, "reason": None,
                         "error": "judge answer could not be read: 'five-ish'"},
    "refusal": {"value": 1.0, "label": "refused", "reason": "declines politely"},
    "context_recall": {"value": None, "error": "does not apply: the row has no ground_truth"},
    "watch": {"trace_id": TRACE, "scored": "2026-11-28T07:00:00+00:00", "response_id": "resp-9"},
}


class Receiver:
    """An OTLP/HTTP endpoint on loopback: records each POST (path, headers, body) and answers
    with the next scripted ``(status, headers)``, then 200."""

    def __init__(self) -> None:
        self.posts: list[dict[str, Any]] = []
        self.script: list[tuple[int, dict[str, str]]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                owner.posts.append({"path": self.path, "headers": dict(self.headers),
                                    "body": self.rfile.read(size)})
                status, headers = owner.script.pop(0) if owner.script else (200, {})
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1/traces"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


def _as_proto(body: bytes) -> ExportTraceServiceRequest:
    """The body read as the protobuf message (OTLP/JSON writes ids in hex; protobuf's JSON
    mapping wants base64, so ids are turned over first)."""
    from google.protobuf import json_format
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    data = json.loads(body)
    for rs in data["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    return json_format.ParseDict(data, ExportTraceServiceRequest())


def _events(message: ExportTraceServiceRequest) -> dict[str, dict[str, Any]]:
    from google.protobuf import json_format

    span = message.resource_spans[0].scope_spans[0].spans[0]
    found = {}
    for event in span.events:
        assert event.name == "gen_ai.evaluation.result"
        attrs = {a.key: json_format.MessageToDict(a.value) for a in event.attributes}
        found[attrs["gen_ai.evaluation.name"]["stringValue"]] = attrs
    return found


@requires_proto
def test_scores_arrive_as_evaluation_events_on_a_child_span(receiver: Receiver) -> None:
    async def go() -> dict[str, Any]:
        exporter = ScoreExporter(receiver.url, headers={"Authorization": "Bearer s3cret-tok"})
        await exporter.send(RECORD, trace_id=TRACE, span_id=ROOT)
        await exporter.aclose()
        return exporter.stats()

    assert asyncio.run(go())["sent"] == 1
    [post] = receiver.posts
    assert post["path"] == "/v1/traces"
    assert post["headers"]["Content-Type"] == "application/json"
    assert post["headers"]["Authorization"] == "Bearer s3cret-tok"
    message = _as_proto(post["body"])
    resource = message.resource_spans[0].resource
    assert {a.key: a.value.string_value for a in resource.attributes} == {"service.name": "assay"}
    span = message.resource_spans[0].scope_spans[0].spans[0]
    assert span.trace_id.hex() == TRACE and span.parent_span_id.hex() == ROOT
    assert len(span.span_id) == 8 and span.span_id.hex() != ROOT
    assert span.name == "evaluation" and span.start_time_unix_nano == span.end_time_unix_nano > 0
    events = _events(message)
    assert set(events) == {"groundedness", "answer_relevance", "refusal"}  # n/a: not sent
    g = events["groundedness"]
    assert g["gen_ai.evaluation.score.value"] == {"doubleValue": 4.0}
    assert g["gen_ai.evaluation.explanation"] == {"stringValue": "every claim is in the context"}
    assert g["gen_ai.response.id"] == {"stringValue": "resp-9"}
    assert events["refusal"]["gen_ai.evaluation.score.label"] == {"stringValue": "refused"}
    unscored = events["answer_relevance"]
    assert "gen_ai.evaluation.score.value" not in unscored  # no score is made up
    assert unscored["error.type"] == {"stringValue": "unscored"}
    assert unscored["gen_ai.evaluation.explanation"]["stringValue"].startswith(
        "unscored: judge answer could not be read")


def test_429_then_503_are_retried_after_retry_after(receiver: Receiver) -> None:
    receiver.script = [(429, {"Retry-After": "0"}), (503, {"Retry-After": "0"})]

    async def go() -> dict[str, Any]:
        exporter = ScoreExporter(receiver.url, backoff_s=5.0)  # Retry-After wins over backoff
        await asyncio.wait_for(exporter.send(RECORD, trace_id=TRACE, span_id=None), 4)
        await exporter.aclose()
        return exporter.stats()

    stats = asyncio.run(go())
    assert (stats["sent"], stats["failed"], stats["retried"]) == (1, 0, 2)
    assert len(receiver.posts) == 3
    span = json.loads(receiver.posts[-1]["body"])["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert "parentSpanId" not in span


def test_retries_are_bounded_and_a_client_error_is_not_retried(
        receiver: Receiver, caplog: pytest.LogCaptureFixture) -> None:
    none: dict[str, str] = {}
    receiver.script = [(503, none)] * 3 + [(400, none)] * 2

    async def go() -> dict[str, Any]:
        exporter = ScoreExporter(receiver.url, attempts=3, backoff_s=0.01,
                                 headers={"Authorization": "Bearer s3cret-tok"})
        await exporter.send(RECORD, trace_id=TRACE, span_id=ROOT)  # 503 x 3: gives up
        await exporter.send(RECORD, trace_id=TRACE, span_id=ROOT)  # 400: once
        await exporter.send(RECORD, trace_id=TRACE, span_id=ROOT)  # 400: once, not logged
        await exporter.aclose()
        return exporter.stats()

    with caplog.at_level(logging.WARNING, logger="assay.watch"):
        stats = asyncio.run(go())
    assert len(receiver.posts) == 5
    assert stats == {"sent": 0, "failed": 3, "retried": 2,
                     "failures": {"HTTP 503": 1, "HTTP 400": 2}}
    assert caplog.text.count("HTTP 400") == 1 and caplog.text.count("HTTP 503") == 1
    assert "s3cret-tok" not in caplog.text


def _dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://user:pw-hidden@127.0.0.1:{port}/v1/traces"


def test_a_dead_endpoint_is_counted_never_raised(caplog: pytest.LogCaptureFixture) -> None:
    async def go() -> dict[str, Any]:
        exporter = ScoreExporter(_dead_url(), attempts=2, backoff_s=0.01)
        for _ in range(3):
            await exporter.send(RECORD, trace_id=TRACE, span_id=ROOT)
        await exporter.aclose()
        return exporter.stats()

    with caplog.at_level(logging.WARNING, logger="assay.watch"):
        stats = asyncio.run(go())
    assert (stats["sent"], stats["failed"], stats["retried"]) == (0, 3, 3)
    assert list(stats["failures"]) == ["cannot connect (ConnectError)"]
    assert caplog.text.count("scores not exported") == 1
    assert "pw-hidden" not in caplog.text


def test_bad_ids_are_counted_and_nothing_is_sent(receiver: Receiver) -> None:
    async def go() -> dict[str, Any]:
        exporter = ScoreExporter(receiver.url)
        await exporter.send(RECORD, trace_id="not-a-trace", span_id=ROOT)
        await exporter.send(RECORD, trace_id=TRACE, span_id="xyz")
        await exporter.send({"id": "no results"}, trace_id=TRACE, span_id=ROOT)
        await exporter.aclose()
        return exporter.stats()

    stats = asyncio.run(go())
    assert stats["failures"] == {"bad trace or span id": 2} and stats["sent"] == 0
    assert receiver.posts == []


def test_long_and_secret_explanations_are_cut_and_masked() -> None:
    record = {"id": "r", "coherence": {"value": 3, "reason": "key sk-abcdefghijklmnop1234 "
                                                             + "x" * 5000}}
    body = evaluation_request(record, trace_id=TRACE, span_id=ROOT, now_ns=5)
    span = body["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    attrs = {a["key"]: a["value"] for a in span["events"][0]["attributes"]}
    text = attrs["gen_ai.evaluation.explanation"]["stringValue"]
    assert len(text) == 2000 and text.endswith("…") and "sk-abcdefghijklmnop1234" not in text
    assert attrs["gen_ai.evaluation.score.value"] == {"doubleValue": 3.0}
    assert span["startTimeUnixNano"] == span["endTimeUnixNano"] == "5"


def test_credentials_in_the_url_go_as_basic_auth(receiver: Receiver) -> None:
    url = receiver.url.replace("http://", "http://otel:pw-hidden@")

    async def go() -> None:
        exporter = ScoreExporter(url)
        assert "pw-hidden" not in exporter.url and "pw-hidden" not in exporter.shown_url
        await exporter.send(RECORD, trace_id=TRACE, span_id=ROOT)
        await exporter.aclose()

    asyncio.run(go())
    [post] = receiver.posts
    assert post["headers"]["Authorization"] == "Basic " + base64.b64encode(
        b"otel:pw-hidden").decode()


@pytest.mark.parametrize("url", ["127.0.0.1:4318/v1/traces", "ftp://host/v1/traces", "http://"])
def test_a_url_that_is_not_http_is_refused_with_an_example(url: str) -> None:
    with pytest.raises(ConfigError) as failed:
        ScoreExporter(url)
    assert "export_otlp=" in str(failed.value) and "http://127.0.0.1:4318/v1/traces" in str(
        failed.value)
