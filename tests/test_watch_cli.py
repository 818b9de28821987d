"""``assay watch`` options refused before anything starts, the protobuf extra missing, and a
judge that stops answering for a while (scoring pauses, nothing is lost)."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from assay.cli.main import app
from assay.errors import JudgeUnavailableError
from assay.judges import FakeJudge
from assay.watch._receiver import receiver_app
from test_watch_export import Receiver
from test_watch_flow import options, run_until, stored, tid
from test_watch_receiver import chat_span, export, make_watcher


@pytest.mark.parametrize(("args", "says"), [
    (["--listen", "0.0.0.0:4318"], "without a token"),
    (["--metrics", "auto"], "Name the metrics"),
    (["--metrics", "fluency,nonsense"], "Unknown metric 'nonsense'"),
    (["--filter", "service.name"], "KEY=VALUE"),
    (["--listen", "localhost"], "HOST:PORT"),
    (["--alert", "fluency about 3"], "groundedness<3.5 over 50"),
    (["--export-otlp", "ftp://collector/v1/traces"], "--export-otlp"),
])
def test_bad_options_exit_2_with_the_reason(tmp_path: Path, args: list[str], says: str) -> None:
    base = ["watch", "--metrics", "fluency", "--judge", "fake", "--spool",
            str(tmp_path / "spool"), "--store", str(tmp_path / "runs.sqlite")]
    result = CliRunner().invoke(app, [*base, *args])
    assert result.exit_code == 2, result.output
    assert says in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_without_the_protobuf_extra_protobuf_gets_415_and_json_still_works(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import assay.watch._receiver as receiver

    monkeypatch.setattr(receiver, "PROTOBUF_MISSING",
                        "protobuf bodies need opentelemetry-proto; pip install 'assay[watch]'")
    watcher = make_watcher(tmp_path)
    client = TestClient(receiver_app(watcher))
    answer = client.post("/v1/traces", content=b"\x0a\x00",
                         headers={"content-type": "application/x-protobuf"})
    assert answer.status_code == 415 and "assay[watch]" in answer.json()["message"]
    assert client.post("/v1/traces", json=export(chat_span())).status_code == 200
    watcher.spool.close()


def test_a_judge_that_stops_answering_pauses_scoring_and_loses_no_trace(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import assay.watch._watch as watching

    monkeypatch.setattr(watching, "_JUDGE_PAUSE_S", 0.2)
    path = tmp_path / "traces.jsonl"
    path.write_text("".join(json.dumps(export(chat_span(tid(i), f"{i:016x}"))) + "\n"
                            for i in range(5)))
    calls: list[int] = []

    def down_then_up(request: Any) -> Any:
        calls.append(1)
        if len(calls) <= 3:  # three identical hard failures stop the judge
            return JudgeUnavailableError("connection refused", kind="connection")
        return '{"score": 4, "reason": "fine"}'

    judge = FakeJudge(down_then_up)
    summary = run_until(options(tmp_path, path, judge), lambda w: w.counts["scored"] >= 5)
    rows = stored(tmp_path)
    assert sorted(r["id"] for r in rows) == [tid(i) for i in range(5)]
    # the two calls that failed before the judge was stopped leave their rows stored
    # unscored with the reason (as in assay run); the row of the third call and those not
    # asked yet wait, and are scored once the judge is back
    failed = [r for r in rows if r["fluency"]["value"] is None]
    assert len(failed) == 2 and all("connection refused" in json.dumps(r["fluency"])
                                    for r in failed)
    assert [r["fluency"]["value"] for r in rows if r not in failed] == [4.0] * 3
    assert summary["watch"]["judge_stops"] == 1 and summary["watch"]["failed_rows"] == 2


def test_a_second_stop_leaves_the_rows_being_scored_in_the_spool_for_the_next_watch(
        tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    path.write_text("".join(json.dumps(export(chat_span(tid(i), f"{i:016x}"))) + "\n"
                            for i in range(3)))

    def twice(watcher: Any) -> bool:
        if watcher.status()["scoring"] == 3:
            watcher.stop()  # the first stop waits for the rows being scored ...
            return True  # ... and run_until's stop is the second: at once
        return False

    started = time.monotonic()
    summary = run_until(options(tmp_path, path, FakeJudge(latency_s=60)), twice, timeout=20)
    assert time.monotonic() - started < 15
    assert not summary["complete"] and summary["watch"]["unfinished_traces"] == 3
    judge = FakeJudge()
    summary = run_until(options(tmp_path, path, judge), lambda w: w.counts["scored"] >= 3)
    assert summary["complete"] and len(judge.requests) == 3
    assert sorted(r["id"] for r in stored(tmp_path)) == [tid(i) for i in range(3)]


def test_a_setting_problem_while_scoring_stops_the_watch_with_the_error(tmp_path: Path) -> None:
    from assay.errors import ConfigError

    path = tmp_path / "traces.jsonl"
    path.write_text(json.dumps(export(chat_span())) + "\n")
    judge = FakeJudge(lambda request: ConfigError("the judge's model is not installed"))
    with pytest.raises(ConfigError, match="not installed"):
        run_until(options(tmp_path, path, judge), lambda w: False, timeout=20)
    from assay.store import open_store
    with open_store(tmp_path / "runs.sqlite") as store:
        (run,) = store.runs()
    assert run.status == "interrupted" and run.rows == 0  # the trace waits in the spool


@pytest.fixture
def endpoint() -> Iterator[Receiver]:
    """An OTLP/HTTP endpoint on loopback that records what it is sent."""
    found = Receiver()
    yield found
    found.close()


def test_alerts_and_the_score_export_get_each_scored_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], endpoint: Receiver,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule that fires on the first scored row prints its line and lands in the summary;
    the score goes to an OTLP endpoint as an evaluation event under the trace's root span,
    with the headers of the OpenTelemetry exporter variables."""
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-team=team%20key-8f3a9c,bogus")
    path = tmp_path / "traces.jsonl"
    root = {"traceId": tid(1), "spanId": "a" * 16, "name": "handle request"}
    path.write_text(json.dumps(export(chat_span(tid(1), "c" * 16, parent="a" * 16), root))
                    + "\n")
    summary = run_until(options(tmp_path, path, FakeJudge(), alerts=["fluency<6 over 1"],
                                export_otlp=endpoint.url),
                        lambda w: w.counts["scored"] >= 1)
    assert "ALERT fluency mean 5 over the last 1 rows < 6 (firing)" in capsys.readouterr().out
    (alert,) = summary["alerts"]
    assert (alert["rule"], alert["state"], alert["mean"]) == ("fluency<6 over 1", "firing", 5.0)
    (post,) = endpoint.posts
    assert post["headers"]["x-team"] == "team key-8f3a9c"
    span = json.loads(post["body"])["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert (span["traceId"], span["parentSpanId"]) == (tid(1), "a" * 16)
    (event,) = span["events"]
    attrs = {a["key"]: a["value"] for a in event["attributes"]}
    assert event["name"] == "gen_ai.evaluation.result"
    assert attrs["gen_ai.evaluation.name"] == {"stringValue": "fluency"}
    assert attrs["gen_ai.evaluation.score.value"] == {"doubleValue": 5.0}
    from assay.store import open_store
    with open_store(tmp_path / "runs.sqlite") as store:
        (run,) = store.runs()
        assert run.summary is not None and run.summary["alerts"] == summary["alerts"]


def test_a_resumed_watch_keeps_its_alerts_and_does_not_announce_a_firing_rule_again(
        ) -> None:
    from assay.watch._hooks import Hooks
    from assay.watch._options import WatchOptions

    hooks = Hooks(WatchOptions(metrics="fluency", alerts=("fluency<3 over 2",)))
    earlier = {"rule": "fluency<3 over 2", "state": "firing", "mean": 1.5}
    low = {"id": "x", "fluency": {"value": 1.0}}
    hooks.resume([earlier], [low, low])
    hooks.observe(low, trace_id="t1", span_id=None)  # still firing: nothing new
    assert hooks.alerts == [earlier] and hooks.new_alerts() is None
    high = {"id": "y", "fluency": {"value": 5.0}}
    hooks.observe(high, trace_id="t2", span_id=None)
    hooks.observe(high, trace_id="t3", span_id=None)  # the mean is back over the bar
    alerts = hooks.new_alerts()
    assert alerts is not None and alerts[0] == earlier and alerts[1]["state"] == "resolved"


def test_the_status_line_is_progress_on_stderr_not_a_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "traces.jsonl"
    path.write_text(json.dumps(export(chat_span(tid(1), "c" * 16))) + "\n")
    opts = dataclasses.replace(options(tmp_path, path, FakeJudge()), status_every=0.05)
    run_until(opts, lambda w: w.counts["scored"] >= 1 and time.sleep(0.2) is None)
    err = capsys.readouterr().err
    assert "watch: 1 spans received, 1 traces finished: 1 scored, 0 skipped" in err
    assert not [r for r in caplog.records if "spans received" in r.getMessage()]
