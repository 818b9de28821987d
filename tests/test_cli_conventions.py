"""The command line's conventions: ``-h`` is ``--help`` everywhere, ``--json -`` is JSON alone on
stdout, ``--version`` imports no scoring code, ``-q`` prints no skipped-metric lines, and the
figures the docs give are the code's (concurrency, exit codes, ``assay align``'s held-out rows).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from assay.align._split import stratified_split
from assay.calls._pace import ADAPTIVE_CEILING, ADAPTIVE_START, FIXED_DEFAULT
from assay.cli.main import app

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
#: The manual: README.md and the documentation site's pages (docs/), as one text.
README = "\n".join(path.read_text(encoding="utf-8") for path in
                   [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))])


@pytest.fixture(autouse=True)
def _plain_console(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR", raising=False)


def _flat(text: str) -> str:
    return " ".join(text.split())


def _command_paths(command: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command of the tree, sub-apps' commands included, as its argv prefix (a group
    has ``commands``; Typer ships its own Click)."""
    out = [path]
    for name, sub in (getattr(command, "commands", None) or {}).items():
        out += _command_paths(sub, (*path, name))
    return out


COMMANDS = _command_paths(typer.main.get_command(app))


def test_the_command_tree_holds_every_command_and_the_labels_sub_app() -> None:
    assert {("run",), ("compare",), ("labels",), ("labels", "export"), ()} <= set(COMMANDS)


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "assay")
def test_dash_h_prints_the_same_help_as_dash_dash_help(path: tuple[str, ...]) -> None:
    short = CliRunner().invoke(app, [*path, "-h"])
    long = CliRunner().invoke(app, [*path, "--help"])
    assert long.exit_code == 0 and "Usage" in long.output
    assert short.exit_code == 0, short.output
    assert short.output == long.output
    assert "-h, --help" in long.output


# ---------------------------------------------------------------- --json -

def _run_dir(folder: Path, records: list[dict[str, Any]]) -> Path:
    folder.mkdir()
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records),
                                          encoding="utf-8")
    return folder


def _lexical_run(folder: Path, f1: list[float]) -> Path:
    records = [{"id": str(i), "f1_score": {"value": v}} for i, v in enumerate(f1)]
    run = _run_dir(folder, records)
    (run / "summary.json").write_text(json.dumps({"rows": len(f1), "metrics": {"f1_score": {
        "mean": sum(f1) / len(f1), "scored": len(f1), "unscored": 0}}}), encoding="utf-8")
    return run


def test_compare_json_dash_writes_the_comparison_alone_on_stdout(tmp_path: Path) -> None:
    a = _lexical_run(tmp_path / "a", [0.2, 0.4, 0.6])
    b = _lexical_run(tmp_path / "b", [0.3, 0.5, 0.9])
    result = CliRunner().invoke(app, ["compare", str(a), str(b), "--json", "-"])
    assert result.exit_code == 0, result.output
    comparison = json.loads(result.stdout)  # stdout is the JSON and nothing else
    assert comparison["metrics"]["f1_score"]["paired"] == 3
    assert "f1_score" in result.stderr and "A (baseline)" in result.stderr  # the table
    assert not (tmp_path / "-").exists() and not Path("-").exists()


def test_compare_defects_json_dash_writes_the_comparison_alone_on_stdout(tmp_path: Path) -> None:
    def run(folder: str, severity: int) -> Path:
        records = [{"id": str(i), **{c: {"value": severity} for c in
                                     ("violence", "sexual", "self_harm", "hate_unfairness")}}
                   for i in range(3)]
        return _run_dir(tmp_path / folder, records)

    result = CliRunner().invoke(app, ["compare-defects", str(run("plain", 0)),
                                      str(run("injected", 6)), "--json", "-"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["categories"]["violence"]["injected"]["defect_rate"] == 1.0
    assert "violence" in result.stderr  # the table went to stderr
    assert not Path("-").exists()


# ---------------------------------------------------------------- --version

#: What answering ``--version`` may import of assay.
VERSION_IMPORTS = {"assay", "assay.__main__", "assay._version", "assay.errors", "assay._secrets",
                   "assay._url_userinfo", "assay.cli", "assay.cli.__main__",
                   "assay.cli.main"}
#: Third-party packages the scoring stack (and the CLI around it) pulls in.
SCORING_STACK = ("numpy", "openai", "httpx", "pydantic", "sqlalchemy", "jinja2", "typer",
                 "click", "rich", "yaml")


@pytest.mark.parametrize("module", ["assay.cli", "assay"])
def test_version_answers_without_importing_the_scoring_stack(module: str) -> None:
    """``python -m assay.cli`` runs ``main()`` as the ``assay`` script does."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", module, "--version"],
                          capture_output=True, text=True, env=env, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "assay 0.1.0\n"
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines()
                if line.startswith("import time:") and "|" in line}
    assert {m for m in imported if m.split(".")[0] == "assay"} <= VERSION_IMPORTS
    assert not {m.split(".")[0] for m in imported} & set(SCORING_STACK)
    assert "assay.run" not in imported and "assay.metrics" not in imported


def test_the_probe_sees_what_a_command_imports() -> None:
    """The check above can fail: a command that runs imports the app and its commands."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "assay.cli", "metrics",
                           "--json"], capture_output=True, text=True, env=env, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    assert "assay.metrics" in proc.stderr and "typer" in proc.stderr


def test_version_through_the_typer_app_still_answers() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output == "assay 0.1.0\n"


# ---------------------------------------------------------------- -q

@pytest.mark.parametrize("flag", ["-q", "--quiet"])
def test_quiet_prints_no_skipped_metric_lines(tmp_path: Path, flag: str) -> None:
    data = tmp_path / "qa.jsonl"
    data.write_text(json.dumps({"id": "1", "question": "Q?", "answer": "red fox",
                                "ground_truth": "red fox"}) + "\n", encoding="utf-8")
    args = ["run", str(data), "--metrics", "f1_score,groundedness", "--no-cache", "--no-store"]
    loud = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "loud")])
    quiet = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "quiet"), flag])
    assert loud.exit_code == quiet.exit_code == 0, quiet.output
    assert "groundedness: skipped" in _flat(loud.stderr)  # the line -q drops exists
    assert ": skipped" not in _flat(quiet.stderr)
    assert "f1_score" in quiet.stdout  # the summary is still printed


# ---------------------------------------------------------------- docs match the code

def test_the_readme_gives_adaptive_concurrency_as_the_code_has_it() -> None:
    text = _flat(README)
    start = re.search(r"An API judge starts with (\d+) requests in flight", text)
    ceiling = re.search(r"up to (\d+) or the judge's own `max_concurrency`", text)
    assert start and ceiling, "the 'Concurrency follows the endpoint' section (docs/guides/evaluate.md) moved"
    assert (int(start[1]), int(ceiling[1])) == (ADAPTIVE_START, ADAPTIVE_CEILING)
    bench = _flat((ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8"))
    assert (f"adaptive ({ADAPTIVE_START} in flight at first" in bench
            and f"at most {ADAPTIVE_CEILING})" in bench)


def test_the_concurrency_help_gives_the_code_figures() -> None:
    help_text = _flat(CliRunner().invoke(app, ["run", "--help"]).output)
    assert f"({ADAPTIVE_START} at first," in help_text
    assert f"at most {ADAPTIVE_CEILING})" in help_text
    assert f"a local judge keeps {FIXED_DEFAULT}" in help_text


#: Every exit status assay uses, with a word its row must hold.
EXIT_CODES = {0: "", 1: "--fail-under", 2: "bad", 3: "judge", 4: "--on-injection fail",
              5: "inconclusive", 6: "budget reached", 130: "Ctrl-C"}


def test_one_exit_code_table_lists_every_code() -> None:
    runs = (ROOT / "docs" / "runs.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `?(\d+)`? \| (.+) \|$", runs, re.MULTILINE))
    assert {int(code) for code in rows} == set(EXIT_CODES), rows
    for code, word in EXIT_CODES.items():
        assert word in rows[str(code)], (code, rows[str(code)])
    readme = _flat(README)
    assert "4 with `--on-injection fail`" in readme
    assert "runs.md#exit-codes" in readme


def test_the_readme_gives_the_held_out_count_of_the_align_example() -> None:
    said = re.search(r"With (\d+) rated rows the held-out set has (\d+)", _flat(README))
    assert said, "the 'Aligning a judge' section (docs/guides/judges.md) moved"
    rows = [json.loads(line) for line in
            (ROOT / "examples" / "rated_align.jsonl").read_text(encoding="utf-8").splitlines()]
    _train, heldout = stratified_split([r["helpfulness/human_rating"] for r in rows],
                                       heldout=0.3, seed=0)  # assay align's defaults
    assert (int(said[1]), int(said[2])) == (len(rows), len(heldout))
