"""Run the shell steps of the repository's composite GitHub Action (action.yml) on this machine,
as the Actions runner would: each ``run:`` step's script through ``bash --noprofile --norc -eo
pipefail`` (what ``shell: bash`` means), in its ``working-directory``, with its ``env:`` (whose
``${{ inputs.* }}``, ``${{ github.action_path }}`` and ``${{ steps.*.outputs.* }}`` are filled
in), a fresh ``GITHUB_OUTPUT`` file per step and one ``GITHUB_STEP_SUMMARY`` for all. ``uses:``
steps (setup-python, upload-artifact) and the steps named in ``skip`` (the pip install) are not
run. A failing step ends the action, as in a composite action; its status is the action's.

tests/test_action.py runs the action through it; by hand (a dry run), with ``assay`` importable
by ``python``::

    python tests/action_runner.py --workdir /tmp/dry data=qa.jsonl metrics=f1_score \\
        fail-under=f1_score=0.5

Example:
    >>> fill("${{ inputs.data }}/x", {"inputs.data": "d"})
    'd/x'
    >>> fill("a ${{ steps.run.outputs.exit-code }}", {"steps.run.outputs.exit-code": "1"})
    'a 1'
    >>> read_outputs("a=1\\nfiles<<EOF\\nx\\ny\\nEOF\\n")
    {'a': '1', 'files': 'x\\ny'}
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / "action.yml"
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def load_action(path: Path = ACTION) -> dict[str, Any]:
    """The action's metadata, as parsed YAML."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise TypeError(f"{path}: not a mapping")
    return data


def fill(text: str, context: Mapping[str, str]) -> str:
    """``text`` with each ``${{ NAME }}`` replaced by ``context[NAME]``; a step output never
    written reads as '' (as on the runner). Any other name or expression is an error: this
    runner only knows plain context lookups."""
    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in context:
            return context[name]
        if re.fullmatch(r"steps\.[\w-]+\.outputs\.[\w-]+", name):
            return ""
        raise ValueError(f"expression not supported by this runner: ${{{{ {name} }}}}")
    return _EXPRESSION.sub(value, text)


def read_outputs(text: str) -> dict[str, str]:
    """The outputs a step wrote to its GITHUB_OUTPUT file (``name=value`` lines, and
    ``name<<DELIMITER`` blocks for values of several lines)."""
    outputs: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            block: list[str] = []
            for inner in lines:
                if inner == delimiter:
                    break
                block.append(inner)
            outputs[name] = "\n".join(block)
        elif "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs


@dataclass
class StepResult:
    """One step as run: its id (or name), exit status (None when not run), outputs and the
    text it printed (stdout and stderr together)."""

    id: str
    returncode: int | None
    outputs: dict[str, str] = field(default_factory=dict)
    log: str = ""


@dataclass
class ActionResult:
    """The action as run: its steps, its outputs, the job summary it wrote, its status."""

    steps: list[StepResult]
    outputs: dict[str, str]
    summary: str
    returncode: int

    def step(self, step_id: str) -> StepResult:
        """The step with this id."""
        return next(s for s in self.steps if s.id == step_id)


def run_action(inputs: Mapping[str, str], *, workdir: Path, env: Mapping[str, str] | None = None,
               action: Path = ACTION, skip: Sequence[str] = ("install",)) -> ActionResult:
    """Run the action's shell steps with these inputs (the others at their defaults) in
    ``workdir``, its GITHUB_STEP_SUMMARY a file there (``step-summary.md``).

    ``env`` is the environment of the step that uses the action (default: this process's).
    """
    meta = load_action(action)
    declared = meta.get("inputs") or {}
    unknown = sorted(set(inputs) - set(declared))
    if unknown:
        raise ValueError(f"inputs the action does not declare: {unknown}")
    context = {"github.action_path": str(action.parent)}
    for name, spec in declared.items():
        value = inputs.get(name, spec.get("default", ""))
        if spec.get("required") and not value:
            raise ValueError(f"input {name} is required")
        context[f"inputs.{name}"] = str(value)
    summary = workdir / "step-summary.md"
    summary.touch()
    base_env = dict(os.environ if env is None else env)
    base_env.update(GITHUB_STEP_SUMMARY=str(summary), GITHUB_ACTION_PATH=str(action.parent),
                    GITHUB_WORKSPACE=str(workdir), CI="true", GITHUB_ACTIONS="true")
    results: list[StepResult] = []
    status = 0
    for index, step in enumerate(meta["runs"]["steps"]):
        step_id = step.get("id") or step.get("name") or str(index)
        if "uses" in step or step_id in skip:
            results.append(StepResult(step_id, None))
            continue
        if "if" in step:
            raise ValueError(f"step {step_id}: 'if' on a run step is not supported by this runner")
        result = _run_step(step, step_id, context, base_env, workdir)
        results.append(result)
        for name, value in result.outputs.items():
            context[f"steps.{step_id}.outputs.{name}"] = value
        if result.returncode:
            status = result.returncode
            break
    outputs = {name: fill(str(spec["value"]), context)
               for name, spec in (meta.get("outputs") or {}).items()}
    return ActionResult(results, outputs, summary.read_text(encoding="utf-8"), status)


def _run_step(step: Mapping[str, Any], step_id: str, context: Mapping[str, str],
              base_env: Mapping[str, str], workdir: Path) -> StepResult:
    if step.get("shell") != "bash":
        raise ValueError(f"step {step_id}: only shell: bash is supported")
    env = dict(base_env)
    for name, value in (step.get("env") or {}).items():
        env[name] = fill(str(value), context)
    cwd = workdir / fill(str(step.get("working-directory", ".")), context)
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "step.sh"
        script.write_text(step["run"], encoding="utf-8")
        output = Path(tmp) / "output"
        output.touch()
        env["GITHUB_OUTPUT"] = str(output)
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                              cwd=cwd, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=300, check=False)
        return StepResult(step_id, done.returncode, read_outputs(output.read_text()),
                          done.stdout)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the action by hand: ``NAME=VALUE`` inputs; print each step's log and the outputs;
    exit with the action's status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, default=Path.cwd())
    parser.add_argument("--install", action="store_true",
                        help="also run the install step (pip install into this PATH's python)")
    parser.add_argument("inputs", nargs="*", metavar="NAME=VALUE")
    args = parser.parse_args(argv)
    inputs = dict(item.split("=", 1) for item in args.inputs)
    result = run_action(inputs, workdir=args.workdir.resolve(),
                        skip=() if args.install else ("install",))
    for step in result.steps:
        print(f"--- step {step.id}: " + ("not run" if step.returncode is None
                                         else f"exit {step.returncode}"))
        print(step.log, end="")
    print("--- outputs")
    for name, value in result.outputs.items():
        print(f"{name}={value}")
    print("--- job summary\n" + result.summary)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
