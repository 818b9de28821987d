"""Exports: CSV cells a spreadsheet would run as formulas open as text (OWASP CSV injection),
numbers stay numbers, and the rows' input fields travel with their scores in every format."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from assay.store import open_store
from assay.store._export import csv_cell, flatten, write_records

HOSTILE = ["=HYPERLINK(\"http://evil.example\",\"x\")", "+1+cmd|' /C calc'!A0", "@SUM(1,2)",
           "-2+3", "\t=1", "\r=1"]


def _records() -> list[dict[str, Any]]:
    return [{"id": f"q{i}", "f1_score": {"value": v, "reason": reason, "error": None}}
            for i, (v, reason) in enumerate([(1.0, "ok"), (-0.5, "=cmd()"), (0.25, None)])]


def _inputs() -> dict[str, dict[str, Any]]:
    return {
        "q0": {"question": "What is 1+1?", "answer": HOSTILE[0], "ground_truth": "2",
               "extra": {"category": "@math", "difficulty": 3}},
        "q1": {"question": "+Who?", "answer": HOSTILE[1], "contexts": ["-a", "b"]},
        "q2": {"messages": [{"role": "user", "content": "=hi"},
                            {"role": "assistant", "content": HOSTILE[2]}]},
    }


def _read_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or []), list(reader)


@pytest.mark.parametrize("text", HOSTILE)
def test_formula_cells_get_a_quote(text: str) -> None:
    assert csv_cell(text) == "'" + text
    assert csv_cell("plain = text") == "plain = text" and csv_cell("") == ""
    assert csv_cell(-3.5) == -3.5 and csv_cell(None) is None and csv_cell(7) == 7


def test_csv_export_of_hostile_answers_opens_as_text(tmp_path: Path) -> None:
    out = tmp_path / "rows.csv"
    assert write_records(_records(), out, "csv", inputs=_inputs()) == 3
    columns, table = _read_csv(out)
    assert columns == ["id", "question", "contexts", "answer", "ground_truth", "messages",
                       "category", "difficulty", "f1_score", "f1_score/reason", "f1_score/error"]
    answers = [row["answer"] for row in table]
    assert answers[:2] == ["'" + HOSTILE[0], "'" + HOSTILE[1]]
    for row in table:  # no text cell of the file starts a formula
        for cell in row.values():
            assert not cell.startswith(("=", "+", "@", "\t", "\r")), cell
            assert not cell.startswith("-") or float(cell) < 0, cell
    assert table[1]["question"] == "'+Who?" and table[0]["category"] == "'@math"
    assert table[1]["f1_score/reason"] == "'=cmd()"
    # a negative score is still a number; a JSON cell keeps its JSON
    assert float(table[1]["f1_score"]) == -0.5 and table[2]["f1_score"] == "0.25"
    assert json.loads(table[1]["contexts"]) == ["-a", "b"]
    assert json.loads(table[2]["messages"])[1]["content"] == HOSTILE[2]
    assert table[0]["difficulty"] == "3" and table[2]["question"] == ""


def test_input_columns_never_shadow_result_columns() -> None:
    records = [{"id": "q1", "answer": "stored beside the scores", "m": {"value": 1.0}}]
    columns, table = flatten(records, {"q1": {"answer": "a", "extra": {"m": "x", "id": "y"}}})
    assert columns == ["id", "input/answer", "input/m", "input/id", "m", "m/reason", "m/error",
                       "answer"]
    assert table[0]["input/answer"] == "a" and table[0]["answer"] == "stored beside the scores"


def test_jsonl_and_parquet_carry_the_inputs(tmp_path: Path) -> None:
    out = tmp_path / "rows.jsonl"
    write_records(_records(), out, "jsonl", inputs=_inputs())
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").split("\n") if x]
    assert lines[0]["inputs"]["answer"] == HOSTILE[0]  # JSONL is data, not a sheet: as stored
    assert [x["id"] for x in lines] == ["q0", "q1", "q2"]
    pq = pytest.importorskip("pyarrow.parquet",
                             reason="needs the 'parquet' extra: pip install 'assay[parquet]'")
    write_records(_records(), tmp_path / "rows.parquet", "parquet", inputs=_inputs())
    cols = pq.read_table(tmp_path / "rows.parquet").to_pydict()
    assert cols["answer"] == [HOSTILE[0], HOSTILE[1], None]
    assert cols["f1_score"] == [1.0, -0.5, 0.25]


def test_store_export_escapes_ids_and_reasons(tmp_path: Path) -> None:
    with open_store(tmp_path / "s.sqlite") as store:
        run_id = store.create_run()
        store.add_rows(run_id, [{"id": "=1+2", "m": {"value": -1.0, "reason": "@x"}}])
        store.export(run_id, tmp_path / "rows.csv", "csv")
    _, table = _read_csv(tmp_path / "rows.csv")
    assert table == [{"id": "'=1+2", "m": "-1.0", "m/reason": "'@x", "m/error": ""}]
