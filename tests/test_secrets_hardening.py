"""Secrets in specs and in what providers answer (issue 32, item 1), over real HTTP on loopback.

- ``--judge openai:MODEL@https://user:password@host/v1`` goes to that host, with the
  credentials as HTTP Basic auth, never to ``OPENAI_BASE_URL``; the judge's id shows
  ``user:***@``; the password is in no file of ``--out``, the run store, the HTML report, the web
  UI or the terminal. The same holds for ``--embeddings`` and ``--target`` specs.
- A provider's error that repeats the key (OpenAI's 401 "Incorrect API key provided: ...") is
  recorded with the key masked, whatever the key's shape (one the shape rules cannot see is
  masked by its value).
- Judge and embedding caches keep answers apart per endpoint.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from starlette.testclient import TestClient

from assay._secrets import mask_log_output
from assay.agents import make_agent
from assay.calibration import calibrate
from assay.calls import ManagedEmbedder, ManagedJudge
from assay.embeddings import EmbeddingCache, make_embedder
from assay.errors import ConfigError, JudgeError
from assay.judges import JudgeCache, JudgeRequest, OpenAIJudge, make_judge
from assay.metrics import MetricResult
from assay.redteam import load_seeds, pick_seeds, plain_attacks, simulate
from assay.run import RunOptions, evaluate
from assay.serve import create_app
from assay.store import open_store
from assay.targets import make_target
from support import LoopbackServer, completion_body, send_json

ASSAY = [sys.executable, "-m", "assay.cli"]
PASSWORD = "Pa55word-xyz"
#: A key the shape rules cannot see (no known prefix, short segments): masked by its value.
ODD_KEY = "hunter2-plain-key"
SK_KEY = "sk-proj-Zx81Qw72Er63Ty54Ui45"
ROWS = [{"id": str(i), "question": f"Capital of country {i}?", "answer": "Paris.",
         "ground_truth": "Paris", "context": "Paris is the capital of France."}
        for i in range(1, 4)]


class EchoServer(LoopbackServer):
    """An OpenAI-compatible server on loopback that records each request's path and
    ``Authorization`` header. ``mode="ok"`` answers chat completions with a score (and
    embeddings, and ``{"answer": ...}`` for an HTTP target); ``mode="401"`` refuses every call
    with OpenAI's invalid-key error, repeating the credential it was sent, as providers do."""

    def __init__(self, mode: str = "ok") -> None:
        self.mode = mode
        self.calls: list[tuple[str, str | None]] = []
        super().__init__()

    def on_post(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        auth = handler.headers.get("Authorization")
        self.calls.append((handler.path, auth))
        send_json(handler, *self.answer(handler.path, auth, json.loads(body or b"{}")))

    def answer(self, path: str, auth: str | None, body: dict[str, Any]) -> tuple[int, Any]:
        if self.mode == "401":
            credential = (auth or "").split()[-1] if auth else ""
            return 401, {"error": {"message": f"Incorrect API key provided: {credential}. You "
                                              "can find your API key at https://x.example/keys.",
                                   "type": "invalid_request_error", "code": "invalid_api_key"}}
        if path.endswith("/embeddings"):
            texts = body["input"]
            return 200, {"object": "list", "model": body["model"],
                         "data": [{"object": "embedding", "index": i, "embedding": [1.0, 0.0]}
                                  for i in range(len(texts))],
                         "usage": {"prompt_tokens": 1, "total_tokens": 1}}
        if path.endswith("/chat/completions"):
            content = json.dumps({"reason": "supported by the context", "score": 5})
            return 200, completion_body(content, body.get("model", "m"))
        return 200, {"answer": "Paris."}

    @property
    def chat_calls(self) -> list[tuple[str, str | None]]:
        return [c for c in self.calls if c[0].endswith("/chat/completions")]


@pytest.fixture
def servers() -> Iterator[Any]:
    """Factory: ``servers("401")`` starts an :class:`EchoServer`; all stopped after the test."""
    started: list[EchoServer] = []

    def start(mode: str = "ok") -> EchoServer:
        started.append(EchoServer(mode))
        return started[-1]

    yield start
    for s in started:
        s.stop()


def _basic(user: str, password: str) -> str:
    return base64.b64encode(f"{user}:{password}".encode()).decode()


def _dataset(tmp_path: Path) -> Path:
    path = tmp_path / "qa.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def _assay(tmp_path: Path, *args: str, base_url: str, key: str) -> subprocess.CompletedProcess:
    """The CLI in a subprocess, with ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` set and the
    store and caches under ``tmp_path``."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "AZURE_OPENAI_", "ASSAY_"))}
    env.update(OPENAI_BASE_URL=base_url, OPENAI_API_KEY=key, NO_COLOR="1",
               XDG_CACHE_HOME=str(tmp_path / "xdg-cache"), XDG_DATA_HOME=str(tmp_path / "xdg-data"))
    return subprocess.run([*ASSAY, *args], check=False, env=env, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)


def _leaks(tmp_path: Path, proc: subprocess.CompletedProcess, *secrets: str) -> list[str]:
    """Where any of ``secrets`` shows: the terminal, or any file under ``tmp_path`` (the run's
    --out folder, the run store's SQLite files, the caches, a report)."""
    found = [f"{where} has {s!r}" for where, text in (("stdout", proc.stdout),
                                                      ("stderr", proc.stderr))
             for s in secrets if s in text]
    for f in tmp_path.rglob("*"):
        if f.is_file():
            data = f.read_bytes()
            found += [f"{f} has {s!r}" for s in secrets if s.encode() in data]
    return found


def _store_path(tmp_path: Path) -> Path:
    (path,) = (tmp_path / "xdg-data").rglob("runs.sqlite")
    return path


# ------------------------------------------------------------- a judge URL with credentials


def test_a_judge_url_with_credentials_is_called_there_and_its_password_shows_nowhere(
        servers: Any, tmp_path: Path) -> None:
    named, default = servers(), servers()
    url = f"http://bob:{PASSWORD}@127.0.0.1:{named.port}/v1"
    out = tmp_path / "out"
    proc = _assay(tmp_path, "run", str(_dataset(tmp_path)), "--metrics", "groundedness,f1_score",
                  "--judge", f"openai:m@{url}", "--out", str(out), "--cache",
                  str(tmp_path / "cache.sqlite"), "--reasons", "never",
                  base_url=default.base_url, key=SK_KEY)
    assert proc.returncode == 0, proc.stderr
    # every call went to the named server, with the URL's credentials as HTTP Basic auth
    assert default.calls == []
    assert len(named.chat_calls) == len(ROWS)
    assert {auth for _, auth in named.chat_calls} == {f"Basic {_basic('bob', PASSWORD)}"}
    masked = f"openai:m@http://bob:***@127.0.0.1:{named.port}/v1"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["judge"]["id"] == masked
    assert summary["metrics"]["groundedness"]["scored"] == len(ROWS)
    run_id = summary["run_id"]
    # the HTML report and the web UI, from the run store
    report = _assay(tmp_path, "report", run_id, "-o", str(tmp_path / "report.html"),
                    base_url=default.base_url, key=SK_KEY)
    assert report.returncode == 0, report.stderr
    with TestClient(create_app(_store_path(tmp_path))) as client:
        pages = [client.get("/").text, client.get(f"/runs/{run_id}").text]
    assert all(masked in page for page in pages)  # the judge, shown as recorded
    # assay explain cannot rebuild the judge from its recorded (masked) id: it says so...
    explain = ["explain", run_id, "1", "groundedness", "--no-cache"]
    unnamed = _assay(tmp_path, *explain, base_url=default.base_url, key=SK_KEY)
    assert unnamed.returncode == 2, unnamed.stderr
    assert "credentials that are not recorded" in unnamed.stderr
    # ...and asks it when named again, at the named server
    named_again = _assay(tmp_path, *explain, "--judge", f"openai:m@{url}",
                         base_url=default.base_url, key=SK_KEY)
    assert named_again.returncode == 0, named_again.stderr
    assert "supported by the context" in named_again.stdout
    assert default.calls == [] and len(named.chat_calls) == len(ROWS) + 1
    secrets = (PASSWORD, _basic("bob", PASSWORD), SK_KEY)
    for shown in (proc, report, unnamed, named_again):
        assert _leaks(tmp_path, shown, *secrets) == []
    assert not [s for s in secrets for page in pages if s in page]


def test_a_provider_401_repeating_the_url_credentials_is_recorded_masked(
        servers: Any, tmp_path: Path) -> None:
    refusing, default = servers("401"), servers()
    url = f"http://bob:{PASSWORD}@127.0.0.1:{refusing.port}/v1"
    out = tmp_path / "out"
    proc = _assay(tmp_path, "run", str(_dataset(tmp_path)), "--metrics", "groundedness,f1_score",
                  "--judge", f"openai:m@{url}", "--out", str(out), "--no-cache",
                  base_url=default.base_url, key=SK_KEY)
    assert proc.returncode == 3, proc.stderr
    assert refusing.chat_calls and default.calls == []
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    errors = {r["groundedness"]["error"] for r in records}
    assert errors == {("judge call failed: HTTP 401: Incorrect API key provided: ***. You can "
                       "find your API key at https://x.example/keys.")}
    assert _leaks(tmp_path, proc, PASSWORD, _basic("bob", PASSWORD), SK_KEY) == []


@pytest.mark.parametrize("key", [ODD_KEY, SK_KEY])
def test_a_provider_401_repeating_the_key_leaves_it_in_no_file_store_or_terminal(
        servers: Any, tmp_path: Path, key: str) -> None:
    refusing = servers("401")
    out = tmp_path / "out"
    proc = _assay(tmp_path, "run", str(_dataset(tmp_path)), "--metrics", "groundedness,f1_score",
                  "--judge", "openai:m", "--out", str(out), "--no-cache",
                  base_url=refusing.base_url, key=key)
    assert proc.returncode == 3, proc.stderr
    assert {auth for _, auth in refusing.chat_calls} == {f"Bearer {key}"}  # it was sent...
    assert "Incorrect API key provided: ***" in (out / "results.jsonl").read_text()
    assert _leaks(tmp_path, proc, key) == []  # ...and repeated back, and recorded masked
    with open_store(_store_path(tmp_path)) as store:
        (info,) = store.runs()
        rows = store.rows(info.id)
    assert rows and all("***" in json.dumps(r) and key not in json.dumps(r) for r in rows)


def test_a_judge_error_made_anywhere_is_masked_of_the_configured_keys(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-odd-key-42")
    monkeypatch.setenv("OPENAI_API_KEY", ODD_KEY)
    error = JudgeError(f"HTTP 401: bad keys {ODD_KEY} and azure-odd-key-42; Bearer x1y2z3w4v5")
    assert str(error) == "HTTP 401: bad keys *** and ***; Bearer ***"
    result = MetricResult.unscored(f"target call failed: RuntimeError: refused {ODD_KEY}")
    assert result.error == "target call failed: RuntimeError: refused ***"
    # placeholders that keyless local servers are given are no secrets: left as they are
    monkeypatch.setenv("OPENAI_API_KEY", "ollama")
    assert str(JudgeError("model ollama/llama3 not found")) == "model ollama/llama3 not found"


APP_THAT_REFUSES = f'''
def agent(messages, tools):
    raise RuntimeError("upstream said: Incorrect API key provided: {ODD_KEY}")
'''


class _RefusingChatApp:
    id = "python:refusing"

    async def reply(self, messages: list[dict[str, str]]) -> str:
        raise RuntimeError(f"upstream said: Incorrect API key provided: {ODD_KEY}")


def test_an_app_error_repeating_the_key_is_recorded_masked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", ODD_KEY)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "refusing_app_under_test.py").write_text(APP_THAT_REFUSES)
    row = {"id": "oslo", "messages": [{"role": "user", "content": "Weather in Oslo?"}],
           "reference_tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]}
    store = tmp_path / "runs.sqlite"
    result = evaluate([row], metrics="tool_call_accuracy",
                      agent=make_agent("python:refusing_app_under_test:agent"),
                      run=RunOptions(out=tmp_path / "out", store=store))
    error = result.rows[0]["tool_call_accuracy"]["error"]
    assert error.endswith("RuntimeError: upstream said: Incorrect API key provided: ***"), error
    with open_store(store) as reader:
        stored = json.dumps(reader.rows(result.summary["run_id"]))
    assert "***" in stored and ODD_KEY not in stored
    assert not [f for f in tmp_path.rglob("*") if f.is_file() and ODD_KEY.encode()
                in f.read_bytes() and f.suffix != ".py"]
    # the same app error in assay simulate's conversations
    out = tmp_path / "conv.jsonl"
    rows = asyncio.run(simulate(plain_attacks(pick_seeds(load_seeds(), 2)), _RefusingChatApp(),
                                out, max_attempts=1))
    assert rows and all(r["error"].endswith("provided: ***") for r in rows)
    assert ODD_KEY not in out.read_text()


def test_what_is_logged_is_masked_once_a_command_set_up_logging(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", ODD_KEY)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logging.getLogger().addHandler(handler)
    try:
        mask_log_output()
        try:
            raise RuntimeError(f"Incorrect API key provided: {ODD_KEY}")
        except RuntimeError:
            logging.getLogger("assay.test").exception("metric m failed with %s", ODD_KEY)
    finally:
        logging.getLogger().removeHandler(handler)
    logged = stream.getvalue()
    assert "metric m failed with ***" in logged and "provided: ***" in logged
    assert ODD_KEY not in logged


def test_calibrate_names_a_judge_with_credentials_without_its_password(
        servers: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SK_KEY)
    named = servers()
    spec = f"openai:m@http://bob:{PASSWORD}@127.0.0.1:{named.port}/v1"
    rows = [{"question": "Q?", "answer": "A.", "coherence/human_rating": h} for h in (5, 2)]
    data = tmp_path / "rated.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    got = calibrate(data, metric="coherence", judges=[spec], out=tmp_path / "cal",
                    cache=None, store=tmp_path / "runs.sqlite")
    assert list(got.reports) == [f"openai:m@http://bob:***@127.0.0.1:{named.port}/v1"]
    assert named.chat_calls  # the two identical rows share one call
    assert not [f for f in tmp_path.rglob("*") if PASSWORD in str(f)
                or f.is_file() and PASSWORD.encode() in f.read_bytes()]


@pytest.mark.parametrize("path", ["http", "sdk"])
def test_the_key_of_a_client_passed_in_code_is_masked_in_the_errors_it_gets(path: str) -> None:
    key = "custom-client-key"  # no shape a rule knows: masked because the judge was given it

    def refuse(request: httpx.Request) -> httpx.Response:
        sent = request.headers["Authorization"].split()[-1]
        return httpx.Response(401, json={"error": {"message": f"Incorrect API key: {sent}"}})

    if path == "http":  # the key passed to the judge, sent by assay's own client
        judge = OpenAIJudge("m", base_url="http://judge.invalid/v1", api_key=key,
                            transport=httpx.MockTransport(refuse))
    else:  # the key of an SDK client passed in
        client = openai.AsyncOpenAI(
            api_key=key, base_url="http://judge.invalid/v1", max_retries=0,
            http_client=httpx.AsyncClient(transport=httpx.MockTransport(refuse)))
        judge = OpenAIJudge("m", client=client)
    request = JudgeRequest(messages=[{"role": "user", "content": "x"}], schema_name="rating")
    with pytest.raises(JudgeError) as refused:
        asyncio.run(judge.complete(request))
    assert "Incorrect API key: ***" in str(refused.value) and key not in str(refused.value)


# ------------------------------------------------------------- where a spec's URL begins


@pytest.mark.parametrize(("arg", "model", "url"), [
    ("m@https://u:p@h.example/v1", "m", "https://u:p@h.example/v1"),
    ("m@http://u:p@q@h.example/v1", "m", "http://u:p@q@h.example/v1"),
    ("org@m@HTTPS://h.example/v1", "org@m", "HTTPS://h.example/v1"),
    ("claude@2024", "claude@2024", None),
])
def test_a_spec_splits_at_the_at_sign_that_starts_the_url(arg: str, model: str,
                                                          url: str | None) -> None:
    from assay.judges import split_model_url  # new with the fix: the other tests run without

    assert split_model_url(arg) == (model, url)


def test_a_password_with_an_unescaped_at_sign_goes_whole_to_the_named_host(
        servers: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    named = servers()
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    judge = make_judge(f"openai:m@http://bob:p@ss-word@127.0.0.1:{named.port}/v1")
    request = JudgeRequest(messages=[{"role": "user", "content": "x"}], schema_name="rating")

    async def ask() -> None:
        await judge.complete(request)
        await judge.aclose()

    asyncio.run(ask())
    assert named.chat_calls == [("/v1/chat/completions", f"Basic {_basic('bob', 'p@ss-word')}")]
    assert judge.id == f"openai:m@http://bob:***@127.0.0.1:{named.port}/v1"


def test_a_spec_with_no_model_before_the_url_is_refused_without_its_password() -> None:
    with pytest.raises(ConfigError) as e:
        make_judge(f"openai:@https://bob:{PASSWORD}@h.example/v1")
    assert "no MODEL" in str(e.value) and PASSWORD not in str(e.value)


def test_embeddings_and_targets_with_credentials_go_to_the_named_host(
        servers: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    named, default = servers(), servers()
    monkeypatch.setenv("OPENAI_BASE_URL", default.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", SK_KEY)
    url = f"http://bob:{PASSWORD}@127.0.0.1:{named.port}/v1"
    basic = f"Basic {_basic('bob', PASSWORD)}"
    embedder = make_embedder(f"openai:e@{url}")
    openai_target = make_target(f"openai:m@{url}")
    http_target = make_target(f"http:{url}/answer")

    async def go() -> None:
        assert await embedder.embed(["a", "b"]) == [[1.0, 0.0], [1.0, 0.0]]
        await openai_target.reply([{"role": "user", "content": "hi"}])
        assert await http_target.answer("q", ["p"], "en") == "Paris."
        for made in (embedder, openai_target, http_target):
            await made.aclose()

    asyncio.run(go())
    assert default.calls == []
    assert named.calls == [("/v1/embeddings", basic), ("/v1/chat/completions", basic),
                           ("/v1/answer", basic)]
    for made in (embedder, openai_target, http_target):
        assert PASSWORD not in made.id and "bob:***@" in made.id


# ------------------------------------------------------------- caches per endpoint


def test_judge_cache_entries_differ_per_endpoint(servers: Any, tmp_path: Path) -> None:
    first, second = servers(), servers()
    data = str(_dataset(tmp_path))
    cache = str(tmp_path / "cache.sqlite")
    for server in (first, second):  # the same judge id, openai:m, at two OPENAI_BASE_URLs
        proc = _assay(tmp_path, "run", data, "--metrics", "groundedness", "--judge", "openai:m",
                      "--out", str(tmp_path / f"out-{server.port}"), "--cache", cache,
                      "--no-store", base_url=server.base_url, key=SK_KEY)
        assert proc.returncode == 0, proc.stderr
    assert len(first.chat_calls) == len(second.chat_calls) == len(ROWS)


def test_managed_judge_and_embedder_cache_keys_name_the_endpoint(
        servers: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SK_KEY)
    first, second = servers(), servers()
    request = JudgeRequest(messages=[{"role": "user", "content": "x"}], schema_name="rating")
    judge_cache = JudgeCache(tmp_path / "judge.sqlite")
    vectors = EmbeddingCache(tmp_path / "vectors.sqlite")

    async def go(base_url: str) -> None:
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        judge, embedder = make_judge("openai:m"), make_embedder("openai:e")
        await ManagedJudge(judge, cache=judge_cache).complete(request)
        await ManagedEmbedder(embedder, cache=vectors).embed(["a"])
        await judge.aclose()
        await embedder.aclose()

    for server in (first, second, first):
        asyncio.run(go(server.base_url))
    # the third round, at the first endpoint again, is answered from the cache
    assert [p for p, _ in first.calls] == [p for p, _ in second.calls] == [
        "/v1/chat/completions", "/v1/embeddings"]
