"""Structure figures of one checkout's ``src/assay``, read from its source (and its CLI), to put
an old and a new checkout side by side:

- model call stack constructions outside ``calls/`` (``ManagedJudge(``, ``ManagedEmbedder(``,
  ``JudgeCache(``, ``EmbeddingCache(``, ``Budget(``, ``RetryPolicy(``; code only, not
  docstrings), per file;
- ``concurrency`` and ``timeout`` declared as function parameters or class fields (AST), and
  the float literal ``120.0`` (AST constants; and written out anywhere in the text);
- with ``--cli``: the judge-call flags each command offers, and how many different sets.

Usage::

    python benchmarks/structure_counts.py                 # this checkout's src/assay
    python benchmarks/structure_counts.py /work/main/src/assay --cli

Example:
    >>> figures = counts(Path(__file__).resolve().parents[1] / "src" / "assay")
    >>> figures["stack_outside_calls"]["ManagedJudge"]
    0
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

#: The parts of a model call's stack: only ``calls/`` should construct them.
STACK = ("ManagedJudge", "ManagedEmbedder", "JudgeCache", "EmbeddingCache", "Budget",
         "RetryPolicy")
#: The names whose declarations are counted.
DECLARED = ("concurrency", "timeout")
#: The judge-call flags.
CALL_FLAGS = ("--concurrency", "--timeout", "--max-attempts", "--max-wait", "--tpm", "--rpm",
              "--cache", "--no-cache")


def _called(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(
        func, ast.Attribute) else ""


def counts(root: Path) -> dict[str, Any]:
    """The figures of the package at ``root`` (a ``src/assay`` directory)."""
    stack: Counter[str] = Counter()
    where: dict[str, list[str]] = {name: [] for name in STACK}
    params: Counter[str] = Counter()
    fields: Counter[str] = Counter()
    constants = text_120 = 0
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        text_120 += text.count("120.0")
        tree = ast.parse(text, filename=str(path))
        inside_calls = path.relative_to(root).parts[0] == "calls"
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and not inside_calls and _called(node) in STACK:
                stack[_called(node)] += 1
                where[_called(node)].append(f"{path.relative_to(root)}:{node.lineno}")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                args = node.args
                for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                    if arg.arg in DECLARED:
                        params[arg.arg] += 1
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                            and item.target.id in DECLARED):
                        fields[item.target.id] += 1
            elif (isinstance(node, ast.Constant) and isinstance(node.value, float)
                  and node.value == 120.0):
                constants += 1
    return {"stack_outside_calls": {name: stack[name] for name in STACK},
            "stack_where": {k: v for k, v in where.items() if v},
            "parameters": {name: params[name] for name in DECLARED},
            "class_fields": {name: fields[name] for name in DECLARED},
            "declared_total": {name: params[name] + fields[name] for name in DECLARED},
            "float_120_constants": constants, "text_120.0": text_120}


_FLAGS_SCRIPT = """
import json, typer
from assay.cli._app import COMMANDS, app
flags = {flags!r}
group = typer.main.get_command(app)
out = {{}}
for name in COMMANDS:
    command = group.commands[name]
    have = {{o for p in command.params for o in [*p.opts, *getattr(p, "secondary_opts", [])]}}
    got = [f for f in flags if f in have]
    if got:
        out[name] = got
print(json.dumps(out))
"""


def cli_flags(root: Path) -> dict[str, list[str]]:
    """The judge-call flags per command of the checkout at ``root`` (its CLI, imported in a
    subprocess from that checkout's ``src``)."""
    env = {**os.environ, "PYTHONPATH": str(root.parent)}
    done = subprocess.run([sys.executable, "-c", _FLAGS_SCRIPT.format(flags=CALL_FLAGS)],
                          capture_output=True, text=True, env=env, cwd=root.parent, check=True)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src", nargs="?", type=Path,
                        default=Path(__file__).resolve().parents[1] / "src" / "assay",
                        help="a src/assay directory (default: this checkout's)")
    parser.add_argument("--cli", action="store_true",
                        help="also list the judge-call flags of each command")
    args = parser.parse_args()
    root = args.src.resolve()
    figures = counts(root)
    print(f"source: {root}")
    print("call stack constructions outside calls/:",
          ", ".join(f"{k} {v}" for k, v in figures["stack_outside_calls"].items()))
    for name, places in figures["stack_where"].items():
        print(f"  {name}: {', '.join(places)}")
    for name in DECLARED:
        print(f"{name!r} declared: {figures['declared_total'][name]} "
              f"({figures['parameters'][name]} parameters, {figures['class_fields'][name]} "
              "class fields)")
    print(f"120.0: {figures['float_120_constants']} float constants in code, "
          f"{figures['text_120.0']} times in the text")
    if args.cli:
        per_command = cli_flags(root)
        for name, flags in per_command.items():
            print(f"  {name:12s} {' '.join(flags)}")
        print(f"commands with judge-call flags: {len(per_command)}, different flag sets: "
              f"{len({tuple(f) for f in per_command.values()})}")


if __name__ == "__main__":
    main()
