"""Judges: the protocol, OpenAI-compatible and embedded backends, the scripted fake, the cache.

Example:
    >>> from assay.judges import FakeJudge, JudgeRequest
    >>> FakeJudge().id
    'fake'
"""

import importlib
from typing import TYPE_CHECKING, Any

from ._base import Judge, JudgeRequest, JudgeResponse, TokenLogprob, estimate_tokens
from ._cache import JudgeCache, default_cache_path
from ._factory import JUDGE_SPECS, check_judge_spec, make_judge
from ._fake import FakeJudge, Script

if TYPE_CHECKING:
    from ._local import LocalJudge
    from ._openai import call_openai, openai_client

#: Names whose modules load a heavy client (``openai``) or the embedded model's bindings:
#: imported on first use, so ``import assay.judges`` stays light.
_LAZY = {"LocalJudge": "._local", "call_openai": "._openai", "openai_client": "._openai"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "JUDGE_SPECS",
    "FakeJudge",
    "Judge",
    "JudgeCache",
    "JudgeRequest",
    "JudgeResponse",
    "LocalJudge",
    "Script",
    "TokenLogprob",
    "call_openai",
    "check_judge_spec",
    "default_cache_path",
    "estimate_tokens",
    "make_judge",
    "openai_client",
]
