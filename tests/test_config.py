"""Option defaults from ``[tool.assay]`` (pyproject.toml) or ``assay.toml``: found from the
current directory up to the repository's root, flags win over them, bad files exit 2 with the
file, line and key, ``-h`` reads nothing, and the run records the file it used.

Each test runs the real command (Typer's CliRunner in a temporary project directory, or a
subprocess) on a two-row dataset scored by ``f1_score`` (no judge, offline, fast).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli.main import app

SRC = Path(__file__).resolve().parents[1] / "src"
#: f1_score 1.0 and 0.0: mean 0.5.
ROWS = [{"id": "1", "answer": "Paris", "ground_truth": "Paris"},
        {"id": "2", "answer": "Rome", "ground_truth": "Paris"}]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository (its root holds ``.git``) with a dataset, as the current directory."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "qa.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    monkeypatch.chdir(root)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "250")
    monkeypatch.delenv("ASSAY_CONFIG", raising=False)
    return root


def assay(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def run(*args: str) -> Any:
    return assay("run", "qa.jsonl", "--no-progress", "--no-cache", "--overwrite", "--judge",
                 "fake", *args)  # a fake judge: fast even when the file is not read


def pyproject(root: Path, settings: str) -> Path:
    path = root / "pyproject.toml"
    path.write_text(f'[project]\nname = "app"\n\n{settings}')
    return path


def config_line(stderr: str) -> str | None:
    return next((line for line in stderr.splitlines() if line.startswith("config: ")), None)


def test_the_top_level_gives_every_command_its_defaults(project: Path) -> None:
    pyproject(project, '[tool.assay]\nmetrics = ["f1_score"]\nfail_under = {f1_score = 0.9}\n')
    r = run()
    assert r.exit_code == 1, r.output  # the bar from the file: 0.5 is under 0.9
    assert "gate failed: f1_score mean 0.5 is under the bar 0.9" in r.stderr
    assert "metrics: f1_score\n" in r.stderr  # not every metric the fields allow
    assert config_line(r.stderr) == "config: pyproject.toml:4 (fail_under, metrics)"
    summary = json.loads((project / "assay-out/qa/summary.json").read_text())
    assert summary["config"] == str(project / "pyproject.toml")


def test_a_flag_wins_over_the_file(project: Path) -> None:
    pyproject(project, '[tool.assay]\nmetrics = ["f1_score"]\nfail_under = {f1_score = 0.9}\n')
    r = run("--fail-under", "f1_score=0.4")
    assert r.exit_code == 0, r.output
    assert config_line(r.stderr) == "config: pyproject.toml:4 (metrics)"


def test_a_commands_table_wins_over_the_top_level_and_takes_any_of_its_options(
        project: Path) -> None:
    pyproject(project, '[tool.assay]\nmetrics = "f1_score"\nfail_under = {f1_score = 0.1}\n\n'
                       '[tool.assay.run]\nfail-under = {f1_score = 0.9}\nno_store = true\n'
                       'out = "gated"\n\n[tool.assay.compare]\ntop = 3\n')
    r = run()
    assert r.exit_code == 1 and "under the bar 0.9" in r.stderr, r.output
    assert (project / "gated" / "summary.json").is_file()  # out from the table
    assert "stored run:" not in r.stderr  # no_store = true
    assert config_line(r.stderr) == "config: pyproject.toml:4 (fail_under, metrics, no_store, out)"


def test_a_bar_table_becomes_the_options_list(project: Path) -> None:
    pyproject(project, '[tool.assay.run]\nmetrics = "f1_score,exact_match"\n'
                       'fail_under = {f1_score = 0.4, exact_match = 0.6}\n')
    r = run()
    assert r.exit_code == 1, r.output
    assert "exact_match mean 0.5 is under the bar 0.6" in r.stderr
    assert "f1_score" not in r.stderr.split("gate failed")[-1]


def test_assay_toml_wins_over_pyproject_in_the_same_directory(project: Path) -> None:
    pyproject(project, '[tool.assay]\nmetrics = "exact_match"\n')
    (project / "assay.toml").write_text('metrics = ["f1_score"]\n')
    r = run()
    assert r.exit_code == 0 and "metrics: f1_score\n" in r.stderr, r.output
    assert config_line(r.stderr) == "config: assay.toml (metrics)"


def test_the_search_goes_up_to_the_repository_root_and_no_further(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "sub" / "dir").mkdir(parents=True)
    (project / "sub" / "dir" / "qa.jsonl").write_text((project / "qa.jsonl").read_text())
    pyproject(project, '[tool.assay]\nmetrics = "f1_score"\n')
    (project / "sub" / "pyproject.toml").write_text('[project]\nname = "no-assay-table"\n')
    monkeypatch.chdir(project / "sub" / "dir")
    r = run()
    assert r.exit_code == 0 and "metrics: f1_score\n" in r.stderr, r.output
    assert config_line(r.stderr) == f"config: {project / 'pyproject.toml'}:4 (metrics)"
    # a config above the repository's root (the directory with .git) is not read
    (project.parent / "assay.toml").write_text('fail_under = {f1_score = 0.9}\n')
    (project / "pyproject.toml").unlink()
    r = run("--metrics", "f1_score")
    assert r.exit_code == 0 and config_line(r.stderr) is None, r.output


def test_config_names_a_file_and_no_config_reads_none(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pyproject(project, '[tool.assay]\nfail_under = {f1_score = 0.9}\nmetrics = "f1_score"\n')
    (project / "ci.toml").write_text('metrics = "f1_score"\n')
    r = run("--config", "ci.toml")
    assert r.exit_code == 0 and config_line(r.stderr) == "config: ci.toml (metrics)", r.output
    summary = json.loads((project / "assay-out/qa/summary.json").read_text())
    assert summary["config"] == str(project / "ci.toml")  # absolute: the log explains itself
    monkeypatch.setenv("ASSAY_CONFIG", "ci.toml")
    r = run()
    assert r.exit_code == 0 and config_line(r.stderr) == "config: ci.toml (metrics)", r.output
    monkeypatch.delenv("ASSAY_CONFIG")
    r = run("--no-config", "--metrics", "f1_score")
    assert r.exit_code == 0 and config_line(r.stderr) is None, r.output
    summary = json.loads((project / "assay-out/qa/summary.json").read_text())
    assert "config" not in summary
    r = run("--no-config", "--config", "ci.toml")
    assert r.exit_code == 2 and "Got --config ci.toml and --no-config" in r.stderr, r.output


def test_no_config_file_leaves_every_command_as_it_was(project: Path) -> None:
    pyproject(project, "[tool.black]\nline-length = 99\n")
    r = run("--metrics", "f1_score", "--fail-under", "f1_score=0.4")
    assert r.exit_code == 0 and config_line(r.stderr) is None, r.output
    assert "config" not in json.loads((project / "assay-out/qa/summary.json").read_text())


def test_a_file_that_does_not_parse_exits_2_naming_its_line_and_column(project: Path) -> None:
    pyproject(project, '[tool.assay]\nmetrics = ["f1_score"\n')
    r = run()
    assert r.exit_code == 2, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)  # no traceback
    assert r.stderr.startswith("error: pyproject.toml:5: does not parse as TOML: Unclosed "
                               "array. ")
    assert "--no-config" in r.stderr
    assert run("--no-config", "--metrics", "f1_score").exit_code == 0  # the way out
    pyproject(project, '[tool.assay]\nmetrics = "f1_score"\nmetrics = "exact_match"\n')
    r = run()
    assert r.exit_code == 2 and r.stderr.startswith(
        "error: pyproject.toml:6:24: does not parse as TOML: Cannot overwrite a value. "), r.stderr


def test_every_problem_of_the_file_is_told_at_once_with_its_line(project: Path) -> None:
    pyproject(project, '[tool.assay]\nfail_under = {f1_score = "high"}\ntreshold = 3\n\n'
                       '[tool.assay.rnu]\nquiet = true\n\n'
                       '[tool.assay.run]\nfail-undr = 3\nquiet = "yes"\nconcurrency = 2.5\n'
                       'max_failed_share = 2\njudge = 5\n')
    r = run()
    assert r.exit_code == 2, r.output
    lines = r.stderr.removeprefix("error: ").split("\n")
    assert lines[0] == ('pyproject.toml:5: tool.assay.fail_under: got f1_score = "high" (a '
                        'string); each bar must be a number, e.g. fail_under = '
                        '{groundedness = 4.0}.')
    assert lines[1].startswith("pyproject.toml:6: unknown key tool.assay.treshold. The top "
                               "level holds judge, metrics, fail_under")
    assert lines[2].startswith("pyproject.toml:8: unknown table [tool.assay.rnu]. Did you "
                               "mean [tool.assay.run]?")
    assert lines[3] == ("pyproject.toml:12: unknown key tool.assay.run.fail-undr. Did you mean "
                        "fail_under? Its keys are the options of `assay run` (see assay run "
                        "-h), with - or _.")
    assert lines[4] == ('pyproject.toml:13: tool.assay.run.quiet: got "yes" (a string); must '
                        'be true or false.')
    assert lines[5] == ("pyproject.toml:14: tool.assay.run.concurrency: got 2.5 (a number); "
                        "must be a whole number.")
    assert lines[6].startswith("pyproject.toml:15: tool.assay.run.max_failed_share: got 2 ")
    assert lines[7] == ("pyproject.toml:16: tool.assay.run.judge: got 5 (a whole number); "
                        "must be a list of strings (or one of them).")
    assert "Traceback" not in r.output


def test_help_reads_no_config_and_shows_the_built_in_defaults(project: Path) -> None:
    pyproject(project, '[tool.assay.run]\nlang = "zh"\n')
    r = assay("run", "-h")
    assert r.exit_code == 0 and "[default: en]" in " ".join(r.output.split()), r.output
    assert "--config" in r.output and "--no-config" in r.output
    pyproject(project, "[tool.assay\n")  # broken: -h still answers
    assert assay("run", "-h").exit_code == 0


def test_compare_takes_the_baseline_from_the_file_unless_given_two_runs(project: Path) -> None:
    assert run("--metrics", "f1_score", "--out", "base", "--no-store").exit_code == 0
    (project / "qa.jsonl").write_text(json.dumps(ROWS[0]) + "\n" + json.dumps(
        {**ROWS[1], "answer": "Paris"}) + "\n")
    assert run("--metrics", "f1_score", "--out", "cand", "--no-store").exit_code == 0
    pyproject(project, '[tool.assay]\nbaseline = "base"\nmax_drop = {f1_score = 0.1}\n')
    r = assay("compare", "cand")  # two rows decide nothing at 0.1: inconclusive (exit 5)
    assert r.exit_code == 5 and "A (baseline): base" in r.stdout, r.output
    assert config_line(r.stderr) == "config: pyproject.toml:4 (baseline, max_drop)"
    r = assay("compare", "cand", "base")  # two runs: the file's baseline is left out
    assert r.exit_code == 5 and "A (baseline): cand" in r.stdout, r.output


def test_the_stored_run_records_the_config_file(project: Path) -> None:
    pyproject(project, '[tool.assay]\nmetrics = "f1_score"\n')
    r = run("--store", "runs.sqlite")
    assert r.exit_code == 0, r.output
    from assay.store import open_store
    with open_store("runs.sqlite") as store:
        info = store.get("latest")
    assert info.settings["config"] == str(project / "pyproject.toml")


def test_help_in_a_configured_project_imports_neither_the_runner_nor_the_config_reader(
        project: Path) -> None:
    """``assay run -h`` reads no config (the module that checks it is never imported) and stays fast."""
    pyproject(project, '[tool.assay]\nmetrics = "f1_score"\n')
    slow = ["assay.cli._config_values", "assay.run._evaluate", "assay.store", "numpy", "openai", "httpx"]
    probe = ("import sys, json\nfrom assay.cli.main import main\n"
             "sys.argv = ['assay', 'run', '-h']\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             f"print(json.dumps(sorted(m for m in sys.modules if m in {slow!r})))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])])}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env=env, timeout=120, check=True, cwd=project)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_the_installed_command_reads_the_file_in_a_subprocess(project: Path) -> None:
    """The real entry point, as CI calls it."""
    pyproject(project, '[tool.assay]\nmetrics = ["f1_score"]\nfail_under = {f1_score = 0.9}\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, "-m", "assay", "run", "qa.jsonl", "--no-progress",
                           "--no-store", "--no-cache", "--judge", "fake"], capture_output=True, text=True,
                          env=env, timeout=120, cwd=project, check=False)
    assert done.returncode == 1, done.stderr
    assert "config: pyproject.toml:4 (fail_under, metrics)" in done.stderr
    assert "under the bar 0.9" in done.stderr
