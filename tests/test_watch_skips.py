"""The traces ``assay watch`` skips, as users see them while it runs and after: counts by
reason on the status line (each new reason once in full, with its fix), on the live page of
``assay serve``, in ``assay show`` and in ``assay report``, never as rows; and what ``assay
show`` says a live or stopped watch run is (not ``assay run --resume``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from assay.cli.main import app
from assay.judges import FakeJudge
from assay.serve import create_app
from assay.store import open_store
from test_watch_flow import options, run_until, tid
from test_watch_kill import ROOT, wait_for
from test_watch_receiver import chat_span, export

NO_MODEL_CALL = ("no model-call span in a convention assay reads (the GenAI semantic "
                 "conventions, OpenLLMetry, OpenInference). Fix: instrument the app's model "
                 "calls")
NO_CONTENT = "no user message in the trace's chat spans. Fix: record message content"


def health_check(i: int) -> dict[str, Any]:
    """A trace with no model call in it (skipped: no model-call span)."""
    return export({"traceId": tid(i), "spanId": f"{i:016x}", "name": "GET /health"})


def without_content(i: int) -> dict[str, Any]:
    """A chat span recorded without its messages (skipped: no user message)."""
    span = chat_span(tid(i), f"{i:016x}")
    span["attributes"] = [a for a in span["attributes"]
                          if not a["key"].endswith("messages")]
    return export(span)


def write(path: Path, *exports: dict[str, Any]) -> None:
    with path.open("a") as f:
        f.writelines(json.dumps(e) + "\n" for e in exports)


def start_following(tmp: Path, traces: Path) -> subprocess.Popen[bytes]:
    """``assay watch --follow traces`` as a subprocess, status lines every 0.2 s, stderr to
    ``watch.log``."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}"
           f"{os.environ.get('PYTHONPATH', '')}", "COLUMNS": "400"}
    return subprocess.Popen(
        [sys.executable, "-m", "assay", "watch", "--listen", "off", "--follow", str(traces),
         "--metrics", "fluency", "--judge", "fake", "--no-cache", "--spool",
         str(tmp / "spool"), "--store", str(tmp / "runs.sqlite"), "--grace", "0.05",
         "--idle", "0.3", "--status-every", "0.2"],
        stdout=subprocess.PIPE, stderr=(tmp / "watch.log").open("ab"), env=env, cwd=tmp)


def live_summary(store_path: Path) -> dict[str, Any] | None:
    """The watch run's summary once it counts three skipped traces."""
    if not store_path.exists():
        return None
    with open_store(store_path) as store:
        runs = [r for r in store.runs() if r.kind == "watch"]
        summary = runs[0].summary if runs else None
    skips = ((summary or {}).get("watch") or {}).get("skips") or {}
    return summary if skips.get("total") == 3 else None


def show(store_path: Path) -> str:
    result = CliRunner().invoke(app, ["show", "latest", "--store", str(store_path)],
                                env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_skipped_traces_show_while_the_watch_runs_and_after(tmp_path: Path) -> None:
    traces = tmp_path / "traces.jsonl"
    write(traces, export(chat_span(tid(1), "c" * 16)), health_check(2), health_check(3),
          without_content(4))
    log, store_path = tmp_path / "watch.log", tmp_path / "runs.sqlite"
    watch = start_following(tmp_path, traces)
    try:
        # the status line: counts by reason, short; each reason once in full with its fix
        wait_for(lambda: "3 skipped" in log.read_text(), 60, "a status line with 3 skipped")
        time.sleep(0.3)
        err = log.read_text()
        assert ("3 skipped (2 no model-call span in a convention assay reads, 1 no user "
                "message in the trace's chat spans)") in err
        assert f"  skipped 2: {NO_MODEL_CALL}" in err and f"  skipped 1: {NO_CONTENT}" in err
        assert err.count(f"  skipped 2: {NO_MODEL_CALL}") == 1  # once, not on every line
        assert "Traceback" not in err

        # while the watch runs: the live summary holds them, show says the run is live
        summary = wait_for(lambda: live_summary(store_path), 30, "the live summary")
        reasons = summary["watch"]["skips"]["reasons"]
        assert [(r["count"], r["latest"]) for r in reasons] == [
            (2, ["00000000…0003", "00000000…0002"]), (1, ["00000000…0004"])]
        shown = show(store_path)
        assert "this run is running: live: `assay watch`" in shown
        assert "--resume" not in shown
        assert "3 traces skipped by the watch" in shown
        assert f"skipped 2 (latest 00000000…0003, 00000000…0002): {NO_MODEL_CALL}" in shown

        # the report and the live page, from the same store
        report = tmp_path / "report.html"
        result = CliRunner().invoke(app, ["report", "latest", "--store", str(store_path),
                                          "--out", str(report)])
        assert result.exit_code == 0, result.output
        html = report.read_text()
        assert "3 traces skipped by the watch, by reason" in html
        assert "instrument the app&#39;s model calls" in html and "× 2" in html
        assert "00000000…0003, 00000000…0002" in html
        assert "is still scoring traces into this run" in html
        assert "assay run --resume" not in html
        with open_store(store_path) as store:
            run_id = store.runs()[0].id
            page = TestClient(create_app(store)).get(f"/runs/{run_id}/live").text
        part = page.split('<section id="skipped-traces">')[1].split("</section>")[0]
        assert "Skipped traces <span class=\"muted\">(3)</span>" in part
        assert '<li data-count="2"><b>2</b> no model-call span' in part
        assert "record message content in the traces" in part

        # a trace skipped later is counted on the next status line
        write(traces, health_check(5))
        wait_for(lambda: "4 skipped (3 no model-call span" in log.read_text(), 30,
                 "the fourth skipped trace")
    finally:
        watch.send_signal(signal.SIGINT)
        watch.communicate(timeout=60)
    assert watch.returncode == 0, log.read_text()[-3000:]

    # after the stop: the skipped traces stay in the run, apart from its one row
    shown = show(store_path)
    assert "status complete" in shown and "rows stored 1" in shown
    assert "4 traces skipped by the watch" in shown and "this run is" not in shown
    assert (f"skipped 3 (latest 00000000…0005, 00000000…0003, 00000000…0002): "
            f"{NO_MODEL_CALL}") in shown


def test_a_stopped_watch_run_is_continued_by_the_same_watch_not_by_assay_run(
        tmp_path: Path) -> None:
    store_path = tmp_path / "runs.sqlite"
    with open_store(store_path) as store:
        rid = store.create_run(kind="watch", name="prod")
        store.finish_run(rid, summary={"watch": {"skips": {"total": 1, "reasons": [
            {"reason": "filtered out (filter)", "count": 1, "latest": ["t1"]}]}}},
            complete=False)
    shown = show(store_path)
    assert "this run is interrupted: its `assay watch` stopped (or died)" in shown
    assert "run the same `assay watch` command again" in shown and "--resume" not in shown
    assert "1 trace skipped by the watch" in shown
    assert "skipped 1 (latest t1): filtered out (filter)" in shown
    report = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["report", rid, "--store", str(store_path), "--out",
                                      str(report)])
    assert result.exit_code == 0, result.output
    html = report.read_text()
    assert "the same command again" in html and "assay run --resume" not in html


def test_a_run_counts_its_own_skipped_traces_across_a_restart_and_no_others(
        tmp_path: Path) -> None:
    """A resumed run keeps the skips of its first process; the next run on the same spool
    counts only its own."""
    path = tmp_path / "traces.jsonl"
    write(path, health_check(1), health_check(2), export(chat_span(tid(3), "c" * 16)))

    def stop_twice(watcher: Any) -> bool:
        if watcher.status()["scoring"] == 1 and watcher.counts["skipped"] == 2:
            watcher.stop()  # waits for the row being scored; run_until's stop: at once
            return True
        return False

    first = run_until(options(tmp_path, path, FakeJudge(latency_s=60)), stop_twice,
                      timeout=20)
    assert not first["complete"] and first["watch"]["skips"]["total"] == 2
    write(path, without_content(4))
    resumed = run_until(options(tmp_path, path, FakeJudge()),
                        lambda w: w.counts["scored"] >= 1 and w.counts["skipped"] >= 1)
    assert resumed["complete"] and resumed["run_id"] == first["run_id"]
    skips = resumed["watch"]["skips"]
    assert skips["total"] == 3 and [r["count"] for r in skips["reasons"]] == [2, 1]
    assert resumed["watch"]["skip_reasons"] == {  # this process's, beside its counts
        r["reason"]: 1 for r in skips["reasons"] if r["count"] == 1}
    write(path, health_check(5))
    later = run_until(options(tmp_path, path, FakeJudge()), lambda w: w.counts["skipped"] >= 1)
    assert later["run_id"] != first["run_id"]
    assert later["watch"]["skips"]["total"] == 1
    assert list(later["watch"]["skip_reasons"].values()) == [1]


def test_a_reason_of_its_own_per_trace_keeps_the_tally_bounded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import assay.watch._skips as skips

    monkeypatch.setattr(skips, "MAX_REASONS", 3)
    tally = skips.SkipTally()
    for i in range(10):
        tally.add(tid(i), f"the trace could not be read: KeyError: {i}")
    assert len(tally.run) == 4 and tally.run[skips.OTHER] == 7
    assert tally.summary()["total"] == 10 and sum(tally.reasons_now().values()) == 10


def test_the_live_page_says_when_nothing_was_skipped_and_reads_a_malformed_summary(
        tmp_path: Path) -> None:
    with open_store(tmp_path / "runs.sqlite") as store:
        rid = store.create_run(kind="watch", name="prod")
        client = TestClient(create_app(store))
        assert 'id="no-skipped">No trace skipped so far.' in client.get(f"/runs/{rid}/live").text
        store.update_summary(rid, {"watch": {"skips": {"total": "3", "reasons": [
            None, {"reason": "sampled out (sample)", "count": 2, "latest": "t1"}]}}})
        page = client.get(f"/runs/{rid}/live")
        assert page.status_code == 200
        assert '<li data-count="2"><b>2</b> sampled out (sample)</li>' in page.text
        other = store.create_run(kind="run", name="nightly")
        assert "skipped-traces" not in client.get(f"/runs/{other}/live").text
