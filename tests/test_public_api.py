"""The public surface: every ``__all__`` is honest, and the Python API example of docs/guides/evaluate.md runs."""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import assay
from conftest import bench_rag_requests, bench_retrieval_requests, bench_safety_requests

ROOT = Path(__file__).resolve().parents[1]
#: Every package of ``src/assay`` (found, so a new one is checked too), the metric families and
#: the errors module. ``prompts`` holds template files only; ``cli`` is the commands, not an API.
PACKAGES = ("assay", "assay.errors", *sorted(
    f"assay.{init.parent.name}" for init in (ROOT / "src" / "assay").glob("*/__init__.py")
    if init.parent.name not in ("prompts", "cli")),
    "assay.metrics.agent", "assay.metrics.judge", "assay.metrics.lexical", "assay.metrics.rag")


def _module(name: str) -> ModuleType:
    return importlib.import_module(name)


@pytest.mark.parametrize("name", PACKAGES)
def test_all_lists_only_existing_unique_names(name: str) -> None:
    mod = _module(name)
    names = mod.__all__
    assert isinstance(names, (list, tuple)) and names
    assert all(isinstance(n, str) for n in names)
    assert len(names) == len(set(names)), [n for n in names if names.count(n) > 1]
    missing = [n for n in names if not hasattr(mod, n)]
    assert missing == [], f"{name}.__all__ names missing attributes: {missing}"


def _isort_key(name: str) -> tuple[int, list[Any]]:
    """ruff RUF022's isort-style order: CONSTANTS, then CamelCase, then the rest, each naturally."""
    category = 0 if name.isupper() else 1 if name[:1].isupper() else 2
    natural = [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]
    return category, natural


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_sorted(name: str) -> None:
    names = list(_module(name).__all__)
    assert names == sorted(names, key=_isort_key) or names == sorted(names), names


@pytest.mark.parametrize("name", PACKAGES)
def test_every_public_class_and_function_says_what_it_is(name: str) -> None:
    mod = _module(name)
    undocumented = [n for n in mod.__all__
                    if (inspect.isclass(obj := getattr(mod, n)) or inspect.isfunction(obj))
                    and not (obj.__doc__ or "").strip()]
    assert undocumented == [], f"{name}: public names without a docstring: {undocumented}"


def test_top_level_names_are_the_subpackages_objects() -> None:
    from assay import data, errors, judges, metrics, run
    assert assay.evaluate is run.evaluate and assay.evaluate_async is run.evaluate_async
    assert assay.EvalResult is run.EvalResult
    assert assay.Row is data.Row and assay.read_dataset is data.read_dataset
    assert assay.make_judge is judges.make_judge and assay.FakeJudge is judges.FakeJudge
    assert assay.get_metric is metrics.get_metric and assay.register is metrics.register
    for exc in ("AssayError", "ConfigError", "DataError", "JudgeError"):
        assert getattr(assay, exc) is getattr(errors, exc)
        assert issubclass(getattr(assay, exc), assay.AssayError)


def test_version_matches_the_installed_distribution() -> None:
    assert assay.__version__ == importlib.metadata.version("assay")
    pyproject = (ROOT / "pyproject.toml").read_text()  # the version has one home: _version.py
    assert re.search(r'^dynamic = \["version"\]', pyproject, re.MULTILINE)
    assert re.search(r'^path = "src/assay/_version.py"', pyproject, re.MULTILINE)
    assert not re.search(r'^version = ', pyproject, re.MULTILINE)


def _readme_python_example() -> str:
    guide = (ROOT / "docs" / "guides" / "evaluate.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", guide, re.DOTALL)
    example = [b for b in blocks if "assay.evaluate" in b]
    assert len(example) == 1, "docs/guides/evaluate.md should have one Python API example"
    return example[0]


def test_readme_python_example_names_exist() -> None:
    code = _readme_python_example()
    used = set(re.findall(r"\bassay\.(\w+)", code))
    assert "evaluate" in used
    for name in used:
        assert hasattr(assay, name) and name in assay.__all__, name
    assert "result.summary" in code and "result.rows" in code
    fields = set(assay.EvalResult.__dataclass_fields__)
    assert {"summary", "rows"} <= fields


def test_readme_python_example_runs(fake_judge_server, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the guide's snippet as written, with the fake judge behind OPENAI_BASE_URL."""
    server = fake_judge_server("--latency-ms", "1")
    monkeypatch.chdir(tmp_path)  # the snippet reads data.jsonl and writes runs/v1
    rows = [{"question": "How heavy is the SkyView 2?", "context": "SkyView 2 weighs 1.3 kg.",
             "answer": "1.3 kg.", "ground_truth": "1.3 kg."},
            {"question": "Is the X4 a winter tent?", "context": "The X4 is a 3-season tent.",
             "answer": "No, it is a 3-season tent.", "ground_truth": "No."}]
    (tmp_path / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    code = _readme_python_example()
    lines = code.strip().splitlines()
    # the last two lines are bare expressions: keep their values to check them
    body, exprs = "\n".join(lines[:-2]), lines[-2:]
    ns: dict[str, Any] = {}
    exec(compile(body, "docs/guides/evaluate.md", "exec"), ns)  # noqa: S102 - the guide's snippet
    values = [eval(compile(e, "docs/guides/evaluate.md", "eval"), ns) for e in exprs]
    result = ns["result"]
    assert isinstance(result, assay.EvalResult)
    assert values[0] == result.summary["metrics"]["groundedness"]["mean"] == 5.0
    assert isinstance(values[1], str) and values[1]
    assert len(result.rows) == 2
    assert (tmp_path / "runs" / "v1" / "results.jsonl").is_file()
    assert json.loads((tmp_path / "runs" / "v1" / "summary.json").read_text()) == result.summary
    ok = [r for r in server.records() if r["status"] == 200]
    # one answer per row per rubric metric the fields allow, plus the RAG metrics' distinct
    # decompositions and verifications, retrieval_score's intents and intent support, and the
    # one combined request the four severity metrics share
    assert len(ok) == sum(5 + bench_rag_requests(r) + bench_retrieval_requests(r)
                          + bench_safety_requests(r) for r in rows)
