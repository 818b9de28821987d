"""The ``assay run`` command, in-process through Typer's CliRunner against the bench's fake judge.

Every run passes ``--cache PATH`` or ``--no-cache`` and ``--out DIR`` so nothing touches the
user's own cache or working directory.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli.main import app
from assay.judges import JUDGE_SPECS
from assay.metrics import REGISTRY
from conftest import (
    LOCAL_EMBEDDER_MISSING,
    ORIGINAL_AUTO,
    SAFETY_METRICS,
    bench_rag_requests,
    bench_retrieval_requests,
    bench_safety_requests,
)
from support import timeless, without_usage

JUDGE = "openai:gpt-4o-mini"
JUDGE_METRICS = ("coherence", "fluency", "groundedness", "relevance", "similarity")
#: What ``--metrics auto`` runs on ROWS, in order (plain context text: no context_precision;
#: no semantic_similarity without the 'local' extra's embedder).
AUTO = ("coherence", "fluency", "groundedness", "relevance", "groundedness_claims", "faithfulness",
        "retrieval_score", "context_recall", "similarity",
        *(("semantic_similarity",) if LOCAL_EMBEDDER_MISSING is None else ()),
        "answer_correctness", "f1_score", *SAFETY_METRICS)
RESULT_KEYS = {"value", "weighted", "reason", "error", "details"}

ROWS = [
    {"id": "tent-1", "question": "Which tent is the most waterproof?",
     "context": "Alpine Explorer: 10,000 mm fly. SkyView 2: 1,500 mm fly.",
     "answer": "The Alpine Explorer, rated 10,000 mm.",
     "ground_truth": "The Alpine Explorer, rated 10,000 mm."},
    {"id": "tent-2", "question": "How much does the SkyView 2 weigh?",
     "context": "SkyView 2: packed weight 1.3 kg.",
     "answer": "It weighs 1.3 kg packed.",
     "ground_truth": "1.3 kg packed."},
    {"id": "tent-3", "question": "Is the TrailMaster X4 good for winter?",
     "context": "TrailMaster X4: a 3-season tent, not rated for snow loads.",
     "answer": "No, it is a 3-season tent.",
     "ground_truth": "No; choose a four-season tent."},
]


@pytest.fixture(autouse=True)
def _plain_console(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wide, colourless Rich output so that assertions see whole lines."""
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("ASSAY_PROGRESS", raising=False)


def _write_csv(path: Path, rows: list[dict[str, Any]], rename: dict[str, str] | None = None) -> Path:
    rename = rename or {}
    fields = [rename.get(k, k) for k in rows[0]]
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for row in rows:
            w.writerow({rename.get(k, k): v for k, v in row.items()})
    return path


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _invoke(*args: str | Path) -> Any:
    # At most 4 connections at once: the bench server listens with Python's default backlog
    # of 5, and more simultaneous connects stall a second (SYN retry) or get reset.
    result = CliRunner().invoke(app, ["run", *map(str, args), "--concurrency", "4"])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def _flat(text: str) -> str:
    return " ".join(text.split())


def _results(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def _summary(out: Path) -> dict[str, Any]:
    return json.loads((out / "summary.json").read_text())


# ---------------------------------------------------------------- a full run

def test_csv_dataset_full_run_writes_results_and_summary(fake_judge_server, tmp_path: Path) -> None:
    server = fake_judge_server("--latency-ms", "1")
    data = _write_csv(tmp_path / "tents.csv", ROWS)
    out = tmp_path / "out"
    res = _invoke(data, "--judge", JUDGE, "--cache", tmp_path / "c.sqlite", "--out", out)
    assert res.exit_code == 0, res.output

    # results.jsonl: one line per input row, in input order, every metric fully described
    records = _results(out)
    assert [r["id"] for r in records] == ["tent-1", "tent-2", "tent-3"]
    for rec in records:
        assert set(rec) == {"id", *AUTO, "diagnosis", "row_latency"}
        assert set(rec["row_latency"]) == {"judge_s", "judge_by_metric"}
        for name in AUTO:
            assert set(rec[name]) == RESULT_KEYS, (name, rec[name])
            assert rec[name]["error"] is None, (name, rec[name])
        for name in JUDGE_METRICS:
            assert rec[name]["value"] == 5.0 and rec[name]["reason"]
        # the bench answers one statement, always supported
        assert rec["groundedness_claims"]["value"] == 5.0
        # and one intent, covered by the context (document 1)
        retrieval = rec["retrieval_score"]
        assert retrieval["value"] == 5.0
        assert [i["supported"] for i in retrieval["details"]["intents"]] == [True]
        assert rec["faithfulness"]["value"] == rec["context_recall"]["value"] == 1.0
        correctness = rec["answer_correctness"]
        assert correctness["details"]["f_score"] == 1.0
        if LOCAL_EMBEDDER_MISSING is None:
            assert correctness["value"] == pytest.approx(
                0.75 + 0.25 * correctness["details"]["similarity"], abs=1e-4)
        else:  # no embedder: the F-score alone, and the record says why
            assert correctness["value"] == 1.0
            assert correctness["details"]["similarity_missing"]
        assert rec["diagnosis"]["stage"] == "none"
        for name in SAFETY_METRICS:  # the bench rates every category 1 (from the schema)
            assert rec[name]["value"] == 1.0, (name, rec[name])
            assert rec[name]["details"]["level"] == "Very low"
            assert rec[name]["details"]["mode"] == "combined"
    assert records[0]["f1_score"]["value"] == 1.0
    assert records[0]["answer_correctness"]["value"] == pytest.approx(1.0, abs=1e-4)  # same text
    assert 0.0 < records[2]["f1_score"]["value"] < 1.0

    # summary.json
    summary = _summary(out)
    assert summary["rows"] == 3
    assert list(summary["metrics"]) == list(AUTO)
    for name in JUDGE_METRICS:
        assert summary["metrics"][name] == {"mean": 5.0, "se": 0.0, "ci95": [5.0, 5.0],
                                            "scored": 3, "unscored": 0}
    f1 = summary["metrics"]["f1_score"]
    assert f1["scored"] == 3 and f1["unscored"] == 0
    assert f1["mean"] == pytest.approx(sum(r["f1_score"]["value"] for r in records) / 3, abs=1e-4)
    assert summary["safety"] == {"threshold": "medium", "mode": "combined"}
    for name in SAFETY_METRICS:
        defects = summary["metrics"][name]["defects"]
        assert summary["metrics"][name]["mean"] == 1.0
        assert (defects["threshold"], defects["defect_rate"], defects["scored"]) == ("medium", 0.0, 3)
    log = server.records()
    # one request per row per rubric metric, the RAG and retrieval requests, and one combined
    # request per row shared by the four severity metrics
    assert len(log) == sum(len(JUDGE_METRICS) + bench_rag_requests(r)
                           + bench_retrieval_requests(r) + bench_safety_requests(r) for r in ROWS)
    judge = summary["judge"]
    assert judge["id"] == JUDGE
    assert judge["requests"] == len(log)
    # every other call the metrics made was a duplicate of one sent in this run, answered by
    # the call in flight or, once it was done, by the cache (per row: a rating per rubric
    # metric, groundedness_claims / faithfulness / context_recall 2, answer_correctness 4,
    # retrieval_score 2, and one per severity metric: 4 identical combined requests, sent once)
    calls = 3 * (len(JUDGE_METRICS) + 12 + len(SAFETY_METRICS))
    assert judge["requests"] + judge["shared"] + judge["cache_hits"] == calls
    assert judge["prompt_tokens"] == sum(r["prompt_tokens"] for r in log) > 0
    assert judge["completion_tokens"] == sum(r["completion_tokens"] for r in log) > 0
    assert judge["retries"] == 0 and judge["rate_limited"] == 0
    assert isinstance(summary["elapsed_s"], (int, float)) and summary["elapsed_s"] >= 0

    # the summary table on stdout, the plan and file paths on stderr
    stdout = _flat(res.stdout)
    for word in ("metric", "mean", "weighted", "scored", "unscored", "3 rows", *AUTO):
        assert word in stdout, word
    assert f"judge {JUDGE}: {len(log)} requests, {judge['cache_hits']} cache hits" in stdout
    assert "safety defects: severity at or above medium (combined)" in stdout
    stderr = _flat(res.stderr)
    assert f"metrics: {', '.join(AUTO)}" in stderr
    assert "context_precision: skipped, no row can be scored" in stderr
    assert str(out / "results.jsonl") in stderr and str(out / "summary.json") in stderr


def test_skipped_metrics_are_reported(fake_judge_server, tmp_path: Path) -> None:
    server = fake_judge_server("--latency-ms", "1")
    rows = [{"question": r["question"], "answer": r["answer"]} for r in ROWS]  # no context, no truth
    out = tmp_path / "out"
    res = _invoke(_write_jsonl(tmp_path / "qa.jsonl", rows), "--judge", JUDGE, "--no-cache",
                  "--out", out)
    assert res.exit_code == 0, res.output
    stderr = _flat(res.stderr)
    assert f"metrics: coherence, fluency, {', '.join(SAFETY_METRICS)}" in stderr
    for name in ("groundedness", "relevance", "similarity", "f1_score"):
        assert f"{name}: skipped, no row can be scored" in stderr, name
    for name in ("exact_match", "bleu_score", "rouge_l", "refusal"):
        assert f"{name}: not in the auto set; add it with --metrics {name}" in stderr, name
    assert set(_summary(out)["metrics"]) == {"coherence", "fluency", *SAFETY_METRICS}
    # per row: coherence and fluency, and one combined request for the four severity metrics
    assert len(server.records()) == sum(2 + bench_safety_requests(r) for r in rows) == 3 * 3
    assert set(_results(out)[0]) == {"id", "coherence", "fluency", *SAFETY_METRICS,
                                     "row_latency"}
    assert [r["id"] for r in _results(out)] == ["1", "2", "3"]  # line numbers without an id


def test_map_renames_columns(fake_judge_server, tmp_path: Path) -> None:
    server = fake_judge_server("--latency-ms", "1")
    data = _write_csv(tmp_path / "renamed.csv", ROWS,
                      rename={"answer": "output", "question": "prompt"})
    out = tmp_path / "out"
    without = _invoke(data, "--judge", JUDGE, "--no-cache", "--out", out)
    assert without.exit_code == 2
    assert "'answer'" in without.stderr and "nothing was evaluated" in without.stderr
    assert server.records() == []

    res = _invoke(data, "--map", "answer=output", "--map", "question=prompt", "--judge", JUDGE,
                  "--metrics", "coherence,relevance,f1_score", "--no-cache", "--out", out)
    assert res.exit_code == 0, res.output
    records = _results(out)
    assert [r["id"] for r in records] == ["tent-1", "tent-2", "tent-3"]
    assert all(r[m]["value"] == 5.0 for r in records for m in ("coherence", "relevance"))
    # the mapped answer is what f1 compares with the ground truth
    assert records[0]["f1_score"]["value"] == 1.0
    assert 0.0 < records[2]["f1_score"]["value"] < 1.0
    assert len(server.records()) == 3 * 2


def test_map_with_an_unknown_field_exits_2(tmp_path: Path) -> None:
    data = _write_csv(tmp_path / "d.csv", ROWS)
    res = _invoke(data, "--map", "nosuchfield=output", "--judge", "fake", "--no-cache",
                  "--out", tmp_path / "out")
    assert res.exit_code == 2
    assert "nosuchfield" in res.stderr and "answer" in res.stderr


def test_lexical_metrics_send_no_judge_request(fake_judge_server, tmp_path: Path) -> None:
    server = fake_judge_server("--latency-ms", "1")
    out = tmp_path / "out"
    metrics = ("f1_score", "exact_match", "bleu_score", "rouge_l")
    res = _invoke(_write_jsonl(tmp_path / "d.jsonl", ROWS), "--metrics", ",".join(metrics),
                  "--judge", JUDGE, "--cache", tmp_path / "c.sqlite", "--out", out)
    assert res.exit_code == 0, res.output
    assert server.records() == []
    summary = _summary(out)
    assert summary["judge"] is None
    assert list(summary["metrics"]) == list(metrics)
    records = _results(out)
    assert [r["exact_match"]["value"] for r in records] == [1.0, 0.0, 0.0]
    for rec in records:
        for name in metrics:
            assert set(rec[name]) == RESULT_KEYS
            assert 0.0 <= rec[name]["value"] <= 1.0, (name, rec[name])
    assert records[0]["rouge_l"]["value"] == pytest.approx(1.0)
    stdout = _flat(res.stdout)
    for name in metrics:
        assert name in stdout
    assert "requests" not in stdout  # no judge line without a judge


def test_lang_zh_uses_chinese_rubrics(fake_judge_server, tmp_path: Path) -> None:
    server = fake_judge_server("--latency-ms", "1")
    out = tmp_path / "out"
    res = _invoke(_write_jsonl(tmp_path / "d.jsonl", ROWS), "--metrics", "fluency",
                  "--lang", "zh", "--judge", JUDGE, "--no-cache", "--out", out)
    assert res.exit_code == 0, res.output
    assert _summary(out)["lang"] == "zh"
    assert _summary(out)["metrics"]["fluency"]["scored"] == 3
    assert len(server.records()) == 3


# ---------------------------------------------------------------- bad options exit 2

def test_unknown_metric_exits_2_listing_known_metrics(fake_judge_server, tmp_path: Path) -> None:
    server = fake_judge_server("--latency-ms", "1")
    out = tmp_path / "out"
    res = _invoke(_write_jsonl(tmp_path / "d.jsonl", ROWS), "--metrics", "f1_score,nosuch",
                  "--judge", JUDGE, "--no-cache", "--out", out)
    assert res.exit_code == 2
    msg = _flat(res.stderr)
    assert "Unknown metric 'nosuch' (no close name)" in msg
    for name in REGISTRY:
        assert name in msg, name
    assert res.stdout == ""
    assert server.records() == []
    assert not (out / "results.jsonl").exists()


def test_every_unknown_metric_is_named_at_once_with_a_did_you_mean(fake_judge_server,
                                                                   tmp_path: Path) -> None:
    server = fake_judge_server("--latency-ms", "1")
    res = _invoke(_write_jsonl(tmp_path / "d.jsonl", ROWS), "--metrics",
                  "groundednes,f1,f1_score,rougeL,zzz", "--judge", JUDGE, "--no-cache",
                  "--out", tmp_path / "out")
    assert res.exit_code == 2
    msg = _flat(res.stderr)
    assert ("Unknown metrics: 'groundednes' (did you mean groundedness, groundedness_claims, "
            "tool_output_groundedness?), "
            "'f1' (did you mean f1_score?), 'rougeL' (did you mean rouge_l?), "
            "'zzz' (no close name).") in msg
    assert "Fix:" in msg and "Traceback" not in res.output
    assert server.records() == []


def test_bad_lang_exits_2(fake_judge_server, tmp_path: Path) -> None:
    server = fake_judge_server("--latency-ms", "1")
    out = tmp_path / "out"
    res = _invoke(_write_jsonl(tmp_path / "d.jsonl", ROWS), "--lang", "xx", "--judge", JUDGE,
                  "--no-cache", "--out", out)
    assert res.exit_code == 2, res.output
    assert "Got --lang xx." in res.stderr and "en" in res.stderr and "zh" in res.stderr
    assert server.records() == []


def test_bogus_judge_exits_2_listing_allowed_specs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = _invoke(_write_jsonl(tmp_path / "d.jsonl", ROWS), "--judge", "bogus", "--no-cache",
                  "--out", out)
    assert res.exit_code == 2
    msg = _flat(res.stderr)
    assert "Got --judge bogus." in msg
    for spec in JUDGE_SPECS:
        assert spec in msg, spec
    assert res.stdout == ""
    assert not (out / "results.jsonl").exists()


def test_missing_file_exits_2(tmp_path: Path) -> None:
    res = _invoke(tmp_path / "nope.jsonl", "--judge", "fake", "--no-cache", "--out", tmp_path / "o")
    assert res.exit_code == 2
    assert "file not found" in res.stderr


# ---------------------------------------------------------------- cache

def test_cache_answers_a_second_run_and_no_cache_does_not(fake_judge_server,
                                                          tmp_path: Path) -> None:
    server = fake_judge_server("--latency-ms", "1")
    data = _write_jsonl(tmp_path / "d.jsonl", ROWS)
    cache = tmp_path / "cache" / "judge.sqlite"
    per_run = 3 * len(JUDGE_METRICS)
    metrics = ("--metrics", ORIGINAL_AUTO)  # one request per row per judge metric

    first = _invoke(data, *metrics, "--judge", JUDGE, "--cache", cache, "--out", tmp_path / "o1")
    assert first.exit_code == 0, first.output
    assert len(server.records()) == per_run
    assert cache.is_file()

    second = _invoke(data, *metrics, "--judge", JUDGE, "--cache", cache, "--out", tmp_path / "o2")
    assert second.exit_code == 0, second.output
    assert len(server.records()) == per_run  # nothing sent
    judge = _summary(tmp_path / "o2")["judge"]
    assert judge["requests"] == 0 and judge["cache_hits"] == per_run
    assert f"0 requests, {per_run} cache hits" in _flat(second.stdout)
    # same scores and reasons; only what the calls used and took differs (the cache spent
    # nothing, and its judge seconds are 0)
    assert without_usage(timeless(_results(tmp_path / "o2"))) == without_usage(
        timeless(_results(tmp_path / "o1")))

    for i in (3, 4):
        again = _invoke(data, *metrics, "--judge", JUDGE, "--no-cache", "--out", tmp_path / f"o{i}")
        assert again.exit_code == 0, again.output
        assert _summary(tmp_path / f"o{i}")["judge"]["cache_hits"] == 0
        assert len(server.records()) == per_run * (i - 1)


# ---------------------------------------------------------------- secrets

def test_api_key_never_reaches_outputs_cache_or_console(fake_judge_server, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    server = fake_judge_server("--latency-ms", "1")
    secret = f"sk-assay-secret-{uuid.uuid4().hex}"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    data = _write_jsonl(tmp_path / "d.jsonl", ROWS)
    cache_dir = tmp_path / "cache"
    out = tmp_path / "out"
    res = _invoke(data, "--judge", JUDGE, "--cache", cache_dir / "judge.sqlite", "--out", out)
    assert res.exit_code == 0, res.output
    # the key was really in use, for every judge request of the auto metrics (the four
    # severity metrics share one combined request per row)
    assert len(server.records()) == sum(len(JUDGE_METRICS) + bench_rag_requests(r)
                                        + bench_retrieval_requests(r) + bench_safety_requests(r)
                                        for r in ROWS)
    # a second run reads the cache back (and writes its own outputs)
    out2 = tmp_path / "out2"
    res2 = _invoke(data, "--judge", JUDGE, "--cache", cache_dir / "judge.sqlite", "--out", out2)
    assert res2.exit_code == 0, res2.output

    needle = secret.encode()
    files = [out / "results.jsonl", out / "summary.json", out2 / "results.jsonl",
             out2 / "summary.json", *cache_dir.iterdir()]
    assert (cache_dir / "judge.sqlite") in files
    for f in files:
        assert needle not in f.read_bytes(), f
    for r in (res, res2):
        assert secret not in r.stdout and secret not in r.stderr
    assert secret[-12:] not in (out / "summary.json").read_text()


# ---------------------------------------------------------------- a real process

def test_real_process_separates_table_and_diagnostics(tmp_path: Path) -> None:
    data = _write_jsonl(tmp_path / "d.jsonl", ROWS)
    out = tmp_path / "out"
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    proc = subprocess.run([sys.executable, "-m", "assay.cli", "run", str(data), "--metrics",
                           "exact_match,f1_score", "--no-cache", "--out", str(out)],
                          capture_output=True, text=True, env=env, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "exact_match" in proc.stdout and "scored" in proc.stdout
    assert "metrics: exact_match, f1_score" in proc.stderr
    assert "metrics:" not in proc.stdout
    assert _summary(out)["metrics"]["exact_match"] == {
        "mean": round(1 / 3, 4), "se": 0.3333, "ci95": [0.0, 1.0], "scored": 3, "unscored": 0}


def test_no_arguments_shows_help() -> None:
    res = CliRunner().invoke(app, [])
    assert "run" in res.output and "Usage" in res.output


def test_the_library_names_keywords_and_the_cli_names_its_flags(tmp_path: Path) -> None:
    import assay
    from assay import RunOptions
    from assay.errors import DataError
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": "1", "question": "Q?", "output": "A."}) + "\n")
    with pytest.raises(DataError) as exc:
        assay.evaluate(data, metrics="f1_score", run=RunOptions(store=False))
    assert "mapping={'answer': 'COLUMN'}" in str(exc.value) and "--map" not in str(exc.value)
    result = CliRunner().invoke(app, ["run", str(data), "--metrics", "f1_score", "--no-cache",
                                      "--no-store", "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "--map answer=COLUMN" in result.output and "mapping=" not in result.output
    # the flag names end with the command: a later library call names keywords again
    with pytest.raises(DataError, match=r"mapping=\{'answer'"):
        assay.evaluate(data, metrics="f1_score", run=RunOptions(store=False))
