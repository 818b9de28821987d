"""The Judge protocol and the request / response records every backend speaks.

Example:
    >>> req = JudgeRequest(messages=[{"role": "user", "content": "Hi"}], schema_name="s")
    >>> len(req.cache_key("openai:gpt-4o-mini"))
    64
    >>> JudgeCapabilities(local=True, context_window=4096).local
    True
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

__all__ = ["Accept", "Judge", "JudgeCapabilities", "JudgeRequest", "JudgeResponse", "TokenLogprob",
           "estimate_tokens"]


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
    asks for token log-probabilities where the backend can give them. ``cut_ok`` says the
    answer may stop at ``max_tokens`` on purpose (a verdict read from its first word): a
    metric reads such an answer; any other answer cut there is incomplete and left unscored.
    It changes nothing the backend is asked, so it is not part of the cache key.

    Example:
        >>> a = JudgeRequest(messages=[{"role": "user", "content": "Yes?"}], schema_name="v")
        >>> a.cache_key("j") == a.model_copy(update={"cut_ok": True}).cache_key("j")
        True
    """

    messages: list[dict[str, str]]
    schema_name: str
    json_schema: dict[str, Any] | None = None
    max_tokens: int = 256
    temperature: float = 0.0
    logprobs: bool = True
    top_logprobs: int = 5
    cut_ok: bool = False

    def canonical(self) -> str:
        """The request as canonical JSON (sorted keys, no spaces): what the cache key hashes
        (what the backend is asked, so not ``cut_ok``)."""
        return json.dumps(self.model_dump(exclude={"cut_ok"}), sort_keys=True,
                          separators=(",", ":"), ensure_ascii=False)

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
    """What a judge answered, with token usage as the backend reported it.

    ``truncated``: generation stopped at the request's ``max_tokens`` (OpenAI's and
    llama.cpp's ``finish_reason == "length"``), so the answer may be incomplete.
    ``processed_prompt_tokens``: the prompt tokens the backend computed, the rest of
    ``prompt_tokens`` coming from its prompt (KV) cache; ``None`` when it does not say.
    ``cached``: served from assay's own cache (never stored with the answer).
    ``cached_tokens``: of ``prompt_tokens``, those the provider read from its prompt cache
    (billed at its cache-read price); ``reasoning_tokens``: of ``completion_tokens``, those
    spent on hidden reasoning (OpenAI's ``prompt_tokens_details.cached_tokens`` and
    ``completion_tokens_details.reasoning_tokens``); 0 when it does not say.

    Example:
        >>> r = JudgeResponse(text='{"score": 4, "rea', truncated=True, prompt_tokens=300,
        ...                   processed_prompt_tokens=40)
        >>> JudgeResponse.model_validate_json(r.model_dump_json()).truncated
        True
    """

    text: str
    logprobs: list[TokenLogprob] | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    processed_prompt_tokens: int | None = None
    truncated: bool = False
    model: str | None = None
    cached: bool = False
    cached_tokens: int = 0
    reasoning_tokens: int = 0


#: Whether an answer may be cached: ``accept(response)``; a judge that caches keeps only
#: accepted answers, so an unparsable one is asked again next time.
Accept = Callable[[JudgeResponse], bool]


@dataclass(frozen=True)
class JudgeCapabilities:
    """What a judge can do, declared by its backend: metrics ask for these, never for its name.

    Attributes:
        token_logprobs: it returns token log-probabilities (G-Eval weighted ratings, P(yes)).
        json_schema: it follows a JSON schema (``response_format`` / grammar-constrained output).
        context_window: prompt + answer tokens it holds per request, ``None`` when unknown.
        local: it runs on this machine (a small embedded model: verdicts rank better there).
        input_price: US dollars per prompt token as the backend declares it (0.0 when free);
            ``None``: not declared, and the run prices the model with
            :class:`assay.costs.PriceBook` (genai-prices and the user's price file).
        output_price: US dollars per completion token as declared, ``None`` likewise.

    The defaults describe a remote chat-completions judge of unknown size and price.

    Example:
        >>> caps = JudgeCapabilities(input_price=2.5e-6, output_price=1e-5)
        >>> caps.token_logprobs, caps.local, caps.cost(1000, 100)
        (True, False, 0.0035)
        >>> JudgeCapabilities().cost(1000, 100) is None
        True
    """

    token_logprobs: bool = True
    json_schema: bool = True
    context_window: int | None = None
    local: bool = False
    input_price: float | None = None
    output_price: float | None = None

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        """What that many tokens cost in US dollars, ``None`` when a price is unknown."""
        if self.input_price is None or self.output_price is None:
            return None
        return round(prompt_tokens * self.input_price + completion_tokens * self.output_price, 10)


@runtime_checkable
class Judge(Protocol):
    """A judge backend: a stable ``id`` (part of every cache key), what it can do, one async call.

    Backends raise ``RetryableJudgeError`` for failures worth retrying (429, 5xx, timeouts) and
    ``JudgeError`` for the rest; retries, budgets and caching live in the runner.
    ``max_concurrency`` caps parallel calls (1 for the embedded judge unless
    ``ASSAY_LOCAL_PARALLEL`` is set; ``None`` = no cap).
    Every judge takes ``accept`` (see :data:`Accept`); a backend that does not cache ignores it.
    """

    id: str

    @property
    def max_concurrency(self) -> int | None: ...

    @property
    def capabilities(self) -> JudgeCapabilities: ...

    async def complete(self, request: JudgeRequest, *,
                       accept: Accept | None = None) -> JudgeResponse: ...

    async def aclose(self) -> None: ...
