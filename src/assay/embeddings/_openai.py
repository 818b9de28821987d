"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint.

Example:
    >>> OpenAIEmbedder("text-embedding-3-small", api_key="sk-x", base_url="http://127.0.0.1:9/v1").id
    'openai:text-embedding-3-small'
"""

from __future__ import annotations

from typing import Any

from ..errors import option
from ..judges import call_openai, client_endpoint, openai_client

__all__ = ["OpenAIEmbedder"]


class OpenAIEmbedder:
    """Calls ``embeddings.create`` with many texts per request (``OPENAI_BASE_URL``/``_API_KEY``).

    ``endpoint`` is the base URL without credentials: the run's cache keeps vectors apart per
    endpoint."""

    max_batch = 256

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 120.0, client: Any | None = None) -> None:
        self.model = model
        self.id = f"openai:{model}"
        self.prompt_tokens = 0
        self._client = client or openai_client(base_url=base_url, api_key=api_key,
                                               timeout=timeout, option=option("embeddings", "openai:MODEL"))
        self.endpoint: str | None = client_endpoint(self._client)

    async def embed(self, texts: list[str]) -> list[list[float]]:
        resp = await call_openai(self._client.embeddings.create, model=self.model, input=texts)
        if resp.usage is not None:
            self.prompt_tokens += resp.usage.prompt_tokens
        data = sorted(resp.data, key=lambda d: d.index)
        return [list(d.embedding) for d in data]

    async def aclose(self) -> None:
        await self._client.close()
