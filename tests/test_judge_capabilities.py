"""Judges declare what they can do, and metrics choose how to ask from that, never from the id."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

import assay
from assay import JudgeOptions
from assay.asking import ask_judge
from assay.calls import ManagedJudge
from assay.costs import PriceBook, Usage
from assay.data import Row
from assay.errors import ConfigError
from assay.judges import FakeJudge, Judge, JudgeCapabilities, JudgeRequest, JudgeResponse
from assay.judges._known import known_capabilities
from assay.judges._local import LocalJudge
from assay.judges._openai import OpenAIJudge, azure_judge
from assay.metrics import ScoreContext
from assay.metrics.judge import GROUNDEDNESS
from support import chat_completion, mock_openai_judge

ROW = Row(id="1", line=1, question="Where?", context="It is in Paris.", answer="In Paris.")
RATING = '{"score": 4, "reason": "Stated in the context."}'


def _request() -> JudgeRequest:
    return JudgeRequest(messages=[{"role": "user", "content": "Rate it."}], schema_name="rating")


def _openai_judge(model: str, bodies: list[dict[str, Any]], *, refuse_logprobs: bool = False,
                  **kwargs: Any) -> OpenAIJudge:
    def handler(req: httpx.Request) -> httpx.Response:
        body = json.loads(req.content)
        bodies.append(body)
        if refuse_logprobs and body.get("logprobs"):
            return httpx.Response(400, json={"error": {
                "message": "This model does not support 'logprobs'.", "type": "error"}})
        return chat_completion(RATING, model)

    return mock_openai_judge(handler, model, **kwargs)


# ---------------------------------------------------------------- what each judge declares


def test_every_judge_declares_capabilities_and_meets_the_protocol(tmp_path: Path) -> None:
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF")
    local = LocalJudge(gguf, n_ctx=2048)
    remote = OpenAIJudge("gpt-4o", base_url="http://127.0.0.1:9/v1", api_key="sk-x")
    fake = FakeJudge()
    for judge in (local, remote, fake, ManagedJudge(local)):
        assert isinstance(judge, Judge), judge
        assert isinstance(judge.capabilities, JudgeCapabilities)
    assert local.capabilities == JudgeCapabilities(
        token_logprobs=True, json_schema=True, context_window=2048, local=True,
        input_price=0.0, output_price=0.0)
    assert ManagedJudge(local).capabilities is local.capabilities
    assert fake.capabilities == JudgeCapabilities()  # like a remote judge of unknown size
    assert not fake.capabilities.local and fake.capabilities.token_logprobs


def test_openai_judge_knows_well_known_models_and_leaves_the_rest_unknown() -> None:
    mini = OpenAIJudge("gpt-4o-mini-2024-07-18", base_url="http://127.0.0.1:9/v1", api_key="k")
    assert (mini.capabilities.context_window, mini.capabilities.local) == (128_000, False)
    # prices come from the price book (genai-prices), not from a hand table
    assert mini.capabilities.cost(1_000_000, 1_000_000) is None
    assert PriceBook.load().cost(mini.id, Usage(1_000_000, 1_000_000)).usd == pytest.approx(0.75)
    own = OpenAIJudge("qwen2.5-7b", base_url="http://127.0.0.1:9/v1", api_key="k")
    assert own.capabilities == JudgeCapabilities()
    assert own.capabilities.cost(10, 10) is None
    declared = JudgeCapabilities(context_window=32_768, local=True)
    served = OpenAIJudge("qwen2.5-7b", base_url="http://127.0.0.1:9/v1", api_key="k",
                         capabilities=declared)
    assert served.capabilities is declared


@pytest.mark.parametrize(("model", "window"), [
    ("gpt-4o", 128_000), ("gpt-4o-2024-08-06", 128_000), ("GPT-4.1-mini", 1_047_576),
    ("gpt-3.5-turbo-0125", 16_385), ("gpt-4o-mini-finetuned", None), ("gpt-4o-audio", None)])
def test_known_models_match_a_name_or_its_dated_snapshot_only(model: str,
                                                              window: int | None) -> None:
    assert known_capabilities(model).context_window == window


def test_azure_deployment_named_like_a_model_gets_its_capabilities(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "https://x.openai.azure.com")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "k")
    monkeypatch.setenv("OPENAI_API_VERSION", "2024-10-21")
    assert azure_judge("gpt-4o").capabilities.context_window == 128_000
    assert azure_judge("my-deployment").capabilities.context_window is None


async def test_a_model_without_logprobs_is_not_asked_for_them() -> None:
    bodies: list[dict[str, Any]] = []
    judge = _openai_judge("o4-mini", bodies)
    assert judge.capabilities.token_logprobs is False
    await judge.complete(_request())
    assert "logprobs" not in bodies[0] and "top_logprobs" not in bodies[0]


async def test_an_endpoint_that_refuses_logprobs_says_so_in_its_capabilities() -> None:
    bodies: list[dict[str, Any]] = []
    judge = _openai_judge("gpt-4o-mini", bodies, refuse_logprobs=True)
    assert judge.capabilities.token_logprobs is True
    await judge.complete(_request())
    assert judge.capabilities.token_logprobs is False
    assert judge.capabilities.context_window == 128_000  # the rest is unchanged


# ---------------------------------------------------------------- metrics ask for capabilities


@pytest.mark.parametrize(("judge_id", "local", "style"), [
    ("local:qwen", True, "verdict"), ("openai:m", True, "verdict"),
    ("local:qwen", False, "rating"), ("fake", False, "rating")])
def test_auto_style_follows_the_local_capability_not_the_id(judge_id: str, local: bool,
                                                            style: str) -> None:
    judge = FakeJudge(id=judge_id, capabilities=JudgeCapabilities(local=local))
    assert GROUNDEDNESS.style_for(ScoreContext(judge=judge)) == style
    assert GROUNDEDNESS.style_for(ScoreContext(judge=ManagedJudge(judge))) == style


def test_a_run_on_a_local_judge_asks_verdicts() -> None:
    judge = FakeJudge("Yes, the context says Paris.", id="anything",
                      capabilities=JudgeCapabilities(local=True))
    res = assay.evaluate([ROW.model_dump(include={"question", "context", "answer"})],
                         metrics="groundedness", judge=judge, judging=JudgeOptions(cache=None))
    assert res.rows[0]["groundedness"]["details"]["style"] == "verdict"
    assert [r.schema_name for r in judge.requests] == ["verdict"]


# ---------------------------------------------------------------- accept= on every judge


class _Recording:
    """A third-party judge written to the protocol: it sees what ``accept`` it is given."""

    id = "recording"
    max_concurrency = None
    capabilities = JudgeCapabilities()

    def __init__(self) -> None:
        self.accepts: list[Any] = []

    async def complete(self, request: JudgeRequest, *, accept: Any = None) -> JudgeResponse:
        self.accepts.append(accept)
        return JudgeResponse(text=RATING)

    async def aclose(self) -> None:
        return None


async def test_ask_judge_passes_accept_to_any_judge() -> None:
    judge = _Recording()
    assert isinstance(judge, Judge)
    result = await GROUNDEDNESS.score(ROW, ScoreContext(judge=judge))
    assert result.value == 4.0
    assert len(judge.accepts) == 1 and judge.accepts[0](JudgeResponse(text=RATING)) is True
    assert judge.accepts[0](JudgeResponse(text="not json")) is False


async def test_a_type_error_inside_a_judge_is_not_taken_for_a_missing_accept() -> None:
    class Broken(_Recording):
        async def complete(self, request: JudgeRequest, *, accept: Any = None) -> JudgeResponse:
            self.accepts.append(accept)
            raise TypeError("complete() got an unexpected keyword argument 'accept'")

    judge = Broken()
    with pytest.raises(TypeError):
        await ask_judge(judge, _request(), accept=lambda r: True)
    assert len(judge.accepts) == 1  # asked once, not again without accept


# ---------------------------------------------------------------- the typed score context


@pytest.mark.parametrize(("field", "value"), [
    ("style", "both"), ("safety_mode", "all"), ("on_injection", "ignore"),
    ("injection_detector", "regex"), ("lang", "fr")])
def test_score_context_refuses_values_outside_its_choices(field: str, value: str) -> None:
    with pytest.raises(ConfigError, match=f"Got {field}={value!r}. Must be one of"):
        ScoreContext(**{field: value})

