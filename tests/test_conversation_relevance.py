"""Relevance on conversations: each assistant turn against the request read with the history;
the last turn against the row's ground truth with the second rubric when there is one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay import JudgeOptions, evaluate
from assay.asking import load_template
from assay.data import read_dataset
from assay.errors import DataError
from assay.judges import FakeJudge, JudgeRequest

MESSAGES = [
    {"role": "user", "content": "Which tent is lightest?"},
    {"role": "assistant", "content": "The SkyView 2, at 1.3 kg."},
    {"role": "user", "content": "And is it waterproof enough for storms?"},
    {"role": "assistant", "content": "Our stoves boil water in 3 minutes."},
]


def _judge() -> FakeJudge:
    def script(req: JudgeRequest) -> str:
        user = req.messages[1]["content"]
        if "stoves boil" in user:
            return '{"score": 1, "reason": "off topic"}'
        return '{"score": 5, "reason": "answers it"}'
    return FakeJudge(script)


def test_each_turn_is_rated_with_its_history() -> None:
    judge = _judge()
    res = evaluate([{"id": "c", "messages": MESSAGES}], metrics="relevance", judge=judge,
                   judging=JudgeOptions(cache=None))
    rel = res.rows[0]["relevance"]
    assert rel["value"] == 3.0
    assert [(t["turn"], t["rubric"], t["value"]) for t in rel["details"]["turns"]] == [
        (1, "conversation", 5.0), (3, "conversation", 1.0)]
    second = judge.requests[1].messages[1]["content"]
    assert "<history>\nuser: Which tent is lightest?\nassistant: The SkyView 2, at 1.3 kg." \
        in second
    assert "<question>\nAnd is it waterproof enough for storms?\n</question>" in second
    assert "<history>" not in judge.requests[0].messages[1]["content"]
    sha = load_template("relevance", "en", variant="conversation").sha256
    assert judge.requests[0].messages[0]["content"] in load_template(
        "relevance", "en", variant="conversation").source
    assert sha != load_template("relevance", "en").sha256


def test_ground_truth_rates_the_last_turn_with_the_second_rubric() -> None:
    judge = _judge()
    row = {"id": "c", "messages": MESSAGES, "ground_truth": "Yes: 3,000 mm fly."}
    res = evaluate([row], metrics="relevance", judge=judge, judging=JudgeOptions(cache=None))
    turns = res.rows[0]["relevance"]["details"]["turns"]
    assert [t["rubric"] for t in turns] == ["conversation", "conversation_gt"]
    last = judge.requests[1].messages[1]["content"]
    assert "<ground_truth>\nYes: 3,000 mm fly.\n</ground_truth>" in last
    assert "reference answer" in judge.requests[1].messages[0]["content"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_conversation_rubrics_share_variables_across_languages(lang: str) -> None:
    plain = load_template("relevance", lang, variant="conversation")
    with_gt = load_template("relevance", lang, variant="conversation_gt")
    assert plain.variables == {"history", "question", "answer"}
    assert with_gt.variables == {"history", "question", "answer", "ground_truth"}


def test_conversation_ground_truth_must_be_text(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"messages": MESSAGES, "ground_truth": 5}) + "\n")
    with pytest.raises(DataError, match="'ground_truth': expected text"):
        read_dataset(path)
    path.write_text(json.dumps({"messages": MESSAGES, "reference": "Yes."}) + "\n")
    assert read_dataset(path)[0].ground_truth == "Yes."
