"""``arena(budget=N)`` / ``assay arena --budget N`` (issue 48 part 4): active sampling in rounds,
early stop when the board is separated, never more than the budget, never a (row, pair) twice,
deterministic, one stored run, and resume mid-schedule."""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.arena import LEADERBOARD_FILE, Comparison, arena
from assay.arena._pairs import split_pair_id
from assay.arena._schedule import run_schedule
from assay.cli.main import app
from assay.judges import FakeJudge
from assay.run import JudgeOptions, RunOptions
from assay.store import open_store
from support import interrupt_after_rows

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from arena_mechanics import SYSTEMS, system_files

ROWS = 30


def _ids(rows: int = ROWS) -> list[str]:
    return [f"r{r} | {a} vs {b}" for r in range(rows) for i, a in enumerate(SYSTEMS)
            for b in SYSTEMS[i + 1:]]


def _noisy(seed: int, right_share: float = 0.8):
    """An ``ask`` whose better system wins ``right_share`` of the time (outcome drawn per comparison id
    and seed, so the same comparison always comes out the same)."""
    async def ask(pairs: list[str]) -> dict[str, Comparison]:
        out = {}
        for pair in pairs:
            row, a, b = split_pair_id(pair)
            a_better = SYSTEMS.index(a) < SYSTEMS.index(b)
            right = random.Random(f"{seed}|{pair}").random() < right_share
            out[pair] = Comparison(row, a, b, 1.0 if a_better == right else 0.0)
        return out
    return ask


def _key(pair: str) -> tuple[str, frozenset[str]]:
    row, a, b = split_pair_id(pair)
    return row, frozenset((a, b))


def _schedule(budget: int, seed: int = 0, judged=None, right_share: float = 0.8,
              rows: int = ROWS):
    return asyncio.run(run_schedule(_ids(rows), _noisy(seed, right_share), budget=budget, systems=SYSTEMS,
                                    bootstrap=200, seed=seed, judged=judged))


def test_the_schedule_is_deterministic_and_stays_in_budget() -> None:
    for budget in (7, 45, 120):
        first, again = _schedule(budget), _schedule(budget)
        assert first.judged == again.judged and first.stopped == again.stopped
        assert len(first.judged) <= budget
        assert len({_key(p) for p in first.judged}) == len(first.judged)  # no (row, pair) twice
    assert _schedule(7).stopped == "budget"
    # the seed gives every pair of systems a comparison before any pair gets a second
    assert {frozenset(split_pair_id(p)[1:]) for p in _schedule(10).judged} == {
        frozenset((a, b)) for i, a in enumerate(SYSTEMS) for b in SYSTEMS[i + 1:]}


def test_the_schedule_stops_once_the_board_is_separated() -> None:
    done = _schedule(budget=10 * 80, right_share=0.95, rows=80)
    assert done.stopped == "separated"
    assert done.board.separated()
    assert len(done.judged) < 10 * 80 * 0.6
    assert [r.system for r in done.board.ratings] == SYSTEMS


def test_the_schedule_stops_when_every_pair_is_judged() -> None:
    ids = [f"r{r} | A vs B" for r in range(3)]

    async def tie(pairs):
        return {p: Comparison(split_pair_id(p)[0], "A", "B", 0.5) for p in pairs}
    done = asyncio.run(run_schedule(ids, tie, budget=50, systems=["A", "B"], bootstrap=50))
    assert done.stopped == "all judged" and sorted(done.judged) == sorted(ids)


def test_a_resumed_schedule_continues_from_the_results_so_far() -> None:
    full = _schedule(budget=150)
    for cut in (5, 27, 44):  # in the seed, in a round, at a round's end
        kept = dict(list(asyncio.run(_noisy(0)(full.judged[:cut])).items()))
        resumed = _schedule(budget=150, judged=kept)
        assert resumed.judged[:cut] == full.judged[:cut]
        assert len(resumed.judged) <= 150
        assert len({_key(p) for p in resumed.judged}) == len(resumed.judged)
        assert resumed.judged == _schedule(budget=150, judged=kept).judged  # deterministic


# -- through arena() ---------------------------------------------------------------------


def _files(folder: Path, rows: int = 20) -> list[Path]:
    return system_files(folder, rows)


def _judge(req) -> str:
    """Prefers the better system 80% of the time, drawn from the two answers (the same
    request always gets the same answer)."""
    text = req.messages[-1]["content"]
    a = text.split("<response_a>")[1].split("</response_a>")[0].strip()
    b = text.split("<response_b>")[1].split("</response_b>")[0].strip()
    better = 0 if int(a.split()[1]) < int(b.split()[1]) else 1
    named = better if random.Random(a + b).random() < 0.8 else 1 - better
    return json.dumps({"choice": "AB"[named], "reason": "scripted"})


def _budgeted(tmp_path: Path, out: Path, **options):
    judge = FakeJudge(_judge)
    result = arena(_files(tmp_path), judge=judge, judging=JudgeOptions(cache=None),
                   bootstrap=200, budget=options.pop("budget", 120),
                   run=RunOptions(out=out, progress=False, store=tmp_path / "runs.db",
                                  **options.pop("run", {})), **options)
    return result, judge


def test_a_budgeted_arena_is_one_run_with_its_reason_to_stop(tmp_path: Path) -> None:
    result, judge = _budgeted(tmp_path, tmp_path / "out", budget=60)
    records = [json.loads(line) for line in (tmp_path / "out/results.jsonl").read_text()
               .splitlines()]
    assert len(records) == result.leaderboard.comparisons <= 60
    assert len({_key(r["id"]) for r in records}) == len(records)
    assert len(judge.requests) == 2 * len(records)  # each comparison asked once, both orders
    board = json.loads((tmp_path / "out" / LEADERBOARD_FILE).read_text())
    assert board["schedule"]["stopped"] == "budget" and board["schedule"]["budget"] == 60
    assert board["schedule"]["candidates"] == 10 * 20
    with open_store(tmp_path / "runs.db") as store:
        runs = store.runs()
        assert [(r.status, r.rows, r.kind) for r in runs] == [("complete", len(records), "arena")]
        stored = store.get(runs[0].id).summary
        assert stored["arena"]["schedule"]["stopped"] == "budget"
        assert stored["judge"]["requests"] == len(judge.requests)  # the rounds' usage summed


def test_an_interrupted_budgeted_arena_resumes_where_it_stopped(tmp_path: Path) -> None:
    whole, _ = _budgeted(tmp_path, tmp_path / "whole", budget=90)

    def stop_at_round_3(report) -> None:
        if report.round == 3:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        _budgeted(tmp_path, tmp_path / "cut", budget=90, on_round=stop_at_round_3)
    kept = (tmp_path / "cut/results.jsonl").read_text().splitlines()
    assert 0 < len(kept) < whole.leaderboard.comparisons
    resumed, judge = _budgeted(tmp_path, tmp_path / "cut", budget=90, run={"resume": True})
    assert len(judge.requests) == 2 * (resumed.leaderboard.comparisons - len(kept))
    assert ([r.id if hasattr(r, "id") else r for r in _ids_of(tmp_path / "cut")]
            == _ids_of(tmp_path / "whole"))
    assert resumed.schedule["stopped"] == whole.schedule["stopped"]
    # mid-round: the results cut inside a round, resumed twice, continue the same way
    lines = (tmp_path / "whole/results.jsonl").read_text().splitlines()
    for copy in ("mid1", "mid2"):
        shutil.copytree(tmp_path / "whole", tmp_path / copy)
        (tmp_path / copy / "results.jsonl").write_text("\n".join(lines[:33]) + "\n")
        again, _ = _budgeted(tmp_path, tmp_path / copy, budget=90, run={"resume": True})
        assert again.leaderboard.comparisons <= 90
        assert len(set(map(_key, _ids_of(tmp_path / copy)))) == again.leaderboard.comparisons
    assert _ids_of(tmp_path / "mid1") == _ids_of(tmp_path / "mid2")


def _ids_of(out: Path) -> list[str]:
    return sorted(json.loads(line)["id"] for line in (out / "results.jsonl").read_text()
                  .splitlines())


def test_the_cli_budget_prints_rounds_and_why_it_stopped(tmp_path: Path) -> None:
    paths = [str(p) for p in _files(tmp_path, rows=4)]
    out = tmp_path / "out"
    done = CliRunner().invoke(app, ["arena", *paths, "--budget", "15", "--judge", "fake",
                                    "--out", str(out), "--no-store", "-q",
                                    "--bootstrap", "50"])
    assert "round 1: 15 new, 15 comparisons judged" in done.output, done.output
    assert "the budget of comparisons is spent" in done.output
    assert len((out / "results.jsonl").read_text().splitlines()) == 15
    bad = CliRunner().invoke(app, ["arena", *paths, "--budget", "5", "--bootstrap", "0",
                                   "--judge", "fake", "--out", str(tmp_path / "o2")])
    assert bad.exit_code == 2 and "--bootstrap" in bad.output
    assert not (tmp_path / "o2" / "results.jsonl").exists()
    capped = CliRunner().invoke(app, ["arena", *paths, "--budget", "5", "--max-tokens", "900",
                                      "--judge", "fake", "--out", str(tmp_path / "o3")])
    assert capped.exit_code == 2 and "--max-tokens" in capped.output
    assert not (tmp_path / "o3" / "results.jsonl").exists()


def test_ctrl_c_in_a_budgeted_arena_and_resume_finish_one_stored_run(
        fake_judge_server, tmp_path: Path) -> None:
    server = fake_judge_server("--latency-ms", "200")  # answers "A": every pair a tie
    paths = [str(p) for p in _files(tmp_path, rows=6)][:4]  # 4 systems: 36 candidates
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "assay.cli", "arena", *paths, "--budget", "20", "--judge",
           "openai:gpt-4o-mini", "--concurrency", "2", "--out", str(out), "--store",
           str(tmp_path / "runs.db"), "--no-cache", "--bootstrap", "50", "-q"]
    results = out / "results.jsonl"
    code, stderr = interrupt_after_rows(cmd, results, 4)
    assert code == 130, stderr
    assert "--resume" in stderr
    kept = len(results.read_text().splitlines())
    assert 4 <= kept < 20
    asked = len(server.records())
    done = subprocess.run(cmd + ["--resume"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(records) == 20 and len({_key(r["id"]) for r in records}) == 20
    assert len(server.records()) - asked <= 2 * (20 - kept) + 2  # at most 2 were in flight
    assert "the budget of comparisons is spent" in " ".join(done.stderr.split())
    with open_store(tmp_path / "runs.db") as store:
        assert [(r.status, r.rows) for r in store.runs()] == [("complete", 20)]
