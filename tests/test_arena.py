"""``assay arena`` / ``assay.arena.arena`` end to end (issue 48 parts 1, 2, 6, 7): systems as
answer files, pairs judged in both orders, the leaderboard, bad input, resume and Ctrl-C."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.arena import LEADERBOARD_FILE, arena
from assay.cli.main import app
from assay.judges import FakeJudge
from assay.run import JudgeOptions, RunOptions
from support import interrupt_after_rows

QUESTIONS = ["What is the capital of France?", "How many legs has a spider?",
             "What gas do plants take in?", "Who wrote Hamlet?", "What is 7 x 6?",
             "Which planet is the largest?"]
QUALITY = {"best": 3, "good": 2, "poor": 1, "worst": 0}


def _systems(folder: Path, names=("best", "good", "poor", "worst"), rows: int = 6,
             skip: dict[str, set[int]] | None = None) -> list[Path]:
    """Answer files whose answers say their system's quality (``q3 answer 2``)."""
    paths = []
    for name in names:
        lines = [json.dumps({"id": f"r{i}", "question": QUESTIONS[i % len(QUESTIONS)],
                             "answer": f"quality {QUALITY.get(name, 0)} answer {i}"})
                 for i in range(rows) if i not in (skip or {}).get(name, set())]
        path = folder / f"{name}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return paths


def _shown(text: str, tag: str) -> int:
    return int(text.split(f"<{tag}>")[1].split(f"</{tag}>")[0].split()[1])


def prefers_quality(req) -> str:
    """A judge that prefers the higher quality whichever order it is shown in; ties equal."""
    text = req.messages[-1]["content"]
    a, b = _shown(text, "response_a"), _shown(text, "response_b")
    choice = "A" if a > b else "B" if b > a else "TIE"
    return json.dumps({"choice": choice, "reason": f"{a} vs {b}"})


def test_the_arena_ranks_systems_by_the_judge_s_preference(tmp_path: Path) -> None:
    judge = FakeJudge(prefers_quality)
    result = arena(_systems(tmp_path), judge=judge, judging=JudgeOptions(cache=None),
                   run=RunOptions(out=tmp_path / "out"), bootstrap=300)
    board = result.leaderboard
    assert [r.system for r in board.ratings] == ["best", "good", "poor", "worst"]
    assert [(r.wins, r.losses) for r in board.ratings] == [(18, 0), (12, 6), (6, 12), (0, 18)]
    assert board.comparisons == 6 * 6 and board.rows == 6
    assert len(judge.requests) == 6 * 6 * 2  # each pair in both orders
    orders = {("<response_a>\nquality" in r.messages[-1]["content"]) for r in judge.requests}
    assert orders == {True}
    written = json.loads((tmp_path / "out" / LEADERBOARD_FILE).read_text())
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["arena"] == written
    assert [r["system"] for r in written["ratings"]] == ["best", "good", "poor", "worst"]
    assert written["position"]["first_shown_share"] == 0.5
    assert written["position"]["flips"] == 0


def test_a_position_biased_judge_ties_everything_and_says_so(tmp_path: Path) -> None:
    judge = FakeJudge('{"choice": "A", "reason": "the first one"}')
    result = arena(_systems(tmp_path, names=("best", "worst")), judge=judge,
                   judging=JudgeOptions(cache=None), bootstrap=100)
    assert {r.rank for r in result.leaderboard.ratings} == {"1-2"}
    assert all(r.ties == 6 and r.wins == 0 for r in result.leaderboard.ratings)
    assert result.position["first_shown_share"] == 1.0 and result.position["flips"] == 6


def test_a_row_missing_from_one_system_is_named_and_left_out_of_its_pairs(
        tmp_path: Path) -> None:
    judge = FakeJudge(prefers_quality)
    result = arena(_systems(tmp_path, names=("best", "good", "poor"), skip={"poor": {2, 4}}),
                   judge=judge, judging=JudgeOptions(cache=None), bootstrap=0)
    assert result.missing == {"poor": ["r2", "r4"]}
    poor = next(r for r in result.leaderboard.ratings if r.system == "poor")
    assert poor.wins + poor.losses + poor.ties == 2 * 4
    assert result.leaderboard.comparisons == 6 + 2 * 4


def test_a_judge_failure_is_unscored_never_a_tie(tmp_path: Path) -> None:
    def flaky(req):
        if "answer 3" in req.messages[-1]["content"]:
            return '{"choice": "maybe"}'
        return prefers_quality(req)

    result = arena(_systems(tmp_path, names=("best", "good")), judge=FakeJudge(flaky),
                   judging=JudgeOptions(cache=None), bootstrap=0)
    best = result.leaderboard.ratings[0]
    assert (best.system, best.wins, best.ties, best.unscored) == ("best", 5, 0, 1)
    assert result.position["unscored"] == 1


def test_stored_runs_and_run_folders_are_systems_too(tmp_path: Path) -> None:
    from assay.run import evaluate

    best, good, poor = _systems(tmp_path, names=("best", "good", "poor"))
    store = tmp_path / "runs.sqlite"
    stored = evaluate(str(best), metrics="fluency", judge=FakeJudge(), judging=JudgeOptions(cache=None),
                      run=RunOptions(store=store, run_name="v-best"))
    evaluate(str(good), metrics="fluency", judge=FakeJudge(), judging=JudgeOptions(cache=None),
             run=RunOptions(out=tmp_path / "good-run"))
    result = arena([stored.summary["run_id"][:8], tmp_path / "good-run", poor],
                   judge=FakeJudge(prefers_quality), judging=JudgeOptions(cache=None),
                   run=RunOptions(store=store), bootstrap=0)
    assert [r.system for r in result.leaderboard.ratings] == ["v-best", "good-run", "poor"]
    assert result.leaderboard.ratings[0].wins == 12
    from assay.records import load_run
    stored = load_run(result.summary["run_id"], store=store)  # the arena's own stored run
    assert stored.meta["kind"] == "arena"
    assert [r["system"] for r in stored.summary["arena"]["ratings"]] == [
        "v-best", "good-run", "poor"]


runner = CliRunner()


@pytest.mark.parametrize("make,said", [
    (lambda d: [_systems(d, names=("best",))[0]], "at least two systems"),
    (lambda d: _systems(d, names=("best", "good")) + ["--name", "x", "--name", "x"],
     "'x' are used twice"),
    (lambda d: _systems(d, names=("best", "good")) + ["--metric", "coherence"],
     "must compare two answers"),
    (lambda d: _systems(d, names=("best", "good"), skip={"best": {3, 4, 5}, "good": {0, 1, 2}}),
     "no row id is in two"),
    (lambda d: [*_systems(d, names=("best",)), "nosuchrun"], "nosuchrun: not an answers file or a run folder"),
    (lambda d: [*_systems(d, names=("best",)), d / "v9.jsonl"], "v9.jsonl"),
])
def test_bad_input_exits_2_and_asks_nothing(tmp_path: Path, make, said: str) -> None:
    args = [str(a) for a in make(tmp_path)]
    got = runner.invoke(app, ["arena", *args, "--judge", "fake", "--no-store", "--no-cache",
                              "--out", str(tmp_path / "out")])
    assert got.exit_code == 2, got.output
    assert said in " ".join(got.output.split())
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_a_broken_answer_file_names_its_line(tmp_path: Path) -> None:
    good, bad = _systems(tmp_path, names=("best", "good"))
    bad.write_text('{"id": "r0", "question": "Q?", "answer": "A"}\n{"id": "r1", "question"\n')
    got = runner.invoke(app, ["arena", str(good), str(bad), "--judge", "fake", "--no-store",
                              "--out", str(tmp_path / "out")])
    assert got.exit_code == 2 and "line 2" in got.output and "good.jsonl" in got.output


def test_the_cli_prints_the_board_and_writes_json(fake_judge_server, tmp_path: Path) -> None:
    fake_judge_server()  # answers "A" whatever it reads: every pair flips, a tie
    paths = _systems(tmp_path, names=("best", "worst"))
    got = runner.invoke(app, ["arena", *map(str, paths), "--judge", "openai:gpt-4o-mini",
                              "--no-store", "--no-cache", "--name", "A", "--name", "B",
                              "--bootstrap", "50", "--out", str(tmp_path / "out"),
                              "--json", str(tmp_path / "b.json")])
    assert got.exit_code == 0, got.output
    said = " ".join(got.output.split())
    assert "assay arena: 2 systems, 6 rows, 6 pairs" in said
    assert "names the first-shown answer in 100.0%" in said and "6 pair(s) flipped" in said
    board = json.loads((tmp_path / "b.json").read_text())
    assert [(r["system"], r["ties"]) for r in board["ratings"]] == [("A", 6), ("B", 6)]


def test_a_judge_that_answers_nothing_usable_exits_3_and_rates_no_one(tmp_path: Path) -> None:
    paths = _systems(tmp_path, names=("best", "worst"))
    got = runner.invoke(app, ["arena", *map(str, paths), "--judge", "fake", "--no-store",
                              "--no-cache", "--out", str(tmp_path / "out")])
    assert got.exit_code == 3, got.output
    board = json.loads((tmp_path / "out" / LEADERBOARD_FILE).read_text())
    assert [(r["rating"], r["rank"], r["unscored"]) for r in board["ratings"]] == [
        (None, "-", 6), (None, "-", 6)]
    assert "no pair decided" in got.output


def test_ctrl_c_keeps_judged_pairs_and_resume_asks_only_the_rest(
        fake_judge_server, tmp_path: Path) -> None:
    server = fake_judge_server("--latency-ms", "200")
    paths = _systems(tmp_path, rows=6)  # 4 systems: 36 pairs
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "assay.cli", "arena", *map(str, paths), "--judge",
           "openai:gpt-4o-mini", "--concurrency", "2", "--out", str(out), "--no-store",
           "--cache", str(tmp_path / "c.sqlite"), "--bootstrap", "50", "-q"]
    results = out / "results.jsonl"
    code, stderr = interrupt_after_rows(cmd, results, 4)
    assert code == 130, stderr
    assert "--resume" in stderr
    kept = len(results.read_text().splitlines())
    assert 4 <= kept < 36
    asked = len(server.records())
    done = subprocess.run(cmd + ["--resume"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert len(results.read_text().splitlines()) == 36
    # each pair not kept is asked in both orders; at most --concurrency were in flight
    assert len(server.records()) - asked <= 2 * (36 - kept) + 2
    board = json.loads((out / LEADERBOARD_FILE).read_text())
    assert sum(r["wins"] + r["ties"] + r["losses"] for r in board["ratings"]) == 2 * 36


def test_length_control_is_a_flag_and_the_board_says_the_length_s_weight(tmp_path: Path) -> None:
    def longer(req) -> str:  # a judge that prefers the longer answer
        text = req.messages[-1]["content"]
        a = text.split("<response_a>")[1].split("</response_a>")[0]
        b = text.split("<response_b>")[1].split("</response_b>")[0]
        return json.dumps({"choice": "A" if len(a) > len(b) else "B", "reason": "longer"})

    folder = tmp_path
    for name, pad in {"long": 40, "short": 0}.items():
        lines = [json.dumps({"id": f"r{i}", "question": "Q?",
                             "answer": "word " * (5 + (i * 7) % 11 + pad // 5)})
                 for i in range(12)]
        (folder / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
    result = arena([folder / "long.jsonl", folder / "short.jsonl"], judge=FakeJudge(longer),
                   judging=JudgeOptions(cache=None), bootstrap=100, length_control=True,
                   run=RunOptions(out=tmp_path / "out"))
    effect = result.leaderboard.length_effect
    assert effect is not None and effect["points"] > 0
    board = json.loads((tmp_path / "out" / LEADERBOARD_FILE).read_text())
    assert board["length_effect"] == effect
    plain = arena([folder / "long.jsonl", folder / "short.jsonl"], judge=FakeJudge(longer),
                  judging=JudgeOptions(cache=None), bootstrap=0)
    assert plain.leaderboard.length_effect is None
    assert plain.leaderboard.ratings[0].system == "long"
