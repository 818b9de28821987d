"""The Judge protocol and the request / response records every backend speaks.

Example:
    >>> req = JudgeRequest(messages=[{"role": "user", "content": "Hi"}], schema_name="s")
    >>> len(req.cache_key("openai:gpt-4o-mini"))
    64
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

__all__ = ["Judge", "JudgeRequest", "JudgeResponse", "TokenLogprob", "estimate_tokens"]


def estimate_tokens(text: str) -> int:
    """A conservative token estimate for budgeting: ceil(chars / 4), the usual rule of thumb.

    Example:
        >>> estimate_tokens("abcdefgh"), estimate_tokens("")
        (2, 0)
    """
    return math.ceil(len(text) / 4) if text else 0


class JudgeRequest(BaseModel):
    """One judge call: chat messages, the JSON schema the answer must follow, sampling settings.

    ``json_schema`` is sent as ``response_format={"type": "json_schema", ...}``; ``logprobs``
    asks for token log-probabilities where the backend can give them.
    """

    messages: list[dict[str, str]]
    schema_name: str
    json_schema: dict[str, Any] | None = None
    max_tokens: int = 256
    temperature: float = 0.0
    logprobs: bool = True
    top_logprobs: int = 5

    def canonical(self) -> str:
        """The request as canonical JSON (sorted keys, no spaces): what the cache key hashes."""
        return json.dumps(self.model_dump(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def cache_key(self, judge_id: str) -> str:
        """sha256 of the judge id and the canonical request."""
        return hashlib.sha256(f"{judge_id}\n{self.canonical()}".encode()).hexdigest()

    def estimate_prompt_tokens(self) -> int:
        """Prompt tokens as an OpenAI-style server counts them (text + per-message overhead)."""
        text = "\n".join(m.get("content", "") for m in self.messages)
        n = estimate_tokens(text) + 4 * len(self.messages) + 3
        if self.json_schema is not None:
            n += estimate_tokens(json.dumps({"name": self.schema_name, "schema": self.json_schema,
                                             "strict": True}))
        return n


class TokenLogprob(BaseModel):
    """A generated token, its log-probability and the top alternatives at that position."""

    token: str
    logprob: float
    top: dict[str, float] = Field(default_factory=dict)


class JudgeResponse(BaseModel):
    """What a judge answered, with token usage as the backend reported it."""

    text: str
    logprobs: list[TokenLogprob] | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str | None = None
    cached: bool = False


@runtime_checkable
class Judge(Protocol):
    """A judge backend: a stable ``id`` (part of every cache key) and one async call.

    Backends raise ``RetryableJudgeError`` for failures worth retrying (429, 5xx, timeouts) and
    ``JudgeError`` for the rest; retries, budgets and caching live in the runner.
    ``max_concurrency`` caps parallel calls (1 for the embedded judge; ``None`` = no cap).
    """

    id: str
    max_concurrency: int | None

    async def complete(self, request: JudgeRequest) -> JudgeResponse: ...

    async def aclose(self) -> None: ...
