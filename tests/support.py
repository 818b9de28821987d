"""Test doubles shared by several test files (importable as ``support``: pytest puts tests/ on
the path): a bare metric to subclass, an OpenAI judge over a mock transport, and a local Ray
for the Ray engine's tests."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import httpx
import openai
import pytest

from assay.data import Row
from assay.judges import OpenAIJudge


class BareMetric:
    """A metric that scores every row with an answer, to subclass with a ``score`` of its own.

    ``aggregate`` adds nothing; a subclass may override it."""

    name, version = "bare", "1"
    required = frozenset({"answer"})
    conversation = needs_citations = uses_judge = False
    higher_is_better = True
    value_range = (0.0, 1.0)

    def applies(self, row: Row) -> str | None:
        return None if row.answer is not None else "row has no answer"

    def aggregate(self, results: Any) -> dict[str, Any]:
        return {}


def chat_completion(content: str, model: str = "gpt-4o-mini",
                    headers: dict[str, str] | None = None) -> httpx.Response:
    """An OpenAI chat-completion answer with ``content``."""
    return httpx.Response(200, headers=headers, json={
        "id": "c", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})


def mock_openai_judge(handler: Callable[[httpx.Request], httpx.Response],
                      model: str = "gpt-4o-mini", **kwargs: Any) -> OpenAIJudge:
    """An OpenAIJudge whose HTTP calls go to ``handler`` (no network)."""
    client = openai.AsyncOpenAI(
        api_key="sk-mock", base_url="http://judge.invalid/v1", max_retries=0,
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)))
    return OpenAIJudge(model, client=client, **kwargs)


def local_ray(*by_value: ModuleType) -> Iterator[Any]:
    """A local Ray for a test module, as a generator for a fixture to yield from: skipped when
    ray is missing (failed under ``ASSAY_REQUIRE_RAY``). ``by_value`` are the modules its
    workers cannot import (tests/ is not a package): they are sent by value. A Ray already
    running is reused and left running."""
    try:
        import ray
    except ImportError:
        if os.environ.get("ASSAY_REQUIRE_RAY"):
            pytest.fail("ASSAY_REQUIRE_RAY is set but ray is not installed")
        pytest.skip("ray is not installed (pip install 'assay[ray]')")
    for module in by_value:
        ray.cloudpickle.register_pickle_by_value(module)
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=4, include_dashboard=False, log_to_driver=False,
                 logging_level=logging.WARNING)
    yield ray
    for module in by_value:
        ray.cloudpickle.unregister_pickle_by_value(module)
    if started:
        ray.shutdown()
