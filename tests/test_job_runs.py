"""Stored generate, simulate and attack runs, shown: ``assay runs`` (their kind, ``--kind``),
``assay show`` (the kind's own summary, no empty metric table), ``assay export``, the HTML report
and the web UI (a generated row's evidence marked in its source, a conversation's stop reason,
an attack's exchanges with their verdicts), and ``assay compare`` of two attack runs (success
rates with Wilson intervals and the difference with Newcombe's interval); runs of other kinds
are refused with a clear error.

The rows and summaries under ``data/job_runs`` are what the producers wrote on main (scripted
judges of ``generation_judge``, ``simulated_user_judge`` and ``test_multiturn_attacks``; the
attack's plain rows renamed ``plain/<seed>`` beside the crescendo rows). The stored runs are
built from them with ``RunRecorder``, as a producer records its run.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from assay.cli.main import app
from assay.records import RunData, RunRecorder
from assay.serve import create_app
from assay.store import open_store

DATA = Path(__file__).resolve().parent / "data" / "job_runs"
KINDS = {"generate": ("generate.jsonl", "generate.summary.json"),
         "simulate": ("simulate.jsonl", "simulate.summary.json"),
         "attack": ("attack.jsonl", "attack.json"),
         "hardened": ("attack-hardened.jsonl", "attack-hardened.json")}


def _rows(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines()]


def _record(store: Any, kind: str, rows: list[dict[str, Any]], summary: dict[str, Any],
            name: str) -> str:
    recorder = RunRecorder.start(store, kind=kind, name=name, tags=[kind], dataset=None,
                                 metrics={}, judge="fake", settings={"api_key": "sk-secret"})
    for row in rows:
        recorder.add(row)
    recorder.finish(summary, complete=True)
    return recorder.run_id


@pytest.fixture
def runs(tmp_path: Path) -> dict[str, Any]:
    """A store holding one run of each producer kind, and a second (hardened app) attack."""
    path = tmp_path / "runs.sqlite"
    ids: dict[str, Any] = {"store": path}
    with open_store(path) as store:
        for name, (rows, summary) in KINDS.items():
            kind = "attack" if name == "hardened" else name
            ids[name] = _record(store, kind, _rows(rows),
                                json.loads((DATA / summary).read_text(encoding="utf-8")), name)
    return ids


def _cli(*args: str | Path) -> Any:
    return CliRunner().invoke(app, [str(a) for a in args],
                              env={"COLUMNS": "160", "NO_COLOR": "1"})


def _flat(text: str) -> str:
    return " ".join(text.split())


# --- the terminal ------------------------------------------------------------------------------

def test_runs_lists_each_kind_with_what_it_gave_and_filters_by_kind(runs: dict[str, Any]) -> None:
    result = _cli("runs", "--store", runs["store"])
    assert result.exit_code == 0, result.output
    out = _flat(result.output)
    for kind in ("generate", "simulate", "attack"):
        assert kind in out
    assert "kept 4 of 4" in out and "goal_met 1" in out and "stuck 1" in out
    assert "crescendo success 100.0%" in out and "plain defect 25.0%" in out
    only = _cli("runs", "--store", runs["store"], "--kind", "attack", "--json")
    assert only.exit_code == 0, only.output
    assert {r["id"] for r in json.loads(only.stdout)} == {runs["attack"], runs["hardened"]}
    bad = _cli("runs", "--store", runs["store"], "--kind", "jobs")
    assert bad.exit_code == 2
    assert "Got --kind 'jobs'. Must be one of: run, robustness" in _flat(bad.output)
    assert "Traceback" not in bad.output


@pytest.mark.parametrize(("name", "shown"), [
    ("generate", ["Generated test set", "kept 4 of 4 wanted", "documents 4 read, 11 chunks",
                  "single 1 1 0", "unanswerable 1 1 0"]),
    ("simulate", ["Simulated conversations", "scenarios 2", "goal_met 1", "stuck 1",
                  "python:examples.agent_app:agent: 4 turns, 1 tool calls"]),
    ("attack", ["Attack", "strategy crescendo", ("all 4 100.0% [51.0%, 100.0%] 25.0% [4.6%, "
                "69.9%] +75.0% 3 0/0")]),
])
def test_show_prints_the_kinds_own_summary(runs: dict[str, Any], name: str,
                                           shown: list[str]) -> None:
    result = _cli("show", runs[name], "--store", runs["store"])
    assert result.exit_code == 0, result.output
    out = _flat(result.output)
    for text in shown:
        assert text in out, (text, out)
    assert f"kind {name}" in out and "sk-secret" not in out
    assert "metric" not in out.split("assay")[-1]  # no (empty) metric table after the facts


def test_export_writes_the_rows_the_producer_wrote(runs: dict[str, Any], tmp_path: Path) -> None:
    for name, (rows, _) in KINDS.items():
        out = tmp_path / f"{name}.jsonl"
        result = _cli("export", runs[name], "--store", runs["store"], "-o", out)
        assert result.exit_code == 0, result.output
        assert [json.loads(x) for x in out.read_text().splitlines()] == _rows(rows)


# --- the HTML report ---------------------------------------------------------------------------

def _report(runs: dict[str, Any], name: str, tmp_path: Path) -> str:
    out = tmp_path / f"{name}.html"
    result = _cli("report", runs[name], "--store", runs["store"], "-o", out)
    assert result.exit_code == 0, result.output
    return out.read_text(encoding="utf-8")


def test_report_of_a_generate_run_marks_the_evidence_in_its_source(
        runs: dict[str, Any], tmp_path: Path) -> None:
    html = _report(runs, "generate", tmp_path)
    evidence = _rows("generate.jsonl")[1]["source"]  # a multi-hop row: two spans
    for span in evidence:
        assert f'<mark class="evidence">{span["text"]}</mark>' in html
    assert 'id="job"' in html and "By kind" in html
    assert 'class="metrics"' not in html and "Distributions" not in html
    assert "Inputs are not shown" not in html
    # a conversation row: its turns, and its context (an extra field) with the evidence marked
    conversation = _rows("generate.jsonl")[2]
    assert conversation["messages"][0]["content"] in html
    assert f'<mark class="evidence">{conversation["source"][0]["text"]}</mark>' in html


def test_report_of_a_simulate_run_gives_each_conversation_its_stop_reason(
        runs: dict[str, Any], tmp_path: Path) -> None:
    html = _report(runs, "simulate", tmp_path)
    assert re.search(r'stop reason:</span> <b>goal_met</b> <span class="muted">\(The app '
                     r"answered: Your order A1005 is shipped", html)
    assert "<th data-sort=\"text\" aria-sort=\"none\">stop reason</th>" in html
    assert "Stop reasons" in html and "My order number is A1005." in html


def test_report_of_an_attack_run_shows_the_exchanges_with_their_verdicts(
        runs: dict[str, Any], tmp_path: Path) -> None:
    html = _report(runs, "attack", tmp_path)
    assert "Success rates (95% Wilson intervals)" in html
    assert "100.0% [51.0%, 100.0%]" in html and "25.0% [4.6%, 69.9%]" in html
    assert 'class="mini exchanges"' in html
    assert "6 High (violence)" in html and "(backtracked)" in html
    assert "It declines." in html  # the refusal verdict's reason
    assert '<b class="bad">yes</b>' in html  # the successful reply
    assert re.search(r"outcome:</span> <b>success</b> <span class=\"muted\">\(on turn 3\)", html)


def test_text_under_evaluation_stays_text(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    row = {**_rows("generate.jsonl")[0], "question": "<script>alert(1)</script>"}
    with open_store(path) as store:
        rid = _record(store, "generate", [row], {}, "hostile")
    with open_store(path) as store:
        html = TestClient(create_app(store)).get(f"/runs/{rid}/rows/{row['id']}").text
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)" in html


# --- the web UI --------------------------------------------------------------------------------

def test_web_ui_lists_filters_and_shows_each_kind(runs: dict[str, Any]) -> None:
    with open_store(runs["store"]) as store:
        client = TestClient(create_app(store))
        listed = client.get("/?kind=simulate").text
        assert runs["simulate"] in listed and runs["generate"] not in listed
        assert "goal_met 1" in listed
        assert client.get("/?kind=nope").status_code == 400
        for name in ("generate", "simulate", "attack"):
            page = client.get(f"/runs/{runs[name]}")
            assert page.status_code == 200 and 'id="job"' in page.text
        gen = client.get(f"/runs/{runs['generate']}/rows/multi-0002").text
        assert gen.count('<mark class="evidence">') == 2 and "kind:</span> <b>multi" in gen
        sim = client.get(f"/runs/{runs['simulate']}/rows/refund").text
        assert "stop reason:</span> <b>stuck</b>" in sim and "No metric results" not in sim
        att = client.get(f"/runs/{runs['attack']}/rows/v1").text
        assert 'class="mini exchanges"' in att and "6 High (violence)" in att
        plain = client.get(f"/runs/{runs['attack']}/rows/plain%2Fv2").text
        assert "outcome:</span> <b>defect</b>" in plain


def test_web_ui_compares_two_attack_runs_and_refuses_other_kinds(runs: dict[str, Any]) -> None:
    with open_store(runs["store"]) as store:
        client = TestClient(create_app(store))
        page = client.get(f"/compare?a={runs['attack']}&b={runs['hardened']}")
        assert page.status_code == 200
        text = _flat(re.sub(r"<[^>]+>", " ", page.text))
        assert "all 100.0% [51.0%, 100.0%] 0.0% [0.0%, 49.0%] -100.0% *" in text
        bad = client.get(f"/compare?a={runs['attack']}&b={runs['generate']}")
        assert bad.status_code == 400 and "only runs of one kind compare" in bad.text


# --- compare -----------------------------------------------------------------------------------

def test_compare_of_two_attack_runs_gives_rates_intervals_and_difference(
        runs: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "cmp.json"
    result = _cli("compare", runs["attack"], runs["hardened"], "--store", runs["store"],
                  "--json", out)
    assert result.exit_code == 0, result.output
    text = _flat(result.output)
    assert "attack success rate" in text and "plain defect rate" in text
    assert "all 100.0% [51.0%, 100.0%] 0.0% [0.0%, 49.0%] -100.0%*" in text
    every = json.loads(out.read_text())["categories"]["all"]
    assert every["attack"]["rate_a"] == 1.0 and every["attack"]["rate_b"] == 0.0
    assert every["attack"]["ci95_a"] == [0.5101, 1.0] and every["attack"]["beyond_noise"]
    assert every["plain"]["diff"] == -0.25 and every["plain"]["beyond_noise"] is False


@pytest.mark.parametrize(("pair", "message"), [
    (("attack", "generate"), "is of kind attack and run B"),
    (("simulate", "simulate"), "are simulate runs: they hold what the command wrote"),
])
def test_compare_refuses_runs_that_do_not_compare(runs: dict[str, Any], pair: tuple[str, str],
                                                  message: str) -> None:
    result = _cli("compare", runs[pair[0]], runs[pair[1]], "--store", runs["store"])
    assert result.exit_code == 2 and message in _flat(result.output)
    assert "Traceback" not in result.output
    gated = _cli("compare", runs["attack"], runs["hardened"], "--store", runs["store"],
                 "--max-drop", "violence=0.1")
    assert gated.exit_code == 2 and "not metric means" in _flat(gated.output)


def test_newcombe_interval_matches_the_published_example() -> None:
    """Newcombe (1998), Statistics in Medicine 17:873, method 10: 56/70 - 48/80 is 0.0524 to
    0.3339."""
    def rows(hits: int, n: int) -> list[dict[str, Any]]:
        return [{"id": str(i), "category": "c", "strategy": "pair", "success": i < hits,
                 "unrated": None} for i in range(n)]
    from assay.compare import compare_attack_runs

    pair = compare_attack_runs(RunData("a", {}, rows(48, 80), {"kind": "attack"}),
                               RunData("b", {}, rows(56, 70), {"kind": "attack"}))
    assert pair["categories"]["all"]["attack"]["ci95"] == [0.0524, 0.3339]


def test_report_compare_names_the_way_for_attack_runs_and_refuses_other_kinds(
        runs: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "cmp.html"
    attacks = _cli("report", runs["hardened"], "--compare", runs["attack"], "--store",
                   runs["store"], "-o", out)
    assert attacks.exit_code == 2 and "`assay compare A B`" in _flat(attacks.output)
    mixed = _cli("report", runs["generate"], "--compare", runs["attack"], "--store",
                 runs["store"], "-o", out)
    assert mixed.exit_code == 2 and "only runs of one kind compare" in _flat(mixed.output)
    assert not out.exists()


def test_a_producer_run_without_a_summary_yet_shows_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    with open_store(path) as store:
        recorder = RunRecorder.start(store, kind="simulate", name="stopped", tags=[],
                                     dataset=None, metrics={}, judge=None, settings={})
        recorder.add(_rows("simulate.jsonl")[0])
        recorder.finish({}, complete=False)  # Ctrl-C: what was written is kept
        rid = recorder.run_id
    shown = _cli("show", rid, "--store", path)
    assert shown.exit_code == 0 and "none yet" in shown.output
    assert "rerun its `assay simulate` with --resume" in _flat(shown.output)
    with open_store(path) as store:
        page = TestClient(create_app(store)).get(f"/runs/{rid}")
    assert page.status_code == 200 and "goal_met" in page.text
