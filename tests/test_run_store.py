"""Runs recorded in the run store by ``evaluate`` and ``assay run``; ``assay runs``, ``show``,
``export``, ``rm``, and ``compare`` / ``report`` by stored run id. Offline: lexical metrics and
a scripted judge."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay import JudgeOptions, RunOptions, evaluate
from assay.cli.main import app
from assay.errors import ConfigError
from assay.judges import FakeJudge, JudgeRequest
from assay.store import open_store

GOOD = '{"score": 4, "reason": "fine"}'
ROWS = [{"id": f"q{i}", "question": f"Question {i}?", "answer": f"answer {i} words",
         "ground_truth": f"answer {i}"} for i in range(1, 7)]


def _data(tmp_path: Path, rows: list[dict[str, Any]] = ROWS) -> Path:
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _invoke(*args: str | Path) -> Any:
    result = CliRunner().invoke(app, list(map(str, args)))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "220")
    monkeypatch.setenv("NO_COLOR", "1")


def test_evaluate_records_the_run_its_rows_and_its_summary(tmp_path: Path) -> None:
    store = tmp_path / "runs.sqlite"
    data = _data(tmp_path)
    res = evaluate(data, metrics="f1_score,exact_match",
                   run=RunOptions(store=store, run_name="base", tags=["nightly"],
                                  out=tmp_path / "out"))
    run_id = res.summary["run_id"]
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["run_id"] == run_id
    with open_store(store) as opened:
        info = opened.get(run_id)
        rows = opened.rows(run_id)
        aggs = opened.aggregates(run_id)
    assert (info.status, info.name, info.tags, info.rows) == ("complete", "base", ["nightly"], 6)
    assert info.dataset == str(data.resolve()) and len(info.dataset_sha256 or "") == 64
    assert set(info.metrics) == {"f1_score", "exact_match"}
    assert rows == res.rows
    assert aggs["f1_score"]["mean"] == res.summary["metrics"]["f1_score"]["mean"]


def test_no_store_by_default_in_the_api() -> None:
    res = evaluate(ROWS, metrics="f1_score")
    assert "run_id" not in res.summary


def test_an_interrupted_run_is_kept_and_resume_completes_the_same_run(tmp_path: Path) -> None:
    store, out = tmp_path / "runs.sqlite", tmp_path / "out"
    data = _data(tmp_path)
    sent: list[str] = []

    def dies_after_three(req: JudgeRequest) -> str:
        sent.append(req.canonical())
        if len(sent) > 3:
            raise KeyboardInterrupt
        return GOOD

    with pytest.raises(KeyboardInterrupt):
        evaluate(data, metrics="fluency", judge=FakeJudge(dies_after_three),
                 judging=JudgeOptions(cache=None, concurrency=1),
                 run=RunOptions(out=out, store=store))
    saved = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert 1 <= len(saved) < len(ROWS)
    with open_store(store) as opened:
        (info,) = opened.runs()
        assert info.status == "interrupted" and info.rows == len(saved)
        assert opened.rows(info.id) == saved
    res = evaluate(data, metrics="fluency", judge=FakeJudge(GOOD), judging=JudgeOptions(cache=None),
                   run=RunOptions(out=out, store=store, resume=True))
    assert res.summary["run_id"] == info.id
    with open_store(store) as opened:
        (again,) = opened.runs()
        assert (again.id, again.status, again.rows) == (info.id, "complete", 6)
        assert [r["id"] for r in opened.rows(info.id)] == [r["id"] for r in ROWS]


def test_secrets_in_the_environment_never_reach_the_store(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8" * 3
    monkeypatch.setenv("OPENAI_API_KEY", key)
    store = tmp_path / "runs.sqlite"
    evaluate(ROWS, metrics="fluency", judge=FakeJudge(GOOD), judging=JudgeOptions(cache=None),
             run=RunOptions(store=store, run_name=f"key {key}"))
    blob = b"".join(p.read_bytes() for p in tmp_path.glob("runs.sqlite*"))
    assert key.encode() not in blob
    assert b"fluency" in blob


def test_cli_runs_show_export_and_rm(tmp_path: Path) -> None:
    store = tmp_path / "runs.sqlite"
    data = _data(tmp_path)
    first = _invoke("run", data, "--metrics", "f1_score,exact_match", "--store", store,
                    "--out", tmp_path / "a", "--name", "base", "--tag", "ci")
    assert first.exit_code == 0, first.output
    assert "stored run:" in first.output
    assert _invoke("run", data, "--metrics", "f1_score", "--store", store, "--out",
                   tmp_path / "b", "--no-store").exit_code == 0
    listed = _invoke("runs", "--store", store)
    assert listed.exit_code == 0 and listed.output.count("complete") == 1
    assert "base" in listed.output and "f1_score 0.8" in listed.output
    run_id = json.loads((tmp_path / "a" / "summary.json").read_text())["run_id"]
    shown = _invoke("show", run_id[:12], "--store", store)
    assert shown.exit_code == 0 and run_id in shown.output and "exact_match" in shown.output
    csv_path = tmp_path / "x.csv"
    exported = _invoke("export", "latest", "--format", "csv", "-o", csv_path, "--store", store)
    assert exported.exit_code == 0
    assert csv_path.read_text().splitlines()[0].startswith(  # the inputs, then the scores
        "id,question,answer,ground_truth,f1_score,f1_score/reason")
    assert len(csv_path.read_text().splitlines()) == 7
    bad = _invoke("export", "latest", "--format", "xml", "--store", store)
    assert bad.exit_code == 2 and "Must be one of" in bad.output
    assert _invoke("rm", run_id, "--store", store, "--yes").exit_code == 0
    missing = _invoke("show", run_id, "--store", store)
    assert missing.exit_code == 2 and "No run" in missing.output


def test_show_export_and_rm_take_the_run_output_folder(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A user who just ran ``assay run --out runs/v2`` types ``assay show runs/v2``."""
    store = tmp_path / "runs.sqlite"
    data = _data(tmp_path)
    assert _invoke("run", data, "--metrics", "f1_score", "--store", store,
                   "--out", tmp_path / "a").exit_code == 0
    assert _invoke("run", data, "--metrics", "exact_match", "--store", store,
                   "--out", tmp_path / "b").exit_code == 0  # "latest" is b, not a
    run_id = json.loads((tmp_path / "a" / "summary.json").read_text())["run_id"]
    shown = _invoke("show", tmp_path / "a", "--store", store)
    assert shown.exit_code == 0, shown.output
    assert run_id in shown.output and "f1_score" in shown.output
    assert "exact_match" not in shown.output
    (tmp_path / "a" / "summary.json").unlink()  # run.json names the run as well
    out = tmp_path / "a.jsonl"
    exported = _invoke("export", tmp_path / "a", "-o", out, "--store", store)
    assert exported.exit_code == 0 and f"of run {run_id}" in exported.output
    assert [json.loads(x)["id"] for x in out.read_text().splitlines()] == [r["id"] for r in ROWS]
    assert _invoke("run", data, "--metrics", "f1_score", "--store", store, "--out",
                   tmp_path / "c", "--no-store").exit_code == 0
    unstored = _invoke("show", tmp_path / "c", "--store", store)
    assert unstored.exit_code == 2 and "names no stored run" in unstored.output
    monkeypatch.chdir(tmp_path)
    (tmp_path / "latest").mkdir()  # a folder that shares the name holds no run: the store's
    latest = _invoke("show", "latest", "--store", store)
    assert latest.exit_code == 0 and "exact_match" in latest.output
    assert "Traceback" not in unstored.output
    typo = _invoke("show", tmp_path / "nope", "--store", store)
    assert typo.exit_code == 2 and "no such folder" in typo.output
    assert _invoke("rm", tmp_path / "a", "--store", store, "--yes").exit_code == 0
    assert _invoke("show", run_id, "--store", store).exit_code == 2


def test_compare_and_report_take_stored_run_ids(tmp_path: Path) -> None:
    store = tmp_path / "runs.sqlite"
    base = evaluate(_data(tmp_path), metrics="f1_score", run=RunOptions(store=store))
    edited = [{**r, "answer": r["ground_truth"]} for r in ROWS]
    better = evaluate(edited, metrics="f1_score", run=RunOptions(store=store))
    a, b = base.summary["run_id"], better.summary["run_id"]
    out = tmp_path / "cmp.json"
    result = _invoke("compare", a, b, "--store", store, "--json", out)
    assert result.exit_code == 0, result.output
    cmp = json.loads(out.read_text())
    assert cmp["metrics"]["f1_score"]["mean_b"] == 1.0 and cmp["metrics"]["f1_score"]["diff"] > 0
    gate = _invoke("compare", "--baseline", b, a, "--store", store, "--max-drop", "f1_score=0.1")
    assert gate.exit_code == 1 and "f1_score: worse than -0.1" in " ".join(gate.output.split())
    html = tmp_path / "r.html"
    report = _invoke("report", b, "--compare", a, "--store", store, "--out", html)
    assert report.exit_code == 0, report.output
    assert b in html.read_text() and "f1_score" in html.read_text()


def test_calibration_jailbreak_and_robustness_runs_are_recorded_with_their_kind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import assay
    import assay.redteam._jailbreak as jb
    from test_redteam import _script

    store = tmp_path / "runs.sqlite"
    monkeypatch.setenv("ASSAY_STORE", str(store))
    rated = Path(__file__).resolve().parents[1] / "examples" / "rated.jsonl"
    helpful = assay.load_metric_file(rated.parent / "metrics" / "helpfulness.md")
    got = assay.calibrate(rated, metric=helpful, judges=[FakeJudge('{"score": 4, "reason": "ok"}')],
                          out=tmp_path / "cal", cache=None, store=True)
    monkeypatch.setattr(jb, "make_judge", lambda spec, **kw: FakeJudge(_script))
    assert _invoke("jailbreak", "--target", "python:examples.apps:toy_app", "--n", "4",
                   "--judge", "fake", "--out", tmp_path / "jb").exit_code == 0
    rgb = Path(__file__).resolve().parents[2] / "shared" / "data" / "rgb" / "en_fact.json"
    assert _invoke("robustness", rgb, "--suite", "rejection", "--target",
                   "python:examples.apps:always_reject", "--limit", "3",
                   "--out", tmp_path / "rob").exit_code == 0
    with open_store(store) as opened:
        runs = opened.runs()
        kinds = sorted((r.kind, tuple(r.tags)) for r in runs)
        assert kinds == [("calibration", ("calibration", "helpfulness")),
                         ("jailbreak", ("injected", "jailbreak")),
                         ("jailbreak", ("jailbreak", "plain")),
                         ("robustness", ("rejection", "robustness"))]
        calibration = next(r for r in runs if r.kind == "calibration")
        report = next(iter(got.reports.values()))
        assert calibration.summary is not None
        assert calibration.summary["calibration"]["balanced_accuracy"] == \
            report["balanced_accuracy"]
        robustness = next(r for r in runs if r.kind == "robustness")
        assert robustness.rows == 3
        assert robustness.summary["table"][0]["rejected_rate"] == 1.0


def test_two_runs_on_qa50_listed_compared_and_reported_offline(tmp_path: Path) -> None:
    """The issue's end-to-end path on the shared bench rows: a run on the answers as they are
    and one on an edited answer file (the first 10 answers replaced by the ground truth)."""
    qa50 = Path(__file__).resolve().parents[2] / "shared" / "bench" / "qa50.jsonl"
    rows = [json.loads(x) for x in qa50.read_text().splitlines()]
    edited = tmp_path / "qa50-edited.jsonl"
    edited.write_text("".join(json.dumps({**r, "answer": r["ground_truth"]} if i < 10 else r)
                              + "\n" for i, r in enumerate(rows)))
    store = tmp_path / "runs.sqlite"
    for name, data in (("answers", qa50), ("edited", edited)):
        res = _invoke("run", data, "--metrics", "f1_score,bleu_score,rouge_l", "--store", store,
                      "--name", name, "--tag", "qa50", "--out", tmp_path / name)
        assert res.exit_code == 0, res.output
    listed = _invoke("runs", "--tag", "qa50", "--store", store)
    assert "answers" in listed.output and "edited" in listed.output
    cmp_file = tmp_path / "cmp.json"
    assert _invoke("compare", "--baseline", tmp_path / "answers", "latest", "--store", store,
                   "--json", cmp_file).exit_code == 0
    cmp = json.loads(cmp_file.read_text())
    f1 = cmp["metrics"]["f1_score"]
    assert cmp["shared_rows"] == 50 and f1["paired"] == 50
    assert f1["diff"] > 0 and f1["ci95"][0] > 0  # ten answers now match their ground truth
    assert {c["id"] for c in cmp["changed"]} <= {str(i) for i in range(1, 11)}
    html = tmp_path / "report.html"
    assert _invoke("report", "latest", "--compare", tmp_path / "answers", "--store", store,
                   "--out", html).exit_code == 0
    text = html.read_text()
    assert "rouge_l" in text and "Which tent is the most waterproof?" in text
    assert not re.search(r"""(?:src|href)\s*=\s*["']?https?:""", text)


def test_the_report_of_a_stored_calibration_run_shows_its_agreement(tmp_path: Path) -> None:
    import assay

    store = tmp_path / "runs.sqlite"
    rated = Path(__file__).resolve().parents[1] / "examples" / "rated.jsonl"
    helpful = assay.load_metric_file(rated.parent / "metrics" / "helpfulness.md")
    got = assay.calibrate(rated, metric=helpful, judges=[FakeJudge('{"score": 4, "reason": "ok"}')],
                          out=tmp_path / "cal", cache=None, store=store)
    html = tmp_path / "r.html"
    assert _invoke("report", "latest", "--store", store, "--out", html).exit_code == 0
    text = html.read_text()
    report = next(iter(got.reports.values()))
    assert 'id="calibration"' in text and "balanced accuracy" in text.lower()
    assert f"{report['balanced_accuracy']:.3f}"[:4] in text


def test_an_unusable_default_store_warns_and_the_run_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the store's folder should be")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocker))  # the user data dir cannot be made
    res = evaluate(ROWS, metrics="f1_score", run=RunOptions(store=True))
    assert res.summary["metrics"]["f1_score"]["scored"] == len(ROWS)
    assert "run_id" not in res.summary
    assert "not recorded in the run store" in caplog.text
    with pytest.raises(ConfigError, match="Cannot create the run store's folder"):
        evaluate(ROWS, metrics="f1_score",
                 run=RunOptions(store=blocker / "runs.sqlite"))  # named: must open
    monkeypatch.setenv("ASSAY_STORE", str(blocker / "runs.sqlite"))  # named too: must open
    with pytest.raises(ConfigError, match="Cannot create the run store's folder.*ASSAY_STORE"):
        evaluate(ROWS, metrics="f1_score", run=RunOptions(store=True))


def test_a_read_only_default_store_warns_and_the_run_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    import assay.store._url as store_url

    path = tmp_path / "runs.sqlite"
    open_store(path).close()
    read_only = f"sqlite:///file:{path}?mode=ro&uri=true"
    monkeypatch.setattr(store_url, "default_store_path", lambda: read_only)  # root writes any file
    res = evaluate(ROWS, metrics="f1_score", run=RunOptions(store=True))
    assert "run_id" not in res.summary and "is read-only here" in caplog.text
    with pytest.raises(ConfigError, match="read-only"):  # named: must be writable
        evaluate(ROWS, metrics="f1_score", run=RunOptions(store=read_only))
    monkeypatch.setenv("ASSAY_STORE", read_only)  # named by ASSAY_STORE: the same
    with pytest.raises(ConfigError, match="read-only"):
        evaluate(ROWS, metrics="f1_score", run=RunOptions(store=True))
