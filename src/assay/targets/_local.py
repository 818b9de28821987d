"""``local``: the embedded model as the app under test (no deadline: it computes in this
process, as when it is the judge).

Example:
    >>> LocalTarget().id  # the model is loaded on the first call, not here
    'local:qwen2.5-coder-1.5b-instruct-q4_k_m'
"""

from __future__ import annotations

from ._kinds import RAG_SYSTEM, Messages
from ._make import register_target

__all__ = ["LocalTarget"]


class LocalTarget:
    """The embedded model (or ``local:PATH.gguf``) as the app under test, with the RAG prompt."""

    def __init__(self, model_path: str | None = None) -> None:
        from ..judges import LocalJudge
        self._model = LocalJudge(model_path)
        self.id = self._model.id

    async def answer(self, question: str, passages: list[str], lang: str) -> str:
        from ..judges import JudgeRequest
        docs = "\n".join(passages)
        request = JudgeRequest(messages=[
            {"role": "system", "content": RAG_SYSTEM[lang]},
            {"role": "user", "content": f"Documents:\n{docs}\n\nQuestion: {question}"}],
            schema_name="answer", json_schema=None, max_tokens=96, logprobs=False)
        return (await self._model.complete(request)).text

    async def reply(self, messages: Messages) -> str:
        from ..judges import JudgeRequest
        request = JudgeRequest(messages=messages, schema_name="reply", json_schema=None,
                               max_tokens=256, logprobs=False)
        return (await self._model.complete(request)).text

    async def aclose(self) -> None:
        await self._model.aclose()


def _local_target(rest: str, *, timeout: float) -> LocalTarget:
    """``local`` or ``local:PATH.gguf``: computed in this process, with no deadline."""
    return LocalTarget(rest or None)


register_target("local", _local_target, specs=("local",), needs_rest=False)
