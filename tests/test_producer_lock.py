"""The commands that make data hold their --out while they write it, with the lock `assay run`
holds its folder with: a second `assay generate`, `simulate` or `jailbreak` on the same output
exits 2 at once, naming the process that holds it, its lock file and the fix, and writes
nothing; the first keeps every row. Real `assay` processes, real locks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

import assay
from assay.cli.main import app
from assay.records._outdir import hold_output

ROOT = Path(__file__).resolve().parents[1]
SRC = Path(assay.__file__).resolve().parents[1]  # the assay under test, for the subprocesses

#: A chat app that, when HOLD_UNTIL names a file, answers only once that file exists.
HELD_APP = '''
import os, time
from pathlib import Path

def app(messages):
    release = os.environ.get("HOLD_UNTIL")
    while release and not Path(release).exists():
        time.sleep(0.02)
    return "I'm sorry, I can't help with that."
'''


def _assay(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "assay.cli", *args], cwd=cwd,
                          env=_env(cwd, **env), capture_output=True, text=True, timeout=120,
                          check=False)


def _env(cwd: Path, **more: str) -> dict[str, str]:
    path = os.pathsep.join([str(SRC), str(cwd), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path, "COLUMNS": "250", "NO_COLOR": "1", **more}


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_a_second_simulate_on_the_same_file_exits_2_and_the_first_keeps_its_rows(
        tmp_path: Path, module: Callable[[str], str]) -> None:
    """Before: both exited 0, and the second's --overwrite replaced the first's rows while
    the first was still writing them."""
    target = f"python:{module(HELD_APP)}:app"
    out, release = tmp_path / "sim.jsonl", tmp_path / "release"
    args = ["simulate", "--target", target, "--n", "3", "--out", str(out)]
    first = subprocess.Popen([sys.executable, "-m", "assay.cli", *args], cwd=tmp_path,
                             env=_env(tmp_path, HOLD_UNTIL=str(release)),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not out.exists() and time.monotonic() < deadline:  # the first is asking
            time.sleep(0.05)
        second = _assay([*args, "--overwrite"], tmp_path)
        text = _flat(second.stderr)
        assert second.returncode == 2, second.stderr
        assert f"PID {first.pid}" in text and str(tmp_path / ".sim.jsonl.lock") in text
        assert "Fix: wait for it to finish, or use --out NEW_FILE" in text
        assert "Traceback" not in second.stderr
        release.touch()
        _, errors = first.communicate(timeout=120)
        assert first.returncode == 0, errors
    finally:
        first.kill()
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 3 and not any(r["error"] for r in rows)


SCENARIO = {"id": "s1", "goal": "Get a refund.", "first_message": "I want my money back."}


def _commands(target: str) -> dict[str, list[str]]:
    return {
        "generate": ["generate", str(ROOT / "examples" / "docs"), "--judge", "fake", "--n", "2",
                     "--embeddings", "none", "--no-cache", "--no-progress"],
        "simulate": ["simulate", "--target", target, "--n", "2"],
        "simulate --scenarios": ["simulate", "--scenarios", "scenarios.jsonl", "--target",
                                 target, "--judge", "fake", "--no-cache"],
        "jailbreak": ["jailbreak", "--target", target, "--n", "2", "--judge", "fake"],
        "jailbreak --strategy pair": ["jailbreak", "--strategy", "pair", "--target", target,
                                      "--n", "2", "--judge", "fake", "--turns", "1"],
    }


@pytest.mark.parametrize("command", ["generate", "simulate", "simulate --scenarios",
                                     "jailbreak", "jailbreak --strategy pair"])
def test_an_output_another_process_holds_is_refused_with_exit_2_and_nothing_written(
        command: str, tmp_path: Path, module: Callable[[str], str]) -> None:
    """This test process holds the output (a real lock); the command, a process of its own,
    is refused at once. Before: it ran and wrote over the output (exit 0 or 3)."""
    (tmp_path / "scenarios.jsonl").write_text(json.dumps(SCENARIO) + "\n")
    folder = command.startswith("jailbreak")
    out = tmp_path / ("out" if folder else "out.jsonl")
    args = [*_commands(f"python:{module(HELD_APP)}:app")[command], "--out", str(out)]
    with hold_output(out, folder=folder) as lock:
        got = _assay(args, tmp_path)
        text = _flat(got.stderr)
        assert got.returncode == 2, got.stderr + got.stdout
        assert f"PID {os.getpid()}" in text and f"lock file {lock}" in text, text
        assert f"{out} is in use by another assay run" in text
        assert f"or use --out {'NEW_DIR' if folder else 'NEW_FILE'}." in text
        assert "Traceback" not in got.stderr
        if folder:  # the folder holds the lock alone
            assert [p.name for p in out.iterdir()] == [lock.name]
        else:  # neither the file nor a side file
            assert not list(tmp_path.glob("out*"))


def test_a_refused_run_leaves_no_lock_file_or_folder_behind(tmp_path: Path) -> None:
    out = tmp_path / "new" / "qa.jsonl"
    got = CliRunner().invoke(app, ["generate", str(tmp_path / "missing"), "--out", str(out)])
    assert got.exit_code == 2, got.output
    assert not (tmp_path / "new").exists()
    # and a run that wrote its file keeps the (released) lock file beside it
    with hold_output(out) as lock:
        out.write_text("")
    assert lock.exists()
    with hold_output(out):  # released: the next run takes it
        pass
