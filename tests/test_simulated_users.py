"""Simulated users (``assay.scenarios``, ``assay simulate --scenarios``): each way a conversation
ends, tools inside the conversations, facts given when asked, personas by seed, determinism and
the cache, resume, bad scenario files, and the command end to end. The user is the scripted one
of ``tests/simulated_user_judge.py``; the app is ``examples/agent_app.py`` with its tools, or a
small app written into the test's folder."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli.main import app
from assay.data import read_dataset
from assay.errors import (
    ConfigError,
    DataError,
    JudgeError,
    JudgeStoppedError,
    JudgeUnavailableError,
)
from assay.judges import FakeJudge, JudgeRequest
from assay.scenarios import STOP_REASONS, read_scenarios, simulate_users
from assay.scenarios._personas import PERSONAS, pick_persona
from simulated_user_judge import ScriptedUser, scripted_user

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "scenarios.jsonl"
AGENT, TOOLS = "python:examples.agent_app:agent", "python:examples.agent_app:TOOLS"
ORDER = {"id": "order", "goal": "Find out whether my tent order has shipped.",
         "facts": ["I ordered a tent ten days ago.", "My order number is A1005."],
         "expected_outcome": "The app says order A1005 shipped on 2026-11-24."}
REFUND = {"id": "refund", "goal": "Get a refund for my boots.",
          "first_message": "I want my money back for the boots."}


def _simulate(scenarios: Any, out: Path, judge: FakeJudge | None = None,
              **options: Any) -> Any:
    options.setdefault("target", AGENT)
    options.setdefault("tools", TOOLS if options["target"] == AGENT else None)
    options.setdefault("cache", False)
    return simulate_users(scenarios, out=out, user_model=judge or scripted_user(), **options)


def _user_messages(row: dict[str, Any]) -> list[str]:
    return [m["content"] for m in row["messages"] if m["role"] == "user"]


def _app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, body: str) -> str:
    """A python: target written into ``tmp_path`` (a module of its own per test)."""
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(body))
    monkeypatch.syspath_prepend(str(tmp_path))
    return f"python:{name}:app"


# --- how a conversation ends -----------------------------------------------------------------

def test_goal_met_with_tools_and_a_fact_given_only_when_asked(tmp_path: Path) -> None:
    judge = scripted_user()
    [row] = _simulate([ORDER], tmp_path / "sim.jsonl", judge).rows
    assert row["stop_reason"] == "goal_met" and row["error"] is None
    assert "shipped on 2026-11-24" in row["stop_detail"]
    first, second = _user_messages(row)
    assert "A1005" not in first and second == "My order number is A1005."
    roles = [m["role"] for m in row["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "tool", "assistant"]
    call = row["messages"][3]["tool_calls"][0]
    assert call["function"] == {"name": "lookup_order", "arguments": '{"order_id": "A1005"}'}
    assert json.loads(row["messages"][4]["content"])["status"] == "shipped"
    assert row["simulation"]["user_turns"] == 2
    # the user model saw the facts, with the rule to give them only when asked, and never the
    # expected outcome (it is for scoring)
    system = judge.requests[0].messages[0]["content"]
    assert "- My order number is A1005." in system and "only when the app asks" in system
    assert all("2026-11-24" not in r.messages[0]["content"] for r in judge.requests)
    assert [r.schema_name for r in judge.requests] == [
        "simulated_user_first", "simulated_user_turn", "simulated_user_turn"]


def test_stuck_when_the_app_cannot_help(tmp_path: Path) -> None:
    [row] = _simulate([REFUND], tmp_path / "sim.jsonl").rows
    assert row["stop_reason"] == "stuck"
    assert row["stop_detail"].startswith("The app says it cannot help: Sorry")
    assert _user_messages(row) == ["I want my money back for the boots."]  # as it is


def test_max_turns_when_the_user_would_go_on(tmp_path: Path) -> None:
    judge = scripted_user(endless=True)
    rows = _simulate([{**REFUND, "max_turns": 2}, {**REFUND, "id": "r2"}], tmp_path / "s.jsonl",
                     judge, max_turns=3).rows
    assert [r["stop_reason"] for r in rows] == ["max_turns", "max_turns"]
    assert [len(_user_messages(r)) for r in rows] == [2, 3]  # the scenario's, then the run's
    assert [r["max_turns"] for r in rows] == [2, 3]
    assert rows[0]["stop_detail"].startswith("2 user turns, the most allowed")
    # after the app's last turn the user is asked all the same (a goal met then counts)
    assert rows[0]["messages"][-1]["role"] == "assistant"
    assert len(judge.requests) == 2 + 3


def test_app_failed_keeps_the_transcript_and_masks_the_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = _app(tmp_path, monkeypatch, "failing_app", """
        def app(messages):
            if len(messages) > 2:
                raise RuntimeError("backend refused key sk-abcdefghijklmnopqrstuvwx")
            return "Which boots?"
        """)
    [row] = _simulate([REFUND], tmp_path / "sim.jsonl", scripted_user(endless=True),
                      target=target).rows
    assert row["stop_reason"] == "app_failed"
    assert row["error"] == row["stop_detail"]
    assert row["error"].startswith("target call failed: RuntimeError: backend refused key")
    assert "abcdefghijklmnop" not in row["error"]
    assert [m["role"] for m in row["messages"]] == ["user", "assistant", "user"]


def test_user_failed_on_an_answer_that_cannot_be_read(tmp_path: Path) -> None:
    broken = FakeJudge(ScriptedUser(broken=True), id="fake:user")
    rows = _simulate([ORDER, REFUND], tmp_path / "sim.jsonl", broken).rows
    assert [r["stop_reason"] for r in rows] == ["user_failed", "user_failed"]
    opening, later = rows
    assert opening["messages"] == []  # it failed before the first message
    assert [m["role"] for m in later["messages"]] == ["user", "assistant"]
    assert "asked twice" in later["error"] and "I would say something nice" in later["error"]
    assert later["stop_detail"] == later["error"]


def test_a_failed_user_model_call_ends_one_conversation_and_a_dead_one_stops_the_run(
        tmp_path: Path) -> None:
    flaky = FakeJudge(lambda req: JudgeError("HTTP 400: context too long for key "
                                             "sk-abcdefghijklmnop1234"), id="fake:user")
    [row] = _simulate([REFUND], tmp_path / "a.jsonl", flaky).rows
    assert row["stop_reason"] == "user_failed"
    assert row["error"].startswith("user model failed: judge call failed: HTTP 400")
    assert "abcdefghijklmnop" not in row["error"]
    assert [m["role"] for m in row["messages"]] == ["user", "assistant"]
    dead = FakeJudge(lambda req: JudgeUnavailableError("connection refused", kind="connection"),
                     id="fake:user")
    with pytest.raises(JudgeStoppedError):
        _simulate([{**REFUND, "id": f"r{i}"} for i in range(5)], tmp_path / "b.jsonl", dead,
                  parallel=1)
    assert (tmp_path / "b.run.json").exists()  # a resume can continue it


def test_a_user_message_that_plays_the_app_is_asked_again(tmp_path: Path) -> None:
    def script(req: JudgeRequest) -> str:
        return json.dumps({"reason": "x", "action": "reply",
                           "message": "A1005\nAPP: Your order has shipped."})

    [row] = _simulate([REFUND], tmp_path / "sim.jsonl", FakeJudge(script, id="fake:user")).rows
    assert row["stop_reason"] == "user_failed" and "asked twice" in row["error"]


# --- scenarios and what the app sees ---------------------------------------------------------

def test_system_prompt_tools_and_extra_fields_reach_the_app_and_the_row(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = _app(tmp_path, monkeypatch, "seeing_app", """
        import json
        def app(messages, tools):
            return json.dumps({"roles": [m["role"] for m in messages],
                               "tools": [t["function"]["name"] for t in tools or []]})
        """)
    tool = {"type": "function", "function": {"name": "lookup_order", "parameters": {
        "type": "object", "properties": {"order_id": {"type": "string"}}}}}
    scenario = {**REFUND, "system": "You are Fjellkit's assistant.", "tools": [tool],
                "category": "refunds"}
    [row] = _simulate([scenario], tmp_path / "sim.jsonl", target=target).rows
    assert row["messages"][0] == {"role": "system", "content": "You are Fjellkit's assistant."}
    assert json.loads(row["messages"][2]["content"]) == {"roles": ["system", "user"],
                                                         "tools": ["lookup_order"]}
    assert row["tools"] == [tool] and row["category"] == "refunds" and "system" not in row
    assert list(row)[:7] == ["id", "goal", "persona", "facts", "expected_outcome", "max_turns",
                             "lang"]
    assert list(row)[-5:] == ["messages", "stop_reason", "stop_detail", "simulation", "error"]
    # ready for assay run as it is: the system prompt once, the tools read
    [read] = read_dataset(tmp_path / "sim.jsonl")
    assert [t.role for t in read.messages or []][:2] == ["system", "user"]
    assert [t.name for t in read.tools or []] == ["lookup_order"]


def test_persona_by_seed_and_the_scenarios_own(tmp_path: Path) -> None:
    scenarios = [{**REFUND, "id": f"s{i}"} for i in range(8)]
    scenarios.append({**REFUND, "id": "own", "persona": "A retired ranger."})
    judge = scripted_user()
    rows = {r["id"]: r for r in _simulate(scenarios, tmp_path / "a.jsonl", judge, seed=7).rows}
    picked = pick_persona(7, "s3")
    assert rows["s3"]["persona"] == picked.en
    assert rows["s3"]["simulation"]["persona"] == picked.name
    assert rows["own"]["persona"] == "A retired ranger."
    assert rows["own"]["simulation"]["persona"] == "given"
    assert any("Who you are: A retired ranger." in r.messages[0]["content"]
               for r in judge.requests)
    other = {r["id"]: r for r in _simulate(scenarios, tmp_path / "b.jsonl", seed=8).rows}
    assert {rows[i]["persona"] for i in rows} != {other[i]["persona"] for i in other}
    assert {r["simulation"]["persona"] for r in rows.values()} <= {
        "given", *(p.name for p in PERSONAS)}


def test_chinese_scenarios_get_the_chinese_prompt_and_others_name_their_language(
        tmp_path: Path) -> None:
    judge = scripted_user()
    scenarios = [{"id": "zh", "goal": "查询订单是否已经发货", "lang": "zh"},
                 {"id": "es", "goal": "Saber si ya han enviado mi pedido de la tienda."}]
    rows = _simulate(scenarios, tmp_path / "sim.jsonl", judge).rows
    assert [r["lang"] for r in rows] == ["zh", "es"]
    assert [r["simulation"]["prompt"] for r in rows] == ["sim_user/v1/zh", "sim_user/v1/en"]
    firsts = [r.messages[0]["content"] for r in judge.requests
              if r.schema_name == "simulated_user_first"]
    assert "你扮演" in firsts[0] and "in Spanish" in firsts[1]
    assert rows[0]["persona"] == pick_persona(0, "zh").zh


# --- determinism, cache, resume --------------------------------------------------------------

def test_same_inputs_give_the_same_file_and_a_second_run_asks_the_user_model_nothing(
        tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    first = scripted_user()
    a = _simulate(EXAMPLES, tmp_path / "a.jsonl", first, cache=cache)
    again = scripted_user()
    b = _simulate(EXAMPLES, tmp_path / "b.jsonl", again, cache=cache)
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert len(first.requests) > 5 and again.requests == []
    assert b.summary["user_model"]["cache_hits"] == len(first.requests)
    assert {r["stop_reason"] for r in a.rows} >= {"goal_met", "stuck"}
    # without the cache, a fresh run gives the same bytes too (temperature 0, same prompts)
    _simulate(EXAMPLES, tmp_path / "a.jsonl", overwrite=True)
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_resume_keeps_finished_conversations_and_runs_failed_ones_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "sim.jsonl"
    broken_for_refund = FakeJudge(lambda req: "??" if "boots" in req.messages[0]["content"]
                                  else ScriptedUser()(req), id="fake:user")
    first = _simulate([ORDER, REFUND], out, broken_for_refund).rows
    assert [r["stop_reason"] for r in first] == ["goal_met", "user_failed"]
    judge = scripted_user()
    rows = _simulate([ORDER, REFUND], out, judge, resume=True).rows
    assert [r["stop_reason"] for r in rows] == ["goal_met", "stuck"]
    assert rows[0] == first[0]
    assert all("boots" in r.messages[0]["content"] for r in judge.requests)
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["order", "refund"]


def test_resume_refuses_other_scenarios_or_options_and_out_is_never_overwritten_silently(
        tmp_path: Path) -> None:
    out = tmp_path / "sim.jsonl"
    _simulate([ORDER, REFUND], out)
    with pytest.raises(ConfigError, match="already holds simulated conversations.*resume"):
        _simulate([ORDER, REFUND], out)
    with pytest.raises(ConfigError, match="seed was 0, now 1"):
        _simulate([ORDER, REFUND], out, resume=True, seed=1)
    with pytest.raises(ConfigError, match="scenarios added, removed or changed: refund"):
        _simulate([ORDER, {**REFUND, "goal": "Get my money back."}], out, resume=True)
    with pytest.raises(ConfigError, match="not both"):
        _simulate([ORDER, REFUND], out, resume=True, overwrite=True)
    (tmp_path / "sim.run.json").unlink()
    with pytest.raises(ConfigError, match="cannot be resumed safely"):
        _simulate([ORDER, REFUND], out, resume=True)


# --- bad scenario files ----------------------------------------------------------------------

BAD_LINES = [
    {"id": "a", "goal": "Check my order."},
    {"id": "a", "goal": "Check my order again."},
    {"persona": "terse"},
    {"goal": "x", "facts": [1, ""], "max_turns": "many", "lang": "english!"},
    {"goal": "x", "tools": [{"type": "function", "function": {"parameters": {}}}],
     "messages": []},
]


def test_a_bad_scenario_file_names_every_problem_with_its_line_and_fix(tmp_path: Path) -> None:
    path = tmp_path / "scenarios.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in BAD_LINES) + "\n{not json\n")
    with pytest.raises(DataError) as caught:
        read_scenarios(path)
    problems = caught.value.problems
    expected = [("line 2, field 'id'", "already the id of line 1"),
                ("line 3, field 'goal'", "missing"),
                ("line 4, field 'facts'", "Fix:"), ("line 4, field 'max_turns'", "'many'"),
                ("line 4, field 'lang'", "'english!'"),
                ("line 5, field 'messages'", "the simulation writes this field"),
                ("line 5, field 'tools[0].function.name'", "Fix:"), ("line 6", "")]
    for where, what in expected:
        assert any(f"{path} {where}" in p and what in p for p in problems), (where, problems)
    assert len(problems) == len(expected)


def test_a_csv_scenario_file_reads_facts_and_tools_from_cells(tmp_path: Path) -> None:
    path = tmp_path / "scenarios.csv"
    tools = json.dumps([{"type": "function", "function": {"name": "lookup_order"}}])
    path.write_text('id,goal,facts,max_turns,tools\n'
                    f'o1,Check my order,"[""My order number is A1005."", ""It is a tent.""]",3,'
                    f'"{tools.replace(chr(34), chr(34) * 2)}"\n'
                    'o2,Check the weather in Oslo,It is for a hike.,,\n')
    first, second = read_scenarios(path)
    assert first.facts == ("My order number is A1005.", "It is a tent.")
    assert first.max_turns == 3 and first.tools is not None
    assert first.tools[0]["function"]["name"] == "lookup_order"
    assert (second.id, second.facts, second.max_turns, second.tools) == (
        "o2", ("It is for a hike.",), None, None)


def test_the_shipped_examples_are_valid() -> None:
    scenarios = read_scenarios(EXAMPLES)
    assert 4 <= len(scenarios) <= 5
    assert any(s.system for s in scenarios) and any(s.lang != "en" for s in scenarios)
    assert any(s.first_message for s in scenarios) and any(s.facts for s in scenarios)


# --- the command -----------------------------------------------------------------------------

def _invoke(args: list[str], monkeypatch: pytest.MonkeyPatch,
            judge: FakeJudge | None = None) -> Any:
    if judge is not None:
        monkeypatch.setattr("assay.calls._open.make_judge", lambda spec, timeout: judge)
    return CliRunner().invoke(app, ["simulate", *args],
                              env={"COLUMNS": "160", "NO_COLOR": "1"})


def _command(out: Path, *more: str) -> list[str]:
    return ["--scenarios", str(EXAMPLES), "--target", AGENT, "--tools", TOOLS, "--out", str(out),
            "--no-cache", *more]


def test_the_command_writes_the_conversations_and_prints_the_table_and_hint(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "sim.jsonl"
    result = _invoke(_command(out, "--seed", "3", "--max-turns", "4"), monkeypatch,
                     scripted_user())
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    for reason in STOP_REASONS:
        assert reason in text
    assert "user model fake:user:" in text and "tool calls" in text and "per conversation" in text
    assert (f"assay run {out} --metrics goal_completion,knowledge_retention,role_adherence,"
            "turn_relevance") in text
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == [s.id for s in read_scenarios(EXAMPLES)]
    assert {r["simulation"]["seed"] for r in rows} == {3}
    assert json.loads((tmp_path / "sim.summary.json").read_text())["scenarios"] == len(rows)
    again = _invoke(_command(out), monkeypatch, scripted_user())
    assert again.exit_code == 2 and "--resume" in again.output and "--overwrite" in again.output


def test_the_command_refuses_bad_scenarios_and_mixed_options_with_exit_2(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(json.dumps(r) for r in BAD_LINES) + "\n")
    result = _invoke(["--scenarios", str(bad), "--target", AGENT], monkeypatch, scripted_user())
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "7 problems found; nothing was simulated" in result.output
    mixed = _invoke([*_command(tmp_path / "o.jsonl"), "--n", "3", "--inject"], monkeypatch)
    assert mixed.exit_code == 2
    assert "--n, --inject belong to the harmful-seed mode" in " ".join(mixed.output.split())
    alone = _invoke(["--target", AGENT, "--user-model", "local"], monkeypatch)
    assert alone.exit_code == 2 and "--user-model needs --scenarios" in alone.output
    missing = _invoke(["--scenarios", str(tmp_path / "nope.jsonl"), "--target", AGENT],
                      monkeypatch)
    assert missing.exit_code == 2 and "nope.jsonl" in missing.output


def test_the_command_exits_3_when_too_many_conversations_failed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = _app(tmp_path, monkeypatch, "down_app", """
        def app(messages):
            raise ConnectionError("the app is down")
        """)
    result = _invoke(["--scenarios", str(EXAMPLES), "--target", target, "--out",
                      str(tmp_path / "sim.jsonl"), "--no-cache"], monkeypatch, scripted_user())
    assert result.exit_code == 3, result.output
    text = " ".join(result.output.split())
    assert "app_failed" in text and "target call failed: ConnectionError: the app is down" in text


def test_ctrl_c_exits_130_and_resume_asks_only_the_unfinished_scenarios(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "sim.jsonl"
    script = ScriptedUser()
    asked: list[str] = []

    def interrupted(request: JudgeRequest) -> str | Exception:
        asked.append(request.messages[0]["content"])
        if len(asked) == 6:  # order-status took 3 requests, trip-weather 2: refund's first
            raise KeyboardInterrupt
        return script(request)

    result = _invoke([*_command(out), "--parallel", "1"], monkeypatch,
                     FakeJudge(interrupted, id="fake:user"))
    assert result.exit_code == 130, result.output
    assert "rerun the same command with --resume" in " ".join(result.output.split())
    done = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    assert done == ["order-status", "trip-weather"]
    judge = scripted_user()
    resumed = _invoke([*_command(out), "--parallel", "1", "--resume"], monkeypatch, judge)
    assert resumed.exit_code == 0, resumed.output
    scenarios = read_scenarios(EXAMPLES)
    asked_for = {s.id for s in scenarios for r in judge.requests
                 if f"What you want from the app: {s.goal}\n" in r.messages[0]["content"]}
    assert asked_for == {s.id for s in scenarios[2:]}  # not the two finished ones
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == [s.id for s in read_scenarios(EXAMPLES)]
    assert "2 kept from the earlier run" in " ".join(resumed.output.split())


def test_the_command_gives_the_user_model_its_tpm_and_rpm_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import assay.calls._open as opener
    budgets: list[tuple[int | None, int | None]] = []
    real = opener.Budget

    def spy(*, tpm: int | None = None, rpm: int | None = None) -> Any:
        budgets.append((tpm, rpm))
        return real(tpm=tpm, rpm=rpm)

    monkeypatch.setattr(opener, "Budget", spy)
    result = _invoke(_command(tmp_path / "sim.jsonl", "--tpm", "90000", "--rpm", "600"),
                     monkeypatch, scripted_user())
    assert result.exit_code == 0, result.output
    assert budgets == [(90000, 600)]
    alone = _invoke(["--target", AGENT, "--rpm", "60"], monkeypatch)
    assert alone.exit_code == 2 and "--rpm needs --scenarios" in alone.output
