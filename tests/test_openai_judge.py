"""End to end through the official openai client against the bench's fake judge server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from assay import JudgeOptions, RunOptions, evaluate
from conftest import ORIGINAL_AUTO, QA50, bench_rag_requests
from support import interrupt_after_rows

JUDGE_METRICS = ("coherence", "fluency", "groundedness", "relevance", "similarity")
RAG_METRICS = ("groundedness_claims", "faithfulness", "context_recall", "answer_correctness")


def test_qa50_scores_every_row_with_one_request_per_row_per_metric(fake_judge_server,
                                                                   tmp_path: Path) -> None:
    server = fake_judge_server("--latency-ms", "5")
    cache = tmp_path / "cache.sqlite"
    res = evaluate(QA50, metrics=ORIGINAL_AUTO, judge="openai:gpt-4o-mini",
                   judging=JudgeOptions(cache=cache, concurrency=16),
                   run=RunOptions(out=tmp_path / "out"))
    for name in (*JUDGE_METRICS, "f1_score"):
        assert res.summary["metrics"][name]["scored"] == 50, name
    records = server.records()
    assert len(records) == 50 * len(JUDGE_METRICS)
    assert all(r["status"] == 200 and r["rf"] == "json_schema" for r in records)
    assert res.summary["judge"]["prompt_tokens"] == sum(r["prompt_tokens"] for r in records)
    again = evaluate(QA50, metrics=ORIGINAL_AUTO, judge="openai:gpt-4o-mini",
                     judging=JudgeOptions(cache=cache), run=RunOptions(out=tmp_path / "out2"))
    assert again.summary["judge"]["requests"] == 0
    assert len(server.records()) == len(records)


class _ToyEmbedder:
    """Two-dimensional vectors from the text's length: no model, deterministic."""

    id, max_batch = "toy", 64

    async def embed(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, float(len(t) % 7)] for t in texts]

    async def aclose(self) -> None:
        return None


def test_qa50_rag_metrics_share_decompositions_and_verifications(fake_judge_server,
                                                                 tmp_path: Path) -> None:
    """Through the real client, 8 rows at once: each identical request is sent once.

    At most 4 connections at once (the bench server's listen backlog is 5; more connects may be
    reset and retried, which would blur the counts).
    """
    server = fake_judge_server("--latency-ms", "5")
    rows = [json.loads(line) for line in QA50.read_text().splitlines() if line.strip()]
    res = evaluate(QA50, metrics=",".join(RAG_METRICS), judge="openai:gpt-4o-mini",
                   embeddings=_ToyEmbedder(),
                   judging=JudgeOptions(cache=tmp_path / "c.sqlite", concurrency=4),
                   run=RunOptions(out=tmp_path / "out"))
    for name in RAG_METRICS:
        assert res.summary["metrics"][name]["scored"] == 50, name
    for rec in res.rows:  # the bench's one statement, verified as supported everywhere
        assert rec["faithfulness"]["value"] == 1.0
        assert rec["groundedness_claims"]["value"] == 5.0
        assert rec["context_recall"]["value"] == 1.0
        assert rec["answer_correctness"]["details"]["f_score"] == 1.0
    records = server.records()
    assert all(r["status"] == 200 and r["rf"] == "json_schema" for r in records)
    assert len(records) == sum(bench_rag_requests(r) for r in rows)
    judge = res.summary["judge"]
    assert judge["requests"] == len(records) and judge["retries"] == 0
    # the calls the metrics made per row: groundedness_claims and faithfulness 2 each (decompose
    # the answer, verify it against the context), context_recall 2, answer_correctness 4 (both
    # texts, both ways); every call not sent was answered by one in flight or by the cache
    assert judge["requests"] + judge["shared"] + judge["cache_hits"] == 10 * 50


def test_faults_lose_no_row(fake_judge_server, tmp_path: Path) -> None:
    server = fake_judge_server("--latency-ms", "2", "--fail-rate", "0.2",
                               "--malformed-rate", "0.1", "--seed", "7")
    res = evaluate(QA50, metrics="groundedness,relevance,f1_score", judge="openai:gpt-4o-mini",
                   judging=JudgeOptions(cache=tmp_path / "c.sqlite", max_attempts=4,
                                        concurrency=16),
                   run=RunOptions(out=tmp_path / "out"))
    assert len(res.rows) == 50
    for row in res.rows:
        for name in ("groundedness", "relevance"):
            m = row[name]
            assert (m["value"] is None) == bool(m["error"]), (row["id"], m)
    for name in ("groundedness", "relevance"):
        agg = res.summary["metrics"][name]
        assert agg["scored"] + agg["unscored"] == 50
    faults = [r for r in server.records() if r.get("fault")]
    assert faults, "the server injected no fault"
    assert res.summary["judge"]["retries"] > 0


def test_cli_bad_file_fails_before_any_judge_call(fake_judge_server, tmp_path: Path) -> None:
    server = fake_judge_server("--latency-ms", "1")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"question": "q1", "answer": "a1"}) + "\n"
        + '{"question": "q2", "answer": \n'
        + json.dumps({"question": "q3"}) + "\n"
        + json.dumps({"question": "q4", "answer": 42}) + "\n")
    proc = subprocess.run([sys.executable, "-m", "assay.cli", "run", str(bad), "--judge",
                           "openai:gpt-4o-mini", "--out", str(tmp_path / "o")],
                          capture_output=True, text=True, env=os.environ.copy(), check=False)
    assert proc.returncode == 2
    msg = proc.stderr
    assert "line 2" in msg and "invalid JSON" in msg
    assert "line 3" in msg and "'answer': missing" in msg
    assert "line 4" in msg and "'answer': expected text, got int" in msg
    assert server.records() == []


def test_cli_ctrl_c_keeps_rows_and_resume_finishes(fake_judge_server, tmp_path: Path) -> None:
    server = fake_judge_server("--latency-ms", "150")
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "assay.cli", "run", str(QA50), "--judge", "openai:gpt-4o-mini",
           "--metrics", "groundedness", "--concurrency", "2", "--out", str(out),
           "--cache", str(tmp_path / "c.sqlite")]
    results = out / "results.jsonl"
    code, stderr = interrupt_after_rows(cmd, results, 6)
    assert code == 130, stderr
    assert "--resume" in stderr
    kept = [json.loads(x) for x in results.read_text().splitlines()]
    assert 6 <= len(kept) < 50
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is False
    asked_before = server.records()
    before = {r["prompt_hash"] for r in asked_before if r["status"] == 200}
    done = subprocess.run(cmd + ["--resume"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    after = [r for r in server.records()[len(asked_before):] if r["status"] == 200]
    # Only a request in flight when Ctrl-C came (at most --concurrency of them) may be asked
    # again: the judge answered it but no row holds the answer. A kept row is never re-asked.
    assert len(before & {r["prompt_hash"] for r in after}) <= 2
    assert len(after) <= 50 - len(kept)
    final = [json.loads(x) for x in results.read_text().splitlines()]
    assert len(final) == 50 and all(r["groundedness"]["value"] == 5.0 for r in final)
