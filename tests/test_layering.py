"""The package layering, read from the source: a package imports another package's public
names only, and the runner imports no metric family (families reach it through the
``MetricFamily`` hook of ``assay.metrics``)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
ROOT = SRC / "assay"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _package_of(path: Path) -> list[str]:
    """The package a module belongs to (``assay/run/_tally.py`` -> ``assay.run``; an
    ``__init__.py`` is its own package)."""
    return list(path.relative_to(SRC).with_suffix("").parts[:-1])


def _imports(path: Path) -> Iterator[tuple[int, list[str], list[str], str]]:
    """``(line, target module, imported names, source text)`` of each import of an ``assay``
    module in ``path``, relative imports resolved (including imports inside functions)."""
    package = _package_of(path)
    text = path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(text, filename=str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                target = base + (node.module.split(".") if node.module else [])
            elif (node.module or "").split(".")[0] == "assay":
                target = str(node.module).split(".")
            else:
                continue
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "assay":
                    yield node.lineno, alias.name.split("."), [], ast.get_source_segment(
                        text, node) or ""
            continue
        else:
            continue
        yield node.lineno, target, names, ast.get_source_segment(text, node) or ""


def _modules() -> list[Path]:
    return sorted(ROOT.rglob("*.py"))


def private_cross_package_imports() -> list[str]:
    """``file:line: import`` for each import of a private module or name of another package.

    A module ``assay.x._y`` (or a private name of package ``assay.x``) may be imported from
    inside ``assay.x`` only, subpackages included; ``assay.metrics.rag`` importing
    ``assay.metrics.judge._rubric`` is cross-package.
    """
    found = []
    for path in _modules():
        here = _package_of(path)
        for line, target, names, source in _imports(path):
            private_at = next((i for i, seg in enumerate(target) if _private(seg)), None)
            if private_at is not None:
                owner = target[:private_at]
                bad = here[:len(owner)] != owner
            else:
                bad = here[:len(target)] != target and any(_private(n) for n in names)
            if bad:
                found.append(f"{path.relative_to(SRC)}:{line}: {' '.join(source.split())}")
    return found


def test_no_package_imports_another_packages_private_names() -> None:
    found = private_cross_package_imports()
    assert not found, (f"{len(found)} imports of another package's private module or name "
                       "(export the name from that package's __init__ and import it from "
                       "there):\n" + "\n".join(found))


def test_the_runner_imports_no_metric_family() -> None:
    families = (["assay", "metrics", "rag"], ["assay", "metrics", "safety"])
    found = [f"{path.relative_to(SRC)}:{line}: {' '.join(source.split())}"
             for path in sorted((ROOT / "run").rglob("*.py"))
             for line, target, names, source in _imports(path)
             if any(target[:3] == family or
                    (target == family[:2] and family[2] in names) for family in families)]
    assert not found, ("assay.run imports a metric family (use the MetricFamily hook of "
                       "assay.metrics):\n" + "\n".join(found))


def test_the_checks_find_what_they_look_for(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Each kind of offending import is found, with its file and line; public ones are not."""
    pkg = tmp_path / "assay"
    (pkg / "run").mkdir(parents=True)
    (pkg / "metrics" / "rag").mkdir(parents=True)
    (pkg / "run" / "_bad.py").write_text(
        "from ..metrics._base import unscored_reason_key\n"
        "from assay.metrics.rag._diagnosis import diagnose\n"
        "from ..metrics import rag\n"
        "import assay.report._model\n"
        "from ..metrics import _hidden\n"
        "from ._sibling import fine\n"
        "from ..metrics import Metric\n")
    (pkg / "metrics" / "rag" / "_ok.py").write_text(
        "from .._base import Metric\nfrom ..judge._rubric import ask\n")
    monkeypatch.setitem(globals(), "SRC", tmp_path)
    monkeypatch.setitem(globals(), "ROOT", pkg)
    found = private_cross_package_imports()
    assert found == [
        "assay/metrics/rag/_ok.py:2: from ..judge._rubric import ask",
        "assay/run/_bad.py:1: from ..metrics._base import unscored_reason_key",
        "assay/run/_bad.py:2: from assay.metrics.rag._diagnosis import diagnose",
        "assay/run/_bad.py:4: import assay.report._model",
        "assay/run/_bad.py:5: from ..metrics import _hidden",
    ]
    with pytest.raises(AssertionError) as failed:
        test_the_runner_imports_no_metric_family()
    message = str(failed.value)
    assert "_bad.py:2:" in message and "_bad.py:3:" in message and "_bad.py:1:" not in message


#: A CLI flag in a message: ``--judge``, ``--no-cache`` (a pip option after "pip install" is not
#: one of ours).
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]+")


def _flags_in_raised_messages(path: Path) -> Iterator[tuple[int, str]]:
    """``(line, flag)`` for each CLI flag written into the literal text of an exception raised in
    ``path`` (``raise ConfigError(f"... --judge ...")``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
            continue
        for part in ast.walk(node.exc):
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                text = part.value.split("pip install")[0]
                for flag in _FLAG.findall(text):
                    yield part.lineno, flag


def test_library_errors_name_no_cli_flags() -> None:
    """Errors raised outside ``assay.cli`` name options through ``assay.errors.option`` (the
    Python keyword, or the flag inside a CLI command), never as a hard-coded flag."""
    found = [f"{path.relative_to(SRC)}:{line}: {flag}"
             for path in sorted(ROOT.rglob("*.py")) if "cli" not in path.relative_to(ROOT).parts
             for line, flag in _flags_in_raised_messages(path)]
    assert found == [], "hard-coded CLI flags in library errors:\n" + "\n".join(found)


def test_the_flag_check_finds_a_planted_flag(tmp_path: Path) -> None:
    planted = tmp_path / "m.py"
    planted.write_text('raise ValueError(f"Got --judge {x}. Fix: pip install --upgrade y")\n')
    assert list(_flags_in_raised_messages(planted)) == [(1, "--judge")]


#: The packages of ``assay`` (and its top-level private modules), top layer first: a package
#: imports only from layers below its own, never from its own layer or above (so no import runs
#: back up, and no two packages import each other). ../shared/DESIGN.md section 1 and the
#: layout table of docs/architecture.md say what each one holds.
LAYERS: list[tuple[str, ...]] = [
    ("__main__",),
    ("cli", "pytest_plugin", "testing"),
    ("serve",),
    ("report", "compare"),
    ("gate",),
    ("watch",),
    ("generate",),
    ("scenarios",),
    ("redteam", "robustness", "agents", "arena"),
    ("align",),
    ("calibration",),
    ("run",),
    ("records",),
    ("targets",),
    ("metrics",),
    ("asking",),
    ("calls",),
    ("prompts",),
    ("embeddings",),
    ("judges",),
    ("injection",),
    ("store",),
    ("data",),
    ("_spec_kinds",),
    ("costs", "_entry_points", "_env", "_files", "_http_host", "_lazy", "_sqlite_cache",
     "_text", "_version"),
    ("errors",),
    ("_secrets",),
    ("_url_userinfo",),
]
#: Packages that read runs as written (records/) and must never reach into the runner.
READERS_OF_RUNS = ("report", "compare", "serve", "gate")
#: What makes data by asking a model, computing no metric: it asks through ``assay.asking``,
#: never ``assay.metrics`` (redteam's reply scorer and its comparison compute the safety
#: metrics, so only its attacker is held to this).
PRODUCERS = ("assay/generate", "assay/scenarios", "assay/redteam/_attacker.py")


def _unit(parts: Sequence[str]) -> str | None:
    """The layer unit of a module path (``["assay", "run", "_score"]`` -> ``run``); the
    ``assay`` facade itself (``assay/__init__.py``, which only re-exports lazily) is none."""
    return parts[1] if len(parts) > 1 else None


def package_imports() -> list[tuple[str, str, str]]:
    """``(importer, imported, where)`` for each import between two layer units of ``assay``."""
    found = []
    for path in _modules():
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        here = _unit(parts)
        if here is None:
            continue
        for line, target, names, source in _imports(path):
            targets = [target + [n] for n in names] if len(target) == 1 else [target]
            for full in targets:
                there = _unit(full)
                if there is not None and there != here:
                    where = f"{path.relative_to(SRC)}:{line}: {' '.join(source.split())}"
                    found.append((here, there, where))
    return found


def layer_violations(imports: Iterable[tuple[str, str, str]]) -> list[str]:
    """Each import that goes up a layer or across one, and each unit no layer names."""
    rank = {unit: i for i, layer in enumerate(LAYERS) for unit in layer}
    bad = []
    for here, there, where in imports:
        if here not in rank or there not in rank:
            missing = here if here not in rank else there
            bad.append(f"{where} ({missing!r} is in no layer: add it to LAYERS)")
        elif rank[there] <= rank[here]:
            how = "its own layer" if rank[there] == rank[here] else "a layer above"
            bad.append(f"{where} ({here} -> {there}: {how})")
    return bad


def test_imports_run_down_the_layers_only() -> None:
    imports = package_imports()
    units = {path.relative_to(ROOT).parts[0].removesuffix(".py") for path in _modules()} - {
        "__init__"}
    assert units <= {unit for layer in LAYERS for unit in layer}, "a package is in no layer"
    bad = layer_violations(imports)
    assert not bad, "imports against the layers:\n" + "\n".join(bad)


def test_readers_of_runs_use_records_never_the_runner() -> None:
    bad = [where for here, there, where in package_imports()
           if here in READERS_OF_RUNS and there == "run"]
    assert not bad, "report/compare/serve/gate import assay.run:\n" + "\n".join(bad)


def producer_metric_imports() -> list[str]:
    """``file:line: import`` for each import of ``assay.metrics`` in a :data:`PRODUCERS`
    module (inside functions too)."""
    found = []
    for path in _modules():
        where = path.relative_to(SRC).as_posix()
        if not any(where == p or where.startswith(p + "/") for p in PRODUCERS):
            continue
        for line, target, names, source in _imports(path):
            if target[:2] == ["assay", "metrics"] or (target == ["assay"] and "metrics" in names):
                found.append(f"{where}:{line}: {' '.join(source.split())}")
    return found


def test_producers_ask_through_asking_never_metrics() -> None:
    """generate/, scenarios/ and the attacker compute no metric: they import nothing from
    ``assay.metrics`` (templates, fencing, asking until parsed, verdicts: ``assay.asking``)."""
    found = producer_metric_imports()
    assert not found, "a producer imports assay.metrics:\n" + "\n".join(found)


def test_the_producer_check_finds_a_metrics_import(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "assay"
    for folder in ("generate", "scenarios", "redteam"):
        (pkg / folder).mkdir(parents=True)
    (pkg / "generate" / "_a.py").write_text("from ..metrics import ScoreContext\n"
                                            "from ..asking import load_template\n")
    (pkg / "scenarios" / "_b.py").write_text("def f():\n    from assay.metrics.judge import x\n")
    (pkg / "redteam" / "_attacker.py").write_text("from .. import metrics\n")
    (pkg / "redteam" / "_scorer.py").write_text("from ..metrics.safety import REFUSAL\n")
    monkeypatch.setitem(globals(), "SRC", tmp_path)
    monkeypatch.setitem(globals(), "ROOT", pkg)
    assert producer_metric_imports() == [
        "assay/generate/_a.py:1: from ..metrics import ScoreContext",
        "assay/redteam/_attacker.py:1: from .. import metrics",
        "assay/scenarios/_b.py:2: from assay.metrics.judge import x"]


def test_the_layer_check_finds_an_upward_and_a_sideways_import() -> None:
    imports = [("records", "run", "a.py:1"), ("agents", "robustness", "b.py:2"),
               ("run", "records", "c.py:3"), ("elsewhere", "run", "d.py:4")]
    assert layer_violations(imports) == [
        "a.py:1 (records -> run: a layer above)",
        "b.py:2 (agents -> robustness: its own layer)",
        "d.py:4 ('elsewhere' is in no layer: add it to LAYERS)"]


def test_the_runner_stays_small() -> None:
    """run/ keeps evaluate, its options, the engines, scoring, panels and the tally: at most
    18 modules, 3,500 lines and 25 exported names (the rest has rooms of its own)."""
    import assay.run

    modules = sorted((ROOT / "run").glob("*.py"))
    lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in modules)
    assert len(modules) <= 18, [p.name for p in modules]
    assert lines <= 3500, lines
    assert len(assay.run.__all__) <= 25, assay.run.__all__


def test_the_layout_table_names_every_package() -> None:
    """The layout table of docs/architecture.md names each package of ``src/assay`` with its
    job."""
    page = (SRC.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    layout = page.split("## Layout", 1)[1].split("\n\n", 3)[2]
    assert layout.startswith("| Layer | Package | Its job |"), layout[:80]
    packages = sorted(p.parent.name for p in ROOT.glob("*/__init__.py"))
    missing = [name for name in packages if f"`{name}/`" not in layout]
    assert not missing, f"docs/architecture.md's layout table does not name: {missing}"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(*, deferred: bool) -> dict[str, set[str]]:
    """Each module's ``assay`` modules imported at import time; with ``deferred``, also those
    imported under ``TYPE_CHECKING`` (a type that names its importer back) and inside
    functions (an import put off so as not to run round a circle at import time)."""
    graph: dict[str, set[str]] = {}
    for path in _modules():
        package = _package_of(path)
        deps: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree) if deferred else tree.body:
            if (not deferred and isinstance(node, ast.If)
                    and "TYPE_CHECKING" in ast.unparse(node.test)):
                continue
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "")
                                                     .startswith("assay")):
                base = package[:len(package) - (node.level - 1)] if node.level else []
                target = base + (node.module or "").split(".") if node.module else base
                deps.add(".".join(target))
                deps.update(".".join([*target, alias.name]) for alias in node.names)
            elif isinstance(node, ast.Import):
                deps.update(alias.name for alias in node.names)
        graph[_module_name(path)] = deps
    return {name: {dep for dep in deps if dep in graph and dep != name}
            for name, deps in graph.items()}


def import_time_graph() -> dict[str, set[str]]:
    """Each module's ``assay`` modules imported at import time (imports inside functions and
    under ``TYPE_CHECKING`` run later, or never, and are left out)."""
    return import_graph(deferred=False)


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    reach, stack = set(), [start]
    while stack:
        for dep in graph[stack.pop()]:
            if dep not in reach:
                reach.add(dep)
                stack.append(dep)
    return reach


def module_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Groups of modules that import each other, directly or round a circle."""
    cycles: list[list[str]] = []
    seen: set[str] = set()
    for start in graph:
        reach = _reach(graph, start) if start not in seen else set()
        if start in reach:
            circle = sorted(m for m in reach if start in _reach(graph, m))
            seen.update(circle)
            cycles.append(circle)
    return cycles


def test_no_modules_import_each_other_round_a_circle() -> None:
    assert module_cycles(import_time_graph()) == []


def test_no_modules_name_each_other_round_a_circle_even_through_deferred_imports() -> None:
    """No circle either through an import under ``TYPE_CHECKING`` or inside a function: two
    modules that need each other's names share a module below both (``data``: the Reader
    protocol and the Source it reads live together), or one passes the other what it needs
    (``metrics``: ``register_family`` declares a family's settings to the settings check,
    which reads no family registry)."""
    assert module_cycles(import_graph(deferred=True)) == []


def test_the_deferred_circle_check_sees_type_checking_and_function_imports(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "assay" / "p"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "_a.py").write_text("from typing import TYPE_CHECKING\n"
                               "if TYPE_CHECKING:\n    from ._b import B\n")
    (pkg / "_b.py").write_text("from ._a import A\n")
    (pkg / "_c.py").write_text("def f():\n    from ._d import D\n")
    (pkg / "_d.py").write_text("import assay.p._c\n")
    monkeypatch.setitem(globals(), "SRC", tmp_path)
    monkeypatch.setitem(globals(), "ROOT", tmp_path / "assay")
    assert module_cycles(import_graph(deferred=False)) == []
    assert sorted(module_cycles(import_graph(deferred=True))) == [
        ["assay.p._a", "assay.p._b"], ["assay.p._c", "assay.p._d"]]


def test_the_circle_check_finds_a_planted_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert module_cycles(graph) == [["a", "b", "c"]]
