"""Latency per row (issue 47 part 5): the judge's seconds (each judge metric's, and in all) and
the app's in each record's ``row_latency``, their p50 / p95 in ``summary["latency"]`` and one
terminal line; a cache hit costs no judge time."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from assay import JudgeOptions, RunOptions, evaluate
from assay.agents import make_agent
from assay.judges import FakeJudge
from conftest import QA50

ASSAY = [sys.executable, "-m", "assay.cli"]
SLOW_APP = '''
import time

def app(messages):
    time.sleep(0.12)
    return "Tent " + messages[-1]["content"].split()[-1] + " is green."
'''


def _run(tmp: Path, server: Any, data: Path, out: str, *extra: str
         ) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ASSAY_"))}
    env.update(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="sk-test-not-a-secret",
               NO_COLOR="1", COLUMNS="200", XDG_DATA_HOME=str(tmp / "xdg-data"))
    proc = subprocess.run([*ASSAY, "run", str(data), "--metrics", "fluency,coherence,f1_score",
                           "--judge", "openai:gpt-4o-mini", "--out", str(tmp / out),
                           "--no-store", "-q", "--cache", str(tmp / "c.sqlite"), *extra],
                          check=False, env=env, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    return proc


def _records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]


def test_each_row_has_the_judge_seconds_and_the_summary_their_percentiles(
        tmp_path: Path, fake_judge_server: Any) -> None:
    server = fake_judge_server("--latency-ms", "100")
    lines = [x for x in QA50.read_text(encoding="utf-8").splitlines() if x.strip()][:6]
    data = tmp_path / "qa.jsonl"
    data.write_text("".join(x + "\n" for x in lines))
    proc = _run(tmp_path, server, data, "first")
    for record in _records(tmp_path / "first"):
        latency = record["row_latency"]
        by_metric = latency["judge_by_metric"]
        assert set(by_metric) == {"fluency", "coherence"}  # judge metrics only
        assert all(s >= 0.1 for s in by_metric.values()), latency  # one 100 ms call each
        assert latency["judge_s"] == pytest.approx(sum(by_metric.values()), abs=1e-3)
        assert "app_s" not in latency  # no --target
    summary = json.loads((tmp_path / "first" / "summary.json").read_text())
    judge = summary["latency"]["judge"]
    assert judge["rows"] == 6 and 0.2 <= judge["p50"] <= judge["p95"]
    assert set(judge["by_metric"]) == {"fluency", "coherence"}
    assert judge["by_metric"]["fluency"]["p50"] >= 0.1
    assert "app" not in summary["latency"]
    assert f"latency per row: judge p50 {judge['p50']:.3g} s, p95 {judge['p95']:.3g} s" in (
        " ".join(proc.stdout.split()))

    _run(tmp_path, server, data, "cached")  # every answer from the cache: no judge time
    assert {r["row_latency"]["judge_s"] for r in _records(tmp_path / "cached")} == {0.0}


def test_the_app_seconds_of_each_row_and_their_percentiles(module: Any, tmp_path: Path) -> None:
    name = module(SLOW_APP)
    rows = [{"id": f"q{i}", "question": f"What colour is tent {i}?", "ground_truth": "green"}
            for i in range(4)]
    result = evaluate(rows, metrics="exact_match,fluency", judge=FakeJudge(latency_s=0.05),
                      agent=make_agent(f"python:{name}:app"), judging=JudgeOptions(cache=None),
                      run=RunOptions(store=False, progress=False))
    for record in result.rows:
        assert record["row_latency"]["app_s"] >= 0.12
        assert record["row_latency"]["judge_by_metric"]["fluency"] >= 0.05  # one call each
    app = result.summary["latency"]["app"]
    assert app["rows"] == 4 and 0.12 <= app["p50"] <= app["p95"]


def test_compare_shows_both_runs_latency(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from assay.cli.main import app

    a, b = _two_runs(tmp_path)
    out = tmp_path / "cmp.json"
    result = CliRunner().invoke(app, ["compare", str(a), str(b), "--json", str(out)])
    assert result.exit_code == 0, result.output
    judge = json.loads(out.read_text())["latency"]["judge"]
    assert 0.02 <= judge["p50_a"] < judge["p50_b"] and judge["p50_b"] >= 0.06
    assert set(judge["by_metric"]) == {"fluency"}
    assert "judge seconds per row, p50 / p95: A " in " ".join(result.output.split())


def _two_runs(tmp_path: Path) -> tuple[Path, Path]:
    rows = [{"id": f"q{i}", "answer": "Paris is the capital.", "ground_truth": "Paris"}
            for i in range(3)]
    for name, latency in (("a", 0.02), ("b", 0.06)):
        evaluate(rows, metrics="f1_score,fluency", judge=FakeJudge(latency_s=latency),
                 judging=JudgeOptions(cache=None),
                 run=RunOptions(out=tmp_path / name, store=False, progress=False))
    return tmp_path / "a", tmp_path / "b"


def _report(*args: str | Path) -> str:
    from typer.testing import CliRunner

    from assay.cli.main import app

    out = Path(str(args[0]) + ".html")
    result = CliRunner().invoke(app, ["report", *map(str, args), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return " ".join(out.read_text(encoding="utf-8").split())


def test_the_report_shows_the_runs_latency_and_the_comparisons(tmp_path: Path) -> None:
    a, b = _two_runs(tmp_path)
    judge = json.loads((b / "summary.json").read_text())["latency"]["judge"]
    fluency = judge["by_metric"]["fluency"]
    html = _report(b, "--compare", a)
    assert (f'<dt>Latency</dt><dd id="latency">latency per row: judge p50 {judge["p50"]:.3g} s, '
            f'p95 {judge["p95"]:.3g} s <span class="muted">(per judge metric, p50 / p95: '
            f'fluency {fluency["p50"]:.3g} / {fluency["p95"]:.3g} s)</span></dd>') in html
    diff = re.search(r'<p class="muted small" id="latency-diff">([^<]*)</p>', html)
    assert diff is not None and diff.group(1).startswith(
        "judge seconds per row, p50 / p95: A 0.0")  # A's 20 ms calls beside B's 60 ms
    assert html.index('id="differences"') < diff.start() < html.index('id="difference-chart"')


def test_a_run_made_before_latency_gets_no_latency_line(tmp_path: Path) -> None:
    a, b = _two_runs(tmp_path)
    for run in (a, b):  # as written before assay measured latency
        summary = json.loads((run / "summary.json").read_text())
        del summary["latency"]
        (run / "summary.json").write_text(json.dumps(summary))
    html = _report(b, "--compare", a)
    assert 'id="latency"' not in html and 'id="latency-diff"' not in html
    assert "<dt>Latency</dt>" not in html


def test_the_web_uis_run_and_compare_pages_show_latency(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from assay.serve import create_app
    from assay.store import open_store

    def judge(p50: float) -> dict[str, Any]:
        return {"judge": {"p50": p50, "p95": 2 * p50, "rows": 2,
                          "by_metric": {"fluency": {"p50": p50, "p95": 2 * p50, "rows": 2}}}}

    rows = [{"id": f"r{i}", "fluency": {"value": 4.0, "reason": "ok"}} for i in range(2)]
    with open_store(tmp_path / "runs.sqlite") as store:
        ids = []
        for name, latency in (("a", judge(0.25)), ("b", judge(0.5)), ("old", None)):
            run = store.create_run(name=name)
            store.add_rows(run, rows)
            store.finish_run(run, complete=True, summary={
                "rows": 2, "complete": True, "metrics": {"fluency": {"mean": 4.0, "scored": 2}},
                **({"latency": latency} if latency else {})})
            ids.append(run)
        with TestClient(create_app(store)) as client:
            page = " ".join(client.get(f"/runs/{ids[1]}").text.split())
            assert "latency per row: judge p50 0.5 s, p95 1 s" in page
            assert "fluency 0.5 / 1 s" in page
            assert "Latency" not in client.get(f"/runs/{ids[2]}").text
            compared = " ".join(client.get(f"/compare?a={ids[0]}&b={ids[1]}").text.split())
            assert ("judge seconds per row, p50 / p95: A 0.25 / 0.5, B 0.5 / 1" in compared)
            assert "latency" not in client.get("/").text.lower()  # the runs list stays narrow
