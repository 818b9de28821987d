"""The OTLP/HTTP receiver of ``assay watch``: JSON, protobuf and gzip bodies spooled before
the answer, the answers OTLP exporters expect (400, 401, 415, 429 + Retry-After), the token,
and bad spans counted, never a crash."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from assay.errors import ConfigError
from assay.judges import FakeJudge
from assay.run import JudgeOptions
from assay.store import open_store
from assay.watch import Watcher, WatchOptions
from assay.watch._receiver import RETRY_AFTER_S, receiver_app

TRACE = "5b8efff798038103d269b633813fc60c"


def chat_span(trace_id: str = TRACE, span_id: str = "eee19b7ec3c1b174", *,
              parent: str | None = None, question: str = "Can I return shoes?",
              answer: str = "Yes, within 60 days.") -> dict[str, Any]:
    """One GenAI chat span in OTLP JSON (semantic conventions 1.37)."""
    def text(v: str) -> dict[str, Any]:
        return {"stringValue": v}
    attrs = [("gen_ai.operation.name", "chat"),
             ("gen_ai.input.messages", json.dumps(
                 [{"role": "user", "parts": [{"type": "text", "content": question}]}])),
             ("gen_ai.output.messages", json.dumps(
                 [{"role": "assistant", "parts": [{"type": "text", "content": answer}]}]))]
    span = {"traceId": trace_id, "spanId": span_id, "name": "chat",
            "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": "1700000001000000000",
            "attributes": [{"key": k, "value": text(v)} for k, v in attrs]}
    if parent:
        span["parentSpanId"] = parent
    return span


def export(*spans: dict[str, Any], service: str = "shop") -> dict[str, Any]:
    return {"resourceSpans": [{
        "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": service}}]},
        "scopeSpans": [{"scope": {"name": "app"}, "spans": list(spans)}]}]}


def make_watcher(tmp_path: Path, **options: Any) -> Watcher:
    options.setdefault("judge", FakeJudge())
    return Watcher(WatchOptions(metrics="fluency", judging=JudgeOptions(cache=None),
                                spool=tmp_path / "spool", store=tmp_path / "runs.sqlite",
                                status_every=0, **options))


@pytest.fixture
def watcher(tmp_path: Path) -> Any:
    w = make_watcher(tmp_path)
    yield w
    w.spool.close()


def test_a_json_export_is_spooled_then_answered_with_an_empty_response(watcher: Watcher) -> None:
    client = TestClient(receiver_app(watcher))
    answer = client.post("/v1/traces", json=export(chat_span()))
    assert answer.status_code == 200 and answer.json() == {}
    assert answer.headers["content-type"] == "application/json"
    assert watcher.spool.unfinished()[TRACE].spans == 1  # durable before the answer
    again = client.post("/v1/traces", json=export(chat_span()))  # an exporter's retry
    assert again.status_code == 200
    status = client.get("/v1/status").json()
    assert (status["spans"], status["duplicate_spans"], status["backlog_spans"]) == (1, 1, 1)


def test_a_protobuf_export_is_read_with_hex_ids(watcher: Watcher) -> None:
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
    from opentelemetry.proto.common.v1 import common_pb2
    from opentelemetry.proto.trace.v1 import trace_pb2

    span = trace_pb2.Span(trace_id=bytes.fromhex(TRACE), span_id=bytes.fromhex("00f067aa0ba902b7"),
                          parent_span_id=bytes.fromhex("eee19b7ec3c1b174"), name="chat",
                          end_time_unix_nano=1_700_000_001_000_000_000,
                          attributes=[common_pb2.KeyValue(
                              key="gen_ai.operation.name",
                              value=common_pb2.AnyValue(string_value="chat"))])
    request = trace_service_pb2.ExportTraceServiceRequest(resource_spans=[
        trace_pb2.ResourceSpans(scope_spans=[trace_pb2.ScopeSpans(spans=[span])])])
    answer = TestClient(receiver_app(watcher)).post(
        "/v1/traces", content=request.SerializeToString(),
        headers={"content-type": "application/x-protobuf"})
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/x-protobuf"
    parsed = trace_service_pb2.ExportTraceServiceResponse()
    parsed.ParseFromString(answer.content)  # an empty ExportTraceServiceResponse
    assert not parsed.HasField("partial_success")
    trace = watcher.spool.unfinished()[TRACE]
    assert trace.root_span_id is None and trace.ended_ns == 1_700_000_001_000_000_000
    spans = watcher.spool.export_of(TRACE)["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert spans[0]["spanId"] == "00f067aa0ba902b7"
    assert spans[0]["parentSpanId"] == "eee19b7ec3c1b174"


def test_a_gzipped_body_is_inflated(watcher: Watcher) -> None:
    body = gzip.compress(json.dumps(export(chat_span())).encode())
    answer = TestClient(receiver_app(watcher)).post(
        "/v1/traces", content=body,
        headers={"content-type": "application/json", "content-encoding": "gzip"})
    assert answer.status_code == 200
    assert TRACE in watcher.spool.unfinished()


def test_bad_bodies_get_400_with_the_reason_and_are_counted(watcher: Watcher) -> None:
    client = TestClient(receiver_app(watcher))
    cases = [(b"{not json", "application/json", "not OTLP JSON"),
             (b"\xff\x00garbage", "application/x-protobuf", "not an OTLP protobuf"),
             (b"not gzip", "application/json", "not gzip")]
    for body, kind, why in cases:
        headers = {"content-type": kind}
        if why == "not gzip":
            headers["content-encoding"] = "gzip"
        answer = client.post("/v1/traces", content=body, headers=headers)
        assert answer.status_code == 400, body
        assert why in answer.json()["message"]
    other = client.post("/v1/traces", content=b"x", headers={"content-type": "text/plain"})
    assert other.status_code == 415
    assert watcher.counts["bad_requests"] == 4
    # a span without a trace id is left out and counted; the rest of the export is kept
    answer = client.post("/v1/traces", json=export(chat_span(), {"spanId": "ab", "name": "x"}))
    assert answer.status_code == 200
    assert answer.json()["partialSuccess"]["rejectedSpans"] == "1"
    assert watcher.counts["bad_spans"] == 1 and watcher.spool.backlog == 1
    assert client.get("/v1/status").json()["bad_spans"] == 1


def test_a_full_backlog_answers_429_with_retry_after(tmp_path: Path) -> None:
    watcher = make_watcher(tmp_path, max_backlog=2)
    client = TestClient(receiver_app(watcher))
    for i in range(2):
        assert client.post("/v1/traces", json=export(chat_span(f"{i:032x}"))).status_code == 200
    full = client.post("/v1/traces", json=export(chat_span(f"{9:032x}")))
    assert full.status_code == 429
    assert full.headers["retry-after"] == str(RETRY_AFTER_S)
    assert f"{9:032x}" not in watcher.spool.unfinished()  # not accepted, so not spooled
    watcher.spool.mark_done([f"{0:032x}"], "scored")  # the scorer catches up
    assert client.post("/v1/traces", json=export(chat_span(f"{9:032x}"))).status_code == 200
    watcher.spool.close()


def test_a_non_loopback_address_needs_a_token_and_every_request_carries_it(
        tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="without a token"):
        WatchOptions(metrics="fluency", listen="0.0.0.0:4318")
    secret = "s3cret-watch-token-123456"
    watcher = make_watcher(tmp_path, listen="0.0.0.0:4318", token=secret)
    client = TestClient(receiver_app(watcher))
    body = export(chat_span())
    assert client.post("/v1/traces", json=body).status_code == 401
    assert client.post("/v1/traces", json=body,
                       headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert client.get("/v1/status").status_code == 401
    assert TRACE not in watcher.spool.unfinished()
    ok = client.post("/v1/traces", json=body, headers={"Authorization": f"Bearer {secret}"})
    assert ok.status_code == 200 and TRACE in watcher.spool.unfinished()
    run_id = watcher.recording.run_id
    watcher.recording.store.close()
    watcher.spool.close()
    with open_store(tmp_path / "runs.sqlite") as store:
        info = store.get(run_id)
    assert info.kind == "watch"
    assert secret not in json.dumps(info.settings)
    assert secret not in (tmp_path / "spool" / "spool.sqlite").read_bytes().decode("latin-1")


def test_a_body_over_the_limit_gets_413_even_when_it_inflates_past_it(tmp_path: Path) -> None:
    watcher = make_watcher(tmp_path, max_body=2000)
    client = TestClient(receiver_app(watcher))
    big = json.dumps(export(chat_span(answer="x" * 5000))).encode()
    answer = client.post("/v1/traces", content=big, headers={"content-type": "application/json"})
    assert answer.status_code == 413
    bomb = gzip.compress(big)  # small on the wire, too large inflated
    assert len(bomb) < 2000
    answer = client.post("/v1/traces", content=bomb, headers={
        "content-type": "application/json", "content-encoding": "gzip"})
    assert answer.status_code == 400 and "inflates to more than" in answer.json()["message"]
    assert watcher.spool.unfinished() == {}
    watcher.spool.close()


def test_a_malformed_export_structure_is_answered_never_a_crash(watcher: Watcher) -> None:
    client = TestClient(receiver_app(watcher))
    odd = {"resourceSpans": [7, {"scopeSpans": 5}, {"scopeSpans": [{"spans": "x"}]},
                             {"scopeSpans": [{"spans": [3]}]}]}
    answer = client.post("/v1/traces", json=odd)
    assert answer.status_code == 200
    assert answer.json()["partialSuccess"]["rejectedSpans"] == "1"  # the span that is a number
    assert client.post("/v1/traces", json={"resourceSpans": 5}).status_code == 400
