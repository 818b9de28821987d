"""A scripted judge for tests and examples: no model, no network.

Example:
    >>> import asyncio
    >>> judge = FakeJudge(lambda req: '{"score": 4, "reason": "fine"}')
    >>> req = JudgeRequest(messages=[{"role": "user", "content": "x"}], schema_name="rating")
    >>> asyncio.run(judge.complete(req)).text
    '{"score": 4, "reason": "fine"}'
    >>> judge.capabilities.local, FakeJudge(capabilities=JudgeCapabilities(local=True)).capabilities.local
    (False, True)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ._base import Accept, JudgeCapabilities, JudgeRequest, JudgeResponse

__all__ = ["FakeJudge", "Script"]

#: What a script returns for a request: the answer text, a full response, or an error to raise.
Script = Callable[[JudgeRequest], str | JudgeResponse | Exception]


class FakeJudge:
    """Answers each request with ``script(request)``; keeps every request in ``requests``.

    ``capabilities`` declares what it stands in for (default: a remote judge with logprobs
    and JSON schema); e.g. ``JudgeCapabilities(local=True)`` to test the embedded judge's path.
    """

    def __init__(self, script: Script | str = '{"score": 5, "reason": "scripted"}', *,
                 id: str = "fake", latency_s: float = 0.0, max_concurrency: int | None = None,
                 capabilities: JudgeCapabilities | None = None) -> None:
        self._script: Script = (lambda _req: script) if isinstance(script, str) else script
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
        return JudgeResponse(text=out, prompt_tokens=request.estimate_prompt_tokens(),
                             completion_tokens=max(1, len(out) // 4), model=self.id)

    async def aclose(self) -> None:
        return None
