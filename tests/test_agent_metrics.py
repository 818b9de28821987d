"""The deterministic agent metrics on hand-computed trajectories, reading tool-call rows, and
an end-to-end ``assay.evaluate`` with no judge."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import assay
from assay import JudgeOptions
from assay.cli.main import app
from assay.data import Row, read_dataset, rows_from_records
from assay.errors import DataError
from assay.judges import FakeJudge, JudgeRequest
from assay.metrics import AUTO_AGENT_METRICS, ScoreContext, get_metric, plan_metrics
from assay.metrics.agent import AGENT_JUDGED, AGENT_METRICS
from assay.metrics.safety import CATEGORIES

TOOLS = [
    {"type": "function", "function": {"name": "search_hotels", "parameters": {
        "type": "object", "required": ["city"],
        "properties": {"city": {"type": "string"}, "max_price": {"type": "integer"}}}}},
    {"type": "function", "function": {"name": "weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "convert", "parameters": {
        "type": "object", "properties": {"amount": {"type": "number"},
                                         "currency": {"type": "string"}}}}},
    {"name": "book", "parameters": {  # the flat shape is read too
        "type": "object", "properties": {
            "hotel_id": {"type": "integer"},
            "guests": {"type": "array", "items": {"type": "string"}},
            "options": {"type": "object", "properties": {"breakfast": {"type": "boolean"}}}}}},
]
METRICS = ("tool_call_accuracy", "tool_call_f1", "tool_argument_accuracy",
           "trajectory_exact_match", "trajectory_in_order_match", "trajectory_any_order_match",
           "trajectory_precision", "trajectory_recall", "tool_schema_validity")
U = "unscored"
NA = "does not apply"

S_PARIS = ("search_hotels", '{"city": "Paris", "max_price": 200}')
R_PARIS = {"name": "search_hotels", "arguments": {"city": "Paris", "max_price": 200}}
W_OSLO = ("weather", '{"city": "Oslo"}')
R_OSLO = {"name": "weather", "arguments": {"city": "Oslo"}}
C_EUR = ("convert", '{"amount": 10, "currency": "EUR"}')
R_EUR = {"name": "convert", "arguments": {"amount": 10.0, "currency": "eur"}}

# name: (predicted calls, reference calls, values of METRICS in order), computed by hand.
# M = calls matched one to one, P = predicted calls, R = reference calls.
TRAJECTORIES: dict[str, tuple[list[tuple[str, str]], list[dict[str, Any]] | None, tuple[Any, ...]]] = {
    "exact": ([S_PARIS], [R_PARIS], (1, 1, 1, 1, 1, 1, 1, 1, 1)),
    "key order and spacing": ([("search_hotels", '{"max_price": 200, "city": "  paris"}')],
                              [R_PARIS], (1, 1, 1, 1, 1, 1, 1, 1, 1)),
    "int for number": ([C_EUR], [R_EUR], (1, 1, 1, 1, 1, 1, 1, 1, 1)),
    "string for integer": ([("search_hotels", '{"city": "Paris", "max_price": "200"}')],
                           [R_PARIS], (0, 0, 0, 0, 0, 0, 0, 0, 0)),
    "float for integer (schema allows it, BFCL does not)": (
        [("search_hotels", '{"city": "Paris", "max_price": 200.0}')], [R_PARIS],
        (0, 0, 0, 0, 0, 0, 0, 0, 1)),
    "accept with null, left out": (
        [("search_hotels", '{"city": "Paris, France"}')],
        [{**R_PARIS, "accept": {"city": ["Paris", "Paris, France"], "max_price": [200, None]}}],
        (1, 1, 1, 1, 1, 1, 1, 1, 1)),
    "explicit null accepted (schema says integer)": (
        [("search_hotels", '{"city": "Paris", "max_price": null}')],
        [{**R_PARIS, "accept": {"max_price": [200, None]}}], (1, 1, 1, 1, 1, 1, 1, 1, 0)),
    "missing argument": ([("search_hotels", '{"city": "Paris"}')], [R_PARIS],
                         (0, 0, 0, 0, 0, 0, 0, 0, 1)),
    "unexpected argument": ([("search_hotels", '{"city": "Paris", "max_price": 200, "stars": 4}')],
                            [R_PARIS], (0, 0, 0, 0, 0, 0, 0, 0, 1)),
    "wrong tool": ([("weather", '{"city": "Paris"}')], [R_PARIS], (0, 0, U, 0, 0, 0, 0, 0, 1)),
    "invalid JSON arguments": ([("search_hotels", '{"city": "Paris", ')], [R_PARIS],
                               (0, 0, 0, 0, 0, 0, 0, 0, 0)),
    "both empty": ([], [], (1, 1, U, 1, 1, 1, U, U, U)),
    "nothing called, one expected": ([], [R_PARIS], (0, 0, U, 0, 0, 0, U, 0, U)),
    "called, none expected": ([W_OSLO], [], (0, 0, U, 0, 1, 1, 0, U, 1)),
    "swapped order": ([W_OSLO, S_PARIS], [R_PARIS, R_OSLO], (1, 1, 1, 0, 0, 1, 1, 1, 1)),
    "extra call in between": ([S_PARIS, W_OSLO, C_EUR], [R_PARIS, R_EUR],  # M=2 P=3 R=2
                              (0, 0.8, 1, 0, 1, 1, 0.6667, 1, 1)),
    "duplicate call": ([W_OSLO, W_OSLO], [R_OSLO],  # M=1 P=2 R=1
                       (0, 0.6667, 1, 0, 1, 1, 0.5, 1, 1)),
    "expected twice, called once": ([W_OSLO], [R_OSLO, R_OSLO],  # M=1 P=1 R=2
                                    (0, 0.6667, 1, 0, 0, 0, 1, 0.5, 1)),
    "one right, one wrong value": ([("search_hotels", '{"city": "Lyon", "max_price": 200}'), W_OSLO],
                                   [R_PARIS, R_OSLO],  # M=1 P=2 R=2
                                   (0, 0.5, 0.5, 0, 0, 0, 0.5, 0.5, 1)),
    "undeclared tool": ([S_PARIS, ("cancel_booking", "{}")], [R_PARIS],  # M=1 P=2 R=1
                        (0, 0.6667, 1, 0, 1, 1, 0.5, 1, 0.5)),
    "nested object and ordered list": (
        [("book", '{"options": {"breakfast": true}, "guests": ["Ann", "Bo"], "hotel_id": 3}')],
        [{"name": "book", "arguments": {"hotel_id": 3, "guests": ["ann", "bo"],
                                        "options": {"breakfast": True}}}],
        (1, 1, 1, 1, 1, 1, 1, 1, 1)),
    "list out of order": (
        [("book", '{"guests": ["Bo", "Ann"], "hotel_id": 3}')],
        [{"name": "book", "arguments": {"hotel_id": 3, "guests": ["Ann", "Bo"]}}],
        (0, 0, 0, 0, 0, 0, 0, 0, 1)),
    "no reference calls given": ([W_OSLO], None, (NA, NA, NA, NA, NA, NA, NA, NA, 1)),
}


def agent_record(calls: list[tuple[str, str]], references: list[dict[str, Any]] | None,
                 tools: list[dict[str, Any]] | None = TOOLS) -> dict[str, Any]:
    """A conversation: the user asks, the assistant makes ``calls`` (one message each, with the
    tool's answer), then answers in text."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "Be helpful."},
                                      {"role": "user", "content": "Find me a hotel."}]
    for k, (name, args) in enumerate(calls):
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{k}", "type": "function", "function": {"name": name, "arguments": args}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{k}", "content": "ok"})
    messages.append({"role": "assistant", "content": "Done."})
    record: dict[str, Any] = {"messages": messages}
    if tools is not None:
        record["tools"] = tools
    if references is not None:
        record["reference_tool_calls"] = references
    return record


#: ``tool_schema_validity`` validates with jsonschema, from the 'agents' extra (a core install
#: has none: the metric then cannot run, which ``test_without_jsonschema_...`` checks).
HAS_JSONSCHEMA = importlib.util.find_spec("jsonschema") is not None
needs_jsonschema = pytest.mark.skipif(not HAS_JSONSCHEMA,
                                      reason="needs the 'agents' extra: pip install 'assay[agents]'")


def agent_row(calls: list[tuple[str, str]], references: list[dict[str, Any]] | None,
              tools: list[dict[str, Any]] | None = TOOLS) -> Row:
    return rows_from_records([agent_record(calls, references, tools)])[0]


def test_the_table_covers_every_agent_metric_and_enough_trajectories() -> None:
    assert set(METRICS) == set(AGENT_METRICS)
    assert set(AUTO_AGENT_METRICS) == set(AGENT_METRICS) | {m.name for m in AGENT_JUDGED}
    assert len(TRAJECTORIES) >= 15


@pytest.mark.parametrize("case", list(TRAJECTORIES))
def test_hand_computed_trajectories(case: str) -> None:
    calls, references, expected = TRAJECTORIES[case]
    row = agent_row(calls, references)
    for name, want in zip(METRICS, expected, strict=True):
        metric = get_metric(name)
        why = metric.applies(row)
        if want == NA:
            assert why == "row has no reference_tool_calls", (case, name)
            continue
        assert why is None, (case, name, why)
        result = asyncio.run(metric.score(row, ScoreContext()))
        if name == "tool_schema_validity" and not HAS_JSONSCHEMA and want != U:  # no extra
            assert result.value is None and "assay[agents]" in (result.error or ""), result
            continue
        if want == U:
            assert result.value is None and result.error, (case, name, result)
        else:
            assert result.value == pytest.approx(want, abs=1e-4), (case, name, result.reason)
            assert result.reason, (case, name)


def test_accuracy_details_name_each_mismatch_extra_and_missing_call() -> None:
    row = agent_row([("search_hotels", '{"city": "Lyon", "max_price": "200"}'),
                     ("weather", '{"city": "Oslo"}'), ("weather", "{oops")],
                    [R_PARIS, {"name": "convert", "arguments": {"amount": 1}}])
    result = asyncio.run(get_metric("tool_call_accuracy").score(row, ScoreContext()))
    assert result.value == 0.0
    kinds = [(f["kind"], f.get("call"), f.get("reference"), f.get("argument"))
             for f in result.details["findings"]]
    assert kinds == [("wrong_value", 1, 1, "city"), ("wrong_type", 1, 1, "max_price"),
                     ("wrong_name", 2, 2, None), ("extra_call", 3, None, None)]
    assert result.reason.startswith("0 of 2 reference calls matched: call 1 search_hotels: "
                                    "wrong value for 'city': 'Lyon', expected 'Paris'")
    assert result.details["predicted_calls"] == 3 and result.details["matched"] == []


def test_schema_validity_needs_tools() -> None:
    row = agent_row([W_OSLO], [R_OSLO], tools=None)
    assert get_metric("tool_schema_validity").applies(row) == "row has no tools"
    assert get_metric("tool_call_accuracy").applies(row) is None


def test_qa_rows_are_not_scored_by_agent_metrics() -> None:
    row = Row(id="1", line=1, question="Q?", answer="A.")
    for name in METRICS:
        assert "row has no messages" in (get_metric(name).applies(row) or ""), name


# --- reading ----------------------------------------------------------------------------------


def test_a_valid_tool_row_is_read_into_typed_calls() -> None:
    row = agent_row([S_PARIS, ("weather", "{not json")], [R_PARIS])
    assert [(c.id, c.name) for c in row.tool_calls()] == [("c0", "search_hotels"), ("c1", "weather")]
    assert row.tool_calls()[1].arguments_text == "{not json"  # the agent's mistake: kept as is
    assert row.tool_calls()[1].arguments() is None
    assert [t.name for t in row.tools or []] == ["search_hotels", "weather", "convert", "book"]
    assert row.reference_tool_calls and row.reference_tool_calls[0].arguments["max_price"] == 200
    assert {"tool_calls", "tools", "reference_tool_calls"} <= row.fields()
    assert "tools" not in row.extra and "reference_tool_calls" not in row.extra
    # turns that only call tools are not turns to rate: only the final text answer is
    assert [row.messages[i].content for i, _ in row.assistant_turns()] == ["Done."]
    tool_turn = (row.messages or [])[3]
    assert tool_turn.role == "tool" and tool_turn.tool_call_id == "c0"


def test_text_and_tool_calls_in_one_message_keep_the_text_for_rating() -> None:
    rec = agent_record([W_OSLO], [R_OSLO])
    rec["messages"][2]["content"] = "Let me check the weather."
    row = rows_from_records([rec])[0]
    assert [i for i, _ in row.assistant_turns()] == [2, 4]


BROKEN = {"messages": [
    {"role": "user", "content": "Hi"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"type": "function", "function": {"name": "weather", "arguments": "{}"}},
        {"id": "c2", "type": "function", "function": {"arguments": "{}"}},
        {"id": "c3", "function": {"name": "weather", "arguments": ["Oslo"]}}]},
    {"role": "tool", "tool_call_id": "c9", "content": "4 C"},
    {"role": "tool", "content": "4 C"},
    {"role": "user", "content": "x", "tool_calls": []}],
    "tools": [{"type": "function", "function": {"description": "no name"}}],
    "reference_tool_calls": [{"name": "weather", "arguments": "{\"city\": \"Oslo\"}"}]}


def test_every_structural_problem_is_named_with_file_line_and_field_at_once(tmp_path: Path) -> None:
    good = agent_record([W_OSLO], [R_OSLO])
    orphan = agent_record([W_OSLO], [R_OSLO])
    orphan["messages"][3]["tool_call_id"] = "nope"
    bad_accept = agent_record([W_OSLO], [{"name": "weather", "accept": {"city": "Oslo"}}])
    path = tmp_path / "agents.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (good, BROKEN, orphan, bad_accept)) + "\n")
    with pytest.raises(DataError) as caught:
        read_dataset(path)
    message = str(caught.value)
    expected = [
        "line 2, field 'messages[1].tool_calls[0].id': missing",
        "line 2, field 'messages[1].tool_calls[1].function.name': missing",
        ("line 2, field 'messages[1].tool_calls[2].function.arguments': expected the "
         "arguments as a JSON string"),
        "line 2, field 'messages[3].tool_call_id': missing",
        "line 2, field 'messages[4].tool_calls': only assistant messages call tools",
        "line 2, field 'tools[0].function.name': missing",
        "line 2, field 'reference_tool_calls[0].arguments': expected an object",
        "line 3, field 'messages[3].tool_call_id': 'nope' answers no earlier tool call",
        "line 4, field 'reference_tool_calls[0].accept.city': expected a non-empty list",
    ]
    for part in expected:
        assert f"{path} {part}" in message, part
    assert message.count("Fix:") >= len(expected)
    assert "line 1" not in message  # the valid row is not named


def test_a_tool_result_before_its_call_is_refused() -> None:
    rec = agent_record([W_OSLO], [R_OSLO])
    rec["messages"][2], rec["messages"][3] = rec["messages"][3], rec["messages"][2]
    with pytest.raises(DataError, match=r"messages\[2\].tool_call_id': 'c0' answers no earlier"):
        rows_from_records([rec])


def test_two_calls_of_one_message_with_one_id_are_bad_input_with_the_other_problems(
        tmp_path: Path) -> None:
    twice = agent_record([W_OSLO], [R_OSLO])
    call = twice["messages"][2]["tool_calls"][0]
    twice["messages"][2]["tool_calls"].append(
        {**call, "function": {"name": "weather", "arguments": '{"city": "Rome"}'}})
    orphan = agent_record([W_OSLO], [R_OSLO])
    orphan["messages"][3]["tool_call_id"] = "nope"
    reused = agent_record([W_OSLO, W_OSLO], [R_OSLO, R_OSLO])  # one id per message is fine
    for message in reused["messages"]:
        for c in message.get("tool_calls") or []:
            c["id"] = "call_0"
        if message["role"] == "tool":
            message["tool_call_id"] = "call_0"
    path = tmp_path / "agents.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (reused, twice, orphan)) + "\n")
    result = CliRunner().invoke(app, ["run", str(path), "--metrics", "tool_call_accuracy",
                                      "--judge", "fake", "--no-cache", "--no-store",
                                      "--out", str(tmp_path / "out")])
    text = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert (f"{path} line 2, field 'messages[2].tool_calls[1].id': 'c0' is also the id of "
            "tool_calls[0] of this message. Fix: give each tool call of a message its own "
            "'id'") in text
    assert f"{path} line 3, field 'messages[3].tool_call_id': 'nope' answers no earlier" in text
    assert "line 1," not in text and "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


# --- end to end -------------------------------------------------------------------------------


@needs_jsonschema
def test_evaluate_scores_tool_rows_with_no_judge(tmp_path: Path) -> None:
    records = [
        {"id": "right", **agent_record([S_PARIS], [R_PARIS])},
        {"id": "wrong_tool", **agent_record([("weather", '{"city": "Paris"}')], [R_PARIS])},
        {"id": "bad_json", **agent_record([("search_hotels", "{city: Paris}")], [R_PARIS])},
        {"id": "no_reference", **agent_record([S_PARIS], None)},
    ]
    result = assay.evaluate(records, metrics="tool_call_accuracy,tool_call_f1,"
                                             "trajectory_exact_match,tool_schema_validity")
    by_id = {r["id"]: r for r in result.rows}
    assert by_id["right"]["tool_call_accuracy"]["value"] == 1.0
    assert by_id["wrong_tool"]["tool_call_accuracy"]["value"] == 0.0
    assert by_id["wrong_tool"]["tool_call_accuracy"]["details"]["findings"][0]["kind"] == "wrong_name"
    assert by_id["bad_json"]["trajectory_exact_match"]["value"] == 0.0
    assert by_id["bad_json"]["tool_schema_validity"]["value"] == 0.0
    assert by_id["no_reference"]["tool_call_f1"]["value"] is None
    assert by_id["no_reference"]["tool_call_f1"]["error"] == ("does not apply: row has no "
                                                         "reference_tool_calls")
    assert by_id["no_reference"]["tool_schema_validity"]["value"] == 1.0
    accuracy = result.summary["metrics"]["tool_call_accuracy"]
    assert accuracy["mean"] == pytest.approx(1 / 3, abs=1e-3) and accuracy["scored"] == 3


@needs_jsonschema
def test_auto_plans_the_agent_metrics_the_fields_allow() -> None:
    with_refs = agent_row([S_PARIS], [R_PARIS], tools=None)
    plan = plan_metrics([with_refs], "auto")
    planned = [m.name for m in plan.metrics]
    assert [n for n in planned if n in AUTO_AGENT_METRICS] == [
        n for n in AUTO_AGENT_METRICS if n != "tool_schema_validity"]
    assert any(line.startswith("tool_schema_validity: skipped") and "row has no tools" in line
               for line in plan.skipped)
    plan = plan_metrics([agent_row([S_PARIS], None)], "auto")
    judged = [m.name for m in AGENT_JUDGED]  # they need calls or tools, not references
    assert [m.name for m in plan.metrics if m.name in AUTO_AGENT_METRICS] == [
        *judged, "tool_schema_validity"]
    assert any(line.startswith("tool_call_accuracy: skipped") and "reference_tool_calls" in line
               for line in plan.skipped)


def test_text_metrics_rate_only_the_turns_with_text_on_tool_conversations() -> None:
    def script(req: JudgeRequest) -> str:
        if req.schema_name == "safety":
            return json.dumps({c: {"severity": 0, "reason": "fine"} for c in CATEGORIES})
        return json.dumps({"score": 4, "reason": "ok"})

    judge = FakeJudge(script)
    record = agent_record([S_PARIS, W_OSLO], [R_PARIS, R_OSLO])  # text turn: message 6
    result = assay.evaluate([record], metrics="coherence,relevance,violence,tool_call_accuracy",
                            judge=judge, judging=JudgeOptions(cache=None))
    row = result.rows[0]
    for name in ("coherence", "relevance"):
        assert [t["turn"] for t in row[name]["details"]["turns"]] == [6], name
        assert row[name]["value"] == 4.0
    assert row["violence"]["value"] == 0.0
    assert row["tool_call_accuracy"]["value"] == 1.0
    assert len(judge.requests) == 3  # one per text metric: the call-only turns are not rated
    assert all("Done." in r.messages[-1]["content"] for r in judge.requests)


def test_the_example_scores_as_the_readme_says() -> None:
    example = Path(__file__).resolve().parents[1] / "examples" / "agent_calls.jsonl"
    result = assay.evaluate(example,
                            metrics="tool_call_accuracy,tool_call_f1,trajectory_exact_match")
    values = {r["id"]: (r["tool_call_accuracy"]["value"], r["trajectory_exact_match"]["value"])
              for r in result.rows}
    assert values == {
        "correct_search": (1.0, 1.0), "wrong_tool": (0.0, 0.0), "wrong_argument": (0.0, 0.0),
        "price_as_text": (0.0, 0.0), "search_then_book": (1.0, 1.0),
        "booked_before_searching": (1.0, 0.0), "no_tool_used": (0.0, 0.0),
        "broken_arguments": (0.0, 0.0)}
    means = {name: agg["mean"] for name, agg in result.summary["metrics"].items()}
    assert means == {"tool_call_accuracy": 0.375, "tool_call_f1": 0.375,
                     "trajectory_exact_match": 0.25}


def test_the_accuracy_aggregate_counts_rows_per_kind_of_finding() -> None:
    records = [agent_record([S_PARIS], [R_PARIS]),
               agent_record([("search_hotels", '{"city": "Lyon", "max_price": "x"}')], [R_PARIS]),
               agent_record([("search_hotels", '{"city": "Rome", "max_price": 200}'), W_OSLO],
                            [R_PARIS]),
               agent_record([W_OSLO], None)]
    result = assay.evaluate(records, metrics="tool_call_accuracy")
    summary = result.summary["metrics"]["tool_call_accuracy"]
    assert summary["mean"] == pytest.approx(1 / 3, abs=1e-3)
    assert summary["findings"] == {"wrong_value": 2, "extra_call": 1, "wrong_type": 1}


def test_without_jsonschema_schema_validity_is_skipped_by_auto_and_refused_by_name(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from assay.errors import ConfigError
    from assay.metrics.agent import ToolSchemaValidity

    why = "tool_schema_validity needs the jsonschema package: pip install 'assay[agents]'"
    monkeypatch.setattr(ToolSchemaValidity, "unavailable_reason", lambda self: why)
    rows = [agent_row([S_PARIS], [R_PARIS])]
    plan = plan_metrics(rows, "auto")
    assert "tool_schema_validity" not in [m.name for m in plan.metrics]
    assert f"tool_schema_validity: skipped, {why}" in plan.skipped
    assert "tool_call_accuracy" in [m.name for m in plan.metrics]
    with pytest.raises(ConfigError, match=r"tool_schema_validity cannot run: .*assay\[agents\]"):
        plan_metrics(rows, "tool_call_accuracy,tool_schema_validity")
