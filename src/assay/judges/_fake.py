"""A scripted judge for tests and examples: no model, no network.

Example:
    >>> import asyncio
    >>> judge = FakeJudge(lambda req: '{"score": 4, "reason": "fine"}')
    >>> req = JudgeRequest(messages=[{"role": "user", "content": "x"}], schema_name="rating")
    >>> asyncio.run(judge.complete(req)).text
    '{"score": 4, "reason": "fine"}'
    >>> judge.capabilities.local, FakeJudge(capabilities=JudgeCapabilities(local=True)).capabilities.local
    (False, True)

    An answer cut at ``max_tokens``, as a backend reports one:

    >>> cut = asyncio.run(FakeJudge(Truncated('{"score": 4, "rea')).complete(req))
    >>> cut.text, cut.truncated, cut.completion_tokens
    ('{"score": 4, "rea', True, 256)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from ._base import Accept, JudgeCapabilities, JudgeRequest, JudgeResponse
from ._factory import register_judge

__all__ = ["FakeJudge", "Script", "Truncated"]


@dataclass(frozen=True)
class Truncated:
    """A scripted answer that stopped at the request's ``max_tokens``: the judge answers
    ``text`` with ``truncated=True`` and ``completion_tokens=max_tokens``, as a backend whose
    generation hit the limit does (``finish_reason == "length"``)."""

    text: str


#: What a script returns for a request: the answer text, an answer cut at ``max_tokens``
#: (:class:`Truncated`), a full response, or an error to raise.
Script = Callable[[JudgeRequest], str | Truncated | JudgeResponse | Exception]


class FakeJudge:
    """Answers each request with ``script(request)``; keeps every request in ``requests``.

    ``capabilities`` declares what it stands in for (default: a remote judge with logprobs
    and JSON schema); e.g. ``JudgeCapabilities(local=True)`` to test the embedded judge's path.
    """

    def __init__(self, script: Script | str | Truncated = '{"score": 5, "reason": "scripted"}',
                 *, id: str = "fake", latency_s: float = 0.0, max_concurrency: int | None = None,
                 capabilities: JudgeCapabilities | None = None) -> None:
        self._script: Script = ((lambda _req: script) if isinstance(script, (str, Truncated))
                                else script)
        self.id = id
        self.latency_s = latency_s
        self.max_concurrency = max_concurrency
        self.capabilities = capabilities or JudgeCapabilities()
        self.requests: list[JudgeRequest] = []

    async def complete(self, request: JudgeRequest, *,
                       accept: Accept | None = None) -> JudgeResponse:
        """The script's answer to ``request`` (``accept`` is ignored: nothing is cached)."""
        self.requests.append(request)
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        out = self._script(request)
        if isinstance(out, Exception):
            raise out
        if isinstance(out, JudgeResponse):
            return out
        if isinstance(out, Truncated):
            return JudgeResponse(text=out.text, prompt_tokens=request.estimate_prompt_tokens(),
                                 completion_tokens=request.max_tokens, truncated=True,
                                 model=self.id)
        return JudgeResponse(text=out, prompt_tokens=request.estimate_prompt_tokens(),
                             completion_tokens=max(1, len(out) // 4), model=self.id)

    async def aclose(self) -> None:
        return None


def _fake_judge(rest: str, *, timeout: float) -> FakeJudge:
    """``fake`` (id ``fake``) or ``fake:NAME`` (id ``fake:NAME``); nothing to time out."""
    return FakeJudge(id=f"fake:{rest}") if rest else FakeJudge()


# the scripted test judge: taken, but left out of the specs error messages list
register_judge("fake", _fake_judge, specs=(), needs_rest=False)
