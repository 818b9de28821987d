"""``assay watch`` against the real GenAI instrumentation libraries: an app (tests/genai_app.py)
calls a fake OpenAI server on loopback through the real ``openai`` client (or LangChain), traced
by opentelemetry-instrumentation-openai-v2, OpenLLMetry or OpenInference, and the standard
OTLP/HTTP exporters send its spans, log records and metrics to a real ``assay watch``.

Each app makes three calls in one trace: a tool call, the answer after the tool's result, and a
call the server refuses with 400; so each row is unscored with ``target call failed`` (never an
empty answer scored), and its stored messages show what was read, each once.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.store import open_store
from test_otlp_real_clients import CONVERSATION
from test_watch_kill import free_port, requires_otel, start_watch, wait_for

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "tests" / "genai_app.py"
LIBRARIES = {"openai-v2": "opentelemetry.instrumentation.openai_v2",
             "openllmetry": "opentelemetry.instrumentation.openai",
             "openinference": "openinference.instrumentation.openai",
             "langchain": "openinference.instrumentation.langchain"}


def installed(library: str) -> bool:
    try:
        return importlib.util.find_spec(LIBRARIES[library]) is not None and \
            importlib.util.find_spec("openai") is not None
    except ModuleNotFoundError:
        return False


def needs(library: str) -> Any:
    return pytest.mark.skipif(not installed(library), reason=(
        f"needs {LIBRARIES[library]} (the dev extra pins it): pip install -e '.[dev]'"))


class Watch:
    """One ``assay watch`` (fake judge, fluency) that the apps of the module send to."""

    def __init__(self, tmp: Path) -> None:
        self.tmp, self.port = tmp, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = start_watch(tmp, self.port, "--metrics", "fluency", "--judge", "fake",
                                "--idle", "4")

    def status(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.url}/v1/status", timeout=5) as answer:
            return dict(json.load(answer))

    def send(self, library: str, *flags: str, **env: str) -> subprocess.CompletedProcess[str]:
        """Run the app once (one trace); wait until the watch scored or skipped it."""
        before = self._done()
        ran = subprocess.run(
            [sys.executable, str(APP), library, self.url, *flags], capture_output=True,
            text=True, timeout=120, check=False, env={**os.environ, **env}, cwd=self.tmp)
        assert ran.stdout.strip() == "flushed", ran.stderr[-3000:]
        wait_for(lambda: self._done() > before, 30, f"the {library} trace done")
        return ran

    def _done(self) -> int:
        s = self.status()
        return int(s["scored"]) + int(s["skipped"])

    def last_row(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The last scored row: (its record, its stored inputs)."""
        wait_for(lambda: self._stored(), 10, "the row committed")
        return self._stored()[-1]

    def _stored(self) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        with open_store(self.tmp / "runs.sqlite") as store:
            run = next(r for r in store.runs() if r.kind == "watch")
            rows = store.rows(run.id)
            inputs = store.inputs(run.id, [r["id"] for r in rows])
        return [(r, inputs[r["id"]]) for r in sorted(rows, key=lambda r: r["watch"]["scored"])]

    def stop(self) -> str:
        self.proc.terminate()
        self.proc.wait(timeout=30)
        return (self.tmp / "watch.log").read_text()


@pytest.fixture(scope="module")
def watch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Watch]:
    w = Watch(tmp_path_factory.mktemp("watch"))
    yield w
    if w.proc.poll() is None:
        w.stop()


def said(inputs: dict[str, Any]) -> list[dict[str, Any]]:
    """The stored messages in the shape of CONVERSATION (citations and empty content out)."""
    out = []
    for m in inputs["messages"]:
        m = {k: v for k, v in m.items() if k != "citations" and v not in ("", None, [])}
        out.append(m)
    return out


def assert_failed_call(record: dict[str, Any]) -> None:
    """The 400 call left the row unscored with the reason, never an empty answer scored; the
    app's spend is read from the library's usage attributes: two answered calls of 10 prompt
    and 5 completion tokens on gpt-4o-mini (genai-prices: $0.15 / $0.60 per million), each
    counted once even where a framework's span records the call again."""
    fluency = record["fluency"]
    assert fluency["value"] is None, fluency
    assert fluency["error"].startswith("target call failed: the app's model call failed: ")
    assert "400" in fluency["error"] and "Traceback" not in fluency["error"]
    app = record["watch"]["app"]
    assert (app["prompt_tokens"], app["completion_tokens"], app["usd"]) == (20, 10, 9e-06), app
    assert app["models"][0].startswith("gpt-4o-mini") and app["latency_s"] > 0


@requires_otel
@needs("openai-v2")
def test_openai_v2_events_as_logs_to_a_trailing_slash_endpoint_are_joined_to_their_spans(
        watch: Watch) -> None:
    """2.4b0 with EVENT_ONLY: spans without content, the messages in
    gen_ai.client.inference.operation.details log records, all sent to .../v1/traces/ and
    .../v1/logs/ (a 307 there was taken as delivered: the traces were lost)."""
    ran = watch.send("openai-v2", "--logs", "--slash",
                     OTEL_SEMCONV_STABILITY_OPT_IN="gen_ai_latest_experimental",
                     OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="EVENT_ONLY")
    assert "Failed to export" not in ran.stderr
    record, inputs = watch.last_row()
    assert said(inputs) == CONVERSATION
    assert_failed_call(record)
    assert watch.status()["log_records"] >= 3


@requires_otel
@needs("openai-v2")
def test_openai_v2_with_true_is_skipped_with_the_fix_for_its_release(watch: Watch) -> None:
    """2.4b0 reads ``true`` as NO_CONTENT: the skip reason says SPAN_ONLY, not true."""
    watch.send("openai-v2", OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="true")
    reasons = watch.status()["skip_reasons"]
    reason = next(r for r in reasons if "no user message" in r)
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (not true" in reason


@requires_otel
@needs("openai-v2")
def test_openai_v2_span_only_is_read_from_the_spans(watch: Watch) -> None:
    watch.send("openai-v2", OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="SPAN_ONLY")
    record, inputs = watch.last_row()
    assert said(inputs) == CONVERSATION
    assert_failed_call(record)


@requires_otel
@needs("langchain")
def test_langchain_under_openinference_gives_each_message_once(watch: Watch) -> None:
    """LangChain's LLM spans and its OpenAI client's spans record each call twice; the
    TOOL span's result is LangChain's ToolMessage as JSON."""
    watch.send("langchain")
    record, inputs = watch.last_row()
    assert said(inputs) == CONVERSATION
    assert_failed_call(record)


@requires_otel
@needs("openllmetry")
def test_openllmetry_metrics_are_answered_so_the_exporter_stops_and_said_once(
        watch: Watch) -> None:
    """OpenLLMetry's metrics get 200 with a partialSuccess (a 404 was logged by the exporter
    as a failed export every interval); the watch says once that it does not read them."""
    ran = watch.send("openllmetry", "--metrics", TRACELOOP_TRACE_CONTENT="true")
    assert "Failed to export" not in ran.stderr, ran.stderr[-2000:]
    record, inputs = watch.last_row()
    assert said(inputs) == CONVERSATION
    assert_failed_call(record)
    assert watch.status()["metrics_requests"] >= 1
    time.sleep(0.2)
    log = (watch.tmp / "watch.log").read_text()
    assert log.count("assay watch does not read metrics") == 1
