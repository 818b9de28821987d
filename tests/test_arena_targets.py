"""``assay arena --targets T1 T2 ... --data TESTSET`` (issue 48 part 1): each app answers every
test row first (kept in OUT/answers, so --resume asks only what is missing), then the arena
ranks the answers; bad input exits 2 with nothing asked."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli.main import app


@pytest.fixture()
def apps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two tiny apps in an importable module; each call appends its name to calls.txt."""
    (tmp_path / "arena_apps.py").write_text(f'''
from pathlib import Path
CALLS = Path({str(tmp_path / "calls.txt")!r})

def _log(name):
    with CALLS.open("a") as f:
        f.write(name + "\\n")

def good(question, passages):
    _log("good")
    return "quality 3 " + (passages[0] if passages else "")

def poor(question, passages):
    _log("poor")
    if "fail" in question:
        raise RuntimeError("poor app failed")
    return "quality 1 no idea"
''')
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("arena_apps", None)
    rows = [{"id": f"q{i}", "question": f"Question {i}?", "contexts": [f"passage {i}"]}
            for i in range(4)]
    (tmp_path / "test.jsonl").write_text("\n".join(map(json.dumps, rows)) + "\n")
    return tmp_path


def _calls(folder: Path) -> list[str]:
    path = folder / "calls.txt"
    return path.read_text().split() if path.exists() else []


def test_targets_are_asked_first_then_ranked_and_resume_asks_nothing_again(
        apps: Path) -> None:
    out = apps / "out"
    cmd = ["arena", "--targets", "python:arena_apps:good", "python:arena_apps:poor",
           "--data", str(apps / "test.jsonl"), "--out", str(out), "--no-store", "-q",
           "--bootstrap", "50", "--judge", "fake"]
    done = CliRunner().invoke(app, cmd)
    assert done.exit_code in (0, 3), done.output
    assert sorted(_calls(apps)) == ["good"] * 4 + ["poor"] * 4
    answers = {p.stem: p for p in (out / "answers").glob("*.jsonl")}
    assert sorted(answers) == ["good", "poor"]
    assert json.loads(answers["good"].read_text().splitlines()[0])["answer"].startswith(
        "quality 3")
    board = json.loads((out / "leaderboard.json").read_text())
    assert sorted(r["system"] for r in board["ratings"]) == ["good", "poor"]
    assert board["comparisons"] == 4
    again = CliRunner().invoke(app, cmd + ["--resume"])
    assert again.exit_code in (0, 3), again.output
    assert len(_calls(apps)) == 8  # every answer kept: no app asked again


def test_names_override_and_a_failed_row_is_left_out_then_asked_on_resume(apps: Path) -> None:
    rows = (apps / "test.jsonl").read_text() + json.dumps(
        {"id": "q9", "question": "Please fail?", "contexts": ["p"]}) + "\n"
    (apps / "test.jsonl").write_text(rows)
    out = apps / "out"
    cmd = ["arena", "--targets", "python:arena_apps:good", "python:arena_apps:poor",
           "--name", "v2", "--name", "v1", "--data", str(apps / "test.jsonl"),
           "--out", str(out), "--no-store", "-q", "--bootstrap", "20", "--judge", "fake"]
    done = CliRunner().invoke(app, cmd)
    said = " ".join(done.output.split())
    assert "v1: 1 row(s) failed" in said and "RuntimeError: poor app failed" in said, said
    assert sorted(p.stem for p in (out / "answers").glob("*.jsonl")) == ["v1", "v2"]
    assert "q9" not in (out / "answers/v1.jsonl").read_text()  # no answer made up
    assert "q9" in (out / "answers/v2.jsonl").read_text()
    CliRunner().invoke(app, cmd + ["--resume"])
    assert _calls(apps).count("poor") == 6 and _calls(apps).count("good") == 5  # q9 again


@pytest.mark.parametrize("targets, fix", [
    (["python:arena_apps:good"], "at least two apps"),
    (["python:arena_apps:good", "python:arena_apps:missing"], "missing"),
    (["python:arena_apps:good", "nope:x"], "nope:x"),
])
def test_bad_targets_exit_2_with_nothing_asked(apps: Path, targets: list[str], fix: str) -> None:
    done = CliRunner().invoke(app, ["arena", "--targets", *targets, "--data",
                                    str(apps / "test.jsonl"), "--out", str(apps / "out"),
                                    "--no-store", "--judge", "fake"])
    assert done.exit_code == 2, done.output
    assert fix in done.output
    assert _calls(apps) == []
    assert not (apps / "out" / "answers").exists()


def test_targets_without_a_test_set_exit_2(apps: Path) -> None:
    done = CliRunner().invoke(app, ["arena", "--targets", "python:arena_apps:good",
                                    "python:arena_apps:poor", "--no-store"])
    assert done.exit_code == 2 and "--data" in done.output
    assert _calls(apps) == []


def test_an_app_that_answers_no_row_stops_the_arena_with_its_cause(apps: Path) -> None:
    (apps / "arena_apps.py").write_text((apps / "arena_apps.py").read_text() + (
        "\n\ndef chat(messages):  # a chat app: not called as fn(question, passages)\n"
        "    return 'hi'\n"))
    done = CliRunner().invoke(app, ["arena", "--targets", "python:arena_apps:good",
                                    "python:arena_apps:chat", "--data", str(apps / "test.jsonl"),
                                    "--out", str(apps / "out"), "--no-store", "--judge", "fake"])
    said = " ".join(done.output.split())
    assert done.exit_code == 2, said
    assert "python:arena_apps:chat answered no row" in said and "TypeError" in said
    assert "fn(question, passages)" in said and "file is empty" not in said
