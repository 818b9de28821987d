"""What a python: app gives back is checked before it is recorded or rated: an app that returns
None, a number or bytes, or that calls sys.exit(), failed that conversation (its row keeps the
error with the reason; the other seeds and scenarios still run; the command exits 3 as for any
app failure over --max-failed-share), in `assay simulate` (both modes) and `assay jailbreak`
(template and pair). An app that echoes a key has its replies masked: the transcripts show
`***`, and the judge, the attacker and the simulated user never receive the key."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import assay
from assay.cli.main import app
from assay.judges import FakeJudge, JudgeRequest
from assay.metrics.safety import CATEGORIES
from conftest import section
from simulated_user_judge import scripted_user

REFUSAL = "I'm sorry, I can't help with that."
KEY = "sk-proj-a1b2c3d4e5f6g7h8i9j0"

#: How each bad app ends its reply, and the reason its row keeps.
BAD = {
    "none": ("return None", "returned None, not its reply as text (a str)"),
    "int": ("return 3", "returned int (3), not its reply as text (a str)"),
    "bytes": ("return b'bytes'", "returned bytes (b'bytes'), not its reply as text (a str)"),
    "exit": ("sys.exit(0)", "called sys.exit(0) (SystemExit) instead of returning its reply"),
}
#: The same in --scenarios mode, where the app's reply is read as messages.
BAD_MESSAGES = {"none": "returned None, not a list of the NEW messages",
                "int": "returned an int, not a list of the NEW messages",
                "bytes": "returned a bytes, not a list of the NEW messages",
                "exit": BAD["exit"][1]}


def _app_source(bad: str, *, is_async: bool = False) -> str:
    """An app that fails in the ``bad`` way on a conversation whose user said BREAK, and
    refuses anything else; or echoes the key when the user said KEY."""
    return f'''
import sys

{"async " if is_async else ""}def app(messages):
    said = " ".join(m["content"] for m in messages if m["role"] == "user")
    if "BREAK" in said:
        {BAD[bad][0]}
    if "KEY" in said:
        return "Here it is: {KEY} (the key you asked for). " + "{REFUSAL}"
    return "{REFUSAL}"
'''


def _seeds(tmp_path: Path, *prompts: str) -> Path:
    path = tmp_path / "seeds.jsonl"
    path.write_text("".join(json.dumps({"id": f"s{i}", "category": "violence", "prompt": p})
                            + "\n" for i, p in enumerate(prompts)))
    return path


def _rows(path: Path) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in map(json.loads, path.read_text().splitlines())}


def _invoke(*args: str | Path) -> Any:
    result = CliRunner().invoke(app, list(map(str, args)),
                                env={"COLUMNS": "250", "NO_COLOR": "1"})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def _flat(text: str) -> str:
    return " ".join(text.split())


def _safety(request: JudgeRequest) -> str:
    """A judge that finds every reply harmless, and a refusal."""
    if request.schema_name == "verdict":
        return "Yes. It declines."
    if request.schema_name == "attack_pair":
        goal = section(request.messages[-1]["content"], "goal") or ""
        return json.dumps({"improvement": "ask plainly", "prompt": f"Please: {goal}"})
    return json.dumps({c: {"severity": 0, "reason": "harmless"} for c in CATEGORIES})


@pytest.fixture
def judge(monkeypatch: pytest.MonkeyPatch) -> FakeJudge:
    """The judge of `assay jailbreak` (template and multi-turn), attacker included."""
    fake = FakeJudge(_safety)
    for where in ("assay.redteam._jailbreak.make_judge", "assay.calls._open.make_judge"):
        monkeypatch.setattr(where, lambda spec, **kw: fake)
    return fake


# --- a reply that is no text, or an app that exits -------------------------------------------

@pytest.mark.parametrize("bad", list(BAD))
def test_simulate_records_a_bad_reply_as_that_rows_app_failure(
        bad: str, tmp_path: Path, module: Callable[[str], str]) -> None:
    """Before: None, 3 and bytes were recorded as the text "None", "3", "b'bytes'" (exit 0);
    sys.exit(0) ended the command with exit 0 and an empty file."""
    target = f"python:{module(_app_source(bad))}:app"
    out = tmp_path / "sim.jsonl"
    result = _invoke("simulate", "--target", target, "--seeds",
                     _seeds(tmp_path, "hello", "BREAK it", "hi"), "--out", out)
    assert result.exit_code == 3, result.output
    rows = _rows(out)
    assert list(rows) == ["s0", "s1", "s2"]
    error = rows["s1"]["error"]
    assert error.startswith(f"app call failed on turn 1: the app {target} {BAD[bad][1]}. Fix: ")
    assert [m["role"] for m in rows["s1"]["messages"]] == ["user"]
    assert [rows[i]["messages"][-1]["content"] for i in ("s0", "s2")] == [REFUSAL] * 2
    text = _flat(result.output)
    assert BAD[bad][1] in text and "1 of 3 rows (33.3%) could not be scored" in text
    assert "Traceback" not in result.output


@pytest.mark.parametrize("bad", list(BAD))
def test_simulate_scenarios_ends_that_conversation_as_app_failed_and_runs_the_others(
        bad: str, tmp_path: Path, module: Callable[[str], str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: None, 3 and bytes stopped the whole run with exit 2 (no row of the other
    scenarios), sys.exit(0) with exit 0 and empty files."""
    target = f"python:{module(_app_source(bad))}:app"
    scenarios = tmp_path / "scenarios.jsonl"
    scenarios.write_text("".join(json.dumps({"id": i, "goal": "Get a refund.",
                                             "first_message": m}) + "\n"
                                 for i, m in (("a", "hello"), ("b", "BREAK it"),
                                              ("c", "hi"))))
    monkeypatch.setattr("assay.calls._open.make_judge",
                        lambda spec, timeout: scripted_user())
    out = tmp_path / "sim.jsonl"
    result = _invoke("simulate", "--scenarios", scenarios, "--target", target, "--out", out,
                     "--no-cache")
    assert result.exit_code == 3, result.output
    rows = _rows(out)
    assert [rows[i]["stop_reason"] for i in "abc"] == ["stuck", "app_failed", "stuck"]
    assert rows["b"]["error"].startswith("target call failed: ")
    assert BAD_MESSAGES[bad] in rows["b"]["error"]
    assert [m["role"] for m in rows["b"]["messages"]] == ["user"]
    summary = json.loads((tmp_path / "sim.summary.json").read_text())
    assert summary["stop_reasons"]["app_failed"] == 1 and summary["app"]["failed"] == 1
    assert BAD_MESSAGES[bad] in _flat(result.output) and "Traceback" not in result.output


@pytest.mark.parametrize("bad", list(BAD))
def test_jailbreak_leaves_a_bad_reply_unscored_never_rated_harmless(
        bad: str, tmp_path: Path, module: Callable[[str], str], judge: FakeJudge) -> None:
    """Before: the text "None" was rated harmless, which lowered the defect rate (exit 0)."""
    target = f"python:{module(_app_source(bad))}:app"
    out = tmp_path / "jb"
    result = _invoke("jailbreak", "--target", target, "--seeds",
                     _seeds(tmp_path, "hello", "BREAK it"), "--judge", "fake", "--out", out)
    assert result.exit_code == 3, result.output
    report = json.loads((out / "jailbreak.json").read_text())
    assert report["app_failures"] == {"plain": 1, "injected": 1}
    assert report["failures"]["failed"] == 2 and report["failures"]["rows"] == 4
    for side in ("plain", "injected"):
        assert BAD[bad][1] in _rows(out / f"{side}.jsonl")["s1"]["error"]
        rated = _rows(out / side / "results.jsonl")["s1"]
        assert rated["violence"]["value"] is None  # unscored, not "harmless"
    assert not any(BAD[bad][1] in str(r.messages) for r in judge.requests)
    assert BAD[bad][1] in _flat(result.output) and "Traceback" not in result.output


@pytest.mark.parametrize("bad", list(BAD))
def test_a_pair_attack_on_a_bad_reply_is_unrated_with_the_reason(
        bad: str, tmp_path: Path, module: Callable[[str], str], judge: FakeJudge) -> None:
    target = f"python:{module(_app_source(bad))}:app"
    out = tmp_path / "pair"
    result = _invoke("jailbreak", "--strategy", "pair", "--turns", "1", "--target", target,
                     "--seeds", _seeds(tmp_path, "hello", "BREAK it"), "--judge", "fake",
                     "--no-refusal", "--out", out)
    assert result.exit_code == 3, result.output
    rows = _rows(out / "pair.jsonl")
    assert BAD[bad][1] in rows["s1"]["error"] and rows["s1"]["unrated"] == rows["s1"]["error"]
    assert rows["s0"]["error"] is None and rows["s0"]["unrated"] is None
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", ["simulate", "jailbreak"])
def test_an_app_that_calls_sys_exit_fails_its_rows_in_a_real_process(
        command: str, tmp_path: Path, module: Callable[[str], str]) -> None:
    """Before: exit 0 with empty files (and a traceback from jailbreak)."""
    name = module(_app_source("exit", is_async=command == "jailbreak"))
    out = tmp_path / "out"
    written = out / ("plain.jsonl" if command == "jailbreak" else "sim.jsonl")
    args = [command, "--target", f"python:{name}:app", "--seeds",
            str(_seeds(tmp_path, "BREAK it")), "--out", str(written.parent if
                                                              command == "jailbreak" else
                                                              written)]
    if command == "jailbreak":
        args += ["--judge", "fake"]
    env = {**os.environ, "COLUMNS": "250", "NO_COLOR": "1", "PYTHONPATH": os.pathsep.join(
        [str(Path(assay.__file__).resolve().parents[1]), str(tmp_path)])}
    got = subprocess.run([sys.executable, "-m", "assay.cli", *args], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120, check=False)
    assert got.returncode == 3, got.stderr
    assert "called sys.exit(0) (SystemExit)" in _flat(got.stderr)
    assert "Traceback" not in got.stderr + got.stdout
    assert BAD["exit"][1] in _rows(written)["s0"]["error"]


# --- an app that echoes a key ------------------------------------------------------------------

def _said(requests: list[JudgeRequest]) -> str:
    return "\n".join(str(m.get("content")) for r in requests for m in r.messages)


def test_simulate_masks_an_echoed_key_in_the_transcript(
        tmp_path: Path, module: Callable[[str], str]) -> None:
    out = tmp_path / "sim.jsonl"
    result = _invoke("simulate", "--target", f"python:{module(_app_source('none'))}:app",
                     "--seeds", _seeds(tmp_path, "KEY please"), "--out", out, "--turns", "2")
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert KEY[:12] not in text and "Here it is: *** (the key you asked for)." in text


def test_simulate_scenarios_masks_the_key_in_the_transcript_and_for_the_user_model(
        tmp_path: Path, module: Callable[[str], str], monkeypatch: pytest.MonkeyPatch) -> None:
    user = scripted_user()
    monkeypatch.setattr("assay.calls._open.make_judge", lambda spec, timeout: user)
    scenarios = tmp_path / "scenarios.jsonl"
    scenarios.write_text(json.dumps({"id": "k", "goal": "Get the key.",
                                     "first_message": "KEY please"}) + "\n")
    out = tmp_path / "sim.jsonl"
    result = _invoke("simulate", "--scenarios", scenarios, "--target",
                     f"python:{module(_app_source('none'))}:app", "--out", out, "--no-cache")
    assert result.exit_code == 0, result.output
    assert user.requests and "Here it is: *** (the key you asked for)." in _said(user.requests)
    assert KEY[:12] not in _said(user.requests)
    assert KEY[:12] not in out.read_text() and "Here it is: *** (the key you asked for)." in out.read_text()


@pytest.mark.parametrize("strategy", ["template", "pair"])
def test_jailbreak_masks_the_key_in_the_transcripts_and_for_the_judge_and_attacker(
        strategy: str, tmp_path: Path, module: Callable[[str], str], judge: FakeJudge) -> None:
    out = tmp_path / "jb"
    result = _invoke("jailbreak", "--strategy", strategy, "--turns", "2", "--target",
                     f"python:{module(_app_source('none'))}:app", "--seeds",
                     _seeds(tmp_path, "KEY please"), "--judge", "fake", "--out", out)
    assert result.exit_code == 0, result.output
    said = _said(judge.requests)
    assert "Here it is: *** (the key you asked for)." in said and KEY[:12] not in said
    for path in out.rglob("*.json*"):
        assert KEY[:12] not in path.read_text(), path


def test_an_agent_that_calls_sys_exit_leaves_the_row_with_a_failure(
        module: Callable[[str], str]) -> None:
    """`assay run --target` too: the row's entry holds the failure (the process ended)."""
    import asyncio

    from assay.agents import make_agent
    from assay.data import rows_from_records

    target = f"python:{module(_app_source('exit'))}:app"
    row = rows_from_records([{"id": "r", "messages": [{"role": "user", "content": "BREAK"}]}])[0]
    entry = asyncio.run(make_agent(target).complete(row))
    assert entry["failure"].startswith(f"target call failed: the app {target} called sys.exit(0)")


def test_run_with_a_target_masks_a_key_the_app_echoes(
        tmp_path: Path, module: Callable[[str], str]) -> None:
    """`assay run --target`: the app's answer is recorded (results, store) and judged with the
    key masked, as its errors are."""
    data = tmp_path / "qa.jsonl"
    data.write_text(json.dumps({"id": "q1", "question": "KEY please"}) + "\n")
    store = tmp_path / "runs.sqlite"
    out = tmp_path / "run"
    result = _invoke("run", data, "--target", f"python:{module(_app_source('none'))}:app",
                     "--metrics", "fluency", "--judge", "fake", "--out", out, "--store", store)
    assert result.exit_code == 0, result.output
    written = (out / "results.jsonl").read_text()
    assert "Here it is: *** (the key you asked for)." in written
    assert KEY[:12] not in written
    for path in tmp_path.glob("runs.sqlite*"):  # the database and its write-ahead log
        assert KEY[:12].encode() not in path.read_bytes(), path
