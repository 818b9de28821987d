"""Judges: the protocol, OpenAI-compatible and embedded backends, the scripted fake, the cache.

Example:
    >>> from assay.judges import FakeJudge, JudgeRequest
    >>> FakeJudge().id
    'fake'
"""

from ._base import (
    Accept,
    Judge,
    JudgeCapabilities,
    JudgeRequest,
    JudgeResponse,
    TokenLogprob,
    estimate_tokens,
)
from ._cache import JudgeCache, default_cache_path
from ._factory import JUDGE_SPECS, check_judge_spec, make_judge
from ._fake import FakeJudge, Script

__all__ = [
    "JUDGE_SPECS",
    "Accept",
    "FakeJudge",
    "Judge",
    "JudgeCache",
    "JudgeCapabilities",
    "JudgeRequest",
    "JudgeResponse",
    "Script",
    "TokenLogprob",
    "check_judge_spec",
    "default_cache_path",
    "estimate_tokens",
    "make_judge",
]
