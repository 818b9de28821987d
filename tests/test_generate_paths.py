"""assay generate and the paths it is given: a loop of links in the documents folder is named in
one line (never a traceback), a file name holding terminal escapes is printed escaped (by
``assay run`` too), ``--out`` inside the documents folder is never read back as a document,
and ``--out`` naming a folder is one error naming the fix."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli.main import app
from assay.judges import FakeJudge
from generation_judge import generation_judge

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "docs"
ESCAPE = "\x1b]0;pwned\x07"  # sets a terminal's window title
OPTIONS = ["--embeddings", "none", "--no-cache", "--no-progress"]


def _invoke(args: list[str], monkeypatch: pytest.MonkeyPatch,
            judge: FakeJudge | None = None) -> Any:
    if judge is not None:
        monkeypatch.setattr("assay.calls._open.make_judge",
                            lambda spec, timeout: judge)
    return CliRunner().invoke(app, args, env={"COLUMNS": "200", "NO_COLOR": "1"})


def _docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLES, docs)
    return docs


def test_a_loop_of_links_in_the_folder_is_named_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = _docs(tmp_path)
    os.symlink("loop2", docs / "loop1")
    os.symlink("loop1", docs / "loop2")
    (docs / "sub").mkdir()
    os.symlink("..", docs / "sub" / "up")
    monkeypatch.chdir(tmp_path)
    result = _invoke(["generate", "docs", "--out", "qa.jsonl", "--n", "2", *OPTIONS],
                     monkeypatch, generation_judge())
    assert result.exit_code == 0, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert ("warning: skipped docs/loop1: a loop of symbolic links: loop1 -> loop2 -> loop1"
            in result.output)
    assert "warning: skipped docs/sub/up: a link back to a folder it is in (up -> ..)" in (
        result.output)
    assert "Traceback" not in result.output
    manifest = json.loads((tmp_path / "qa.run.json").read_text())
    assert set(manifest["documents"]) == {"alquiler.html", "care-ja.md", "lamp-faq.md",
                                          "returns-zh.txt"}
    named = _invoke(["generate", "docs/loop1", "--out", "b.jsonl", *OPTIONS], monkeypatch,
                    generation_judge())
    assert named.exit_code == 2, named.output
    assert "docs/loop1: a loop of symbolic links: loop1 -> loop2 -> loop1." in named.output


def test_a_link_to_a_folder_outside_is_followed(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "docs").mkdir()
    os.symlink(EXAMPLES, tmp_path / "docs" / "examples")
    monkeypatch.chdir(tmp_path)
    result = _invoke(["generate", "docs", "--out", "qa.jsonl", "--n", "2", *OPTIONS],
                     monkeypatch, generation_judge())
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "qa.run.json").read_text())
    assert "examples/lamp-faq.md" in manifest["documents"]


def test_file_names_with_terminal_escapes_are_printed_escaped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = _docs(tmp_path)
    (docs / f"empty{ESCAPE}.txt").write_text("")
    monkeypatch.chdir(tmp_path)
    bad = _invoke(["generate", "docs", "--out", "qa.jsonl", *OPTIONS], monkeypatch,
                  generation_judge())
    assert bad.exit_code == 2, bad.output
    assert "\x1b" not in bad.output and "\x07" not in bad.output
    assert "docs/empty\\x1b]0;pwned\\x07.txt: the file is empty" in bad.output
    (docs / f"empty{ESCAPE}.txt").unlink()
    made = _invoke(["generate", "docs", "--out", f"qa{ESCAPE}.jsonl", "--n", "2", *OPTIONS],
                   monkeypatch, generation_judge())
    assert made.exit_code == 0, made.output
    assert "\x1b" not in made.output
    assert "rows: qa\\x1b]0;pwned\\x07.jsonl" in made.output
    # assay run prints the dataset's and the output folder's names the same way
    dataset = tmp_path / f"rows{ESCAPE}.jsonl"
    dataset.write_text('{"question": "q", "answer": "Paris", "ground_truth": "Paris"}\n')
    ran = _invoke(["run", dataset.name, "--metrics", "exact_match", "--no-store", "--out",
                   f"run{ESCAPE}"], monkeypatch)
    assert ran.exit_code == 0, ran.output
    assert "\x1b" not in ran.output and "results: run\\x1b]0;pwned\\x07/results.jsonl" in (
        ran.output)
    dataset.write_text("not json\n")
    broken = _invoke(["run", dataset.name, "--metrics", "exact_match", "--no-store"],
                     monkeypatch)
    assert broken.exit_code == 2, broken.output
    assert "\x1b" not in broken.output and "rows\\x1b]0;pwned\\x07.jsonl line 1" in (
        broken.output)


def test_out_inside_the_documents_folder_is_not_read_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = _docs(tmp_path)
    args = ["generate", str(docs), "--out", str(docs / "qa.jsonl"), "--n", "4", *OPTIONS]
    assert _invoke(args, monkeypatch, generation_judge()).exit_code == 0
    rows = (docs / "qa.jsonl").read_bytes()
    resumed = _invoke([*args, "--resume"], monkeypatch, generation_judge())
    assert resumed.exit_code == 0, resumed.output
    assert (docs / "qa.jsonl").read_bytes() == rows
    summary = json.loads((docs / "qa.summary.json").read_text())
    assert summary["documents"]["read"] == 4
    assert {"path": f"{docs.as_posix()}/qa.jsonl", "why": "this run's output"} in (
        summary["documents"]["skipped"])
    named = _invoke(["generate", str(docs / "lamp-faq.md"), str(docs / "qa.jsonl"), "--out",
                     str(docs / "qa.jsonl"), "--resume", *OPTIONS], monkeypatch,
                    generation_judge())
    assert named.exit_code == 2, named.output
    assert "qa.jsonl: this run's output, not a document." in named.output


@pytest.mark.parametrize("out", ["existing", "existing/", "new/"])
def test_out_naming_a_folder_is_one_error_naming_the_fix(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, out: str) -> None:
    (tmp_path / "existing").mkdir()
    monkeypatch.chdir(tmp_path)
    result = _invoke(["generate", str(EXAMPLES), "--out", out, *OPTIONS], monkeypatch,
                     generation_judge())
    assert result.exit_code == 2, result.output
    folder = out.rstrip("/")
    assert (f"error: Got --out {out}, a folder. It names the rows' JSONL file" in
            result.output)
    assert f"Fix: name a file, e.g. --out {folder}/qa.jsonl." in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["existing"]
    assert not any((tmp_path / "existing").iterdir())
