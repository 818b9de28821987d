"""No traceback on any input: every broken dataset file exits 2 before any judge call, with one
message naming the file, the line, the field and the fix, or is read correctly.

Each case runs the real ``assay run`` (Typer's CliRunner) with a lexical metric and a judge
metric on the scripted fake judge, whose calls are counted. Small files live in
``tests/data/bad_inputs/``; the big ones (100,000-deep JSON, a 128 KB CSV field, ...) are
written to ``tmp_path`` by the case itself.
"""

from __future__ import annotations

import gzip
import json
import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli.main import app
from assay.data import DatasetStream, read_dataset, rows_from_records
from assay.errors import ConfigError, DataError

CORPUS = Path(__file__).parent / "data" / "bad_inputs"
QA_IDS = ["a", "b"]


@dataclass
class Case:
    """A file (in the corpus, or made by ``make(tmp_path)``) and what ``assay run`` must do:
    read ``ids`` (in order), or refuse with a message holding every one of ``needles``."""

    name: str
    needles: tuple[str, ...] = ()
    ids: list[str] | None = None
    make: Callable[[Path], Path] | None = None
    marks: list[Any] = field(default_factory=list)


def _jsonl(path: Path, *rows: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _deep_json(tmp: Path) -> Path:
    p = tmp / "deep.json"
    p.write_text("[" * 100_000 + "]" * 100_000)
    return p


def _deep_jsonl(tmp: Path) -> Path:
    p = tmp / "deep.jsonl"
    p.write_text('{"answer": "x", "ground_truth": "x"}\n{"answer": "y", "meta": '
                 + "[" * 100_000 + "]" * 100_000 + "}\n")
    return p


def _nested_200(tmp: Path) -> Path:  # parses, but deeper than any later step should walk
    return _jsonl(tmp / "nested.jsonl", {"answer": "x", "ground_truth": "x", "meta": json.loads(
        "[" * 200 + "]" * 200)})


def _big_csv_field(tmp: Path) -> Path:
    p = tmp / "big_field.csv"
    p.write_text("id,answer,ground_truth\na,short,x\nb," + "w " * 70_000 + ",x\n")
    return p


def _long_jsonl_line(tmp: Path) -> Path:
    return _jsonl(tmp / "long_line.jsonl", {"id": "a", "answer": "x", "ground_truth": "x"},
                  {"id": "b", "answer": "y", "ground_truth": "y", "context": "z" * 1_000_000})


def _bigint_id(tmp: Path) -> Path:
    p = tmp / "bigint_id.jsonl"
    p.write_text('{"id": 1, "answer": "x", "ground_truth": "x"}\n'
                 '{"id": ' + "7" * 5000 + ', "answer": "y", "ground_truth": "y"}\n')
    return p


def _folder(tmp: Path) -> Path:
    (tmp / "folder.jsonl").mkdir()
    return tmp / "folder.jsonl"


def _unreadable(tmp: Path) -> Path:
    p = _jsonl(tmp / "secret.jsonl", {"answer": "x"})
    p.chmod(0)
    return p


def _rgz(tmp: Path) -> Path:  # gzip without the .gz name: read by its magic bytes
    p = tmp / "packed.jsonl"
    p.write_bytes(gzip.compress(b'{"id": "a", "answer": "x", "ground_truth": "x"}\n'))
    return p


IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0

CASES = [
    # --- read correctly
    Case("utf16_bom.jsonl", ids=QA_IDS),
    Case("utf16_no_bom.jsonl", ids=QA_IDS),
    Case("utf8_bom.csv", ids=QA_IDS),
    Case("gzipped.jsonl.gz", ids=QA_IDS),
    Case("crlf.jsonl", ids=QA_IDS),
    Case("crlf.csv", ids=QA_IDS),
    Case("tab_separated.csv", ids=QA_IDS),
    Case("semicolon_separated.csv", ids=QA_IDS),
    Case("null_ids.jsonl", ids=["1", "2"]),
    Case("packed.jsonl", ids=["a"], make=_rgz),
    # --- encodings and bytes
    Case("latin1.jsonl", ("line 2, column 68", "Latin-1", "iconv -f latin1 -t utf-8")),
    Case("gbk.jsonl", ("line 1", "GB18030", "iconv -f gb18030 -t utf-8")),
    Case("binary.jsonl", ("does not look like text", "Fix:")),
    Case("excel.csv", ("Excel", "save the sheet as CSV")),
    Case("corrupt.jsonl.gz", ("cannot be read", "gzip -t")),
    Case("nul_bytes.jsonl", ("line 2, column 27", "NUL byte", "tr -d")),
    Case("nul_bytes.csv", ("line 3, column 6", "NUL byte", "tr -d")),
    Case("nul_escape.jsonl", ("line 1, field 'answer'", "NUL character", "Fix:")),
    Case("lone_surrogate.jsonl", ("line 2, field 'answer'", "lone surrogate", "Fix:")),
    # --- empty and wrong shapes
    Case("empty.jsonl", ("empty (0 bytes)", "Fix:")),
    Case("blank_lines.jsonl", ("no rows", "Fix:")),
    Case("empty_array.json", ("no rows", "Fix:")),
    Case("header_only.csv", ("no rows", "only a CSV header", "Fix:")),
    Case("object.json", ("one JSON object", "'data'", "jq '.data'")),
    Case("scalar.json", ("not an array of rows", "Fix:")),
    Case("broken_array.json", ("line 3, column 25", "invalid JSON", "Fix:")),
    Case("array_row_problems.json", ("item 2, field 'answer': missing",
                                     "item 3, field 'id': duplicate id 'a' (also on item 1)")),
    Case("array_non_objects.json", ("item 2", "item 3", "got a string", "Fix:")),
    Case("pretty_printed.jsonl", ("line 1", "multi-line JSON document", "jq -c")),
    Case("line_not_object.jsonl", ("line 2: expected a JSON object, got an array",
                                   "line 3", "line 4", "Fix:")),
    Case("decode_column.jsonl", ("line 3: invalid JSON", "column 29", "Fix:")),
    Case("trailing_garbage.jsonl", ("line 1: invalid JSON", "Extra data", "Fix:")),
    Case("single_quotes.jsonl", ("line 1: invalid JSON", "column 2", "Fix:")),
    Case("deep.json", ("nested too deeply", "Fix:"), make=_deep_json),
    Case("deep.jsonl", ("line 2", "nested too deeply", "Fix:"), make=_deep_jsonl),
    Case("nested.jsonl", ("line 1, field 'meta", "nested more than 100 levels", "Fix:"),
         make=_nested_200),
    Case("big_field.csv", ("line 3, field 'answer'", "140,000 characters",
                           "over the limit of 100,000", "--max-field-chars",
                           "--long-fields truncate"), make=_big_csv_field),
    Case("long_line.jsonl", ("line 2, field 'context'", "1,000,000 characters", "Fix:"),
         make=_long_jsonl_line),
    Case("bigint_id.jsonl", ("line 2, field 'id'", "5,000 digits", "write it as a string"),
         make=_bigint_id),
    Case("nan_infinity.jsonl", ("line 1, field 'score': nan", "line 2, field 'score': -inf",
                                "line 3, field 'score': inf", "Fix:")),
    # --- CSV structure
    Case("duplicate_header.csv", ("line 1", "column 'answer' appears 2 times", "columns 2, 4",
                                  "Fix:")),
    Case("unbalanced_quote.csv", ("line 3", "never closed", "unbalanced", "Fix:")),
    Case("cr_line_ends.csv", ("line 1", "old Mac line ends", "tr '\\r' '\\n'")),
    Case("cr_line_ends.jsonl", ("line 1", "old Mac line ends", "tr '\\r' '\\n'")),
    Case("bad_quote.csv", ("line 2", "bad CSV quoting", "Fix:")),
    Case("ragged.csv", ("line 3: 2 values", "no value for 'answer'", "line 4: 5 values",
                        "Fix:")),
    Case("nameless_column.csv", ids=["a"]),  # pandas' index column
    Case("two_nameless_columns.csv", ("line 2", "column 5", "no name", "Fix:")),
    # --- fields
    Case("answer_and_response_differ.jsonl", ("line 2", "'answer' and 'response'",
                                               "--map answer=")),
    Case("messages_not_list.jsonl", ("line 1, field 'messages'", "got str", "Fix:")),
    Case("messages_items_strings.jsonl", ("line 1, field 'messages[0]'", "messages[1]",
                                          "Fix:")),
    Case("unknown_role.jsonl", ("line 1, field 'messages[1].role'", "\"bot\"", "user",
                                "Fix:")),
    Case("assistant_without_content.jsonl", ("line 1, field 'messages[1].content'", "missing",
                                             "Fix:")),
    Case("tool_calls_malformed.jsonl", ("line 1, field 'messages[1].tool_calls'",
                                        "expected a list of tool calls", "Fix:")),
    Case("id_float_bool.jsonl", ("line 1, field 'id'", "float", "line 2, field 'id'", "bool",
                                 "Fix:")),
    Case("duplicate_ids.jsonl", ("line 2, field 'id'", "duplicate id 'a'", "line 1", "Fix:")),
    Case("context_number.jsonl", ("line 1, field 'context'", "got int", "Fix:")),
    Case("answer_number.jsonl", ("line 1, field 'answer'", "got int", "Fix:")),
    Case("markup_in_values.jsonl", ("line 1, field 'messages[0].role'", "[/bold]")),
    # --- paths
    Case("unknown_extension.txt", ("unknown kind of file", ".txt", "rename")),
    Case("folder.jsonl", ("is a folder", "Fix:"), make=_folder),
    Case("missing.jsonl", ("file not found", "Fix:"), make=lambda tmp: tmp / "missing.jsonl"),
    Case("secret.jsonl", ("permission denied", "chmod"), make=_unreadable,
         marks=[pytest.mark.skipif(IS_ROOT, reason="root reads any file")]),
]


@pytest.fixture
def judge_calls(judge_calls: list[object], monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """conftest's ``judge_calls``, with a console wide enough for whole messages."""
    monkeypatch.setenv("COLUMNS", "300")
    monkeypatch.setenv("NO_COLOR", "1")
    return judge_calls


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name, marks=c.marks) for c in CASES])
def test_every_bad_input_is_refused_with_a_named_message_or_read(
        case: Case, tmp_path: Path, judge_calls: list[object]) -> None:
    path = case.make(tmp_path) if case.make else CORPUS / case.name
    out = tmp_path / "out"
    result = CliRunner().invoke(app, [
        "run", str(path), "--metrics", "f1_score,fluency", "--judge", "fake", "--no-cache",
        "--no-store", "--no-progress", "--out", str(out)])
    output = result.output
    assert "Traceback" not in output
    assert result.exception is None or isinstance(result.exception, SystemExit), output
    if case.ids is not None:
        assert result.exit_code == 0, output
        records = [json.loads(x) for x in (out / "results.jsonl").read_text().split("\n") if x]
        assert [r["id"] for r in records] == case.ids
        return
    assert result.exit_code == 2, output
    assert not judge_calls
    assert not (out / "results.jsonl").exists()
    flat = " ".join(output.split())
    assert str(path) in flat
    for needle in case.needles:
        assert needle in flat, f"{needle!r} not in: {flat}"


def test_every_corpus_file_has_a_case() -> None:
    named = {c.name for c in CASES}
    assert sorted(p.name for p in CORPUS.iterdir() if p.name not in named) == []


def test_all_problems_of_a_file_are_in_one_message(tmp_path: Path) -> None:
    p = tmp_path / "many.jsonl"
    p.write_text('{"id": "a", "answer": "ok"}\n'
                 '{"id": "b", "answer": }\n'
                 '{"id": "c", "answer": "x", "response": "y"}\n'
                 '{"id": "d", "answer": "bad \\ud800"}\n'
                 '{"id": "e", "answer": NaN}\n'
                 '{"id": "a", "answer": "dup"}\n')
    with pytest.raises(DataError) as exc:
        read_dataset(p)
    lines = [f"line {n}" for n in (2, 3, 4, 5, 6)]
    assert len(exc.value.problems) == 5
    for line, problem in zip(lines, exc.value.problems, strict=True):
        assert line in problem and "Fix:" in problem


def test_a_flood_of_problems_lists_the_first_200_and_counts_the_rest(tmp_path: Path) -> None:
    p = tmp_path / "flood.jsonl"
    p.write_text("not json\n" * 1000)
    with pytest.raises(DataError) as exc:
        DatasetStream(p).check()
    assert len(exc.value.problems) == 201
    assert "800 more problems" in exc.value.problems[-1]


def test_a_problem_on_every_row_lists_200_and_keeps_only_those(tmp_path: Path) -> None:
    p = tmp_path / "wrong_column.csv"
    p.write_text("id,output\n" + "".join(f"r{i},x\n" for i in range(20_000)))
    with pytest.raises(DataError) as exc:
        DatasetStream(p).check()
    assert len(exc.value.problems) == 201
    assert "line 2, field 'answer': missing" in exc.value.problems[0]
    assert "19,800 more problems" in exc.value.problems[-1]


def test_latin1_counts_the_other_lines_after_naming_the_first(tmp_path: Path) -> None:
    p = tmp_path / "l.jsonl"
    p.write_bytes("".join(json.dumps({"answer": f"café {i}"}, ensure_ascii=False) + "\n"
                          for i in range(10)).encode("latin-1"))
    with pytest.raises(DataError) as exc:
        read_dataset(p)
    first, rest = exc.value.problems
    assert "line 1, column 16" in first and "iconv -f latin1" in first
    assert "9 more lines are not UTF-8" in rest


# --- max_field_chars ------------------------------------------------------------------------


def test_long_fields_are_refused_by_default_naming_line_field_and_length(tmp_path: Path) -> None:
    p = _jsonl(tmp_path / "d.jsonl", {"answer": "ok"}, {"answer": "x" * 101})
    with pytest.raises(DataError) as exc:
        read_dataset(p, max_field_chars=100)
    (problem,) = exc.value.problems
    assert f"{p} line 2, field 'answer': 101 characters, over the limit of 100" in problem
    assert read_dataset(p, max_field_chars=101)[1].answer == "x" * 101


def test_long_fields_can_be_truncated_with_one_warning(tmp_path: Path,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    p = _jsonl(tmp_path / "d.jsonl",
               {"id": "a", "answer": "x" * 50, "contexts": ["c" * 60, "short"]},
               {"id": "b", "messages": [{"role": "user", "content": "u" * 70},
                                        {"role": "assistant", "content": "ok"}]})
    stream = DatasetStream(p, max_field_chars=10, long_fields="truncate")
    with caplog.at_level("WARNING", logger="assay.data"):
        assert stream.check() == 2
    assert stream.truncated == 3
    (warning,) = [r.getMessage() for r in caplog.records]
    assert "3 fields longer than 10 characters truncated" in warning
    assert "line 1, field 'answer'" in warning
    a, b = list(stream)
    assert (a.answer, a.contexts) == ("x" * 10, ["c" * 10, "short"])
    assert b.messages is not None and b.messages[0].content == "u" * 10


def test_truncate_never_cuts_an_id(tmp_path: Path) -> None:
    p = _jsonl(tmp_path / "d.jsonl", {"id": "i" * 20, "answer": "x"})
    with pytest.raises(DataError, match="field 'id': 20 characters"):
        read_dataset(p, max_field_chars=10, long_fields="truncate")


def test_csv_field_over_pythons_csv_limit_is_read_when_allowed(tmp_path: Path) -> None:
    p = _big_csv_field(tmp_path)
    rows = read_dataset(p, max_field_chars=200_000)
    assert len(rows[1].answer or "") == 140_000
    cut = read_dataset(p, long_fields="truncate")
    assert len(cut[1].answer or "") == 100_000


def test_limits_apply_to_in_memory_records_and_bad_options_say_what_is_allowed() -> None:
    with pytest.raises(DataError, match="item 1|line 1, field 'answer': 6 characters"):
        rows_from_records([{"answer": "abcdef"}], max_field_chars=5)
    with pytest.raises(ConfigError, match="Must be one of: refuse, truncate"):
        rows_from_records([{"answer": "a"}], long_fields="cut")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="max_field_chars=0"):
        DatasetStream(CORPUS / "crlf.jsonl", max_field_chars=0)


def test_in_memory_records_get_the_same_value_checks() -> None:
    with pytest.raises(DataError) as exc:
        rows_from_records([{"answer": "a\ud800"}, {"answer": "b", "n": float("inf")},
                           {"id": 10**5000, "answer": "c"}])
    text = str(exc.value)
    assert "line 1, field 'answer': holds a lone surrogate" in text
    assert "line 2, field 'n': inf" in text
    assert "line 3, field 'id': an integer of over 4,300 digits" in text


# --- fuzzing: mutated corpus files and random record shapes never raise anything else ------


def test_mutated_corpus_files_give_a_data_error_or_rows(tmp_path: Path) -> None:
    rng = random.Random(15)
    files = sorted(CORPUS.iterdir())
    for i in range(300):
        src = rng.choice(files)
        data = bytearray(src.read_bytes())
        for _ in range(rng.randint(1, 6)):
            at = rng.randrange(len(data) + 1)
            if not data or rng.random() < 0.4:
                data.insert(at, rng.choice(b'{}[]",:\n\r\\\x00\xff\xfeu0d8'))
            elif at < len(data):
                del data[at]
        p = tmp_path / f"m{i}{''.join(src.suffixes)}"
        p.write_bytes(bytes(data))
        try:
            stream = DatasetStream(p)
            assert len(list(stream)) == stream.check()
        except DataError as e:
            assert e.problems and all(str(p) in x for x in e.problems), e


def test_random_record_shapes_give_a_data_error_or_rows() -> None:
    rng = random.Random(15)
    keys = ["id", "question", "answer", "response", "context", "contexts", "ground_truth",
            "messages", "conversation", "role", "content", "citations", "title", "x", ""]

    def value(depth: int = 0) -> Any:
        r = rng.random()
        if depth > 4 or r < 0.35:
            return rng.choice([None, True, 0, 1.5, 10**30, "", "text", "\u2028", [], {}])
        if r < 0.6:
            return [value(depth + 1) for _ in range(rng.randint(0, 3))]
        return {rng.choice(keys): value(depth + 1) for _ in range(rng.randint(0, 4))}

    for _ in range(500):
        records = [{rng.choice(keys): value() for _ in range(rng.randint(0, 5))}
                   for _ in range(rng.randint(1, 3))]
        try:
            rows = rows_from_records(records)
        except DataError as e:
            assert e.problems
        else:
            assert len(rows) == len(records)
