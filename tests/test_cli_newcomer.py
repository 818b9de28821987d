"""What a newcomer reaches for: ``assay --version``, help text that keeps its brackets,
``runs --json`` / ``show --json``, tables that read at 80 columns, and both spellings of the
output option on ``report`` and ``export``.

Runs here use lexical metrics only (no judge), with their own ``--store`` and ``--out``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.main import get_command
from typer.testing import CliRunner

import assay
from assay.cli._runjson import DETAIL_KEYS, LISTING_KEYS
from assay.cli.main import app
from assay.metrics import get_metric

ROOT = Path(__file__).resolve().parents[1]
QA = ROOT / "examples" / "qa.jsonl"
SECRET = "sk-newcomer-Zq81fT0pLm29XvB7"


@pytest.fixture(autouse=True)
def _plain_console(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)


def invoke(*args: Any, columns: int | None = None) -> Any:
    env = {"COLUMNS": str(columns)} if columns else None
    result = CliRunner().invoke(app, [str(a) for a in args], env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with two lexical runs of examples/qa.jsonl, the newer one named and tagged
    (made once: the tests only read it)."""
    tmp = tmp_path_factory.mktemp("store")
    path = tmp / "runs.sqlite"
    for n, extra in enumerate(([], ["--name", "baseline-with-a-rather-long-name", "--tag",
                                    "nightly"])):
        r = CliRunner().invoke(app, [str(a) for a in (
            "run", QA, "--metrics", "f1_score,exact_match,bleu_score,rouge_l" if n else
            "f1_score", "--no-cache", "--store", path, "--out", tmp / f"out{n}", *extra)])
        assert r.exit_code == 0, r.output
    return path


def _ids(store: Path) -> list[str]:
    return [run["id"] for run in json.loads(invoke("runs", "--json", "--store", store).stdout)]


# -- version and help ------------------------------------------------------------------------------

def test_version() -> None:
    r = invoke("--version")
    assert r.exit_code == 0 and r.stdout == f"assay {assay.__version__}\n"


def _commands() -> list[tuple[str, Any]]:
    """The root group and every command (Typer's own click objects)."""
    group: Any = get_command(app)
    return [("", group), *((name, cmd) for name, cmd in group.commands.items())]


def test_every_help_text_keeps_its_literal_brackets() -> None:
    """Help is plain text, not Rich markup: ``assay[ray]``, ``[INSERT PROMPT HERE]`` and any
    other bracketed text written in a help string is printed as written."""
    checked = 0
    for name, cmd in _commands():
        shown = " ".join(invoke(*([name] if name else []), "--help").stdout.split())
        texts = [cmd.help or ""] + [getattr(p, "help", None) or "" for p in cmd.params]
        for text in texts:
            for bracketed in re.findall(r"\S*\[[^\]\s]+\]\S*", text):
                assert bracketed.strip(".,;:") in shown, (name, bracketed)
                checked += 1
    assert checked >= 1  # at least run's 'assay[ray]'
    assert "pip install 'assay[ray]'" in " ".join(invoke("run", "--help").stdout.split())


def test_every_command_has_help_and_exits_0() -> None:
    for name, _ in _commands():
        r = invoke(*([name] if name else []), "--help")
        assert r.exit_code == 0 and "Usage:" in r.stdout, name


# -- runs --json and show --json ---------------------------------------------------------------------

def test_runs_json_has_stable_keys_and_no_secrets(store: Path) -> None:
    r = invoke("runs", "--json", "--store", store)
    assert r.exit_code == 0, r.output
    runs = json.loads(r.stdout)
    assert [list(run) for run in runs] == [list(LISTING_KEYS)] * 2
    newest, oldest = runs
    assert newest["name"] == "baseline-with-a-rather-long-name" and newest["tags"] == ["nightly"]
    assert newest["status"] == "complete" and newest["rows"] == 4
    assert newest["dataset"] == str(QA) and len(newest["dataset_sha256"]) == 64
    assert newest["metrics"]["f1_score"] == str(get_metric("f1_score").version)
    assert newest["means"]["f1_score"] == oldest["means"]["f1_score"] > 0
    assert SECRET not in r.stdout and SECRET[-10:] not in r.stdout
    assert json.loads(invoke("runs", "--json", "--tag", "nosuch", "--store", store).stdout) == []


def test_show_json_is_the_listing_plus_the_full_record(store: Path) -> None:
    newest = _ids(store)[0]
    r = invoke("show", "latest", "--json", "--store", store)
    assert r.exit_code == 0, r.output
    shown = json.loads(r.stdout)
    assert list(shown) == list(DETAIL_KEYS) and shown["id"] == newest
    assert shown["summary"]["metrics"]["exact_match"]["scored"] == 4
    assert shown["settings"]["out"].endswith("out1")
    assert SECRET not in r.stdout and "api_key" not in r.stdout.lower()
    missing = invoke("show", "nosuch", "--json", "--store", store)
    assert missing.exit_code == 2 and missing.stdout == ""


# -- 80 columns -----------------------------------------------------------------------------------

def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


def test_runs_table_reads_at_80_columns(store: Path) -> None:
    r = invoke("runs", "--store", store, columns=80)
    assert r.exit_code == 0, r.output
    lines = _lines(r.stdout)
    assert max(map(len, lines)) <= 80
    for run_id in _ids(store):
        assert any(run_id in line for line in lines), run_id  # never broken
    text = r.stdout
    for word in ("complete", "4 rows", "nightly", "qa.jsonl", "f1_score", "exact_match",
                 "rouge_l", "baseline-with-a-rat…"):
        assert word in text, word


def test_show_and_compare_read_at_80_columns(store: Path, tmp_path: Path) -> None:
    newest, oldest = _ids(store)
    shown = invoke("show", newest, "--store", store, columns=80)
    assert shown.exit_code == 0, shown.output
    assert max(map(len, _lines(shown.stdout))) <= 80
    assert any(newest in line for line in _lines(shown.stdout))
    compared = invoke("compare", oldest, newest, "--store", store, columns=80)
    assert compared.exit_code == 0, compared.output
    lines = _lines(compared.stdout)
    assert max(map(len, lines)) <= 80
    assert any(line.lstrip().startswith("f1_score ") for line in lines)


# -- both spellings of the output file ----------------------------------------------------------------

@pytest.mark.parametrize("flag", ["-o", "--out", "--output"])
def test_report_and_export_take_every_spelling(store: Path, tmp_path: Path, flag: str) -> None:
    html = tmp_path / f"r{flag.strip('-')}.html"
    r = invoke("report", "latest", flag, html, "--store", store)
    assert r.exit_code == 0, r.output
    assert html.read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")
    csv_path = tmp_path / f"e{flag.strip('-')}.csv"
    r = invoke("export", "latest", "--format", "csv", flag, csv_path, "--store", store)
    assert r.exit_code == 0, r.output
    assert csv_path.read_text(encoding="utf-8").startswith("id")
