"""Judge and target kinds are one table each, filled where each kind is defined: a new kind is
added by one ``register_judge`` / ``register_target`` call in its own module, the real CLI then
takes it, and the error for an unknown spec lists what the table holds (issue 45, part 5).

The CLI runs in a fresh interpreter that first imports a module registering the new kind (as
``assay/judges/__init__.py`` imports each backend), so no test leaves a kind behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assay._spec_kinds import SpecKinds
from assay.errors import ConfigError
from assay.judges import JUDGE_KINDS, JUDGE_SPECS, make_judge
from assay.targets import TARGET_KINDS, TARGET_SPECS, make_target

SRC = Path(__file__).resolve().parents[1] / "src"

JUDGE_KIND = '''
from assay.judges import FakeJudge, register_judge

def echo_judge(rest, *, timeout):
    return FakeJudge('{"score": 4, "reason": "echo"}', id=f"echo:{rest}")

register_judge("echo", echo_judge, specs=("echo:NAME",))
'''

TARGET_KIND = '''
from assay.targets import register_target

class ParrotApp:
    def __init__(self, word):
        self.id = f"parrot:{word}"
        self.word = word

    async def answer(self, question, passages, lang):
        return passages[0] if self.word == "first" else self.word

    async def reply(self, messages):
        return self.word

register_target("parrot", lambda rest, *, timeout: ParrotApp(rest), specs=("parrot:WORD",))
'''


def _assay(tmp_path: Path, kind_module: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``assay ARGS`` in a new Python that has imported ``kind_module`` (a file in tmp_path)."""
    (tmp_path / "new_kind.py").write_text(kind_module)
    probe = ("import sys\nimport new_kind\nfrom assay.cli.main import main\n"
             f"sys.argv = ['assay', *{list(args)!r}]\nmain()\n")
    env = {**os.environ, "COLUMNS": "200", "PYTHONPATH": os.pathsep.join(
        [str(SRC), str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=False, env=env, cwd=tmp_path, timeout=120)


def test_a_judge_kind_registered_in_its_module_is_taken_by_the_cli(tmp_path: Path) -> None:
    data = tmp_path / "qa.jsonl"
    data.write_text(json.dumps({"id": "1", "question": "Where is Paris?",
                                "answer": "Paris is in France."}) + "\n")
    out = tmp_path / "out"
    done = _assay(tmp_path, JUDGE_KIND, "run", str(data), "--metrics", "fluency", "--judge",
                  "echo:strict", "--no-cache", "--no-store", "--out", str(out))
    assert done.returncode == 0, done.stderr
    row = json.loads((out / "results.jsonl").read_text())
    assert row["fluency"]["value"] is not None, row
    assert "echo:strict" in (out / "run.json").read_text()  # the run names its judge

    refused = _assay(tmp_path, JUDGE_KIND, "run", str(data), "--metrics", "fluency",
                     "--judge", "bogus", "--no-cache", "--no-store", "--out", str(out))
    assert refused.returncode == 2
    listed = " ".join(refused.stderr.split())
    for spec in (*JUDGE_SPECS, "echo:NAME"):  # the built-ins and the new kind, from the table
        assert spec in listed, (spec, listed)


def test_a_target_kind_registered_in_its_module_is_taken_by_the_cli(tmp_path: Path) -> None:
    data = tmp_path / "rgb.json"
    data.write_text("".join(json.dumps({"id": str(i), "query": "Who won?", "answer": ["Ada"],
                                        "positive": ["Ada won."], "negative": ["Rain fell."]})
                            + "\n" for i in range(2)))
    out = tmp_path / "out"
    done = _assay(tmp_path, TARGET_KIND, "robustness", str(data), "--suite", "noise",
                  "--noise-ratios", "0", "--passages", "1", "--target", "parrot:first",
                  "--no-store", "--out", str(out))
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["target"] == "parrot:first"
    assert [row["correct_rate"] for row in summary["table"]] == [1.0]

    refused = _assay(tmp_path, TARGET_KIND, "robustness", str(data), "--target", "ftp:x",
                     "--no-store", "--out", str(tmp_path / "out-ftp"))
    assert refused.returncode == 2
    listed = " ".join(refused.stderr.split())
    for spec in (*TARGET_SPECS, "parrot:WORD"):
        assert spec in listed, (spec, listed)


def test_the_built_in_kinds_are_the_tables_and_errors_list_them() -> None:
    assert list(JUDGE_KINDS.registered()) == ["fake", "local", "openai", "azure"]
    assert JUDGE_SPECS == ("local", "local:/path/to/model.gguf", "openai:MODEL",
                           "openai:MODEL@URL", "azure:DEPLOYMENT")
    assert list(TARGET_KINDS.registered()) == ["python", "openai", "http", "https", "local"]
    assert TARGET_SPECS == ("python:package.module:function", "openai:MODEL", "openai:MODEL@URL",
                            "http:URL", "local")
    with pytest.raises(ConfigError) as judge_error:
        make_judge("azure")  # a kind that needs a rest
    with pytest.raises(ConfigError) as target_error:
        make_target("python")
    assert ", ".join(JUDGE_SPECS) in str(judge_error.value)
    assert ", ".join(TARGET_SPECS) in str(target_error.value)


def test_a_prefix_is_registered_once() -> None:
    kinds: SpecKinds[str] = SpecKinds("greeter", option="greeter", group=None,
                                      gaps=lambda made: [])
    kinds.register("hello", lambda rest, *, timeout: rest, specs=("hello:NAME",))
    with pytest.raises(ConfigError, match="'hello' is already registered"):
        kinds.register("hello", lambda rest, *, timeout: rest, specs=())
    with pytest.raises(ConfigError, match="Must be a Python identifier"):
        kinds.register("he-llo", lambda rest, *, timeout: rest, specs=())
    with pytest.raises(ConfigError, match="already registered"):
        JUDGE_KINDS.register("openai", lambda rest, *, timeout: make_judge("fake"), specs=())


PLUGIN_APP = '''
class ParrotApp:
    def __init__(self, word):
        self.id = f"parrot:{word}"
        self.word = word

    async def answer(self, question, passages, lang):
        return self.word

    async def reply(self, messages):
        return self.word


class ChatOnly:
    id = "chat-only"

    async def reply(self, messages):
        return "hi"


def make(rest):
    return ParrotApp(rest)


def make_chat_only(rest):
    return ChatOnly()
'''


@pytest.fixture
def target_plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A distribution ``assay-parrot 0.1`` as an install leaves it: its module and a dist-info
    whose entry points (group ``assay.targets``) name a target, a clash with the built-in
    ``python`` prefix, a factory of something that is no target, and a missing module."""
    site = tmp_path / "site"
    info = site / "assay_parrot-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: assay-parrot\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[assay.targets]\nparrot = parrot_app:make\npython = parrot_app:make\n"
        "chatonly = parrot_app:make_chat_only\nghost = no_such_parrot:make\n")
    (site / "parrot_app.py").write_text(PLUGIN_APP)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, "parrot_app", raising=False)
    return site


def test_a_target_plugin_joins_the_table_by_its_prefix(target_plugins: Path) -> None:
    import asyncio

    from typer.testing import CliRunner

    from assay.cli.main import app

    parrot = make_target("parrot:Ada")
    assert parrot.id == "parrot:Ada" and asyncio.run(parrot.answer("Who?", [], "en")) == "Ada"
    with pytest.raises(ConfigError, match="claimed by built-in and by assay-parrot 0.1"):
        make_target("python:examples.apps:toy_app")
    with pytest.raises(ConfigError, match=r"gives a ChatOnly, not a target: it lacks answer\(\)"):
        make_target("chatonly")
    with pytest.raises(ConfigError, match="entry point ghost = no_such_parrot:make in group "
                                          "assay.targets of assay-parrot 0.1"):
        make_target("ghost:x")
    with pytest.raises(ConfigError, match=r"Must be one of: .*local, chatonly:\.\.\., "
                                          r"ghost:\.\.\., parrot:\.\.\."):
        make_target("ftp:x")
    data = target_plugins / "rgb.json"
    data.write_text(json.dumps({"id": "1", "query": "Who won?", "answer": ["Ada"],
                                "positive": ["Ada won."], "negative": ["Rain fell."]}) + "\n")
    result = CliRunner().invoke(app, ["robustness", str(data), "--target", "python:x:y",
                                      "--no-store", "--out", str(target_plugins / "out")])
    assert result.exit_code == 2, result.output
    assert "claimed by built-in and by assay-parrot 0.1" in " ".join(result.output.split())
