"""From spooled spans to stored rows in ``assay watch``: when a trace is finished (root span or
idle), sampling and filtering, skipped traces with their reason, followed files, and a
restart after a crash between the store's commit and the spool's mark (nothing scored
twice)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assay.errors import JudgeError
from assay.judges import FakeJudge
from assay.run import JudgeOptions
from assay.store import open_store
from assay.watch import Watcher, WatchOptions, watch_async
from assay.watch._select import sampled
from test_watch_receiver import chat_span, export, make_watcher


def tid(i: int) -> str:
    return f"{i:032x}"


def options(tmp_path: Path, follow: Path, judge: Any, **more: Any) -> WatchOptions:
    return WatchOptions(metrics="fluency,f1_score", judge=judge, listen=None, follow=[follow],
                        judging=JudgeOptions(cache=None, max_attempts=2),
                        spool=tmp_path / "spool", store=tmp_path / "runs.sqlite",
                        status_every=0, grace=0.05, idle=0.5, **more)


def run_until(opts: WatchOptions, done: Callable[[Watcher], bool],
              timeout: float = 30) -> dict[str, Any]:
    """Run a watch until ``done(watcher)`` holds, then stop it; its summary."""
    async def go() -> dict[str, Any]:
        tasks = []

        def started(watcher: Watcher) -> None:
            async def poll() -> None:
                while not done(watcher):
                    await asyncio.sleep(0.05)
                watcher.stop()
            tasks.append(asyncio.get_running_loop().create_task(poll()))

        return await asyncio.wait_for(watch_async(opts, on_start=started), timeout)
    return asyncio.run(go())


def stored(tmp_path: Path) -> list[dict[str, Any]]:
    with open_store(tmp_path / "runs.sqlite") as store:
        (run,) = [r for r in store.runs() if r.kind == "watch"]
        return store.rows(run.id)


def test_a_trace_is_finished_by_its_root_span_or_after_idle(tmp_path: Path) -> None:
    watcher = make_watcher(tmp_path, idle=10.0, grace=1.0)
    child = chat_span(tid(1), "00000000000000c1", parent="00000000000000a1")
    watcher.accept([(child, {})], [])
    watcher.accept([(chat_span(tid(2), "00000000000000c2", parent="0000000000000099"), {})], [])
    now = time.time()
    watcher.assemble_once(now + 5)
    assert watcher.counts["traces"] == 0  # no root yet, not idle yet
    watcher.accept([({"traceId": tid(1), "spanId": "00000000000000a1", "name": "root"}, {})],
                   [])
    watcher.assemble_once(time.time() + 0.5)
    assert watcher.counts["traces"] == 0  # the root came: a grace for late spans
    watcher.assemble_once(time.time() + 1.5)
    assert watcher.counts["traces"] == 1 and watcher._queue.qsize() == 1
    trace_id, row, meta = watcher._queue.get_nowait()  # type: ignore[misc]
    assert trace_id == tid(1) and row.id == tid(1)
    assert meta["root_span_id"] == "00000000000000a1"
    assert meta["ended"] == "2023-11-14T22:13:21.000Z"  # the latest span end
    watcher.assemble_once(time.time() + 10.5)  # the rootless trace, once idle
    assert watcher.counts["traces"] == 2
    watcher.spool.close()


def test_sample_and_filter_choose_the_traces_and_skipped_ones_say_why(tmp_path: Path) -> None:
    watcher = make_watcher(tmp_path, sample=0.5, filter="service.name=shop", idle=1.0)
    for i in range(40):
        spans = [(chat_span(tid(i), f"{i:016x}"),
                  export(service="shop" if i % 4 else "admin")["resourceSpans"][0]["resource"])]
        watcher.accept(spans, [])
    watcher.accept([({"traceId": tid(99), "spanId": "1" * 16, "name": "db query"}, {})], [])
    watcher.assemble_once(time.time() + 2)
    queued = set()
    while not watcher._queue.empty():
        queued.add(watcher._queue.get_nowait()[0])  # type: ignore[index]
    kept = {tid(i) for i in range(40) if sampled(tid(i), 0.5) and i % 4}
    assert queued == kept and 5 < len(kept) < 30
    reasons = watcher.spool.skip_reasons(limit=10)
    assert reasons["sampled out (sample)"] == sum(1 for i in range(40) if not sampled(tid(i), 0.5)) \
        + (0 if sampled(tid(99), 0.5) else 1)
    assert reasons["filtered out (filter)"] == sum(
        1 for i in range(40) if sampled(tid(i), 0.5) and not i % 4)
    if sampled(tid(99), 0.5):  # no GenAI span: no row, said why
        assert any(r.startswith("no model-call span") for r in reasons)
    assert watcher.counts["skipped"] == 41 - len(kept)
    watcher.spool.close()
    again = make_watcher(tmp_path / "again", sample=0.5)
    assert all(sampled(t, 0.5) for t in kept)  # the same traces after a restart
    again.spool.close()


def test_followed_files_are_scored_once_and_a_restart_goes_on_where_it_stopped(
        tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    lines = [json.dumps(export(chat_span(tid(i), f"{i:016x}"))) for i in range(6)]
    path.write_text("\n".join(lines[:3]) + "\n" + lines[3][:25])  # a partial last line
    judge = FakeJudge()
    summary = run_until(options(tmp_path, path, judge), lambda w: w.counts["scored"] >= 3)
    assert summary["watch"]["scored"] == 3 and summary["complete"]
    with path.open("a") as f:
        f.write(lines[3][25:] + "\n" + "\n".join(lines[4:]) + "\n" + "{oops\n")
    summary = run_until(options(tmp_path, path, judge), lambda w: w.counts["scored"] >= 3)
    with open_store(tmp_path / "runs.sqlite") as store:
        runs = [r for r in store.runs() if r.kind == "watch"]
        ids = sorted(row["id"] for run in runs for row in store.rows(run.id))
    assert ids == [tid(i) for i in range(6)]  # each trace once
    assert len(judge.requests) == 6
    assert summary["watch"]["scored"] == 3
    records = [r for run in runs for r in open_store(tmp_path / "runs.sqlite").rows(run.id)]
    record = records[0]
    assert set(record["watch"]) == {"trace_id", "ended", "received", "scored", "app", "judge"}
    # the followed spans report no tokens: the app's cost unknown with the reason, never $0
    assert record["watch"]["app"]["usd"] is None
    assert record["watch"]["app"]["unknown_reason"].startswith("the trace reports no token")
    assert record["fluency"]["value"] == 5.0
    assert record["f1_score"]["value"] is None  # does not apply: recorded with the reason
    assert record["f1_score"]["error"].startswith("does not apply")


def test_a_crash_after_the_store_commit_scores_nothing_twice(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             ) -> None:
    from assay.watch._spool import Spool

    path = tmp_path / "traces.jsonl"
    path.write_text("".join(json.dumps(export(chat_span(tid(i), f"{i:016x}"))) + "\n"
                            for i in range(4)))
    judge = FakeJudge()
    real = Spool.mark_done

    def crash(self: Spool, ids: Any, state: str, reason: str | None = None) -> None:
        if state != "scored":  # the process dies between the store's commit and this mark
            real(self, ids, state, reason)

    monkeypatch.setattr(Spool, "mark_done", crash)
    first = run_until(options(tmp_path, path, judge), lambda w: w.counts["scored"] >= 4)
    assert not first["complete"]  # traces left unmarked: the run is resumed
    assert len(stored(tmp_path)) == 4 and len(judge.requests) == 4
    monkeypatch.setattr(Spool, "mark_done", real)
    summary = run_until(options(tmp_path, path, judge),
                        lambda w: not w.spool.unfinished())
    assert len(judge.requests) == 4  # not asked again
    rows = stored(tmp_path)
    assert sorted(r["id"] for r in rows) == [tid(i) for i in range(4)]
    assert summary["complete"] and summary["rows"] == 4 and summary["watch"]["scored"] == 0


def test_a_judge_that_fails_leaves_rows_unscored_with_the_reason_never_dropped(
        tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    path.write_text("".join(json.dumps(export(chat_span(tid(i), f"{i:016x}"))) + "\n"
                            for i in range(3)))
    judge = FakeJudge(lambda request: JudgeError("HTTP 500: judge down"))
    summary = run_until(options(tmp_path, path, judge), lambda w: w.counts["scored"] >= 3)
    rows = stored(tmp_path)
    assert len(rows) == 3
    assert all(r["fluency"]["value"] is None and "judge down" in json.dumps(r["fluency"])
               for r in rows), rows[0]["fluency"]
    assert summary["watch"]["failed_rows"] == 3, rows[0]


def test_a_full_backlog_makes_a_followed_file_wait(tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    path.write_text("".join(json.dumps(export(chat_span(tid(i), f"{i:016x}"))) + "\n"
                            for i in range(3)))
    watcher = make_watcher(tmp_path, max_backlog=1, listen=None, follow=[path])
    watcher.accept([(chat_span(tid(9), "9" * 16), {})], [])  # the backlog is full

    async def briefly() -> None:
        task = asyncio.create_task(watcher._follow(watcher.followers[0]))
        await asyncio.sleep(0.6)
        task.cancel()
    asyncio.run(briefly())
    assert set(watcher.spool.unfinished()) == {tid(9)}  # the file was not read
    watcher.spool.mark_done([tid(9)], "scored")
    asyncio.run(briefly())
    assert set(watcher.spool.unfinished()) == {tid(i) for i in range(3)}
    watcher.spool.close()


def test_a_watch_run_reads_back_like_any_run(tmp_path: Path) -> None:
    """The records' "watch" entry is no metric: show, report and export take the run as is."""
    from typer.testing import CliRunner

    from assay.cli.main import app
    from assay.records import kept_results

    path = tmp_path / "traces.jsonl"
    path.write_text(json.dumps(export(chat_span(tid(1), "1" * 16))) + "\n")
    summary = run_until(options(tmp_path, path, FakeJudge()), lambda w: w.counts["scored"] >= 1)
    assert set(summary["metrics"]) == {"fluency", "f1_score"}
    (record,) = stored(tmp_path)
    assert kept_results(record)["watch"] == record["watch"]
    store = str(tmp_path / "runs.sqlite")
    for args in (["show", summary["run_id"]], ["report", summary["run_id"], "--out",
                                               str(tmp_path / "r.html")],
                 ["export", summary["run_id"], "--format", "jsonl", "--out",
                  str(tmp_path / "x.jsonl")]):
        result = CliRunner().invoke(app, [*args, "--store", store])
        assert result.exit_code == 0, result.output
    assert "fluency" in (tmp_path / "r.html").read_text()
    assert json.loads((tmp_path / "x.jsonl").read_text())["watch"]["trace_id"] == tid(1)


def test_the_live_run_summary_shows_the_means_so_far_while_watching(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import assay.watch._watch as watch_module

    monkeypatch.setattr(watch_module, "LIVE_SUMMARY_EVERY", 0.0)
    path = tmp_path / "traces.jsonl"
    path.write_text("".join(json.dumps(export(chat_span(tid(i), f"{i:016x}"))) + "\n"
                            for i in (1, 2)))
    seen: list[dict[str, Any]] = []

    def live_summary_in_store(watcher: Watcher) -> bool:
        with open_store(tmp_path / "runs.sqlite") as store:
            (run,) = store.runs()
            if run.status == "running" and (run.summary or {}).get("rows_done") == 2:
                seen.append(run.summary or {})
        return bool(seen)

    run_until(options(tmp_path, path, FakeJudge()), live_summary_in_store)
    live = seen[0]  # read while the watch was still running
    assert live["metrics"]["fluency"]["mean"] == 5.0 and live["metrics"]["fluency"]["scored"] == 2
    assert live["watch"]["scored"] == 2


def test_the_same_skip_reason_on_many_traces_is_counted_as_one(tmp_path: Path) -> None:
    watcher = make_watcher(tmp_path, idle=1.0)
    for i in range(3):
        watcher.accept([({"traceId": tid(i), "spanId": f"{i:016x}", "name": "db query"}, {})],
                       [])
    watcher.assemble_once(time.time() + 2)
    ((reason, n),) = watcher.spool.skip_reasons().items()
    assert n == 3 and reason.startswith("no model-call span in a convention assay reads")
    watcher.spool.close()


def test_malformed_lines_in_a_followed_file_are_left_out_and_the_rest_is_scored(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "traces.jsonl"
    broken = ["not json", json.dumps({"resourceSpans": 5}), json.dumps([1, 2]),
              json.dumps({"resourceSpans": [7, {"scopeSpans": "x"},
                                            {"scopeSpans": [{"spans": [3, {"name": "no id"}]}]}]}),
              json.dumps({"resourceLogs": []}), json.dumps({"resourceLogs": []})]
    path.write_text("\n".join([*broken, json.dumps(export(chat_span(tid(1), "1" * 16)))]) + "\n")
    with caplog.at_level("WARNING", logger="assay.watch"):
        summary = run_until(options(tmp_path, path, FakeJudge()),
                            lambda w: w.counts["scored"] >= 1)
    assert [r["id"] for r in stored(tmp_path)] == [tid(1)]
    assert summary["watch"]["scored"] == 1
    assert summary["watch"]["bad_spans"] == 2  # the span that is a number, the one without id
    said = [r.getMessage() for r in caplog.records]
    assert sum("is not an OTLP JSON export" in m for m in said) == 3
    second = len(broken[0]) + 1  # each bad line is named by the byte it starts at
    assert any(f"the line at byte {second} is not an OTLP JSON export" in m for m in said)
    assert not any("resourceLogs" in m for m in said)  # logs lines are read, not bad lines
    assert not any(r.exc_info for r in caplog.records)  # no traceback
    assert not any("failed" in m for m in said)


def test_a_followed_line_nested_too_deeply_is_left_out_not_a_crash(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "traces.jsonl"
    deep = '{"resourceSpans": ' + "[" * 100_000 + "]" * 100_000 + "}"
    path.write_text("\n".join([deep, json.dumps(export(chat_span(tid(1), "1" * 16)))]) + "\n")
    with caplog.at_level("WARNING", logger="assay.watch"):
        summary = run_until(options(tmp_path, path, FakeJudge()),
                            lambda w: w.counts["scored"] >= 1)
    assert [r["id"] for r in stored(tmp_path)] == [tid(1)]
    assert summary["watch"]["scored"] == 1
    said = [r.getMessage() for r in caplog.records]
    assert any("the line at byte 0 is not an OTLP JSON export (not JSON" in m for m in said)
    assert not any(r.exc_info for r in caplog.records)
