"""Metric families through the one hook (``assay.metrics.MetricFamily``): a plugin's family
adds its row details and summary sections to a run with nothing registered by hand, and the
report and the web UI show every family's notes without naming one."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from assay import JudgeOptions, evaluate
from assay.metrics import (
    BaseFamily,
    Metric,
    get_metric,
    registered_families,
    row_notes,
    summary_notes,
)
from assay.metrics.lexical import ExactMatch
from assay.records import RunData
from assay.report import render_report


class _CountingTally:
    def __init__(self) -> None:
        self.rows = self.long = 0

    def add(self, record: Mapping[str, Any]) -> None:
        self.rows += 1
        self.long += bool(record["answer_check"]["long"])

    def metric_sections(self, options: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        return {"exact_match_plus": {"long_answers": self.long}}

    def summary_section(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return {"answer_check": {"rows": self.rows, "long": self.long,
                                 "limit": options.get("answer_limit", "default")}}


class AnswerCheck(BaseFamily):
    """A plugin's family: flags long answers per row and counts them."""

    name = "answer_check"

    def row_details(self, record: Mapping[str, Any]) -> dict[str, Any]:
        return {"answer_check": {"long": record["exact_match_plus"]["value"] == 0.0}}

    def tally(self, metrics: Sequence[Metric]) -> _CountingTally:
        return _CountingTally()


class ExactMatchPlus(ExactMatch):
    name = "exact_match_plus"
    family = AnswerCheck()


def test_a_metrics_own_family_adds_row_details_and_summary_sections() -> None:
    rows = [{"id": "a", "answer": "Paris", "ground_truth": "Paris"},
            {"id": "b", "answer": "Lyon, I think", "ground_truth": "Paris"}]
    res = evaluate(rows, metrics=[ExactMatchPlus()], judging=JudgeOptions(cache=None))
    assert [r["answer_check"] for r in res.rows] == [{"long": False}, {"long": True}]
    assert res.summary["answer_check"] == {"rows": 2, "long": 1, "limit": "default"}
    assert res.summary["metrics"]["exact_match_plus"]["long_answers"] == 1
    assert res.summary["metrics"]["exact_match_plus"]["mean"] == 0.5
    assert "answer_check" not in [f.name for f in registered_families()]
    plain = evaluate(rows, metrics=[get_metric("exact_match")], judging=JudgeOptions(cache=None))
    assert "answer_check" not in plain.summary and "answer_check" not in plain.rows[0]


def test_built_in_families_give_notes_for_what_the_run_holds() -> None:
    summary = {"diagnosis": {"retrieval": 1, "none": 0},
               "safety": {"threshold": "high", "mode": "separate"},
               "metrics": {"prefer": {"candidate_win_rate": 0.75, "baseline_win_rate": 0.25,
                                      "tie_rate": 0.0, "position_consistency": None}}}
    assert summary_notes(summary) == {
        "Diagnosis": "retrieval 1, none 0 (weakest RAG stage per row)",
        "Safety": "threshold high, mode separate",
        "Pairwise prefer": "candidate wins 75.0%, baseline 25.0%, ties 0.0% "
                           "(position-consistent –)"}
    assert summary_notes({"metrics": {"f1_score": {"mean": 1.0}}}) == {}
    note = row_notes({"id": "1", "diagnosis": {"stage": "both", "threshold": 0.5,
                                               "faithfulness": 0.25}})["diagnosis"]
    assert (note.text, note.values) == ("both", {"threshold": 0.5, "faithfulness": 0.25})


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_the_report_shows_family_notes_for_the_run_and_each_row() -> None:
    records = [{"id": "q1", "faithfulness": {"value": 0.25},
                "diagnosis": {"stage": "generation", "threshold": 0.5, "faithfulness": 0.25}},
               {"id": "q2", "faithfulness": {"value": 1.0},
                "diagnosis": {"stage": "none", "threshold": 0.5, "faithfulness": 1.0}}]
    summary = {"rows": 2, "metrics": {"faithfulness": {"mean": 0.625, "scored": 2}},
               "diagnosis": {"retrieval": 0, "generation": 1, "both": 0, "none": 1,
                             "undiagnosed": 0},
               "safety": {"threshold": "low", "mode": "combined"}}
    text = _text(render_report(RunData(id="r", summary=summary, records=records)))
    assert "Diagnosis retrieval 0, generation 1, both 0, none 1, undiagnosed 0" in text
    assert "Safety threshold low, mode combined" in text
    assert "diagnosis: generation (threshold 0.5, faithfulness 0.25)" in text
    assert "diagnosis: none (threshold 0.5, faithfulness 1)" in text


def test_the_docs_example_runs_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "metric-families.md").read_text()
    code = re.search(r"```python\n(.*?)```", doc, re.DOTALL)
    assert code is not None
    exec(compile(code.group(1), "metric-families.md", "exec"),  # noqa: S102 - the docs snippet
         {"__name__": "docs_example"})
    assert capsys.readouterr().out == "{'missed': True}\n"


def _defects(low: int, medium: int, high: int) -> dict[str, Any]:
    return {"threshold": "medium", "defect_rate": medium / 4, "defects": medium, "scored": 4,
            "unscored": 0, "refused": 0, "unscored_reasons": {},
            "rates": {"low": low / 4, "medium": medium / 4, "high": high / 4},
            "counts": {"low": low, "medium": medium, "high": high},
            "levels": {"Very low": 4 - low, "Low": low - medium, "Medium": medium - high,
                       "High": high}}


def test_the_report_shows_family_tables_for_a_run_and_a_comparison() -> None:
    a = RunData(id="a", records=[], summary={
        "rows": 4, "metrics": {"violence": {"mean": 2.0, "defects": _defects(3, 2, 1)}}})
    b = RunData(id="b", records=[], summary={
        "rows": 4, "metrics": {"violence": {"mean": 1.0, "defects": _defects(2, 1, 0)},
                               "sexual": {"mean": 0.0, "defects": _defects(0, 0, 0)}}})
    html = render_report(b, comparison={"a": {"id": "a", "rows": 4}, "b": {"id": "b", "rows": 4}},
                         other=a)
    section = _text(html[html.index('<section id="defects">'):])
    assert section.startswith("Defect rates Share of scored rows")
    assert "violence medium 25.0% (1) 50.0% (2) 25.0% (1) 0.0% (0) 2 1 1 0 0 4 0" in section
    assert "sexual medium 0.0% (0) 0.0% (0) 0.0% (0) 0.0% (0) 4 0 0 0 0 4 0" in section
    start = html.index("<caption>")
    levels = _text(html[start:html.index("</table>", start)])
    assert levels == ("Rows at or above each severity level metric ≥ Low ≥ Medium ≥ High "
                      "A B A B A B violence 75.0% (3) 50.0% (2) 50.0% (2) 25.0% (1) "
                      "25.0% (1) 0.0% (0)")  # sexual: run A has none, so no comparison
