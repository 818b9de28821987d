"""assay generate (the command and its files): resume after a crash asks only for what is
missing, a resume with other settings and an existing output are refused, a judge whose calls
all fail exits 3, bad input exits 2 with one message, Ctrl-C exits 130 keeping what was written,
and the commands of docs/guides/generate.md run."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli.main import app
from assay.errors import ConfigError, JudgeError
from assay.generate import generate
from assay.judges import FakeJudge, JudgeRequest
from generation_judge import GenerationJudge, generation_judge

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "docs"


def _generated(judge: FakeJudge) -> int:
    """How many candidates the judge was asked to write."""
    return sum(r.schema_name.startswith("generated_") for r in judge.requests)


class _CrashAfter:
    """The scripted judge, crashing (a bug, a killed process) at the ``k``-th request to write
    a candidate."""

    def __init__(self, k: int) -> None:
        self.k, self.seen, self.script = k, 0, GenerationJudge()

    def __call__(self, request: JudgeRequest) -> str | Exception:
        if request.schema_name.startswith("generated_"):
            self.seen += 1
            if self.seen == self.k:
                raise RuntimeError("the process died")
        return self.script(request)


def test_resume_after_a_crash_asks_only_for_the_rest(tmp_path: Path) -> None:
    options: dict[str, Any] = {"n": 12, "seed": 3, "cache": False, "embeddings": None}
    whole = generation_judge()
    complete = generate([EXAMPLES], out=tmp_path / "whole.jsonl", judge=whole, **options)
    out = tmp_path / "qa.jsonl"
    crashing = FakeJudge(_CrashAfter(6), id="fake:generate", max_concurrency=1)
    with pytest.raises(RuntimeError):
        generate([EXAMPLES], out=out, judge=crashing, concurrency=1, **options)
    written = [json.loads(line) for name in ("qa.jsonl", "qa.rejected.jsonl")
               for line in (tmp_path / name).read_text().splitlines()]
    assert len(written) == 5  # the five finished before the crash
    rest = generation_judge()
    resumed = generate([EXAMPLES], out=out, judge=rest, resume=True, **options)
    assert _generated(rest) == _generated(whole) - 5
    assert out.read_bytes() == (tmp_path / "whole.jsonl").read_bytes()
    assert resumed.rows == complete.rows and resumed.rejected == complete.rejected
    assert (tmp_path / "qa.rejected.jsonl").read_bytes() == (
        tmp_path / "whole.rejected.jsonl").read_bytes()
    # The summary counts what this run used, and all_runs what both runs on the file used.
    assert resumed.summary["judge"]["requests"] == len(rest.requests)
    assert resumed.summary["all_runs"]["runs"] == 2
    assert resumed.summary["all_runs"]["requests"] == len(crashing.requests) + len(rest.requests)
    assert complete.summary["all_runs"]["runs"] == 1


def test_an_existing_run_is_refused_and_a_mismatched_resume_too(tmp_path: Path) -> None:
    out = tmp_path / "qa.jsonl"
    options: dict[str, Any] = {"kinds": "single", "cache": False, "embeddings": None}
    generate([EXAMPLES], out=out, n=2, judge=generation_judge(), **options)
    before = out.read_bytes()
    with pytest.raises(ConfigError, match="already holds a generation run.*resume=True"):
        generate([EXAMPLES], out=out, n=2, judge=generation_judge(), **options)
    with pytest.raises(ConfigError, match=r"n was 2, now 3.*overwrite=True"):
        generate([EXAMPLES], out=out, n=3, judge=generation_judge(), resume=True, **options)
    with pytest.raises(ConfigError, match="seed was 0, now 1"):
        generate([EXAMPLES], out=out, n=2, seed=1, judge=generation_judge(), resume=True,
                 **options)
    assert out.read_bytes() == before
    replaced = generate([EXAMPLES], out=out, n=3, judge=generation_judge(), overwrite=True,
                        **options)
    assert len(replaced.rows) == 3


def test_a_resume_with_changed_documents_names_them(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("The lamp charges in three hours from any USB-C charger.")
    out = tmp_path / "qa.jsonl"
    options: dict[str, Any] = {"n": 1, "kinds": "single", "cache": False, "embeddings": None}
    generate([docs], out=out, judge=generation_judge(), **options)
    (docs / "a.txt").write_text("The lamp charges in two hours from any USB-C charger.")
    with pytest.raises(ConfigError, match="documents changed: a.txt"):
        generate([docs], out=out, judge=generation_judge(), resume=True, **options)


def _invoke(args: list[str], monkeypatch: pytest.MonkeyPatch, judge: FakeJudge | None = None,
            cwd: Path | None = None) -> Any:
    if judge is not None:
        monkeypatch.setattr("assay.calls._open.make_judge",
                            lambda spec, timeout: judge)
    if cwd is not None:
        monkeypatch.chdir(cwd)
    return CliRunner().invoke(app, args, env={"COLUMNS": "160", "NO_COLOR": "1"})


def test_the_command_writes_the_files_and_prints_the_summary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "qa.jsonl"
    result = _invoke(["generate", str(EXAMPLES), "--out", str(out), "--n", "6",
                      "--embeddings", "none", "--no-cache", "--no-progress"], monkeypatch,
                     generation_judge())
    assert result.exit_code == 0, result.output
    assert "assay generate: 6 of 6 rows kept" in result.output
    assert "judge fake:generate:" in result.output and "documents read 4" in result.output
    summary = json.loads((tmp_path / "qa.summary.json").read_text())
    assert summary["kept"] == 6 and summary["documents"]["read"] == 4
    assert summary["judge"]["requests"] > 6 and summary["judge"]["prompt_tokens"] > 0
    manifest = json.loads((tmp_path / "qa.run.json").read_text())
    assert manifest["n"] == 6 and set(manifest["documents"]) == {
        "alquiler.html", "care-ja.md", "lamp-faq.md", "returns-zh.txt"}


def test_a_judge_whose_calls_all_fail_exits_3(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    judge = FakeJudge(GenerationJudge(fail=JudgeError("HTTP 400: the model does not exist")),
                      id="fake:generate")
    result = _invoke(["generate", str(EXAMPLES), "--out", str(tmp_path / "qa.jsonl"), "--n",
                      "3", "--no-cache", "--embeddings", "none"], monkeypatch, judge)
    assert result.exit_code == 3, result.output
    assert "judge failed: the judge calls of all 3 candidates failed" in result.output
    assert "HTTP 400: the model does not exist" in result.output
    assert "Traceback" not in result.output


def test_a_run_that_keeps_no_row_exits_3(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A judge that answers, but never a usable row (here: JSON without the fields asked
    for, as the bench's fake judge gives), produced nothing: exit 3, with why."""
    judge = FakeJudge('{"score": 3}', id="fake:generate")
    result = _invoke(["generate", str(EXAMPLES), "--out", str(tmp_path / "qa.jsonl"), "--n",
                      "2", "--no-cache", "--embeddings", "none"], monkeypatch, judge)
    assert result.exit_code == 3, result.output
    text = " ".join(result.output.split())
    assert "nothing kept: all 6 candidates were rejected (unreadable judge answer 6)" in text
    assert (tmp_path / "qa.jsonl").read_text() == "" and "Traceback" not in result.output


def test_bad_input_exits_2_with_one_message(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "notes.docx").write_bytes(b"PK")
    result = _invoke(["generate", str(tmp_path / "missing"), str(tmp_path / "notes.docx"),
                      "--out", str(tmp_path / "qa.jsonl")], monkeypatch, generation_judge())
    assert result.exit_code == 2, result.output
    assert "2 problems found; nothing was generated." in result.output
    assert "missing: no such file or folder" in result.output
    assert "notes.docx: cannot read a file with suffix .docx" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "qa.jsonl").exists()
    bad = _invoke(["generate", str(EXAMPLES), "--out", str(tmp_path / "qa.jsonl"), "--kinds",
                   "single,essay"], monkeypatch, generation_judge())
    assert bad.exit_code == 2 and "Got --kinds essay" in " ".join(bad.output.split())


def test_an_existing_output_through_the_command(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    args = ["generate", str(EXAMPLES), "--out", str(tmp_path / "qa.jsonl"), "--n", "2",
            "--no-cache", "--embeddings", "none"]
    assert _invoke(args, monkeypatch, generation_judge()).exit_code == 0
    again = _invoke(args, monkeypatch, generation_judge())
    assert again.exit_code == 2
    assert "Fix: --resume to continue it, --overwrite to replace it" in " ".join(
        again.output.split())
    assert _invoke([*args, "--resume"], monkeypatch, generation_judge()).exit_code == 0


def test_ctrl_c_exits_130_and_keeps_what_was_written(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    script = GenerationJudge()
    seen: list[str] = []

    def interrupted(request: JudgeRequest) -> str | Exception:
        if request.schema_name.startswith("generated_"):
            seen.append(request.schema_name)
            if len(seen) == 4:
                raise KeyboardInterrupt
        return script(request)

    out = tmp_path / "qa.jsonl"
    result = _invoke(["generate", str(EXAMPLES), "--out", str(out), "--n", "8", "--no-cache",
                      "--embeddings", "none", "--concurrency", "1"], monkeypatch,
                     FakeJudge(interrupted, id="fake:generate", max_concurrency=1))
    assert result.exit_code == 130, result.output
    assert "rerun the same command with --resume" in " ".join(result.output.split())
    kept = out.read_text().splitlines() + (tmp_path / "qa.rejected.jsonl").read_text().splitlines()
    assert len(kept) == 3


def test_help_works() -> None:
    result = CliRunner().invoke(app, ["generate", "--help"], env={"COLUMNS": "160"})
    assert result.exit_code == 0
    for flag in ("--out", "--n", "--kinds", "--judge", "--seed", "--lang", "--resume",
                 "--overwrite", "--concurrency", "--tpm", "--no-cache", "--timeout"):
        assert flag in result.output


def _readme_generate_commands() -> list[str]:
    section = (ROOT / "docs" / "guides" / "generate.md").read_text(encoding="utf-8")
    return [line.split("#")[0].strip() for line in section.splitlines()
            if line.startswith("assay generate ")]


def test_the_readme_commands_run_with_the_scripted_judge(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    commands = _readme_generate_commands()
    assert len(commands) >= 3 and any("--judge local" in c for c in commands)
    first = shlex.split(commands[0])[1:]
    first = [str(ROOT / a) if a.startswith("examples/") else a for a in first]
    result = _invoke([*first, "--no-cache", "--embeddings", "none"], monkeypatch,
                     generation_judge(), cwd=tmp_path)
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (tmp_path / "qa.jsonl").read_text().splitlines()]
    n = int(re.search(r"--n (\d+)", commands[0]).group(1))  # type: ignore[union-attr]
    assert len(rows) == n and {r["kind"] for r in rows} >= {"single", "conversation"}
    for name in ("qa.rejected.jsonl", "qa.run.json", "qa.summary.json"):
        assert (tmp_path / name).exists()


def test_generated_rows_are_answered_by_the_app_and_scored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The guide's end to end: ``assay generate`` writes rows from the documents, then
    ``assay run --target`` has a toy RAG app over the same documents answer them, and scores
    them (every answerable row gets an answer and an F1 against its ground truth)."""
    out = tmp_path / "qa.jsonl"
    made = _invoke(["generate", str(EXAMPLES), "--out", str(out), "--n", "10",
                    "--embeddings", "none", "--no-cache", "--no-progress"], monkeypatch,
                   generation_judge())
    assert made.exit_code == 0, made.output
    monkeypatch.syspath_prepend(str(ROOT))
    ran = _invoke(["run", str(out), "--target", "python:examples.apps:docs_app", "--judge",
                   "fake", "--metrics", "f1_score", "--out", str(tmp_path / "scored"),
                   "--no-store"], monkeypatch)
    assert ran.exit_code == 0, ran.output
    records = [json.loads(line) for line in
               (tmp_path / "scored" / "results.jsonl").read_text().splitlines()]
    generated = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in records] == [g["id"] for g in generated]
    assert all(r["agent"]["target"] == "python:examples.apps:docs_app" for r in records)
    questions = [r for r, g in zip(records, generated, strict=True)
                 if g["answerable"] and "question" in g]
    assert questions and all(r["agent"]["answer"] for r in questions)
    f1 = [r["f1_score"]["value"] for r in questions]
    assert all(v is not None for v in f1) and max(f1) > 0.3  # it finds some right paragraphs
