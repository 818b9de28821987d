"""The package layering, read from the source: a package imports another package's public
names only, and the runner imports no metric family (families reach it through the
``MetricFamily`` hook of ``assay.metrics``)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
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
