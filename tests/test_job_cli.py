"""Every job is a run, from the command line: real ``assay`` processes on the one job
skeleton (assay.records.Job). Ctrl-C (a real SIGINT) exits 130 keeping what was written, the
manifest and the stored run say ``interrupted``; a second writer from the Python API is
refused while a command holds the output; and a generate, a simulate and a jailbreak
(crescendo) each show in ``assay runs`` with their kind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import assay
from assay.errors import ConfigError
from assay.scenarios import simulate_users

SRC = Path(assay.__file__).resolve().parents[1]  # the assay under test, for the subprocesses

#: An app that answers at once, except a message with "now" in it: that one it never answers.
SLOW_APP = '''
import asyncio

async def app(messages):
    if "now" in messages[-1]["content"]:
        await asyncio.sleep(600)
    return "I'm sorry, I can't help with that."
'''
SCENARIOS = [{"id": "s1", "goal": "Get a refund.", "first_message": "I want my money back."},
             {"id": "s2", "goal": "Get a refund.", "first_message": "Money back now."}]


def _env(cwd: Path) -> dict[str, str]:
    path = os.pathsep.join([str(SRC), str(cwd), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path, "COLUMNS": "250", "NO_COLOR": "1"}


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _simulate(tmp_path: Path, module: Callable[[str], str], out: Path) -> list[str]:
    (tmp_path / "sc.jsonl").write_text("".join(json.dumps(s) + "\n" for s in SCENARIOS))
    return [sys.executable, "-m", "assay.cli", "simulate", "--scenarios", "sc.jsonl",
            "--target", f"python:{module(SLOW_APP)}:app", "--judge", "fake", "--no-cache",
            "--parallel", "1", "--out", str(out), "--store", str(tmp_path / "runs.sqlite")]


def test_ctrl_c_exits_130_keeps_the_rows_written_and_marks_the_run_interrupted(
        tmp_path: Path, module: Callable[[str], str]) -> None:
    """A real SIGINT (Ctrl-C) once the first conversation is written; the second hangs."""
    out = tmp_path / "o" / "sim.jsonl"
    first = subprocess.Popen(_simulate(tmp_path, module, out), cwd=tmp_path, env=_env(tmp_path),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while (not out.exists() or not out.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.05)
        first.send_signal(signal.SIGINT)
        _, errors = first.communicate(timeout=60)
    finally:
        first.kill()
    assert first.returncode == 130, errors
    assert "interrupted: rerun the same command with --resume" in " ".join(errors.split())
    assert [r["id"] for r in _lines(out)] == ["s1"]  # the finished conversation is kept
    manifest = json.loads((tmp_path / "o" / "sim.run.json").read_text())
    assert manifest["status"] == "interrupted"
    runs = subprocess.run([sys.executable, "-m", "assay.cli", "runs", "--json", "--store",
                           str(tmp_path / "runs.sqlite")], cwd=tmp_path, env=_env(tmp_path),
                          capture_output=True, text=True, timeout=60, check=True)
    [run] = json.loads(runs.stdout)
    assert (run["id"], run["kind"], run["status"], run["rows"]) == (
        manifest["run_id"], "simulate", "interrupted", 1)


def test_the_python_api_is_refused_while_a_command_writes_the_same_file(
        tmp_path: Path, module: Callable[[str], str]) -> None:
    """Before: the Python API took no lock, so it wrote over a running command's file."""
    out = tmp_path / "sim.jsonl"
    first = subprocess.Popen(_simulate(tmp_path, module, out), cwd=tmp_path,
                             env=_env(tmp_path), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while (not out.exists() or not out.read_text().strip()) and (  # the first has
               time.monotonic() < deadline):  # written its first conversation
            time.sleep(0.05)
        with pytest.raises(ConfigError) as e:
            simulate_users(SCENARIOS, target="python:examples.agent_app:agent", out=out,
                           overwrite=True, user_model="fake", cache=False)
        assert f"PID {first.pid}" in str(e.value) and "is in use by another assay run" in str(
            e.value)
        assert [r["id"] for r in _lines(out)] == ["s1"]  # the first's row is untouched
    finally:
        first.kill()
        first.communicate()


def test_a_generate_a_simulate_and_a_crescendo_attack_each_show_in_assay_runs_with_their_kind(
        tmp_path: Path, module: Callable[[str], str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: none of them reached the run store (a crescendo refused --store)."""
    from typer.testing import CliRunner

    from assay.cli.main import app
    from generation_judge import generation_judge
    from simulated_user_judge import scripted_user
    from test_multiturn_attacks import World

    monkeypatch.setenv("COLUMNS", "160")
    monkeypatch.setenv("NO_COLOR", "1")
    store = str(tmp_path / "runs.sqlite")
    root = Path(__file__).resolve().parents[1]

    def cli(*args: str | Path) -> str:
        got = CliRunner().invoke(app, [*map(str, args), "--store", store])
        assert got.exit_code in (0, 3), got.output  # 3: fewer rows than asked, still a run
        assert "stored run: " in got.output, got.output
        return got.output

    writer = generation_judge()
    monkeypatch.setattr("assay.calls._open.make_judge", lambda spec, **kw: writer)
    cli("generate", root / "examples" / "docs", "--n", "2", "--embeddings", "none",
        "--no-cache", "--no-progress", "--out", tmp_path / "qa.jsonl")
    user = scripted_user()
    monkeypatch.setattr("assay.calls._open.make_judge", lambda spec, **kw: user)
    cli("simulate", "--scenarios", root / "examples" / "scenarios.jsonl", "--target",
        "python:examples.agent_app:agent", "--tools", "python:examples.agent_app:TOOLS",
        "--no-cache", "--out", tmp_path / "sim.jsonl")
    world = World(module, tmp_path, monkeypatch)
    got = world.cli("--strategy", "crescendo", "--turns", "3", "--out", tmp_path / "attack",
                    "--store", store)
    assert got.exit_code == 0, got.output
    listed = CliRunner().invoke(app, ["runs", "--store", store, "--json"])
    assert listed.exit_code == 0, listed.output
    runs = {run["kind"]: run for run in json.loads(listed.stdout)}
    assert set(runs) == {"generate", "simulate", "attack"}
    assert all(run["status"] == "complete" for run in runs.values())
    # each names the model it asked (the writer, the user model, the judge of the replies)
    assert all(run["judge"] for run in runs.values()), runs
    # stored rows = the rows written: the kept test rows, the conversations, the transcripts
    for kind, path in (("generate", tmp_path / "qa.jsonl"), ("simulate", tmp_path / "sim.jsonl"),
                       ("attack", tmp_path / "attack" / "crescendo.jsonl")):
        assert runs[kind]["rows"] == len(path.read_text().splitlines()) > 0, kind
    report = json.loads((tmp_path / "attack" / "attack.json").read_text())
    assert report["run_id"] == runs["attack"]["id"]
