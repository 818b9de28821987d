"""The reader registry: a data format is one module plus one registration.

A toy format registered in code (``.rec``: ``field: value`` lines, records separated by blank
lines) is read end to end by ``assay.evaluate`` and ``assay run``, gzipped too, with every bad
line reported by file and line; the example plugin's ``.qa`` reader (``examples/plugin``) joins
through the ``assay.readers`` entry-point group the way an install makes it visible.
"""

from __future__ import annotations

import gzip
import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay import JudgeOptions, evaluate
from assay.cli.main import app
from assay.data import (
    FORMATS,
    READERS,
    DatasetStream,
    ReaderRegistry,
    Source,
    read_dataset,
    reader_for,
    register_reader,
    registered_readers,
)
from assay.errors import ConfigError, DataError
from test_plugins import EXAMPLE, _dist_info, example_plugin_installed

REC = """question: Capital of France?
answer: Paris
ground_truth: Paris

question: Capital of Japan?
answer: Kyoto
ground_truth: Tokyo
"""
QA_MODULE = "assay_answer_length.qa_text"


class RecReader:
    """``.rec`` files: ``field: value`` lines; a blank line ends a record, whose line is its
    first field's."""

    name = "rec"
    suffixes = (".rec",)

    def read(self, source: Source, problems: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
        record: dict[str, Any] = {}
        start, broken = 0, False
        for line, text in source.lines(problems):
            text = text.rstrip("\r\n")
            if not text.strip():
                if record and not broken:  # a record with a bad line is skipped
                    yield start, record
                record, broken = {}, False
                continue
            key, sep, value = text.partition(": ")
            if not sep or not key.isidentifier():
                problems.append(f"{source.path} line {line}: expected 'field: value', got "
                                f"{text!r}. Fix: write a field's name, a colon and a space, "
                                "then its value.")
                broken = True
                continue
            start = start if record else line
            record[key] = value
        if record and not broken:
            yield start, record


@pytest.fixture
def rec() -> Iterator[RecReader]:
    """The ``.rec`` reader, registered for the test only."""
    reader = register_reader(RecReader())
    try:
        yield reader
    finally:
        READERS.unregister("rec")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The example plugin (with its ``qa_text`` reader) visible as an install makes it."""
    monkeypatch.setenv("COLUMNS", "300")
    monkeypatch.setenv("NO_COLOR", "1")
    with example_plugin_installed(tmp_path / "site") as site:
        sys.modules.pop(QA_MODULE, None)
        yield site
        sys.modules.pop(QA_MODULE, None)


def _run(path: Path, tmp_path: Path, metrics: str = "exact_match") -> tuple[int, str, Path]:
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", str(path), "--metrics", metrics, "--judge", "fake",
                                      "--no-cache", "--no-store", "--no-progress", "--out",
                                      str(out)])
    assert "Traceback" not in result.output
    return result.exit_code, " ".join(result.output.split()), out


def test_a_registered_format_is_read_end_to_end_by_evaluate(rec: RecReader,
                                                            tmp_path: Path) -> None:
    path = tmp_path / "capitals.rec"
    path.write_text(REC)
    result = evaluate(path, metrics="exact_match", judge="fake", judging=JudgeOptions(cache=None))
    assert [(r["id"], r["exact_match"]["value"]) for r in result.rows] == [("1", 1.0),
                                                                           ("5", 0.0)]
    assert reader_for(".REC") is rec and FORMATS[".rec"] == "rec"
    assert registered_readers()[".rec"] is rec and READERS.source("rec") == f"registered by {__name__}"


def test_the_cli_reads_a_registered_format_gzipped_too(rec: RecReader, tmp_path: Path) -> None:
    path = tmp_path / "capitals.rec.gz"
    path.write_bytes(gzip.compress(REC.encode("utf-16")))
    code, output, out = _run(path, tmp_path)
    assert code == 0, output
    records = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert [r["exact_match"]["value"] for r in records] == [1.0, 0.0]
    assert [r.question for r in read_dataset(path)] == ["Capital of France?", "Capital of Japan?"]


def test_bad_lines_of_a_registered_format_are_all_named_by_file_and_line(
        rec: RecReader, tmp_path: Path) -> None:
    path = tmp_path / "bad.rec"
    path.write_text("question: Q?\nanswer Paris\n\nquestion: R?\n\u00a0bad\nanswer: x\n"
                    "ground_truth: x\n\nid: 7\nanswer: \x00\n")
    with pytest.raises(DataError) as exc:
        DatasetStream(path).check()
    problems = exc.value.problems
    assert problems[0] == (f"{path} line 2: expected 'field: value', got 'answer Paris'. Fix: "
                           "write a field's name, a colon and a space, then its value.")
    assert problems[1].startswith(f"{path} line 5: expected 'field: value'")
    # the value checks every record gets, whatever its format: line, field, fix
    assert problems[2].startswith(f"{path} line 9, field 'answer': holds a NUL character")
    assert len(problems) == 3
    code, output, out = _run(path, tmp_path)
    assert code == 2 and f"{path} line 2: expected 'field: value'" in output
    assert not (out / "results.jsonl").exists()


def test_an_unknown_suffix_lists_every_registered_one_and_keeps_the_parquet_hint(
        rec: RecReader, tmp_path: Path) -> None:
    path = tmp_path / "rows.yaml"
    path.write_text("question: Q?\n")
    with pytest.raises(DataError) as exc:
        read_dataset(path)
    assert exc.value.problems[0].startswith(
        f"{path}: unknown kind of file (.yaml). Must be one of .jsonl, .ndjson, .json, .csv, "
        ".tsv, .rec (optionally .gz). Fix: rename it")
    parquet = tmp_path / "rows.parquet"
    parquet.write_bytes(b"PAR1" + b"\x00" * 64)
    with pytest.raises(DataError, match=r"a Parquet file, not a text file of a format read here "
                                        r"\(\.jsonl, .*\.rec \(optionally \.gz\)\)\. Fix: convert "
                                        r"it to JSONL, e\.g\. with pandas: pd\.read_parquet"):
        read_dataset(parquet)
    parquet.write_text("not really parquet\n")
    with pytest.raises(DataError, match=r"unknown kind of file \(\.parquet\)\..*pd\.read_parquet"):
        read_dataset(parquet)


def test_register_reader_refuses_what_is_taken_or_missing() -> None:
    class Csv2(RecReader):
        name = "csv2"
        suffixes = (".CSV",)

    with pytest.raises(ConfigError, match=r"Suffix '\.csv' is already read by reader 'csv' "
                                          r"\(built-in\)\. Pass replace=True"):
        register_reader(Csv2())
    assert "csv2" not in {r.name for r in registered_readers().values()}
    with pytest.raises(ConfigError) as exc:
        register_reader(object())  # type: ignore[arg-type]
    assert str(exc.value) == (
        "Got a object, not a reader: it needs a name that is a Python identifier (got None); "
        "suffixes such as ('.txt',): one dot each, not '.gz' (got None); a read(source, "
        "problems) method (see assay.data.Reader).")
    with pytest.raises(ConfigError, match=r"not '\.gz'"):
        register_reader(type("Gz", (RecReader,), {"suffixes": (".gz",)})())


def test_replace_moves_a_suffix_on_purpose_and_unregister_frees_it() -> None:
    registry = ReaderRegistry(group="assay.no-such-group")
    registry.register(RecReader())

    class Rec2(RecReader):
        name = "rec2"
        suffixes = (".rec", ".rec2")

    with pytest.raises(ConfigError, match=r"Suffix '\.rec' is already read by reader 'rec'"):
        registry.register(Rec2())
    registry.register(Rec2(), replace=True)
    assert {s: r.name for s, r in registry.readers().items()} == {".rec": "rec2",
                                                                  ".rec2": "rec2"}
    registry.unregister("rec2")
    assert registry.for_suffix(".rec") is None and registry.suffixes() == []


class _Boom(RecReader):
    name = "boom"
    suffixes = (".boom",)

    def read(self, source: Source, problems: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
        yield 1, {"answer": "a", "ground_truth": "a"}
        raise RuntimeError("the parser broke")


class _NotDicts(RecReader):
    name = "notdicts"
    suffixes = (".nd",)

    def read(self, source: Source, problems: list[str]) -> Iterator[Any]:
        yield 1, ["answer", "a"]


_FIX = "Fix: upgrade the reader, or ask its authors; convert the file to JSONL meanwhile."


@pytest.mark.parametrize(("reader", "says"), [
    (_Boom(), ("the 'boom' reader (registered by test_readers) failed after line 1 "
               f"(RuntimeError: the parser broke). {_FIX}")),
    (_NotDicts(), ("the 'notdicts' reader (registered by test_readers) gave (1, a list), not "
                   f"(line, dict). {_FIX}")),
])
def test_a_reader_that_fails_is_a_problem_naming_it_never_a_traceback(
        reader: RecReader, says: str, tmp_path: Path) -> None:
    register_reader(reader)
    try:
        path = tmp_path / f"x{reader.suffixes[0]}"
        path.write_text("anything\n")
        with pytest.raises(DataError) as exc:
            read_dataset(path)
        assert exc.value.problems == [f"{path}: {says}"]
        code, output, _ = _run(path, tmp_path)
        assert code == 2 and says in output
    finally:
        READERS.unregister(reader.name)


def test_a_plugin_format_is_read_through_its_entry_point_and_imported_only_then(
        site: Path, tmp_path: Path) -> None:
    jsonl = tmp_path / "rows.jsonl"
    jsonl.write_text('{"answer": "a", "ground_truth": "a"}\n')
    assert [r.answer for r in read_dataset(jsonl)] == ["a"]
    assert QA_MODULE not in sys.modules  # a built-in suffix: no plugin imported
    code, output, out = _run(EXAMPLE / "capitals.qa", tmp_path, "exact_match,answer_length")
    assert code == 0, output
    records = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert [(r["id"], r["exact_match"]["value"]) for r in records] == [
        ("2", 1.0), ("3", 0.0), ("4", 1.0)]
    assert QA_MODULE in sys.modules
    assert READERS.source("qa_text") == "assay-answer-length 0.1.0"
    assert FORMATS[".qa"] == "qa_text" and ".qa" in list(FORMATS)
    bad = tmp_path / "bad.qa"
    bad.write_text("Capital of Peru?\tLima\tLima\nno tab here\n")
    code, output, _ = _run(bad, tmp_path)
    assert code == 2
    assert (f"{bad} line 2: 1 field, expected 2 or 3 (question, answer, ground truth). Fix: "
            "separate them with one tab each.") in output


def test_plugins_claiming_a_taken_suffix_or_broken_are_skipped_naming_them(
        site: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (site / "assay_csv_clash.py").write_text(
        "class Reader:\n    name = 'csv_fast'\n    suffixes = ('.csv', '.csvx')\n\n"
        "    def read(self, source, problems):\n        return iter(())\n")
    _dist_info(site, "assay-csv-clash", "1.0", {"assay.readers": {
        "csv_fast": "assay_csv_clash:Reader", "missing": "assay_no_such_module:Reader",
        "json": "assay_csv_clash:Reader"}})
    try:
        path = tmp_path / "rows.yaml"
        path.write_text("x\n")
        with caplog.at_level(logging.WARNING, logger="assay"), pytest.raises(DataError) as exc:
            read_dataset(path)
        text = "\n".join(exc.value.problems)
        assert ".qa (optionally .gz)" in text and ".csvx" not in text
        assert ("Suffix '.csv' is claimed by built-in and by assay-csv-clash 1.0: the plugin "
                "'csv_fast' is refused (a plugin never replaces another reader)") in text
        assert ("Plugin 'missing' cannot be imported (ModuleNotFoundError: No module named "
                "'assay_no_such_module')") in text
        assert "Reader 'json' is claimed by built-in and by assay-csv-clash 1.0" in text
        warned = [r.getMessage() for r in caplog.records if "reader plugin" in r.getMessage()]
        assert len(warned) == 3
        csv = tmp_path / "rows.csv"
        csv.write_text("answer,ground_truth\na,a\n")
        assert [r.answer for r in read_dataset(csv)] == ["a"]  # still the built-in reader
        assert reader_for(".qa") is not None and reader_for(".qa").name == "qa_text"
    finally:
        sys.modules.pop("assay_csv_clash", None)


def test_the_reader_in_the_docs_is_the_example_plugins_tested_one() -> None:
    docs = (EXAMPLE.parents[1] / "docs" / "plugins.md").read_text(encoding="utf-8")
    block = docs.split("## A data format")[1].split("```python\n")[1].split("```")[0]
    module = (EXAMPLE / "src" / "assay_answer_length" / "qa_text.py").read_text(encoding="utf-8")
    assert "class QaTextReader" in block and block in module


class _Unescaping(RecReader):
    """One ``answer`` per line, with its backslash escapes decoded (so it may make a lone
    surrogate that no decoded file text holds)."""

    name = "unescaping"
    suffixes = (".esc",)

    def read(self, source: Source, problems: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
        for line, text in source.lines(problems):
            yield line, {"answer": text.strip().encode().decode("unicode_escape"),
                         "ground_truth": "x"}


def test_lone_surrogates_are_found_whichever_reader_made_them(tmp_path: Path) -> None:
    register_reader(_Unescaping())
    try:
        path = tmp_path / "x.esc"
        path.write_text("ok\nbad \\ud800\n")
        with pytest.raises(DataError) as exc:
            read_dataset(path)
        assert exc.value.problems == [(
            f"{path} line 2, field 'answer': holds a lone surrogate '\\ud800' at character 5, "
            "which is not valid Unicode. Fix: remove it, or write the whole character (both "
            "halves of its pair).")]
    finally:
        READERS.unregister("unescaping")
    array = tmp_path / "rows.json"  # a built-in reader that checks its own records
    array.write_text('[{"answer": "ok"}, {"answer": "x", "m\\udc00": ["\\ud83d"]}]')
    with pytest.raises(DataError) as exc:
        read_dataset(array)
    assert [p.split(": ")[0] for p in exc.value.problems] == [
        f"{array} item 2, field 'm\\udc00'", f"{array} item 2, field 'm\\udc00[0]'"]
