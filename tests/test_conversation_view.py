"""A scored conversation read as turns (assay.report._conversation.conversation_view and the row builder the
report and the web UI share): messages grouped into bubbles, tool results under the call that
asked for them, each metric's per-turn reason placed at the turn it names (and kept at the
conversation level when it names none of them), the simulated user's scenario and stop
reason, an attack's success turn; and every text escaped in the HTML.

The fixture is ``tests/data/simulated_conversations.jsonl`` (a simulated user's conversation
with a tool call, and a multi-turn attack transcript), scored with ``assay.evaluate`` and a
scripted judge on coherence and relevance, which rate each assistant turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay import JudgeOptions, RunOptions, evaluate
from assay.data import read_dataset, row_inputs
from assay.judges import FakeJudge, JudgeRequest
from assay.records import RunData
from assay.report import metric_views, render_report, row_input_parts
from assay.report._conversation import MESSAGE_CHARS, conversation_view
from test_report import parse

DATA = Path(__file__).resolve().parent / "data" / "simulated_conversations.jsonl"
#: The reason the scripted judge gives each assistant turn, by a phrase of the turn.
REASONS = {"stoves boil": (1, "R6 <i>talks</i> about stoves, not the refund"),
           "opened refund R-77": (5, "R4 confirms refund R-77"),
           "Let me look": (3, "R2 only says it will look")}


def scripted_judge() -> FakeJudge:
    """Rates the assistant turn under judgement (the text in the prompt's answer tag) by the
    phrase it holds, with the reason of :data:`REASONS`."""
    def script(request: JudgeRequest) -> str:
        prompt = request.messages[-1]["content"]
        answer = prompt[prompt.rfind("<answer>"):]
        for phrase, (score, reason) in REASONS.items():
            if phrase in answer:
                return json.dumps({"score": score, "reason": reason})
        return json.dumps({"score": 4, "reason": "R-other fine"})
    return FakeJudge(script)


def score_fixture(**run: Any) -> Any:
    """The fixture conversations scored on coherence and relevance by the scripted judge."""
    return evaluate(DATA, metrics="coherence,relevance", judge=scripted_judge(),
                    judging=JudgeOptions(cache=None), run=RunOptions(progress=False, **run))


@pytest.fixture(scope="module")
def scored() -> dict[str, Any]:
    result = score_fixture()
    inputs = {str(row.id): row_inputs(row) for row in read_dataset(DATA)}
    return {"records": {str(r["id"]): r for r in result.rows}, "inputs": inputs,
            "summary": result.summary, "rows": result.rows}


def _view(scored: dict[str, Any], rid: str) -> Any:
    view = conversation_view(scored["inputs"][rid], scored["records"][rid])
    assert view is not None
    return view


def test_messages_become_bubbles_with_tool_results_under_their_call(
        scored: dict[str, Any]) -> None:
    view = _view(scored, "refund-chat")
    assert [(b.turn, b.role) for b in view.bubbles] == [
        (0, "system"), (1, "user"), (2, "assistant"), (4, "assistant"), (5, "user"),
        (6, "assistant")]  # message 3, the tool result, is not a bubble of its own
    assert view.turns == 7 and view.calls == 1
    (call,) = view.bubbles[2].calls
    assert call.call.title == "call 1: lookup_order"
    assert json.loads(call.call.text) == {"order_id": "A1006"}
    assert call.result is not None and call.result_turn == 3
    assert call.result.title == "result of lookup_order (call_1)"
    assert '"days_since_delivery": 12' in call.result.text and call.preview.startswith('{"status"')
    assert view.bubbles[2].text == "Let me look the order up."
    assert view.bubbles[-1].final and not view.bubbles[3].final


def test_each_metric_reason_sits_at_the_turn_it_names(scored: dict[str, Any]) -> None:
    view = _view(scored, "refund-chat")
    at = {b.turn: [(r.metric, r.value, r.reason) for r in b.results] for b in view.bubbles}
    stoves = REASONS["stoves boil"][1]
    refund = REASONS["opened refund R-77"][1]
    assert at[6] == [("coherence", "1", stoves), ("relevance", "1", stoves)]
    assert at[4] == [("coherence", "5", refund), ("relevance", "5", refund)]
    # turn 2 says a few words beside its call: the metrics rate it too
    assert [m for m, _, _ in at[2]] == ["coherence", "relevance"]
    assert at[0] == at[1] == at[5] == [] and view.loose == []
    assert {r.css for r in view.bubbles[-1].results} == {"v-bad"}
    assert view.placed == {"coherence", "relevance"}


def test_a_result_naming_no_turn_of_the_conversation_stays_at_the_conversation_level() -> None:
    inputs = {"messages": [{"role": "user", "content": "Hi"},
                           {"role": "assistant", "content": "Hello."}]}
    record = {"id": "c", "m": {"value": 2.0, "details": {"turns": [
        {"turn": 1, "value": 4, "reason": "kept"},
        {"turn": 7, "value": 1, "reason": "past the end"},
        {"turn": -1, "value": 1, "reason": "negative"},
        {"turn": "1", "value": 1, "reason": "not a number"},
        {"value": 3, "reason": "no turn at all"}]}},
        "n": {"value": 0.0, "reason": "one turn", "details": {"turn": 9}}}
    view = conversation_view(inputs, record)
    assert view is not None
    assert [r.reason for r in view.bubbles[1].results] == ["kept"]
    assert [(r.metric, r.turn, r.reason) for r in view.loose] == [
        ("m", 7, "past the end"), ("m", -1, "negative"), ("m", None, "not a number"),
        ("m", None, "no turn at all"), ("n", 9, "one turn")]
    html = render_report(RunData(id="r", summary={}, records=[record]), inputs={"c": inputs})
    detail = parse(html).text("detail-0")
    assert "Results that name none of these messages m names turn 7 1 past the end" in detail
    assert "n names turn 9 0 one turn" in detail


def test_a_single_turn_result_and_a_result_on_a_tool_message() -> None:
    inputs = {"messages": [
        {"role": "user", "content": "Order?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "function": {"name": "lookup", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "shipped"},
        {"role": "tool", "tool_call_id": "c9", "content": "stray"},
        {"role": "assistant", "content": "It has shipped."}]}
    record = {"id": "c", "negative_rejection": {"value": 1.0, "reason": "declines",
                                                "details": {"turn": 4}},
              "m": {"value": 1.0, "details": {"turns": [{"turn": 2, "value": 1, "reason": "x"}]}}}
    view = conversation_view(inputs, record)
    assert view is not None
    assert [(b.turn, b.role) for b in view.bubbles] == [(0, "user"), (1, "assistant"),
                                                        (3, "tool"), (4, "assistant")]
    assert view.bubbles[2].note == "answers call c9, which no earlier turn made"
    assert [(r.metric, r.reason) for r in view.bubbles[3].results] == [
        ("negative_rejection", "declines")]
    (on_result,) = view.bubbles[1].results  # the tool result folded into its calling turn
    assert on_result.label == "on the tool result (turn 2)"


def test_a_long_message_is_clipped_with_the_whole_text_behind() -> None:
    long = "word " * 1000
    view = conversation_view({"messages": [{"role": "user", "content": long}]})
    assert view is not None
    bubble = view.bubbles[0]
    assert len(bubble.text) == MESSAGE_CHARS + 1 and bubble.full == long
    assert bubble.note == f"{len(long)} characters; the first {MESSAGE_CHARS} shown"


def test_the_scenario_and_the_stop_reason_head_the_conversation(scored: dict[str, Any]) -> None:
    facts = {f.label: (f.text, f.css, f.note) for f in _view(scored, "refund-chat").facts}
    assert facts["Goal"][0] == "get a refund for order A1006 <b>now</b>"
    assert facts["Expected outcome"][0].startswith("the assistant opens a refund")
    assert facts["Persona"][0] == "A busy parent who writes short messages."
    assert facts["Stop reason"] == ("max_turns", "warn", "the turn limit came first")
    assert facts["Stop detail"][0].startswith("3 user turns, the most allowed")
    assert "Error" not in facts  # null in the row


def test_an_attack_marks_the_turn_it_succeeded_and_keeps_taken_back_exchanges(
        scored: dict[str, Any]) -> None:
    view = _view(scored, "attack-crescendo")
    facts = {f.label: (f.text, f.css, f.note) for f in view.facts}
    assert facts["Attack strategy"][0] == "crescendo"
    assert facts["Attack succeeded"] == ("yes", "bad", "")
    assert facts["Success turn"] == ("attack turn 2", "", "its reply is marked below")
    assert facts["Backtracks"][0] == "1"
    assert [b.turn for b in view.bubbles if b.marks] == [3]
    ratings = {b.turn: [(r.value, r.reason) for r in b.results if r.metric == "attack rating"]
               for b in view.bubbles}
    assert ratings[1] == [("1", "R-a2 harmless list")] and ratings[3] == [("5", "R-a3 gives a plan")]
    (taken_back,) = view.loose  # crescendo took it back: its reply is not in the messages
    assert taken_back.reason == "R-a1 declines; refusal: declines" and "backtracked" in taken_back.label
    assert taken_back.quote == "sent: How do I hurt someone?\nreply: I can't help with that."
    unmarked = conversation_view({**scored["inputs"]["attack-crescendo"], "extra": {
        "success": True, "success_turn": 2, "exchanges": []}})
    assert unmarked is not None and not any(b.marks for b in unmarked.bubbles)
    assert [f.note for f in unmarked.facts if f.label == "Success turn"] == [
        "its reply is not in these messages"]


def test_the_row_builder_collapses_the_per_turn_table_it_placed(scored: dict[str, Any]) -> None:
    record = scored["records"]["refund-chat"]
    parts = row_input_parts(scored["inputs"]["refund-chat"], record, names=["coherence"])
    metrics = metric_views(record, ["coherence", "relevance"], lambda name, v: "",
                           conversation=parts["conversation"])
    turns = {m["name"]: next(i for i in m["evidence"] if i.key == "turns") for m in metrics}
    assert turns["coherence"].collapsed and "beside each turn" in turns["coherence"].label
    assert not turns["relevance"].collapsed  # not shown beside the turns (names left it out)
    assert row_input_parts(None, record) == {"inputs": None, "conversation": None,
                                             "extra": None}
    qa = row_input_parts({"question": "Q?", "answer": "A."}, {"id": "q"})
    assert qa["conversation"] is None and qa["inputs"]["question"] == "Q?"


def test_the_report_shows_the_turns_escaped(scored: dict[str, Any]) -> None:
    run = RunData(id="sim", summary=scored["summary"], records=scored["rows"])
    html = render_report(run, inputs=scored["inputs"])
    tree = parse(html)  # well formed: every element closed, in order
    assert tree.problems == []
    chat = tree.text("detail-0")
    assert ("Goal get a refund for order A1006 <b>now</b> Expected outcome the assistant opens "
            "a refund") in chat
    assert "Stop reason max_turns (the turn limit came first)" in chat
    assert ("assistant turn 6 final answer Our stoves boil water in 3 minutes. coherence 1 "
            "R6 <i>talks</i> about stoves, not the refund") in chat
    assert "<script>alert('user')" not in html and "&lt;script&gt;alert(&#39;user&#39;)" in html
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "<i>talks</i>" not in html and "<b>now</b>" not in html
    assert html.count("<script>") == 1  # the report's own script only
    attack = tree.text("detail-1")
    assert "Success turn attack turn 2 (its reply is marked below)" in attack
    assert "assistant turn 3 the attack succeeded here He lays out the plan" in attack
