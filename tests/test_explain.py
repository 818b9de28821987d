"""``assay explain``: a run that left rows without the judge's reason (``reasons=auto`` on a
local judge, or ``never``) gets the reason later, written into results.jsonl and the run store;
asked again, the stored reason is read back without a judge call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay import FakeJudge, JudgeCapabilities, RunOptions, ScoringOptions, evaluate, explain
from assay.cli.main import app
from assay.errors import ConfigError, JudgeError
from assay.judges import JudgeRequest
from assay.records._outdir import lock_output
from assay.store import open_store

LOCAL = JudgeCapabilities(local=True)
ROWS = [{"id": f"q{i}", "question": f"Question {i}?", "answer": f"Answer number {i}.",
         "ground_truth": f"Answer number {i}."} for i in range(6)]


def _asks_reason(request: JudgeRequest) -> bool:
    return "reason" in (request.json_schema or {}).get("properties", {})


def _script(score: int = 4, explained_score: int | None = None) -> Any:
    """Rates every answer ``score``: the score alone when no reason is asked, else the score
    (``explained_score`` if given) and a reason naming the rated answer."""
    def answer(request: JudgeRequest) -> str:
        if not _asks_reason(request):
            return json.dumps({"score": score})
        prompt = request.messages[-1]["content"]
        which = next(r["id"] for r in ROWS if r["answer"] in prompt)
        return json.dumps({"score": explained_score or score,
                           "reason": f"reason for {which}"})
    return answer


def _run(tmp_path: Path, reasons: str = "auto", judge: FakeJudge | None = None,
         metrics: str = "fluency,coherence,f1_score") -> tuple[Path, Path]:
    """A finished run of ROWS with a local fake judge: (its output folder, its store)."""
    data = tmp_path / "qa.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    out, store = tmp_path / "out", tmp_path / "runs.sqlite"
    evaluate(data, metrics=metrics, judge=judge or FakeJudge(_script(), capabilities=LOCAL),
             scoring=ScoringOptions(reasons=reasons), run=RunOptions(out=out, store=store))
    return out, store


def _records(out: Path) -> dict[str, dict[str, Any]]:
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return {r["id"]: r for r in map(json.loads, lines)}


def _unexplained(out: Path) -> str:
    """A row the run left without a reason for fluency and coherence."""
    return next(rid for rid, r in _records(out).items()
                if all("no_reason" in r[m]["details"] for m in ("fluency", "coherence")))


def test_explain_fills_in_the_reasons_a_local_run_left_out(tmp_path: Path) -> None:
    out, store = _run(tmp_path)
    row = _unexplained(out)
    judge = FakeJudge(_script(), capabilities=LOCAL)
    found = explain(out, row, judge=judge, store=store, cache=False)
    assert [(e.metric, e.score, e.reason, e.asked) for e in found] == [
        ("fluency", 4.0, f"reason for {row}", True),
        ("coherence", 4.0, f"reason for {row}", True)]
    assert not any(e.score_differs for e in found)
    assert len(judge.requests) == 2 and all(_asks_reason(r) for r in judge.requests)
    record = _records(out)[row]
    for metric in ("fluency", "coherence"):
        assert record[metric]["reason"] == f"reason for {row}"
        assert "no_reason" not in record[metric]["details"]
        assert record[metric]["value"] == 4.0
    with open_store(str(store)) as opened:
        stored = opened.row_at(opened.get("latest").id, row)
        assert stored is not None and stored[1]["fluency"] == record["fluency"]
        assert opened.get("latest").status == "complete"
    # the other rows are as they were
    others = [r for rid, r in _records(out).items() if rid != row]
    assert any("no_reason" in r["fluency"]["details"] for r in others)


def test_a_second_explain_reads_the_stored_reason_without_asking(tmp_path: Path) -> None:
    out, store = _run(tmp_path, reasons="never")
    explain(out, "q1", "fluency", judge=FakeJudge(_script(), capabilities=LOCAL), store=store,
            cache=False)
    judge = FakeJudge(_script(), capabilities=LOCAL)
    (again,) = explain(out, "q1", "fluency", judge=judge, store=store, cache=False)
    assert judge.requests == []
    assert (again.reason, again.asked, again.score) == ("reason for q1", False, 4.0)


def test_a_stored_run_is_found_by_id_and_both_copies_are_updated(tmp_path: Path) -> None:
    out, store = _run(tmp_path, reasons="never")
    with open_store(str(store)) as opened:
        run_id = opened.get("latest").id
    judge = FakeJudge(_script(), capabilities=LOCAL)
    (found,) = explain(run_id[:12], "q2", "coherence", judge=judge, store=store, cache=False)
    assert found.reason == "reason for q2"
    with open_store(str(store)) as opened:
        assert opened.row_at(run_id, "q2")[1]["coherence"]["reason"] == "reason for q2"
    assert _records(out)["q2"]["coherence"]["reason"] == "reason for q2"  # its --out folder


def test_a_different_score_on_the_second_ask_is_said_and_the_stored_one_stands(
        tmp_path: Path) -> None:
    out, store = _run(tmp_path, reasons="never", metrics="fluency")
    judge = FakeJudge(_script(explained_score=2), capabilities=LOCAL)
    (found,) = explain(out, "q0", judge=judge, store=store, cache=False)
    assert found.score_differs and (found.score, found.explained_score) == (4.0, 2.0)
    assert found.note is not None and "scored 2" in found.note
    record = _records(out)["q0"]["fluency"]
    assert record["value"] == 4.0 and record["details"]["reason_for_score"] == 2.0


def test_a_reason_from_another_judge_says_whose_it_is(tmp_path: Path) -> None:
    out, store = _run(tmp_path, reasons="never", metrics="fluency")
    other = FakeJudge(_script(), id="other-judge", capabilities=LOCAL)
    (found,) = explain(out, "q4", judge=other, store=store, cache=False)
    assert found.note == "the reason is from other-judge, not the run's judge"
    assert _records(out)["q4"]["fluency"]["details"]["reason_judge"] == "other-judge"


def test_unknown_row_metric_and_run_and_a_metric_without_judge(tmp_path: Path) -> None:
    out, store = _run(tmp_path, reasons="never")
    with pytest.raises(ConfigError, match=r"no row 'nope'.*q0, q1, q2, q3, q4"):
        explain(out, "nope", store=store)
    with pytest.raises(ConfigError, match=r"'bogus'.*fluency, coherence, f1_score"):
        explain(out, "q0", "bogus", store=store)
    with pytest.raises(ConfigError, match=r"f1_score uses no judge"):
        explain(out, "q0", "f1_score", store=store)
    with pytest.raises(ConfigError, match="No run 'zzz'"):
        explain("zzz", "q0", store=store)
    with pytest.raises(ConfigError, match="no results.jsonl"):
        explain(tmp_path, "q0", store=store)


def test_a_folder_a_run_is_writing_is_refused(tmp_path: Path) -> None:
    out, store = _run(tmp_path, reasons="never", metrics="fluency")
    with lock_output(out), pytest.raises(ConfigError, match="a run is writing there now"):
        explain(out, "q0", judge=FakeJudge(_script(), capabilities=LOCAL), store=store,
                cache=False)
    assert "no_reason" in _records(out)["q0"]["fluency"]["details"]


def test_a_judge_that_gives_no_reason_raises_and_writes_nothing(tmp_path: Path) -> None:
    out, store = _run(tmp_path, reasons="never", metrics="fluency")
    before = (out / "results.jsonl").read_text(encoding="utf-8")
    judge = FakeJudge("not json at all", capabilities=LOCAL)
    with pytest.raises(JudgeError, match="gave no reason for row 'q0'"):
        explain(out, "q0", judge=judge, store=store, cache=False)
    assert (out / "results.jsonl").read_text(encoding="utf-8") == before


def _cli(*args: str) -> Any:
    return CliRunner().invoke(app, ["explain", *args], env={"COLUMNS": "200", "NO_COLOR": "1"})


def test_cli_prints_the_reason_and_exits_with_the_documented_codes(tmp_path: Path) -> None:
    # run with a local fake judge whose id is "fake": the CLI rebuilds it from the run
    out, store = _run(tmp_path, reasons="never",
                      judge=FakeJudge(capabilities=LOCAL))
    ok = _cli(str(out), "q3", "--store", str(store), "--no-cache")
    assert ok.exit_code == 0, ok.output
    assert "fluency" in ok.output and "scripted" in ok.output
    assert _records(out)["q3"]["fluency"]["reason"] == "scripted"
    again = _cli(str(out), "q3", "--store", str(store), "--no-cache")
    assert again.exit_code == 0 and "the judge was not asked" in again.output
    for args, says in [(("nope",), "no row 'nope'"), (("q3", "bogus"), "'bogus'"),
                       (("q3", "f1_score"), "uses no judge")]:
        bad = _cli(str(out), *args, "--store", str(store))
        assert bad.exit_code == 2 and says in bad.output and "Traceback" not in bad.output
    missing = _cli(str(tmp_path / "nowhere"), "q3", "--store", str(store))
    assert missing.exit_code == 2 and "no results.jsonl" in missing.output


def test_cli_exits_3_when_the_judge_fails(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    out, store = _run(tmp_path, reasons="never", metrics="fluency")
    monkeypatch.setattr("assay.judges._fake.FakeJudge",
                        lambda: FakeJudge(JudgeError("judge call failed: boom")))
    failed = _cli(str(out), "q0", "--store", str(store), "--no-cache")
    assert failed.exit_code == 3, failed.output
    assert "judge failed" in failed.output and "Traceback" not in failed.output
    assert "no_reason" in _records(out)["q0"]["fluency"]["details"]


def test_cli_says_plainly_when_the_second_score_differs(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    out, store = _run(tmp_path, reasons="never", metrics="fluency")
    monkeypatch.setattr("assay.judges._fake.FakeJudge",
                        lambda: FakeJudge(_script(explained_score=2), capabilities=LOCAL))
    got = _cli(str(out), "q0", "--store", str(store), "--no-cache", "--json")
    assert got.exit_code == 0, got.output
    assert "scored 2, not the stored 4" in got.output
    (found,) = json.loads(got.stdout)
    assert (found["metric"], found["score"], found["explained_score"]) == ("fluency", 4.0, 2.0)
    assert found["reason"] == "reason for q0" and found["asked"] is True
