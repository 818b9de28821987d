"""One assembly of the model call stack and one declaration of its flags, read from the source
and from the CLI itself: no module outside ``assay/calls/`` builds a managed judge or embedder
or their caches, and every command that calls a model takes the same judge-call flags with the
same help text."""

from __future__ import annotations

import ast
from pathlib import Path

import typer

import assay
from assay.cli._app import COMMANDS, app

#: The judge-call flags (as ``assay.cli._call_flags`` declares them; written out here so that
#: the check runs on a checkout without that module, and fails there as it should).
CALL_FLAGS = ("--concurrency", "--timeout", "--max-attempts", "--max-wait", "--tpm", "--rpm",
              "--cache", "--no-cache")

ROOT = Path(assay.__file__).resolve().parent  # the package under test

#: What only ``assay/calls/`` constructs: the call stack of a model call.
STACK = {"ManagedJudge", "ManagedEmbedder", "JudgeCache", "EmbeddingCache"}

#: The commands that call a model (a judge, a user model, an attacker, an embedder).
MODEL_COMMANDS = {"run", "watch", "calibrate", "align", "explain", "generate", "simulate",
                  "jailbreak", "robustness", "arena"}


def stack_constructions(root: Path) -> list[str]:
    """``file:line: Name(`` for each call of a :data:`STACK` class in code (docstrings and
    comments are not code) outside ``calls/``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.relative_to(root).parts[0] == "calls":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = (node.func.id if isinstance(node.func, ast.Name)
                        else node.func.attr if isinstance(node.func, ast.Attribute) else "")
                if name in STACK:
                    found.append(f"{path.relative_to(root)}:{node.lineno}: {name}(")
    return found


def test_only_calls_assembles_the_model_call_stack() -> None:
    assert stack_constructions(ROOT) == []


def test_the_stack_check_finds_a_planted_assembly(tmp_path: Path) -> None:
    (tmp_path / "calls").mkdir()
    (tmp_path / "calls" / "_open.py").write_text("ManagedJudge(backend)\n")
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "_loop.py").write_text(
        '"""ManagedJudge(FakeJudge()) in a docstring is fine."""\n'
        "from ..calls import ManagedJudge\n"
        "managed = ManagedJudge(backend, cache=judges.JudgeCache(path))\n")
    assert stack_constructions(tmp_path) == ["gen/_loop.py:3: ManagedJudge(",
                                             "gen/_loop.py:3: JudgeCache("]


def _flag_help() -> dict[str, dict[str, str | None]]:
    """Per command, each judge-call flag it takes and the flag's help text."""
    group = typer.main.get_command(app)
    out: dict[str, dict[str, str | None]] = {}
    for name in COMMANDS:
        command = group.commands[name]  # type: ignore[attr-defined]
        flags: dict[str, str | None] = {}
        for param in command.params:
            for opt in [*param.opts, *getattr(param, "secondary_opts", [])]:
                if opt in CALL_FLAGS:
                    flags[opt] = getattr(param, "help", None)
        out[name] = flags
    return out


def test_every_model_calling_command_takes_the_same_judge_call_flags() -> None:
    found = _flag_help()
    reference = found["run"]
    assert sorted(reference) == sorted(CALL_FLAGS)
    assert {name: found[name] for name in MODEL_COMMANDS} == dict.fromkeys(MODEL_COMMANDS,
                                                                        reference)
    # the others take none of them (they call no model)
    assert {n for n, flags in found.items() if flags} == MODEL_COMMANDS
    from assay.cli._call_flags import CALL_FLAGS as declared

    assert declared == CALL_FLAGS


def test_parallel_is_items_and_concurrency_is_model_requests() -> None:
    group = typer.main.get_command(app)
    for name in ("simulate", "jailbreak", "robustness"):
        command = group.commands[name]  # type: ignore[attr-defined]
        helps = {opt: getattr(p, "help", "") for p in command.params for opt in p.opts}
        assert "at a time" in helps["--parallel"] and "--concurrency" in helps["--parallel"]
        assert helps["--concurrency"].startswith("Model requests in flight")
