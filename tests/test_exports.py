"""Each package exports what other packages and users use: every name in the ``__all__`` of a
checked package is imported by another package of ``src/assay`` (the CLI included), named in
README.md or a docs page, used by an example or a benchmark, or is one of the user-facing names
listed below (a documented function's async form, or a type a public function takes or
returns). Plumbing that only the package itself (or its tests) needs stays private: tests
import it from its module."""

from __future__ import annotations

import ast
import importlib
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"

#: The packages whose exports are held to the rule (issue 45, part 7).
CHECKED = ("agents", "align", "calibration", "compare", "generate", "records", "redteam",
           "report", "robustness", "scenarios", "watch")

#: Names kept public though no other package, doc, example or benchmark names them, and why.
USER_FACING: dict[str, dict[str, str]] = {
    "agents": {"AgentStats": "make_agent's runner.stats"},
    "align": {"AlignmentResult": "align returns it", "align_async": "align's options"},
    "calibration": {"HumanScale": "human_scale returns it"},
    "generate": {"GenerationResult": "generate returns it", "OutputFiles": "result.files",
                 "generate_async": "generate's options"},
    "redteam": {"Attack": "plain_attacks returns it, simulate takes it",
                "FunctionTarget": "a Python function as jailbreak's or attack's target",
                "JailbreakTemplate": "load_templates returns it", "Seed": "load_seeds returns it"},
    "report": {"ConversationView": "metric_views takes it",
               "SkippedTraces": "skipped_traces returns it"},
    "robustness": {"SUITES": "run_suite's suite values"},
    "scenarios": {"Scenario": "simulate_users takes it, read_scenarios returns it",
                  "SimulationFiles": "result.files", "SimulationResult": "simulate_users returns it",
                  "read_scenarios": "the scenario files' check", "simulate_users_async":
                  "simulate_users's options"},
}


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` of a chain of names, else ``None``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else None
    return None


@cache
def _uses(path: Path) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """What ``path`` uses of each ``assay`` package: ``(imported, read off)``. ``imported``
    maps a package (``assay.records``) to the names imported from it (relative imports
    resolved); ``read off`` maps a dotted expression (``records``, ``assay.records``) to the
    attributes read off it, and a package to the local names it is bound to."""
    here = list(path.relative_to(SRC).with_suffix("").parts[:-1]) if path.is_relative_to(
        SRC) else []
    imported: dict[str, set[str]] = {}
    read_off: dict[str, set[str]] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = here[:len(here) - (node.level - 1)] if node.level else []
            module = ".".join(base + (node.module.split(".") if node.module else []))
            for alias in node.names:
                imported.setdefault(module, set()).add(alias.name)
                read_off.setdefault(f"bound:{module}.{alias.name}", set()).add(
                    alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                read_off.setdefault(f"bound:{alias.name}", set()).add(alias.asname or alias.name)
        elif isinstance(node, ast.Attribute) and (owner := _dotted(node.value)):
            read_off.setdefault(owner, set()).add(node.attr)
    return imported, read_off


def _used_names(path: Path, target: list[str]) -> set[str]:
    """Names of package ``target`` that ``path`` imports (``from ..records import X``) or reads
    off the package (``records.X`` after ``from .. import records``)."""
    imported, read_off = _uses(path)
    package = ".".join(target)
    aliases = {package} | read_off.get(f"bound:{package}", set())
    return imported.get(package, set()) | {
        name for alias in aliases for name in read_off.get(alias, set())}


@cache
def _doc_words() -> set[str]:
    """Every word inside a code span or block of README.md and docs/*.md."""
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    spans = "\n".join(span for path in docs for span in re.findall(
        r"```.*?```|`[^`\n]+`", path.read_text(encoding="utf-8"), re.DOTALL))
    return set(re.findall(r"\w+", spans))


def _outside_uses(package: str) -> set[str]:
    target = ["assay", *package.split(".")]
    inside = SRC.joinpath(*target)
    code = [p for p in (SRC / "assay").rglob("*.py") if not p.is_relative_to(inside)]
    code += [*(ROOT / "examples").rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py")]
    return {name for path in code for name in _used_names(path, target)} | _doc_words()


@pytest.mark.parametrize("package", CHECKED)
def test_every_export_is_used_outside_or_user_facing(package: str) -> None:
    exported = importlib.import_module(f"assay.{package}").__all__
    kept = USER_FACING.get(package, {})
    used = _outside_uses(package)
    unused = [name for name in exported if name not in used and name not in kept]
    assert unused == [], (f"assay.{package} exports names no other package, doc, example or "
                          f"benchmark uses: {unused}. Drop them from __all__ (tests import them "
                          "from their module), or list a user-facing one in USER_FACING")
    stale = [name for name in kept if name not in exported]
    assert stale == [], f"USER_FACING lists names assay.{package} no longer exports: {stale}"


def test_the_check_finds_an_unused_export(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """An import, a read off the package and a doc's code span count as uses; a word of prose
    and the package's own modules do not."""
    pkg = tmp_path / "src" / "assay"
    (pkg / "demo").mkdir(parents=True)
    (pkg / "demo" / "_own.py").write_text("from . import plumbing\n")
    (pkg / "cli").mkdir()
    (pkg / "cli" / "main.py").write_text(
        "from ..demo import imported\nfrom .. import demo\ndemo.read_off\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("Call `documented()`; prose names plumbing.\n")
    (tmp_path / "README.md").write_text("")
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    monkeypatch.setitem(globals(), "SRC", tmp_path / "src")
    _uses.cache_clear()
    _doc_words.cache_clear()
    try:
        used = _outside_uses("demo")
    finally:  # the real tree's words and uses are read again by whichever test runs next
        _uses.cache_clear()
        _doc_words.cache_clear()
    assert {"imported", "read_off", "documented"} <= used
    assert "plumbing" not in used
