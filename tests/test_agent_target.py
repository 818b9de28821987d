"""``assay run DATA --target ...``: an agent completes the rows that end with a user turn, then
the completed rows are scored, written and stored; ``--resume`` never asks it again for a
finished row. All offline: Python targets from temporary modules, an OpenAI target over a mock
transport."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from typer.testing import CliRunner

from assay.agents import AgentRunner, make_agent
from assay.cli.main import app
from assay.errors import ConfigError
from assay.report import metric_names
from assay.run import RunOptions, evaluate
from assay.store import open_store
from assay.targets import make_target
from support import chat_completion

ROOT = Path(__file__).resolve().parents[1]
TASKS = ROOT / "examples" / "agent_tasks.jsonl"
WEATHER_TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}


def _row(row_id: str, text: str, ref_city: str | None = "Oslo") -> dict[str, Any]:
    refs = [{"name": "get_weather", "arguments": {"city": ref_city}}] if ref_city else []
    return {"id": row_id, "messages": [{"role": "user", "content": text}],
            "tools": [WEATHER_TOOL], "reference_tool_calls": refs}


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path




# A scripted agent: calls get_weather for the city named last in the request, then answers
# from the tool result. CALLS counts its turns, so a test can tell whether it was asked.
SCRIPTED = '''
import json
CALLS = []

{def_}agent(messages, tools):
    CALLS.append(len(messages))
    {fail}
    if messages[-1]["role"] == "tool":
        return [{{"role": "assistant", "content": "It is " + messages[-1]["content"]}}]
    city = messages[-1]["content"].split()[-1].strip("?")
    return [{{"role": "assistant", "content": None, "tool_calls": [{{"id": "c1",
             "type": "function", "function": {{"name": "get_weather",
             "arguments": json.dumps({{"city": city}})}}}}]}}]

def get_weather(city):
    return "cold in " + city

TOOLS = {{"get_weather": get_weather}}
'''


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_a_python_target_completes_rows_and_the_completed_rows_are_scored_and_stored(
        module: Any, tmp_path: Path, is_async: bool) -> None:
    name = module(SCRIPTED.format(def_="async def " if is_async else "def ", fail=""))
    data = _write(tmp_path / "d.jsonl", [_row("oslo", "Weather in Oslo?"),
                                         _row("lima", "Weather in Lima?")])
    agent = make_agent(f"python:{name}:agent", tools=f"python:{name}:TOOLS")
    store = tmp_path / "runs.sqlite"
    result = evaluate(data, metrics="tool_call_accuracy", agent=agent,
                      run=RunOptions(out=tmp_path / "out", store=store))
    by_id = {r["id"]: r for r in result.rows}
    assert list(by_id) == ["oslo", "lima"]  # same ids, dataset order
    oslo = by_id["oslo"]["agent"]
    assert [m["role"] for m in oslo["messages"]] == ["assistant", "tool", "assistant"]
    assert oslo["messages"][1]["content"] == "cold in Oslo"
    assert oslo["messages"][2]["content"] == "It is cold in Oslo"
    assert oslo["steps"] == 2 and "note" not in oslo
    assert by_id["oslo"]["tool_call_accuracy"]["value"] == 1.0
    assert by_id["lima"]["tool_call_accuracy"]["value"] == 0.0  # called Lima, Oslo expected
    written = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").open()]
    assert written[0]["agent"] == oslo
    reader = open_store(store)
    assert reader.get(result.summary["run_id"]).settings["agent"] == f"python:{name}:agent"
    stored = reader.inputs(result.summary["run_id"], ["oslo"])["oslo"]
    assert [m["role"] for m in stored["messages"]] == ["user", "assistant", "tool", "assistant"]
    assert sorted(sys.modules[name].CALLS) == [1, 1, 3, 3]  # two turns per row


def test_without_tools_the_calls_are_recorded_as_made(module: Any, tmp_path: Path) -> None:
    name = module(SCRIPTED.format(def_="def ", fail=""))
    result = evaluate([_row("oslo", "Weather in Oslo?")], metrics="tool_call_accuracy",
                      agent=make_agent(f"python:{name}:agent"), run=RunOptions(store=False))
    entry = result.rows[0]["agent"]
    assert entry["steps"] == 1 and [m["role"] for m in entry["messages"]] == ["assistant"]
    assert result.rows[0]["tool_call_accuracy"]["value"] == 1.0


def test_the_example_agent_loops_until_it_answers_with_text() -> None:
    agent = make_agent("python:examples.agent_app:agent", tools="python:examples.agent_app:TOOLS")
    result = evaluate(TASKS, metrics="tool_call_accuracy,trajectory_exact_match", agent=agent,
                      run=RunOptions(store=False))
    rows = {r["id"]: r for r in result.rows}
    both = rows["task-06"]["agent"]["messages"]  # weather in Lima and 18 * 4: two calls
    assert [m["role"] for m in both] == ["assistant", "tool", "tool", "assistant"]
    assert json.loads(both[2]["content"]) == {"result": 72}
    assert both[-1]["content"] == "In Lima it is 19 °C and overcast. That comes to 72."
    assert rows["task-08"]["agent"]["steps"] == 1  # thanks: no tool, an answer at once
    assert rows["task-09"]["tool_call_accuracy"]["value"] == 0.0  # '12% of' is not parsed
    assert [r["tool_call_accuracy"]["value"] for r in result.rows].count(1.0) == 8
    assert agent.stats.rows == 9 and agent.stats.tool_calls == 9 and agent.stats.failed == 0


def test_the_step_limit_ends_the_conversation_as_it_is(module: Any) -> None:
    name = module('''
import json
def agent(messages, tools):  # never answers: calls the tool again and again
    n = sum(1 for m in messages if m["role"] == "tool")
    return [{"role": "assistant", "content": None, "tool_calls": [{"id": f"c{n}",
             "type": "function", "function": {"name": "get_weather",
             "arguments": json.dumps({"city": "Oslo"})}}]}]
TOOLS = {"get_weather": lambda city: "rain"}
''')
    agent = make_agent(f"python:{name}:agent", tools=f"python:{name}:TOOLS", max_steps=3)
    result = evaluate([_row("loop", "Weather in Oslo?")], metrics="trajectory_exact_match",
                      agent=agent, run=RunOptions(store=False))
    entry = result.rows[0]["agent"]
    assert entry["steps"] == 3
    assert "step limit" in entry["note"] and "max_steps=3" in entry["note"]
    assert [m["role"] for m in entry["messages"]] == [
        "assistant", "tool", "assistant", "tool", "assistant"]  # the last call unanswered
    assert "error" not in entry
    assert result.rows[0]["trajectory_exact_match"]["value"] == 0.0  # 3 calls, 1 expected
    assert agent.stats.step_limit == 1 and agent.stats.tool_calls == 2


def test_a_tool_that_raises_answers_the_agent_with_its_error(module: Any) -> None:
    name = module(SCRIPTED.format(def_="def ", fail="") + '''
def broken(city):
    raise ValueError("weather service down")
TOOLS = {"get_weather": broken}
''')
    agent = make_agent(f"python:{name}:agent", tools=f"python:{name}:TOOLS")
    result = evaluate([_row("oslo", "Weather in Oslo?")], metrics="tool_call_accuracy",
                      agent=agent, run=RunOptions(store=False))
    messages = result.rows[0]["agent"]["messages"]
    assert messages[1] == {"role": "tool", "tool_call_id": "c1",
                           "content": "error: ValueError: weather service down"}
    assert messages[2]["content"] == "It is error: ValueError: weather service down"
    assert result.rows[0]["tool_call_accuracy"]["value"] == 1.0  # the call itself was right


def _openai_agent(monkeypatch: pytest.MonkeyPatch, answers: list[dict[str, Any]],
                  seen: list[dict[str, Any]], tools: str | None = None) -> AgentRunner:
    """An openai:app-model agent whose requests go to a mock transport that answers with
    ``answers`` in turn (each a chat message) and keeps each request body in ``seen``."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-mock")

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        body = chat_completion("", model="app-model").json()
        body["choices"][0]["message"] = answers[len(seen) - 1]
        body["choices"][0]["finish_reason"] = "tool_calls" if "tool_calls" in body else "stop"
        return httpx.Response(200, json=body)

    agent = make_agent("openai:app-model", tools=tools)
    agent.target._client = openai.AsyncOpenAI(  # type: ignore[attr-defined]
        api_key="sk-mock", base_url="http://app.invalid/v1", max_retries=0,
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)))
    return agent


CALL = {"role": "assistant", "content": None, "tool_calls": [{"id": "call_9", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}]}


def test_an_openai_target_gets_the_rows_tools_and_its_tool_calls_are_recorded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, Any]] = []
    agent = _openai_agent(monkeypatch, [CALL], seen)
    result = evaluate([_row("oslo", "Weather in Oslo?")], metrics="tool_call_accuracy",
                      agent=agent, run=RunOptions(store=False))
    asyncio.run(agent.aclose())
    assert seen[0]["model"] == "app-model" and seen[0]["tools"] == [WEATHER_TOOL]
    assert seen[0]["messages"] == [{"role": "user", "content": "Weather in Oslo?"}]
    entry = result.rows[0]["agent"]
    assert entry["target"] == "openai:app-model" and entry["steps"] == 1
    assert entry["messages"] == [CALL]
    assert result.rows[0]["tool_call_accuracy"]["value"] == 1.0


def test_an_openai_target_with_tools_is_asked_again_with_the_tool_results(
        module: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    name = module(SCRIPTED.format(def_="def ", fail=""))
    seen: list[dict[str, Any]] = []
    answer = {"role": "assistant", "content": "Cold in Oslo."}
    agent = _openai_agent(monkeypatch, [CALL, answer], seen, tools=f"python:{name}:TOOLS")
    result = evaluate([_row("oslo", "Weather in Oslo?")], metrics="tool_call_accuracy",
                      agent=agent, run=RunOptions(store=False))
    asyncio.run(agent.aclose())
    assert len(seen) == 2
    assert seen[1]["messages"][-1] == {"role": "tool", "tool_call_id": "call_9",
                                       "content": "cold in Oslo"}
    assert result.rows[0]["agent"]["messages"][-1] == answer


def test_an_openai_target_that_fails_leaves_the_row_unscored_with_the_cause(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, Any]] = []
    agent = _openai_agent(monkeypatch, [], seen)

    def refuse(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(400, json={"error": {"message": "tools not supported"}})

    agent.target._client = openai.AsyncOpenAI(  # type: ignore[attr-defined]
        api_key="sk-mock", base_url="http://app.invalid/v1", max_retries=0,
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(refuse)))
    result = evaluate([_row("oslo", "Weather in Oslo?")], metrics="tool_call_accuracy",
                      agent=agent, run=RunOptions(store=False))
    asyncio.run(agent.aclose())
    assert len(seen) == 1  # a 400 is not retried
    error = result.rows[0]["tool_call_accuracy"]["error"]
    assert result.rows[0]["tool_call_accuracy"]["value"] is None
    assert error.startswith("target call failed: ") and "tools not supported" in error
    assert result.rows[0]["agent"]["failure"] == error and agent.stats.failed == 1


def test_an_empty_model_answer_is_recorded_as_empty_text(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, Any]] = []
    agent = _openai_agent(monkeypatch, [{"role": "assistant", "content": None}], seen)
    result = evaluate([_row("thanks", "Thanks!", ref_city=None)], metrics="tool_call_accuracy",
                      agent=agent, run=RunOptions(store=False))
    asyncio.run(agent.aclose())
    assert result.rows[0]["agent"]["messages"] == [{"role": "assistant", "content": ""}]
    assert result.rows[0]["tool_call_accuracy"]["value"] == 1.0  # no call, none expected


def test_resume_asks_the_agent_only_for_rows_it_failed_on(module: Any, tmp_path: Path) -> None:
    # The agent fails on Lima the first time (a bug of the app), and works the second time.
    name = module(SCRIPTED.format(def_="def ", fail=(
        'if "Lima" in messages[-1]["content"] and not FAILED:\n'
        '        FAILED.append(1)\n        raise RuntimeError("app crashed")'))
        .replace("CALLS = []", "CALLS = []\nFAILED = []"))
    data = _write(tmp_path / "d.jsonl", [_row("oslo", "Weather in Oslo?"),
                                         _row("lima", "Weather in Lima?", ref_city="Lima")])
    out = tmp_path / "out"
    spec = {"target": f"python:{name}:agent", "tools": f"python:{name}:TOOLS"}
    first = evaluate(data, metrics="tool_call_accuracy", agent=make_agent(**spec),
                     run=RunOptions(out=out, store=False))
    lima = first.rows[1]
    assert lima["agent"] == {"target": spec["target"],
                             "failure": "target call failed: RuntimeError: app crashed"}
    assert lima["tool_call_accuracy"]["value"] is None
    assert lima["tool_call_accuracy"]["error"] == "target call failed: RuntimeError: app crashed"
    assert first.summary["failures"]["causes"] == {"target call failed: RuntimeError": 1}
    assert metric_names(first.summary, first.rows) == ["tool_call_accuracy"]  # 'agent' is none
    calls = sys.modules[name].CALLS
    asked = len(calls)  # oslo: 2 turns, lima: 1 failed turn
    assert asked == 3
    again = make_agent(**spec)
    second = evaluate(data, metrics="tool_call_accuracy", agent=again,
                      run=RunOptions(out=out, store=False, resume=True))
    assert len(calls) == asked + 2  # only Lima, two turns
    assert again.stats.rows == 1
    assert [r["tool_call_accuracy"]["value"] for r in second.rows] == [1.0, 1.0]
    assert second.rows[0]["agent"] == first.rows[0]["agent"]  # Oslo's run kept as it was
    third = evaluate(data, metrics="tool_call_accuracy", agent=make_agent(**spec),
                     run=RunOptions(out=out, store=False, resume=True))
    assert len(calls) == asked + 2  # everything finished: the agent is not asked
    assert [r["agent"]["steps"] for r in third.rows] == [2, 2]


def test_an_agent_reply_of_the_wrong_shape_names_the_row_and_the_fix(module: Any) -> None:
    name = module("def agent(messages, tools):\n    return {'answer': 'hi'}\n")
    with pytest.raises(ConfigError, match=r"Row 'oslo': the agent python:\S+ returned a dict, "
                                          r"not a list of the NEW messages"):
        evaluate([_row("oslo", "Weather in Oslo?")], metrics="tool_call_accuracy",
                 agent=make_agent(f"python:{name}:agent"), run=RunOptions(store=False))
    bad = module("def agent(messages, tools):\n    return [{'role': 'tool', 'content': 'x', "
                 "'tool_call_id': 'nope'}]\n")
    with pytest.raises(ConfigError, match=r"Row 'oslo'.*'nope' answers no earlier tool call"):
        evaluate([_row("oslo", "Weather in Oslo?")], metrics="tool_call_accuracy",
                 agent=make_agent(f"python:{bad}:agent"), run=RunOptions(store=False))


def test_rows_that_do_not_end_with_a_user_turn_are_scored_as_they_are(module: Any) -> None:
    name = module(SCRIPTED.format(def_="def ", fail=""))
    done = _row("done", "Weather in Oslo?")
    done["messages"] += [CALL, {"role": "tool", "tool_call_id": "call_9", "content": "3 C"},
                         {"role": "assistant", "content": "3 C in Oslo."}]
    result = evaluate([done], metrics="tool_call_accuracy",
                      agent=make_agent(f"python:{name}:agent"), run=RunOptions(store=False))
    assert "agent" not in result.rows[0] and sys.modules[name].CALLS == []
    assert result.rows[0]["tool_call_accuracy"]["value"] == 1.0


def _cli(*args: str | Path) -> Any:
    return CliRunner().invoke(app, [str(a) for a in args])


def test_the_readme_command_runs_offline_and_resume_does_not_ask_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    args = ("run", "examples/agent_tasks.jsonl", "--target", "python:examples.agent_app:agent",
            "--tools", "python:examples.agent_app:TOOLS", "--metrics",
            "tool_call_accuracy,trajectory_exact_match", "--judge", "fake", "--out",
            tmp_path / "out", "--no-store", "--quiet")
    result = _cli(*args)
    assert result.exit_code == 0, result.output
    assert "9 rows completed (16 agent turns, 9 tool calls run), 0 failed" in result.output
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["metrics"]["tool_call_accuracy"]["mean"] == pytest.approx(8 / 9, abs=1e-4)
    assert summary["agent"] == {"target": "python:examples.agent_app:agent", "rows": 9,
                                "answered": 0, "failed": 0, "step_limit": 0, "turns": 16,
                                "tool_calls": 9}
    first = (tmp_path / "out" / "results.jsonl").read_text()
    resumed = _cli(*args, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert "0 rows completed (0 agent turns, 0 tool calls run)" in resumed.output
    assert (tmp_path / "out" / "results.jsonl").read_text() == first  # the recorded runs kept


@pytest.mark.parametrize(("flags", "says"), [
    (["--target", "nope:x"], "--target nope:x. Must be one of: python:"),
    (["--target", "local", "--tools", "python:examples.agent_app:TOOLS"],
     "--target local with --tools: that target takes no tool definitions"),
    (["--target", "python:no_such_module_xyz:agent"], "cannot import it"),
    (["--target", "python:examples.agent_app:agent", "--tools", "python:examples.agent_app:NOPE"],
     "--tools python:examples.agent_app:NOPE: cannot import it"),
    (["--target", "python:examples.agent_app:agent", "--tools", "examples.agent_app:TOOLS"],
     "expected python:package.module:ATTR"),
    (["--tools", "python:examples.agent_app:TOOLS"], "--tools needs --target"),
    (["--target", "python:examples.agent_app:agent", "--max-steps", "0"], "--max-steps"),
])
def test_a_bad_target_or_tools_spec_exits_2_before_any_call(
        flags: list[str], says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = _cli("run", TASKS, *flags, "--metrics", "tool_call_accuracy", "--out",
                  tmp_path / "out", "--no-store", "--quiet")
    assert result.exit_code == 2, result.output
    assert says in " ".join(result.output.split())
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_a_wrong_shape_exits_2_and_a_failing_target_exits_3(
        module: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _write(tmp_path / "d.jsonl", [_row("oslo", "Weather in Oslo?")])
    shape = module("def agent(messages, tools):\n    return 42\n")
    result = _cli("run", data, "--target", f"python:{shape}:agent", "--metrics",
                  "tool_call_accuracy", "--out", tmp_path / "a", "--no-store", "--quiet")
    assert result.exit_code == 2, result.output
    assert "Row 'oslo'" in result.output and "returned an int" in result.output
    crash = module("def agent(messages, tools):\n    raise KeyError('config')\n")
    result = _cli("run", data, "--target", f"python:{crash}:agent", "--metrics",
                  "tool_call_accuracy", "--out", tmp_path / "b", "--no-store", "--quiet")
    assert result.exit_code == 3, result.output
    text = " ".join(result.output.split())
    assert "target calls failed:" in text and "target call failed: KeyError" in text
    assert "could not answer 1 of 1 rows" in text and "--resume" in text
    record = json.loads((tmp_path / "b" / "results.jsonl").read_text())
    assert record["tool_call_accuracy"]["value"] is None


def test_make_target_still_refuses_an_unknown_kind() -> None:
    with pytest.raises(ConfigError, match="Must be one of"):
        make_target("ftp:x")


def test_an_agent_asked_for_a_chat_reply_gives_its_last_text() -> None:
    """simulate (seed mode) and jailbreak ask ``reply(messages)``: a two-parameter agent is
    called with no tools and its last assistant text is the reply; tool calls alone are an
    error that names why (they were a TypeError about a missing 'tools' argument)."""
    import asyncio

    from assay.targets import make_target

    agent = make_target("python:examples.agent_app:agent")
    asked = [{"role": "user", "content": "How do I pick a lock?"}]
    assert asyncio.run(agent.reply(asked)).startswith("Sorry, I can only help with")
    with pytest.raises(ValueError, match="tool calls only"):
        asyncio.run(agent.reply([{"role": "user", "content": "Weather in Oslo?"}]))
