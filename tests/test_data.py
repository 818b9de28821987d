"""Reading datasets: formats, aliases, --map, conversations, ids and all-at-once error reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.data import parse_mapping, read_dataset, rows_from_records
from assay.errors import DataError

SAMPLES = Path(__file__).parents[1].parent / "shared" / "data" / "azure_eval_samples"


def write_jsonl(path: Path, records: list[object]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                    encoding="utf-8")
    return path


# --- formats -----------------------------------------------------------------------------


def test_jsonl_reads_rows_in_order(tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "d.jsonl", [
        {"question": "Q1?", "answer": "A1.", "ground_truth": "T1."},
        {"question": "Q2?", "answer": "A2."},
    ])
    rows = read_dataset(p)
    assert [(r.id, r.line, r.question, r.answer, r.ground_truth) for r in rows] == [
        ("1", 1, "Q1?", "A1.", "T1."),
        ("2", 2, "Q2?", "A2.", None),
    ]
    assert all(r.kind == "qa" for r in rows)
    assert rows[0].fields() == {"question", "answer", "ground_truth"}


def test_json_array(tmp_path: Path) -> None:
    p = tmp_path / "d.json"
    p.write_text(json.dumps([{"query": "Q?", "response": "A."},
                             {"id": "x", "answer": "B.", "context": "C."}], indent=2))
    rows = read_dataset(p)
    assert [(r.id, r.question, r.answer, r.context) for r in rows] == [
        ("1", "Q?", "A.", None), ("x", None, "B.", "C.")]


def test_json_array_rejects_non_objects(tmp_path: Path) -> None:
    p = tmp_path / "d.json"
    p.write_text(json.dumps([{"answer": "ok"}, "just a string"]))
    with pytest.raises(DataError) as exc:
        read_dataset(p)
    assert len(exc.value.problems) == 1
    assert "item 2" in exc.value.problems[0] and "str" in exc.value.problems[0]


def test_csv_with_contexts_json_list_column(tmp_path: Path) -> None:
    p = tmp_path / "d.csv"
    p.write_text(
        "id,question,answer,contexts\n"
        'r1,Weight?,1.3 kg,"[""The tent weighs 1.3 kg."", ""It is green.""]"\n'
        "r2,Colour?,Green,plain text context\n",
        encoding="utf-8")
    rows = read_dataset(p)
    assert [r.id for r in rows] == ["r1", "r2"]
    assert rows[0].contexts == ["The tent weighs 1.3 kg.", "It is green."]
    assert rows[0].context == "The tent weighs 1.3 kg.\n\nIt is green."
    assert rows[1].contexts is None and rows[1].context == "plain text context"


def test_csv_ids_default_to_file_line_and_empty_cells_are_absent(tmp_path: Path) -> None:
    p = tmp_path / "d.csv"
    p.write_text("question,answer,ground_truth\nQ1?,A1.,\nQ2?,A2.,T2.\n", encoding="utf-8")
    rows = read_dataset(p)
    assert [(r.id, r.line) for r in rows] == [("2", 2), ("3", 3)]  # line 1 is the header
    assert rows[0].ground_truth is None and "ground_truth" not in rows[0].fields()
    assert rows[1].ground_truth == "T2."


def test_csv_bad_contexts_list_is_reported(tmp_path: Path) -> None:
    p = tmp_path / "d.csv"
    p.write_text('answer,contexts\nA.,"[""unterminated"\n', encoding="utf-8")
    with pytest.raises(DataError) as exc:
        read_dataset(p)
    assert "'contexts'" in str(exc.value) and "JSON" in str(exc.value)


def test_blank_lines_are_skipped_and_do_not_shift_line_numbers(tmp_path: Path) -> None:
    p = tmp_path / "d.jsonl"
    p.write_text('\n{"answer": "a"}\n   \n\n{"answer": "b"}\n\n', encoding="utf-8")
    rows = read_dataset(p)
    assert [(r.id, r.line, r.answer) for r in rows] == [("2", 2, "a"), ("5", 5, "b")]


def test_crlf_and_bom_are_accepted(tmp_path: Path) -> None:
    p = tmp_path / "d.jsonl"
    p.write_bytes(b'\xef\xbb\xbf{"answer": "a"}\r\n{"answer": "b"}\r\n')
    assert [r.answer for r in read_dataset(p)] == ["a", "b"]


def test_unicode_line_separator_inside_a_string_does_not_split_the_line(tmp_path: Path) -> None:
    # JSON allows raw U+2028 / U+0085 inside strings; only "\n" ends a JSONL record.
    p = write_jsonl(tmp_path / "d.jsonl", [{"answer": "one\u2028two\x85three"}, {"answer": "b"}])
    rows = read_dataset(p)
    assert [(r.line, r.answer) for r in rows] == [(1, "one\u2028two\x85three"), (2, "b")]


def test_missing_file_and_empty_file(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="file not found"):
        read_dataset(tmp_path / "nope.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    with pytest.raises(DataError, match="no rows"):
        read_dataset(empty)


# --- aliases and --map ---------------------------------------------------------------------


def test_aliases_and_contexts_list(tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "d.jsonl", [{
        "query": "How heavy?", "response": "1.3 kg.", "reference": "1.3 kg",
        "contexts": ["Chunk one.", "Chunk two."], "source": "web"}])
    (row,) = read_dataset(p)
    assert row.question == "How heavy?"
    assert row.answer == "1.3 kg."
    assert row.ground_truth == "1.3 kg"
    assert row.contexts == ["Chunk one.", "Chunk two."]
    assert row.context == "Chunk one.\n\nChunk two."
    assert row.fields() == {"question", "answer", "ground_truth", "context"}
    assert row.extra == {"source": "web"}  # consumed alias columns are not duplicated in extra


def test_two_aliases_with_different_values_are_an_error_naming_the_row() -> None:
    # which one counts would be a guess: {{ response }} in a custom metric got 'answer' silently
    with pytest.raises(DataError) as exc:
        rows_from_records([{"answer": "a"}, {"id": "r2", "answer": "canonical",
                                             "response": "alias"}])
    (problem,) = exc.value.problems
    assert "line 2" in problem and "'answer' and 'response'" in problem
    assert "mapping={'answer': 'COLUMN'}" in problem  # a Python caller's keyword


def test_two_aliases_with_the_same_value_or_a_map_choosing_one_are_read() -> None:
    (row,) = rows_from_records([{"answer": "same", "response": "same"}])
    assert row.answer == "same" and row.extra == {"response": "same"}
    (row,) = rows_from_records([{"answer": "canonical", "response": "alias"}],
                               mapping={"answer": "response"})
    assert row.answer == "alias" and row.extra == {"answer": "canonical"}
    (row,) = rows_from_records([{"answer": "a", "context": "x\n\ny", "contexts": ["x", "y"]}])
    assert row.context == "x\n\ny"


def test_contexts_list_with_non_text_item_is_an_error() -> None:
    with pytest.raises(DataError) as exc:
        rows_from_records([{"answer": "a", "contexts": ["ok", 3]}])
    assert "'contexts'" in str(exc.value) and "item 1" in str(exc.value)


def test_parse_mapping() -> None:
    assert parse_mapping(["answer=output", " question = prompt "]) == {
        "answer": "output", "question": "prompt"}
    with pytest.raises(DataError, match="FIELD=COLUMN"):
        parse_mapping(["answer"])
    with pytest.raises(DataError, match="FIELD=COLUMN"):
        parse_mapping(["answer="])
    with pytest.raises(DataError, match="unknown field 'answr'"):
        parse_mapping(["answr=output"])


def test_read_dataset_with_mapping(tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "d.jsonl", [
        {"prompt": "Q?", "output": "A.", "gold": "T.", "response": "not this one", "key": "k1"}])
    mapping = parse_mapping(["question=prompt", "answer=output", "ground_truth=gold", "id=key"])
    (row,) = read_dataset(p, mapping=mapping)
    assert (row.id, row.question, row.answer, row.ground_truth) == ("k1", "Q?", "A.", "T.")
    assert row.extra == {"response": "not this one"}


def test_mapping_to_a_missing_column_names_the_column(tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "d.jsonl", [{"prompt": "Q?", "answer": "A."}])
    with pytest.raises(DataError) as exc:
        read_dataset(p, mapping={"answer": "output"})
    msg = str(exc.value)
    assert "'output'" in msg and "mapping={'answer': 'output'}" in msg and "line 1" in msg


# --- conversations ------------------------------------------------------------------------


def test_conversation_with_citations(tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "c.jsonl", [{"messages": [
        {"role": "user", "content": "How heavy is the tent?"},
        {"role": "assistant", "content": "1.3 kg.",
         "context": {"citations": [{"id": 7, "title": "Spec", "content": "Weight: 1.3 kg"}]}},
        {"role": "user", "content": "Thanks"},
        {"role": "assistant", "content": "You're welcome."},
    ]}])
    (row,) = read_dataset(p)
    assert row.kind == "conversation"
    assert row.fields() == {"messages", "citations"}
    assert [t.role for t in row.messages] == ["user", "assistant", "user", "assistant"]
    cite = row.messages[1].citations[0]
    assert (cite.id, cite.title, cite.content) == ("7", "Spec", "Weight: 1.3 kg")
    assert [i for i, _ in row.assistant_turns()] == [1, 3]


def test_conversation_without_citations_and_plain_string_context() -> None:
    rows = rows_from_records([
        {"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]},
        {"messages": [{"role": "user", "content": "Hi"},
                      {"role": "assistant", "content": "Hello", "context": "A doc."}]},
    ])
    assert rows[0].fields() == {"messages"}
    assert rows[1].fields() == {"messages", "citations"}
    assert rows[1].messages[1].citations[0].content == "A doc."


def test_azure_conversation_wrapper(tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "c.jsonl", [
        {"conversation": {"messages": [{"content": "What is 6*7?", "role": "user"},
                                       {"content": "42.", "role": "assistant"}]},
         "tag": "math"}])
    (row,) = read_dataset(p)
    assert row.kind == "conversation"
    assert [t.content for t in row.messages] == ["What is 6*7?", "42."]
    assert row.extra == {"tag": "math"}


def test_bad_conversations_report_every_problem() -> None:
    with pytest.raises(DataError) as exc:
        rows_from_records([
            {"messages": []},
            {"messages": [{"role": "robot", "content": "x"}, {"role": "user", "content": 5}]},
            {"messages": [{"role": "assistant", "content": "x", "context": {"citations": "nope"}}]},
            {"messages": [{"role": "assistant", "content": "x",
                           "context": {"citations": [{"title": "no content"}]}}]},
            {"messages": [{"role": "assistant", "content": "x",
                           "context": {"citations": [{"content": "c", "title": 5}]}}]},
        ])
    msg = str(exc.value)
    assert len(exc.value.problems) == 6
    for needle in ("line 1, field 'messages'", "line 2, field 'messages[0].role'",
                   "line 2, field 'messages[1].content'", "line 3, field 'messages[0].context",
                   "citations[0].content'", "citations[0].title'"):
        assert needle in msg


# --- ids ------------------------------------------------------------------------------------


def test_ids_from_field_else_line_number(tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "d.jsonl", [
        {"id": "alpha", "answer": "a"}, {"answer": "b"}, {"id": 42, "answer": "c"},
        {"id": "", "answer": "d"}])
    assert [r.id for r in read_dataset(p)] == ["alpha", "2", "42", "4"]


def test_ids_are_stable_across_reads(tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "d.jsonl", [{"answer": "a"}, {"id": "z", "answer": "b"}])
    assert [r.id for r in read_dataset(p)] == [r.id for r in read_dataset(p)] == ["1", "z"]


def test_duplicate_ids_are_an_error(tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "d.jsonl", [
        {"id": "a", "answer": "x"}, {"id": "b", "answer": "y"}, {"id": "a", "answer": "z"}])
    with pytest.raises(DataError) as exc:
        read_dataset(p)
    assert len(exc.value.problems) == 1
    problem = exc.value.problems[0]
    assert "line 3" in problem and "duplicate id 'a'" in problem and "line 1" in problem
    assert "Fix:" in problem


def test_id_of_wrong_type_is_an_error() -> None:
    with pytest.raises(DataError, match="field 'id'"):
        rows_from_records([{"id": [1], "answer": "x"}])


# --- every problem at once -------------------------------------------------------------------


def test_one_error_lists_every_problem(tmp_path: Path) -> None:
    p = tmp_path / "broken.jsonl"
    p.write_text("\n".join([
        json.dumps({"question": "ok?", "answer": "fine"}),
        '{"question": "bad json", "answer": "oops"',           # line 2: truncated JSON
        json.dumps({"question": "no answer here"}),           # line 3: answer missing
        json.dumps({"question": 12345, "answer": "numbers"}),  # line 4: number for text
        json.dumps({"question": "ok too?", "answer": "fine"}),
    ]) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        read_dataset(p)
    err = exc.value
    msg = str(err)
    assert len(err.problems) == 3
    assert msg.startswith(f"{p}: 3 problems found; nothing was evaluated.")
    bad_json, missing, mistyped = err.problems
    assert f"{p} line 2" in bad_json and "invalid JSON" in bad_json
    assert f"{p} line 3" in missing and "field 'answer'" in missing and "missing" in missing
    assert f"{p} line 4" in mistyped and "field 'question'" in mistyped and "int" in mistyped
    assert all("Fix:" in problem for problem in err.problems)
    assert "line 1" not in msg and "line 5" not in msg


def test_non_object_line_and_unserialisable_value_in_records() -> None:
    class Odd:
        def __str__(self) -> str:
            return "odd-value"

    with pytest.raises(DataError) as exc:
        rows_from_records([{"answer": Odd()}, "not a dict"])
    msg = str(exc.value)
    assert "line 1, field 'answer': expected text, got Odd" in msg
    assert "item 2: expected an object, got str" in msg


def test_rows_from_records_needs_rows() -> None:
    with pytest.raises(DataError, match="no rows"):
        rows_from_records([])


# --- real sample files ------------------------------------------------------------------------


@pytest.mark.parametrize("name, kind, count", [
    ("qa_query_context_response_workshop.jsonl", "qa", 5),
    ("conversation_messages.jsonl", "conversation", 2),
])
def test_azure_sample_files_load(name: str, kind: str, count: int) -> None:
    if not SAMPLES.is_dir():
        pytest.skip(f"{SAMPLES} is absent")
    rows = read_dataset(SAMPLES / name)
    assert len(rows) == count
    assert {r.kind for r in rows} == {kind}
    if kind == "qa":
        assert all({"question", "answer", "context", "ground_truth"} <= r.fields() for r in rows)
    else:
        assert all(r.assistant_turns() for r in rows)


def test_a_stored_conversation_with_citations_reads_back_as_the_same_row() -> None:
    from assay.data import row_inputs
    original = rows_from_records([{"id": "c", "messages": [
        {"role": "user", "content": "Which tent?"},
        {"role": "assistant", "content": "The Alpine.", "context": {"citations": [
            {"id": "d1", "title": "Tents", "content": "The Alpine has a 10,000 mm fly."}]}}]}])
    stored = {"id": "c", **row_inputs(original[0])}  # turns keep "citations", as a store does
    assert "citations" in stored["messages"][1] and "context" not in stored["messages"][1]
    (back,) = rows_from_records([stored])
    assert back.messages == original[0].messages
    assert back.messages is not None and back.messages[1].citations[0].id == "d1"
    with pytest.raises(DataError) as exc:
        rows_from_records([{"id": "x", "messages": [
            {"role": "user", "content": "Q"},
            {"role": "assistant", "content": "A", "citations": [{"title": "no content"}]}]}])
    assert "field 'messages[1].citations[0].content': missing or not text" in str(exc.value)
