"""What the real GenAI instrumentations send, recorded by ``benchmarks/otlp_fixtures.py record``
(tests/data/otlp/), read by ``assay run FILE`` and by ``assay watch`` (the receiver's
``/v1/logs``, a followed file), fast and offline: GenAI events in log records joined to their
spans whichever comes first, a model call on two spans read once, a call refused with 400 left
unscored with the reason, and the fix of a trace without content told per library and release.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from assay.cli.main import app
from assay.data import read_dataset
from assay.errors import DataError
from assay.judges import FakeJudge
from assay.store import open_store
from assay.watch import Watcher
from assay.watch._receiver import receiver_app
from test_watch_flow import options, run_until, stored
from test_watch_receiver import make_watcher

FIXTURES = Path(__file__).parent / "data" / "otlp"
EVENTS = FIXTURES / "openai_v2_2.4b0_events.jsonl"  # a logs line first, then spans, then logs
CONVERSATION = [
    {"role": "system", "content": "You are a travel assistant."},
    {"role": "user", "content": "What's the weather in Paris?"},
    {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function", "function": {
        "name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
    {"role": "tool", "content": "18 C, sunny", "tool_call_id": "call_1"},
    {"role": "assistant", "content": "It is 18 C and sunny in Paris."},
    {"role": "user", "content": "And in Lyon?"}]


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def write(path: Path, exports: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in exports), encoding="utf-8")
    return path


def said(messages: list[Any]) -> list[dict[str, Any]]:
    """Messages (turns or stored dicts) in the shape of CONVERSATION."""
    out = []
    for m in messages:
        m = m if isinstance(m, dict) else m.model_dump(mode="json")
        calls = [c if "function" in c else {"id": c["id"], "type": "function", "function": {
            "name": c["name"], "arguments": c["arguments_text"]}} for c in m.get("tool_calls") or []]
        m = {**m, "tool_calls": calls}
        out.append({k: v for k, v in m.items() if k != "citations" and v not in ("", None, [])})
    return out


def failed_call(reason: str) -> bool:
    return reason.startswith("target call failed: the app's model call failed: ") and \
        "400" in reason and "Traceback" not in reason


@pytest.mark.parametrize("order", ["as sent", "logs last", "logs first"])
def test_events_in_log_records_fill_their_spans_in_any_order(tmp_path: Path, order: str) -> None:
    exports = lines(EVENTS)
    spans = [e for e in exports if "resourceSpans" in e]
    logs = [e for e in exports if "resourceLogs" in e]
    exports = {"as sent": exports, "logs last": spans + logs, "logs first": logs + spans}[order]
    [row] = read_dataset(write(tmp_path / "t.jsonl", exports))
    assert said(row.messages or []) == CONVERSATION
    assert failed_call(row.extra["app_failed"])


def test_langchain_under_openinference_reads_each_message_once() -> None:
    """LangChain's LLM spans and its OpenAI client's record each call (and the failed one)
    twice; the TOOL span's result is LangChain's ToolMessage as JSON."""
    [row] = read_dataset(FIXTURES / "langchain_openinference_0.1.80.jsonl")
    assert said(row.messages or []) == CONVERSATION
    assert failed_call(row.extra["app_failed"])


def test_a_run_leaves_the_row_of_a_failed_call_unscored_with_the_reason(tmp_path: Path) -> None:
    """Before, the failed call's empty answer was judged (fluency 5); now every metric is
    unscored with the reason and the run exits 3, as for a failed --target call."""
    out = tmp_path / "out"
    ran = CliRunner().invoke(app, ["run", str(FIXTURES / "langchain_openinference_0.1.80.jsonl"),
                                   "--judge", "fake", "--metrics", "fluency,coherence",
                                   "--out", str(out)])
    assert ran.exit_code == 3, ran.output
    [result] = lines(out / "results.jsonl")
    for metric in ("fluency", "coherence"):
        assert result[metric]["value"] is None and failed_call(result[metric]["error"])
    assert "target calls failed" in ran.output


CAPTURE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


@pytest.mark.parametrize("fixture, says", [
    ("openai_v2_2.4b0_true.jsonl", f"{CAPTURE}=SPAN_ONLY (not true"),
    ("openai_v2_2.1b0.jsonl", f"{CAPTURE}=true and send the app's logs too")])
def test_a_trace_without_content_gets_the_fix_of_its_library_release(
        tmp_path: Path, fixture: str, says: str) -> None:
    """2.4b0 (through opentelemetry-util-genai) reads ``true`` as no content; 2.1b0 takes
    ``true`` but writes the messages as log records (here: the spans sent without them)."""
    spans = [e for e in lines(FIXTURES / fixture) if "resourceSpans" in e]
    with pytest.raises(DataError) as raised:
        read_dataset(write(tmp_path / "t.jsonl", spans))
    [problem] = raised.value.problems
    assert says in problem, problem


# -- assay watch ------------------------------------------------------------------------


def post_all(client: TestClient, exports: list[dict[str, Any]], *, slash: str = "") -> None:
    for e in exports:
        path = "/v1/logs" if "resourceLogs" in e else "/v1/traces"
        answer = client.post(path + slash, json=e, follow_redirects=False)
        assert answer.status_code == 200, answer.text


def scored_row(watcher: Watcher, now: float) -> dict[str, Any]:
    watcher.assemble_once(now)
    [(_, row, _)] = [watcher._queue.get_nowait() for _ in range(watcher._queue.qsize())]
    return {"messages": said(row.messages or []), "extra": row.extra}


@pytest.mark.parametrize("logs_first", [True, False])
def test_the_receiver_joins_log_records_to_their_spans_in_either_order(
        tmp_path: Path, logs_first: bool) -> None:
    exports = lines(EVENTS)
    spans = [e for e in exports if "resourceSpans" in e]
    logs = [e for e in exports if "resourceLogs" in e]
    watcher = make_watcher(tmp_path, grace=0.5, idle=5.0)
    client = TestClient(receiver_app(watcher))
    post_all(client, logs + spans if logs_first else spans, slash="/")
    if not logs_first:  # the trace is finished (root + grace) but has no content yet: waits
        watcher.assemble_once(time.time() + 1)
        assert watcher._queue.qsize() == 0 and not watcher.spool.skip_reasons()
        post_all(client, logs)
    row = scored_row(watcher, time.time() + 1)
    assert row["messages"] == CONVERSATION and failed_call(row["extra"]["app_failed"])
    assert watcher.counts["log_records"] == 3
    post_all(client, logs)  # an exporter's retry: kept once
    assert watcher.status()["log_records"] == 3
    watcher.spool.close()


def test_the_receiver_joins_the_older_message_events_of_openai_v2_2_1b0(tmp_path: Path) -> None:
    """2.1b0 sends gen_ai.user.message, ..., gen_ai.choice log records (the Events API)."""
    watcher = make_watcher(tmp_path, grace=0.5, idle=5.0)
    client = TestClient(receiver_app(watcher))
    post_all(client, list(reversed(lines(FIXTURES / "openai_v2_2.1b0.jsonl"))))
    row = scored_row(watcher, time.time() + 1)
    assert row["messages"] == CONVERSATION[:-1] and "app_failed" not in row["extra"]
    watcher.spool.close()


def test_a_trace_whose_content_never_comes_is_skipped_with_the_fix_after_idle(
        tmp_path: Path) -> None:
    watcher = make_watcher(tmp_path, grace=0.5, idle=5.0)
    client = TestClient(receiver_app(watcher))
    post_all(client, lines(FIXTURES / "openai_v2_2.4b0_true.jsonl"))
    watcher.assemble_once(time.time() + 1)
    assert not watcher.spool.skip_reasons()  # within idle: its log records may still come
    watcher.assemble_once(time.time() + 6)
    [reason] = watcher.spool.skip_reasons()
    assert "CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (not true" in reason
    watcher.spool.close()


def test_metrics_are_answered_200_with_a_partial_success_and_said_once(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The OTLP exporters retry only 429, 502, 503 and 504, and log any other failure on
    every export; 200 (also for 3xx, which is why a 307 lost traces) stops them."""
    from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2

    watcher = make_watcher(tmp_path)
    client = TestClient(receiver_app(watcher))
    with caplog.at_level(logging.WARNING, logger="assay.watch"):
        as_json = client.post("/v1/metrics", json={"resourceMetrics": []})
        as_protobuf = client.post("/v1/metrics/", content=b"",
                                  headers={"content-type": "application/x-protobuf"})
    assert (as_json.status_code, as_protobuf.status_code) == (200, 200)
    assert "does not read metrics" in as_json.json()["partialSuccess"]["errorMessage"]
    answer = metrics_service_pb2.ExportMetricsServiceResponse()
    answer.ParseFromString(as_protobuf.content)
    assert "does not read metrics" in answer.partial_success.error_message
    assert sum("does not read metrics" in r.getMessage() for r in caplog.records) == 1
    assert watcher.counts["metrics_requests"] == 2
    watcher.spool.close()


@pytest.mark.parametrize("logs_later", [False, True])
def test_a_followed_file_joins_log_lines_to_their_spans(tmp_path: Path, logs_later: bool) -> None:
    """The Collector's file exporter writes traces and logs lines to one file; with
    ``logs_later`` the logs lines are appended after the spans were spooled."""
    exports = lines(EVENTS)
    path = tmp_path / "otel.jsonl"
    if not logs_later:
        write(path, exports)
    else:
        write(path, [e for e in exports if "resourceSpans" in e])

    def done(watcher: Watcher) -> bool:
        if logs_later and watcher.counts["spans"] and not watcher.counts.get("appended"):
            watcher.counts["appended"] = 1
            with path.open("a", encoding="utf-8") as f:
                f.write("".join(json.dumps(e) + "\n" for e in exports if "resourceLogs" in e))
        return watcher.counts["scored"] >= 1

    opts = dataclasses.replace(options(tmp_path, path, FakeJudge()), idle=3.0)
    run_until(opts, done)
    [record] = stored(tmp_path)
    assert failed_call(record["fluency"]["error"])
    with open_store(tmp_path / "runs.sqlite") as store:
        (run,) = [r for r in store.runs() if r.kind == "watch"]
        inputs = store.inputs(run.id, [record["id"]])[record["id"]]
    assert said(inputs["messages"]) == CONVERSATION
