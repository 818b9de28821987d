"""The documentation site: it builds strictly, its generated pages follow the code, and the
Python blocks of its pages run as written.

- ``mkdocs build --strict`` (mkdocs.yml) passes, when the docs extra is installed (``pip install
  -e '.[docs]'``; ``make docs`` and ``.ci/run`` install it); and the site's settings make a
  broken link or anchor fail the build.
- The metric reference is generated from the registry (``docs/hooks.py``): every built-in metric
  has its row, with the range the registry gives it.
- Every ``python`` block of README.md and docs/**/*.md runs, page by page in one namespace (as a
  reader pastes them in order), in a fresh folder holding the files the blocks name
  (``data.jsonl``, ``data/eval.jsonl``, ``tests/data/qa.jsonl``: two rows of
  examples/qa.jsonl; ``examples/``: the checkout's) against the bench's fake judge, as the
  ``assay`` commands of the same pages run in tests/test_readme_commands.py. A block that
  cannot run offline is marked ``<!-- not-run: REASON -->`` on the line before it;
  ``test_blocks_not_run_say_why`` there lists them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from conftest import FakeJudgeServer
from test_readme_commands import DOCS, not_run_reason

ROOT = Path(__file__).resolve().parents[1]
QA = ROOT / "examples" / "qa.jsonl"
HOOKS = ROOT / "docs" / "hooks.py"
#: The files a block may read, relative to its folder: two rows of examples/qa.jsonl each.
DATA_FILES = ("data.jsonl", "data/eval.jsonl", "tests/data/qa.jsonl")


def _hooks() -> object:
    spec = importlib.util.spec_from_file_location("assay_docs_hooks", HOOKS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def python_blocks(doc: Path) -> list[tuple[int, str]]:
    """The ``python`` blocks of a page that run: (first line, code); marked ones left out."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    blocks: list[tuple[int, str]] = []
    i = 0
    while i < len(lines):
        fence = re.match(r"^\s*```\s*(python|py)\s*$", lines[i])
        if not fence:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not lines[end].strip().startswith("```"):
            end += 1
        if not_run_reason(lines, i) is None:
            blocks.append((i + 2, "\n".join(lines[i + 1:end]) + "\n"))
        i = end + 1
    return blocks


PAGES = [(doc, blocks) for doc in DOCS if (blocks := python_blocks(doc))]

#: Runs one page's blocks in order in one namespace; a failing block names its line.
RUNNER = """
import json, sys, traceback
page, blocks = json.load(open(sys.argv[1], encoding="utf-8"))
namespace = {"__name__": "__docs__"}
for line, code in blocks:
    try:
        exec(compile(code, f"{page}:{line}", "exec"), namespace)
    except BaseException:
        traceback.print_exc()
        sys.exit(f"{page}: the python block at line {line} failed")
"""


@pytest.fixture(scope="module")
def judge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeJudgeServer]:
    server = FakeJudgeServer(tmp_path_factory.mktemp("judge"), "--latency-ms", "1",
                             script=Path(__file__).parent / "yes_no_judge.py")
    yield server
    server.stop()


def test_the_docs_have_python_blocks_to_run() -> None:
    pages = {str(doc.relative_to(ROOT)) for doc, _ in PAGES}
    assert {"docs/guides/evaluate.md", "docs/guides/watch.md", "docs/plugins.md"} <= pages
    marked = [line for doc in DOCS for line in doc.read_text(encoding="utf-8").splitlines()
              if "not-run:" in line]
    assert len(marked) <= 3, marked  # the exception, not the rule


@pytest.mark.parametrize(("doc", "blocks"), PAGES,
                         ids=[str(doc.relative_to(ROOT)) for doc, _ in PAGES])
def test_python_blocks_run(doc: Path, blocks: list[tuple[int, str]], judge: FakeJudgeServer,
                           tmp_path: Path) -> None:
    rows = QA.read_text(encoding="utf-8").splitlines()[:2]
    for name in DATA_FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("\n".join(rows) + "\n", encoding="utf-8")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    page = str(doc.relative_to(ROOT))
    (tmp_path / "blocks.json").write_text(json.dumps([page, blocks]), encoding="utf-8")
    env = {**os.environ, "OPENAI_BASE_URL": judge.base_url,
           "OPENAI_API_KEY": "sk-docs-not-a-secret", "ASSAY_STORE": str(tmp_path / "runs.sqlite"),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "ASSAY_PROGRESS": "0",
           # this checkout's source, and its root for python:examples.... targets
           "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    done = subprocess.run([sys.executable, "-c", RUNNER, str(tmp_path / "blocks.json")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def test_the_metric_reference_is_the_registry() -> None:
    from assay.metrics import list_metrics

    page = _hooks().metrics_page()  # type: ignore[attr-defined]
    rows = {m[0]: m[1] for m in re.findall(r"^\| `(\w+)` \| [^|]* \| ([^|]*) \|", page,
                                           re.MULTILINE)}
    built_in = [i for i in list_metrics() if i.source == "built-in"]
    assert set(rows) == {i.name for i in built_in}
    for info in built_in:
        low, high = info.value_range or (None, None)
        assert rows[info.name].strip() == ("-" if low is None else f"{low:g}-{high:g}")
    assert "| `hate_unfairness` | `answer` | 0-7 | lower | yes |" in page


def test_the_api_page_lists_every_public_name() -> None:
    import assay

    page = _hooks().api_page()  # type: ignore[attr-defined]
    documented = set(re.findall(r"^::: assay\.(\w+)$", page, re.MULTILINE))
    assert documented == {n for n in assay.__all__ if not n.startswith("_")}


def _mkdocs(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mkdocs", reason="the docs extra: pip install -e '.[docs]'")
    pytest.importorskip("material", reason="the docs extra: pip install -e '.[docs]'")
    pytest.importorskip("mkdocstrings", reason="the docs extra: pip install -e '.[docs]'")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    # never -q: it drops the warnings that --strict counts, and a broken link builds
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "-f", str(config), "-d", str(site)],
                          cwd=config.parent, env=env, capture_output=True, text=True, check=False,
                          timeout=300)


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    built = _mkdocs(ROOT / "mkdocs.yml", tmp_path / "site")
    assert built.returncode == 0, built.stderr[-4000:]
    metrics = (tmp_path / "site" / "reference" / "metrics" / "index.html").read_text()
    assert "groundedness_claims" in metrics and "tool_call_accuracy" in metrics
    api = (tmp_path / "site" / "reference" / "api" / "index.html").read_text()
    assert "evaluate" in api and "RunOptions" in api


@pytest.mark.parametrize("link", ["[gone](missing.md)", "[gone](other.md#no-such-heading)"])
def test_a_broken_link_fails_the_build(tmp_path: Path, link: str) -> None:
    """The site's own settings (strict, validation) on a two-page site with one bad link."""
    settings = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(f"# Home\n\nSee {link}.\n")
    (tmp_path / "docs" / "other.md").write_text("# Other\n\n## A heading\n")
    config = {"site_name": "t", "strict": settings["strict"],
              "validation": settings["validation"], "nav": ["index.md", "other.md"]}
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config))
    built = _mkdocs(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert built.returncode != 0, built.stderr
    assert "missing.md" in built.stderr or "no-such-heading" in built.stderr, built.stderr
