"""A run owns its --out folder: one run at a time, resume only the same run, nothing overwritten
silently, and JSONL records that hold line-breaking characters survive resumes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli.main import app
from assay.errors import ConfigError
from assay.judges import FakeJudge, JudgeRequest
from assay.records._manifest import RunManifest, read_manifest
from assay.records._outdir import claim_output
from assay.records._results import load_finished
from assay.run import JudgeOptions, RunOptions, evaluate

GOOD = '{"score": 4, "reason": "Supported by the context."}'
#: Every character str.splitlines() splits on besides "\n".
BREAKERS = ["\u2028", "\u2029", "\u0085", "\x0b", "\x0c", "\r", "\x1c", "\x1d", "\x1e"]


def _rows(n: int, *, odd: bool = False) -> list[dict[str, str]]:
    rows = []
    for i in range(n):
        mark = BREAKERS[i % len(BREAKERS)] if odd else ""
        rows.append({"id": f"r{i}{mark}x", "question": f"Q{mark}{i}?",
                     "context": f"The answer is {i}.{mark}", "answer": f"It is {i}{mark}.",
                     "ground_truth": f"{i}"})
    return rows


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    return path


def test_line_breaking_characters_survive_a_run_and_two_resumes(tmp_path: Path) -> None:
    rows = _rows(27, odd=True)
    data = _write(tmp_path / "odd.jsonl", rows)
    out = tmp_path / "out"
    sent: list[str] = []

    def dies_after_ten(req: JudgeRequest) -> str:
        sent.append(req.canonical())
        if len(sent) > 10:
            raise KeyboardInterrupt
        return GOOD

    with pytest.raises(KeyboardInterrupt):
        evaluate(data, metrics="fluency,f1_score", judge=FakeJudge(dies_after_ten),
                 judging=JudgeOptions(cache=None, concurrency=1), run=RunOptions(out=out))
    first = load_finished(out / "results.jsonl")
    assert 0 < len(first) < len(rows)
    assert set(first) <= {r["id"] for r in rows}  # ids read back whole, not cut in two
    assert read_manifest(out).status == "interrupted"

    second_judge = FakeJudge(GOOD)
    res = evaluate(data, metrics="fluency,f1_score", judge=second_judge,
                   judging=JudgeOptions(cache=None), run=RunOptions(out=out, resume=True))
    assert len(second_judge.requests) == len(rows) - len(first)  # nothing re-sent
    third_judge = FakeJudge(GOOD)
    res = evaluate(data, metrics="fluency,f1_score", judge=third_judge,
                   judging=JudgeOptions(cache=None), run=RunOptions(out=out, resume=True))
    assert third_judge.requests == []
    lines = (out / "results.jsonl").read_bytes().split(b"\n")[:-1]
    assert [json.loads(x)["id"] for x in lines] == [r["id"] for r in rows]  # none lost
    assert [r["id"] for r in res.rows] == [r["id"] for r in rows]
    assert all(r["fluency"]["value"] == 4.0 for r in res.rows)


def test_a_resume_scores_again_what_a_failed_judge_call_left_unscored(tmp_path: Path) -> None:
    data = _write(tmp_path / "d.jsonl", _rows(6))
    out = tmp_path / "out"

    def half_fail(req: JudgeRequest):
        from assay.errors import JudgeError
        return JudgeError("HTTP 400: bad") if "It is 1." in req.canonical() else GOOD

    evaluate(data, metrics="fluency", judge=FakeJudge(half_fail), judging=JudgeOptions(cache=None),
             run=RunOptions(out=out))
    before = load_finished(out / "results.jsonl")
    assert before["r1x"]["fluency"]["error"].startswith("judge call failed")
    again = FakeJudge(GOOD)
    res = evaluate(data, metrics="fluency", judge=again, judging=JudgeOptions(cache=None),
                   run=RunOptions(out=out, resume=True))
    assert len(again.requests) == 1
    assert res.summary["metrics"]["fluency"]["scored"] == 6


def test_a_folder_with_a_run_needs_resume_or_overwrite(tmp_path: Path) -> None:
    data = _write(tmp_path / "d.jsonl", _rows(3))
    out = tmp_path / "out"
    args = ["run", str(data), "--metrics", "f1_score", "--out", str(out), "--no-store"]
    assert CliRunner().invoke(app, args).exit_code == 0
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 2
    assert "already holds a complete run" in again.output
    assert "--resume" in again.output and "--overwrite" in again.output
    assert CliRunner().invoke(app, [*args, "--overwrite"]).exit_code == 0
    assert CliRunner().invoke(app, [*args, "--resume"]).exit_code == 0


def test_resume_of_another_dataset_metric_set_or_judge_exits_2_naming_each(
        tmp_path: Path) -> None:
    first = _write(tmp_path / "a.jsonl", _rows(3))
    other = _write(tmp_path / "b.jsonl", _rows(4))
    out = tmp_path / "out"
    base = ["--out", str(out), "--no-store"]
    done = CliRunner().invoke(app, ["run", str(first), "--metrics", "f1_score", *base])
    assert done.exit_code == 0
    results = (out / "results.jsonl").read_bytes()
    got = CliRunner().invoke(app, ["run", str(other), "--metrics", "f1_score,exact_match",
                                   "--resume", *base])
    assert got.exit_code == 2
    assert "dataset:" in got.output and "a.jsonl" in got.output and "b.jsonl" in got.output
    assert "adds exact_match" in got.output
    assert "Traceback" not in got.output
    assert (out / "results.jsonl").read_bytes() == results  # the finished run is untouched
    assert read_manifest(out).status == "complete"


def test_a_held_folder_is_refused_naming_its_owner(tmp_path: Path) -> None:
    data = _write(tmp_path / "d.jsonl", _rows(2))
    out = tmp_path / "out"
    manifest = RunManifest(dataset=str(data), dataset_sha256=None, metrics={}, judge=None)
    with claim_output(out, manifest, resume=False, overwrite=False):
        got = CliRunner().invoke(app, ["run", str(data), "--metrics", "f1_score", "--out",
                                       str(out), "--no-store", "--overwrite"])
        assert got.exit_code == 2
        assert f"PID {os.getpid()}" in got.output and ".assay.lock" in got.output
        with pytest.raises(ConfigError, match="in use by another assay run"):
            claim_output(out, manifest, resume=True, overwrite=False)
    # the lock goes with its holder: the folder can be claimed again
    claim_output(out, manifest, resume=True, overwrite=False).release()


_SLOW_RUN = """
import sys
from assay.judges import FakeJudge
from assay.run import evaluate
evaluate(sys.argv[1], metrics="fluency", judge=FakeJudge({good!r}, latency_s=0.02),
         cache=None, out=sys.argv[2], concurrency=4)
"""


_HELD_RUN = """
import asyncio, sys
from pathlib import Path
from assay.judges import FakeJudge
from assay.run import JudgeOptions, RunOptions, evaluate

class HeldJudge(FakeJudge):  # answers only once the test has created the release file
    async def complete(self, request):
        while not Path(sys.argv[3]).exists():
            await asyncio.sleep(0.01)
        return await super().complete(request)

evaluate(sys.argv[1], metrics="fluency", judge=HeldJudge({good!r}),
         judging=JudgeOptions(cache=None, concurrency=4), run=RunOptions(out=sys.argv[2]))
"""


def test_two_processes_on_one_folder_the_second_exits_at_once_the_first_keeps_every_row(
        tmp_path: Path) -> None:
    rows = _rows(300)
    data = _write(tmp_path / "d.jsonl", rows)
    out, release = tmp_path / "out", tmp_path / "release"
    script = _HELD_RUN.format(good=GOOD)
    # The first run holds the folder, its judge waiting for `release`, until the second was
    # refused: however slowly either process starts, the two runs overlap.
    first = subprocess.Popen([sys.executable, "-c", script, str(data), str(out), str(release)])
    try:
        deadline = time.monotonic() + 60
        while not (out / "run.json").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        second = subprocess.run([sys.executable, "-m", "assay.cli", "run", str(data),
                                 "--metrics", "fluency", "--judge", "fake", "--out", str(out),
                                 "--no-store", "--resume"], capture_output=True, text=True,
                                timeout=60, check=False)
        assert second.returncode == 2, second.stderr
        assert f"PID {first.pid}" in second.stderr
        release.touch()
        assert first.wait(timeout=120) == 0
    finally:
        first.kill()
    assert list(load_finished(out / "results.jsonl")) == [r["id"] for r in rows]
    assert read_manifest(out).status == "complete"


def test_a_killed_run_releases_its_folder_and_resume_finishes_it(tmp_path: Path) -> None:
    rows = _rows(400)
    data = _write(tmp_path / "d.jsonl", rows)
    out = tmp_path / "out"
    first = subprocess.Popen([sys.executable, "-c", _SLOW_RUN.format(good=GOOD), str(data),
                              str(out)])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if len(load_finished(out / "results.jsonl")) >= 20:
            break
        time.sleep(0.05)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    kept = load_finished(out / "results.jsonl")
    assert 20 <= len(kept) < len(rows)
    assert read_manifest(out).status == "running"  # it never got to say otherwise
    judge = FakeJudge(GOOD)
    res = evaluate(data, metrics="fluency", judge=judge, judging=JudgeOptions(cache=None),
                   run=RunOptions(out=out, resume=True))
    assert len(judge.requests) == len(rows) - len(kept)
    assert res.summary["complete"] is True and res.summary["rows_done"] == len(rows)
    assert read_manifest(out).status == "complete"


def test_the_folder_is_locked_before_the_dataset_is_read_and_bad_data_leaves_no_folder(
        tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "answer": }\n', encoding="utf-8")
    out = tmp_path / "out"
    got = CliRunner().invoke(app, ["run", str(bad), "--metrics", "f1_score", "--out", str(out),
                                   "--no-store"])
    assert got.exit_code == 2 and "bad.jsonl line 1" in got.output
    assert not out.exists()  # a refused run leaves no empty folder behind
    held = tmp_path / "held"
    manifest = RunManifest(dataset=None, dataset_sha256=None, metrics={}, judge=None)
    with claim_output(held, manifest, resume=False, overwrite=False):
        # the bad dataset is never read: the lock is named, not the data's problem
        got = CliRunner().invoke(app, ["run", str(bad), "--metrics", "f1_score", "--out",
                                       str(held), "--no-store"])
        assert got.exit_code == 2 and "in use by another assay run" in got.output
        assert "bad.jsonl" not in got.output


def test_a_run_that_fails_before_scoring_leaves_the_folder_as_it_found_it(
        tmp_path: Path) -> None:
    data = _write(tmp_path / "d.jsonl", _rows(2))
    not_a_store = tmp_path / "store.sqlite"
    not_a_store.write_bytes(b"not a database" * 100)
    out = tmp_path / "out"
    got = CliRunner().invoke(app, ["run", str(data), "--metrics", "f1_score", "--out", str(out),
                                   "--store", str(not_a_store)])
    assert got.exit_code == 2 and "not a readable SQLite database" in got.output
    assert not out.exists()  # no run.json saying 'running' for a run that never started
    again = CliRunner().invoke(app, ["run", str(data), "--metrics", "f1_score", "--out",
                                     str(out), "--no-store"])
    assert again.exit_code == 0, again.output  # no --overwrite needed
