"""Every ``assay ...`` command in README.md and the docs pages (docs/**/*.md) runs as written.

The commands are read from the fenced code blocks (shell blocks and output blocks, where a
``$ `` prompt is dropped; lines joined at a trailing backslash; ``# comments`` dropped; in a
YAML workflow, every ``run:`` step), and from inline code in the prose that holds a whole
command (at least one argument, no ``...`` or ``[optional]`` part). Each one runs in-process through the same Typer app as the
``assay`` script, in a fresh working folder, against the bench's fake OpenAI-compatible judge
(``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``), with ``ASSAY_STORE`` pointing at a fresh copy of a
store that already holds two runs, and must exit 0 with no traceback.

The rules that turn a written command into the one that runs, in this order:

1. **--help only** for the commands in :data:`HELP_ONLY`, each with its reason (a server that
   runs until stopped, a Ray cluster). They must still parse: ``--help`` after the written
   options fails on an option assay does not have.
2. **Placeholders** map onto bundled files (:data:`PLACEHOLDERS`): ``DATA.jsonl``, ``DATA``,
   ``data/eval.jsonl`` -> the first two rows of ``examples/qa.jsonl`` (two rows keep
   ``--tpm 20000`` from waiting a minute), with its columns renamed as the command's ``--map``
   options expect; ``DATA.csv`` -> the same rows as CSV; ``RUN``,
   ``CANDIDATE`` -> the newer stored run, ``BASE`` -> the older one, and an example run id
   (``20261121-203638``) -> the older one too; ``BASE_DIR``, ``INJECTED_DIR`` -> their
   ``--out`` folders (both runs have the safety metrics); ``python:myapp.chat:reply`` and ``APP`` ->
   ``python:examples.apps:toy_app``; ``assay-out/calibrate-rated`` -> a calibration made
   beforehand. Paths under ``examples/`` and ``../shared/`` are read from the checkout.
3. **The embedded judge is swapped** for ``openai:gpt-4o-mini`` (the fake judge): a written
   ``--judge local`` or ``--judge local:PATH``, and a missing ``--judge`` on ``run``,
   ``calibrate``, ``jailbreak``, ``generate`` and ``arena``, whose default is the embedded model (about 4 minutes of 2
   cores for the demo; ``tests/test_embedded.py`` runs it). ``--target local`` (the embedded
   model as the app under test) becomes a toy app from ``examples/apps.py``.
   ``--seeds`` from ``../shared/data`` without ``--n`` gets ``--n 20``: AdvBench's 520 seeds
   times 3 turns took 25 s here, and 20 seeds take the same path.
4. **State a command needs** is made first, the way a user would have made it: a ``--resume``
   command ("after Ctrl-C or a crash") first runs without ``--resume`` in a real process
   that gets Ctrl-C (SIGINT) while its first judge request is in flight; a command that reads
   a file an earlier command of its block writes (``--out``) runs that command first; a YAML
   workflow step first runs the steps before it, all in the same folder.

5. **Blocks marked** ``<!-- not-run: REASON -->`` (the line before the fence) are not run;
   :data:`NOT_RUN` lists them with their reasons (``test_blocks_not_run_say_why``). The
   Python blocks of the docs run in ``tests/test_docs_site.py``, with the same marker.

6. **The example plugin** of ``examples/plugin`` is visible to the commands of docs/plugins.md,
   as ``pip install -e examples/plugin`` makes it (``tests/test_plugins.py``).

A command must exit 0, except as :data:`EXIT_ALLOWED` says (with its reason). A command that
uses an option assay does not have fails with a message that names it, so an option
documented before it is built shows up as exactly that.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli.main import app
from assay.store import open_store
from conftest import FakeJudgeServer
from test_job_runs import DATA as JOB_RUNS
from test_job_runs import _record as _record_job_run
from test_job_runs import _rows as _job_rows
from test_plugins import example_plugin_installed

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
#: The guide whose tables say which metrics a row's fields plan, and the page with the demo.
METRICS_GUIDE = ROOT / "docs" / "guides" / "evaluate.md"
GETTING_STARTED = ROOT / "docs" / "getting-started.md"
QA = ROOT / "examples" / "qa.jsonl"
API_JUDGE = "openai:gpt-4o-mini"
#: Commands whose default judge is the embedded model.
JUDGED = ("run", "calibrate", "jailbreak", "generate", "arena")

#: Checked with ``--help`` only: (a piece of the written command, the reason).
HELP_ONLY = (
    ("assay serve", ("serves until stopped; tests/test_serve.py and test_serve_browser.py "
                     "drive the server")),
    ("assay watch", ("serves until stopped; tests/test_watch_*.py drive the receiver, and "
                     "test_watch_kill.py the command itself")),
    ("--engine ray", ("starts a Ray cluster (seconds of start-up on 2 cores, or a running "
                      "cluster for --ray-address); tests/test_ray_engine.py runs the Ray engine")),
)

#: The metrics of the two prepared runs (the safety ones for compare-defects).
SAFETY_RUN_METRICS = "groundedness,f1_score,hate_unfairness,sexual,violence,self_harm"

#: Exit codes other than 0 that a command may end with: command -> (code, reason).
#: Empty today: every documented command exits 0 (jailbreak exited 3 on the fake judge until
#: an unparsable refusal answer stopped counting as a failed judge call).
EXIT_ALLOWED: dict[str, tuple[int, str]] = {}

#: Written placeholder -> what runs (``{base}``, ``{candidate}``, ``{csv}``, ``{calibration}``
#: are filled per test).
PLACEHOLDERS = {
    "DATA.jsonl": "{data}", "DATA": "{data}", "data/eval.jsonl": "{data}",
    "data.jsonl": "{data}", "DATA.csv": "{csv}",
    "RUN": "{candidate}", "CANDIDATE": "{candidate}", "CANDIDATE_RUN": "{candidate}",
    "INJECTED_RUN": "{candidate}", "BASE": "{base}", "BASE_RUN": "{base}",
    "BASE_DIR": "{base_dir}", "INJECTED_DIR": "{candidate_dir}",
    "python:myapp.chat:reply": "python:examples.apps:toy_app", "APP": "python:examples.apps:toy_app",
    "assay-out/calibrate-rated": "{calibration}",
    "ATTACK_A": "{attack_a}", "ATTACK_B": "{attack_b}",
}
EXAMPLE_RUN_ID = re.compile(r"^\d{8}-\d{6}(-[0-9a-f]{4})?$")
TARGET_FOR_LOCAL = {"robustness": "python:examples.apps:echo_first_passage",
                    "simulate": "python:examples.apps:toy_app",
                    "jailbreak": "python:examples.apps:toy_app"}


@dataclass(frozen=True)
class DocCommand:
    """One written command: where it is, its text, and the workflow steps before it."""

    where: str
    text: str
    before: tuple[str, ...] = ()


def _command_text(line: str) -> str | None:
    line = line.strip()
    line = line.removeprefix("$ ")
    first = line.split(" ", 1)[0]
    return line if first == "assay" or first.endswith("/assay") else None


def _yaml_steps(lines: list[str]) -> list[tuple[int, str]]:
    """``run:`` steps of a workflow (``run: CMD`` or a folded ``run: >`` block)."""
    steps: list[tuple[int, str]] = []
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)(?:- )?run: *(.*)$", lines[i])
        if m:
            indent, value = len(m.group(1)), m.group(2).strip()
            start = i
            if value in (">", "|", ">-", "|-"):
                body = []
                while i + 1 < len(lines) and (not lines[i + 1].strip() or
                                              len(lines[i + 1]) - len(lines[i + 1].lstrip())
                                              > indent):
                    i += 1
                    body.append(lines[i].strip())
                value = " ".join(b for b in body if b)
            steps.append((start, value))
        i += 1
    return steps


def _synopsis(span: str) -> bool:
    """Inline code that describes a command's form rather than one command: ``...``,
    ``[optional]`` parts, ``a|b`` alternatives, a placeholder :data:`PLACEHOLDERS` does not
    fill (``--metric NAME``), or a lone option named in prose (``assay run --out``)."""
    tokens = span.split()[2:]
    return (tokens == [] or (len(tokens) == 1 and tokens[0].startswith("-"))
            or "..." in span or "[" in span or "|" in span
            or any(re.fullmatch(r"[A-Z][A-Z_]*", t) and t not in PLACEHOLDERS for t in tokens))


def _writers_of(command: str, earlier: list[str]) -> tuple[str, ...]:
    """The earlier commands of a block that write a file this one reads (their ``--out``)."""
    tokens = set(shlex.split(command, comments=True))
    writers = []
    for text in earlier:
        argv = shlex.split(text, comments=True)
        for i, token in enumerate(argv[:-1]):
            if token in ("--out", "-o") and argv[i + 1] in tokens:
                writers.append(text)
    return tuple(writers)


#: Fenced blocks marked ``<!-- not-run: REASON -->`` on the line before them (after blank
#: lines): (where, reason). Filled by :func:`doc_commands`; the reasons are listed by
#: ``test_blocks_not_run_say_why``.
NOT_RUN: list[tuple[str, str]] = []
NOT_RUN_MARK = re.compile(r"^\s*<!--\s*not-run:\s*(.*?)\s*-->\s*$")


def not_run_reason(lines: list[str], fence: int) -> str | None:
    """The reason of a ``<!-- not-run: REASON -->`` comment just before the fence at line
    index ``fence`` (blank lines between are allowed), or None."""
    k = fence - 1
    while k >= 0 and not lines[k].strip():
        k -= 1
    mark = NOT_RUN_MARK.match(lines[k]) if k >= 0 else None
    return mark.group(1) if mark else None


def doc_commands() -> list[DocCommand]:
    """Every assay command in the fenced code blocks of README.md and docs/*.md."""
    found: list[DocCommand] = []
    for doc in DOCS:
        lines = doc.read_text(encoding="utf-8").splitlines()
        name = doc.relative_to(ROOT)
        i = 0
        while i < len(lines):
            fence = re.match(r"^\s*```\s*([\w+-]*)", lines[i])
            if not fence:
                i += 1
                continue
            lang, start = fence.group(1).lower(), i + 1
            end = start
            while end < len(lines) and not lines[end].strip().startswith("```"):
                end += 1
            block = lines[start:end]
            reason = not_run_reason(lines, i)
            if reason is not None:
                NOT_RUN.append((f"{name}:{start}", reason))
            elif lang in ("yaml", "yml"):
                steps = [(n, s) for n, s in _yaml_steps(block) if _command_text(s)]
                for k, (n, text) in enumerate(steps):
                    found.append(DocCommand(f"{name}:{start + n + 1}", text,
                                            tuple(s for _, s in steps[:k])))
            elif lang not in ("python", "py", "json", "jsonc", "toml", "html"):
                earlier: list[str] = []
                n = 0
                while n < len(block):
                    first, text = n, block[n]
                    while text.rstrip().endswith("\\") and n + 1 < len(block):
                        n += 1
                        text = text.rstrip()[:-1] + " " + block[n].strip()
                    command = _command_text(text)
                    if command:
                        found.append(DocCommand(f"{name}:{start + first + 1}", command,
                                                _writers_of(command, earlier)))
                        earlier.append(command)
                    n += 1
            i = end + 1
        for n, line in enumerate(lines, 1):
            for span in re.findall(r"`((?:\.venv/bin/)?assay [^`]+)`", line):
                if len(span.split()) >= 3 and not _synopsis(span):
                    found.append(DocCommand(f"{name}:{n}", span))
    return found


COMMANDS = doc_commands()


def _option(argv: list[str], name: str) -> int | None:
    for i, token in enumerate(argv):
        if token == name or token.startswith(name + "="):
            return i
    return None


def adapt(text: str, fill: dict[str, str]) -> tuple[list[str], str | None]:
    """The argv that runs for a written command, and the HELP_ONLY reason if it only gets
    ``--help``."""
    argv = shlex.split(text, comments=True)[1:]
    for piece, reason in HELP_ONLY:
        if piece in text:
            return [*argv, "--help"], reason
    out = []
    for token in argv:
        token = PLACEHOLDERS.get(token, token)
        if EXAMPLE_RUN_ID.match(token):
            token = "{base}"
        if token.startswith("examples/"):
            token = str(ROOT / token)
        elif token.startswith("../shared/"):
            token = str(SHARED / token[len("../shared/"):])
        out.append(token.format(**fill) if "{" in token and "}" in token else token)
    command = out[0] if out else ""
    judge = _option(out, "--judge")
    if judge is not None and "=" not in out[judge] and judge + 1 < len(out):
        if out[judge + 1] == "local" or out[judge + 1].startswith("local:"):
            out[judge + 1] = API_JUDGE
    elif judge is None and command in JUDGED:
        out += ["--judge", API_JUDGE]
    seeds = _option(out, "--seeds")
    if seeds is not None and str(SHARED) in out[seeds + 1] and _option(out, "--n") is None:
        out += ["--n", "20"]
    target = _option(out, "--target")
    if target is not None and target + 1 < len(out) and out[target + 1] == "local":
        out[target + 1] = TARGET_FOR_LOCAL[command]
    return out, None


@pytest.fixture(scope="module")
def judge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeJudgeServer]:
    """The bench's fake judge, answering Yes/No questions (the refusal metric's) as a real
    judge does: a run whose answers cannot be read fails (exit 3), as it should."""
    server = FakeJudgeServer(tmp_path_factory.mktemp("judge"), "--latency-ms", "1",
                             script=Path(__file__).parent / "yes_no_judge.py")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def slow_judge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A judge that answers after 3 s: a run against it can be interrupted mid-request.
    ``URL|LOG`` (its request log, to see when a request has arrived)."""
    server = FakeJudgeServer(tmp_path_factory.mktemp("slow"), "--latency-ms", "3000")
    yield f"{server.base_url}|{server.log}"
    server.stop()


@pytest.fixture(scope="module")
def prepared(judge: FakeJudgeServer, tmp_path_factory: pytest.TempPathFactory
             ) -> dict[str, Any]:
    """A store with two runs of examples/qa.jsonl (base, then candidate, tagged nightly; two
    rows of the candidate labelled), the same rows as CSV, and a calibration of
    examples/rated.jsonl."""
    tmp = tmp_path_factory.mktemp("prepared")
    store = tmp / "runs.sqlite"
    env = _env(judge, tmp, store)
    for name in ("base", "candidate"):
        _ok(["run", str(QA), "--metrics", SAFETY_RUN_METRICS, "--judge", API_JUDGE,
             "--name", name, "--tag", "nightly", "--out", str(tmp / name)], env, tmp)
    calibration = tmp / "calibrate-rated"
    _ok(["calibrate", str(ROOT / "examples" / "rated.jsonl"), "--metric-file",
         str(ROOT / "examples" / "metrics" / "helpfulness.md"), "--judge", API_JUDGE,
         "--out", str(calibration), "--no-store"], env, tmp)
    rows = [json.loads(line) for line in QA.read_text(encoding="utf-8").splitlines()][:2]
    data = tmp / "qa.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    csv_path = tmp / "qa.csv"
    with csv_path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with open_store(str(store)) as opened:
        ids = {info.name: info.id for info in opened.runs()}
        # two attack runs (what `assay jailbreak --strategy crescendo` wrote for an app and a
        # hardened one: tests/data/job_runs), for `assay compare ATTACK_A ATTACK_B`
        attacks = {name: _record_job_run(
                       opened, "attack", _job_rows(f"{stem}.jsonl"),
                       json.loads((JOB_RUNS / f"{stem}.json").read_text(encoding="utf-8")), name)
                   for name, stem in (("attack_a", "attack"), ("attack_b", "attack-hardened"))}
        for rec, rating in zip(opened.rows_page(ids["candidate"], limit=2), (2, 5)):
            # labels, as the review page of assay serve saves them, for assay labels export
            opened.save_label(ids["candidate"], str(rec["id"]), "groundedness", rater="ann",
                              value=rating)
    return {"store": store, "fill": {"base": ids["base"], "candidate": ids["candidate"],
                                     "base_dir": str(tmp / "base"),
                                     "candidate_dir": str(tmp / "candidate"),
                                     "data": str(data), "csv": str(csv_path),
                                     "calibration": str(calibration), **attacks}}


def _renamed(argv: list[str], data: str, folder: Path) -> list[str]:
    """With ``--map FIELD=COLUMN`` options, the data file with its columns renamed to match."""
    pairs = [argv[i + 1].split("=", 1) for i, a in enumerate(argv[:-1]) if a == "--map"]
    if not pairs or data not in argv:
        return argv
    rename = {field: column for field, column in pairs}
    renamed = folder / "renamed.jsonl"
    rows = [json.loads(line) for line in Path(data).read_text(encoding="utf-8").splitlines()]
    renamed.write_text("".join(json.dumps({rename.get(k, k): v for k, v in r.items()}) + "\n"
                               for r in rows), encoding="utf-8")
    return [str(renamed) if a == data else a for a in argv]


def _interrupted(argv: list[str], env: dict[str, str], cwd: Path, slow: str) -> None:
    """Run ``assay ARGV`` in a real process against a judge that answers after 3 s, and press
    Ctrl-C (SIGINT) once its first judge request has arrived: an interrupted run."""
    log = Path(slow.split("|")[1])
    before = len(log.read_text().splitlines()) if log.exists() else 0
    proc = subprocess.Popen([sys.executable, "-m", "assay.cli", *argv],
                            env={**os.environ, **env, "OPENAI_BASE_URL": slow.split("|")[0],
                                 # this checkout's source, whatever assay is installed
                                 "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])},
                            cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if log.exists() and len(log.read_text().splitlines()) > before:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, f"the run to resume did not stop on Ctrl-C:\n{output}"


def _env(judge: FakeJudgeServer, folder: Path, store: Path) -> dict[str, str]:
    return {"OPENAI_BASE_URL": judge.base_url, "OPENAI_API_KEY": "sk-readme-not-a-secret",
            "ASSAY_STORE": str(store), "XDG_CACHE_HOME": str(folder / "cache"),
            "COLUMNS": "120", "NO_COLOR": "1", "ASSAY_PROGRESS": "0"}


def _invoke(argv: list[str], env: dict[str, str], cwd: Path) -> Any:
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(cwd)
        mp.syspath_prepend(str(ROOT))  # python:examples.apps:... targets
        return CliRunner().invoke(app, argv, env=env)


def _ok(argv: list[str], env: dict[str, str], cwd: Path, where: str = "setup",
        written: str = "") -> Any:
    allowed = EXIT_ALLOWED.get(argv[0], (0, ""))[0] if argv else 0
    result = _invoke(argv, env, cwd)
    output = result.output
    unknown = re.findall(r"No such option: (\S+)", output)
    if unknown:
        pytest.fail(f"{where}: `{written or ' '.join(argv)}` uses an option assay does not "
                    f"have: {', '.join(unknown)}. Build it, or fix the docs.", pytrace=False)
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    if crashed or result.exit_code not in (0, allowed):
        tail = "\n".join(output.splitlines()[-25:])
        pytest.fail(f"{where}: `{written or ' '.join(argv)}` exited {result.exit_code}"
                    f"{' with ' + repr(result.exception) if crashed else ''}\nran: assay "
                    f"{shlex.join(argv)}\n{tail}", pytrace=False)
    assert "Traceback" not in output, output
    return result


def test_the_docs_have_commands_to_check() -> None:
    texts = [c.text for c in COMMANDS]
    assert len(texts) >= 30
    for expected in ("assay run DATA.jsonl", "assay report CANDIDATE --compare BASE -o r.html",
                     "assay serve", "assay run examples/pairs.jsonl", "assay runs --tag nightly"):
        assert any(expected in t for t in texts), expected


def test_adapt_follows_the_rules() -> None:
    fill = {"base": "B", "candidate": "C", "data": "D", "csv": "d.csv", "calibration": "cal"}
    assert adapt("assay run DATA.jsonl --resume", fill)[0] == [
        "run", "D", "--resume", "--judge", API_JUDGE]
    assert adapt("assay calibrate examples/rated.jsonl --judge local", fill)[0] == [
        "calibrate", str(ROOT / "examples/rated.jsonl"), "--judge", API_JUDGE]
    assert adapt("assay export 20261121-203638 -o x.csv  # a comment", fill)[0] == [
        "export", "B", "-o", "x.csv"]
    assert _synopsis("assay calibrate DATA --metric NAME")
    assert _synopsis("assay robustness DATA --suite noise|rejection")
    assert _synopsis("assay run --out")
    assert not _synopsis("assay compare-defects BASE_DIR INJECTED_DIR")
    assert adapt("assay simulate --seeds ../shared/data/advbench --inject", fill)[0] == [
        "simulate", "--seeds", str(SHARED / "data/advbench"), "--inject", "--n", "20"]
    argv, reason = adapt("assay serve --port 8400", fill)
    assert argv == ["serve", "--port", "8400", "--help"] and reason


def test_blocks_not_run_say_why() -> None:
    """A block kept out of the tests says why, in words; the list is printed with ``-s``."""
    for where, reason in NOT_RUN:
        assert len(reason.split()) >= 3, f"{where}: say why the block cannot run ({reason!r})"
        print(f"not run: {where}: {reason}")


@pytest.mark.parametrize("command", COMMANDS, ids=[c.where for c in COMMANDS])
def test_documented_command_runs(command: DocCommand, judge: FakeJudgeServer,
                                 prepared: dict[str, Any], request: pytest.FixtureRequest,
                                 tmp_path: Path) -> None:
    store = tmp_path / "runs.sqlite"
    shutil.copy(prepared["store"], store)
    env = _env(judge, tmp_path, store)
    fill = prepared["fill"]
    for step in command.before:
        argv = _renamed(adapt(step, fill)[0], fill["data"], tmp_path)
        _ok(argv, env, tmp_path, f"{command.where} (an earlier step)", step)
    argv, help_reason = adapt(command.text, fill)
    argv = _renamed(argv, fill["data"], tmp_path)
    if help_reason is None and "--resume" in argv:
        _interrupted([a for a in argv if a != "--resume"], env, tmp_path,
                     request.getfixturevalue("slow_judge"))
    plugin = (example_plugin_installed(tmp_path / "site")
              if command.where.startswith("docs/plugins.md") else nullcontext())
    with plugin:
        result = _ok(argv, env, tmp_path, command.where, command.text)
    if help_reason is not None:
        assert "Usage:" in result.output


# -- the guide's metrics tables say what the planner does ---------------------------------------------

def _tables(text: str, first_header: str) -> list[tuple[str, list[str]]]:
    """The rows of the markdown table whose header starts with ``first_header``: (first cell,
    the backticked metric names of the second)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header}"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        label, metrics = (cell.strip() for cell in line.strip("|").split("|", 1))
        rows.append((label, re.findall(r"`(\w+)`", metrics)))
    return rows


def test_the_metrics_tables_match_the_planner() -> None:
    """Each QA line's fields plan exactly its metrics plus those of the lines whose fields it
    includes; the conversation lines likewise; together they are the whole auto set."""
    from assay.data import rows_from_records
    from assay.metrics import AUTO_CONVERSATION_METRICS, AUTO_METRICS, plan_metrics

    def planned(record: dict[str, Any]) -> set[str]:
        rows = rows_from_records([{"id": "1", **record}])
        return {m.name for m in plan_metrics(rows, "auto").metrics}

    text = METRICS_GUIDE.read_text(encoding="utf-8")
    qa = _tables(text, "a QA row with an answer and")
    values = {"question": "Q?", "context": "C.", "contexts": ["C1.", "C2."],
              "ground_truth": "G.", "answerable": False}
    fields = [set(re.findall(r"`(\w+)`", label)) for label, _ in qa]
    covered: set[str] = set()
    for (label, metrics), have in zip(qa, fields, strict=True):
        # "contexts (a list) works wherever context does"
        reads_as = have | ({"context"} if "contexts" in have else set())
        expected = set().union(*(set(m) for (_, m), f in zip(qa, fields, strict=True)
                                 if f <= reads_as))
        record = {"answer": "A.", **{f: values[f] for f in have}}
        assert planned(record) == expected, (label, planned(record) ^ expected)
        covered |= set(metrics)
    turns = [{"role": "user", "content": "Hi?"}, {"role": "assistant", "content": "Hello."}]
    cited = [turns[0], {**turns[1], "context": {"citations": [{"id": "d", "content": "Doc."}]}}]
    (plain_label, plain), (cited_label, with_citations), (goal_label, with_goal) = _tables(
        text, "a conversation (`messages`) with")
    assert "citations" in cited_label and "citations" not in plain_label
    assert "`expected_outcome`" in goal_label and "`goal`" in goal_label
    assert planned({"messages": turns}) == set(plain)
    assert planned({"messages": cited}) == set(plain) | set(with_citations)
    for field in ("expected_outcome", "goal"):
        assert planned({"messages": turns, field: "Hello said."}) == set(plain) | set(with_goal)
    assert covered | set(plain) | set(with_citations) == set(AUTO_METRICS)
    assert set(with_goal) == set(AUTO_CONVERSATION_METRICS)


def _headers(text: str) -> list[list[str]]:
    """The header cells of each boxed table in ``text`` (rows of ┃ cells)."""
    return [[c.strip() for c in line.strip().strip("┃").split("┃")]
            for line in text.splitlines() if line.strip().startswith("┃")]


def test_the_demo_output_has_todays_shape(judge: FakeJudgeServer, prepared: dict[str, Any],
                                             tmp_path: Path) -> None:
    """The demo block's tables have the columns, and its summary lines the words, that a
    run's summary prints today (a stored run with judge and safety metrics, via show)."""
    text = GETTING_STARTED.read_text(encoding="utf-8")
    opening = text.index("## What the demo does")
    demo = text[opening:text.index("\n## ", opening + 1)]
    block = demo[demo.index("```\n") + 4:demo.index("\n```", demo.index("```\n") + 4)]
    env = {**_env(judge, tmp_path, prepared["store"]), "COLUMNS": "200"}
    shown = _ok(["show", prepared["fill"]["base"]], env, tmp_path).stdout
    assert _headers(block) == _headers(shown)
    written = [b.strip() for b in block.splitlines()]
    printed = [line.strip() for line in shown.splitlines()]
    for start in ("assay:", "safety defects:", "diagnosis", "embeddings", "judge "):
        if any(line.startswith(start) for line in printed):
            assert any(b.startswith(start) for b in written), start
    assert any(line.startswith("safety defects:") for line in printed)
