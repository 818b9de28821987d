"""Judges: the protocol, OpenAI-compatible and embedded backends, the scripted fake, the cache.

Example:
    >>> from assay.judges import FakeJudge, JudgeRequest
    >>> FakeJudge().id
    'fake'
"""

from ._base import Judge, JudgeRequest, JudgeResponse, TokenLogprob, estimate_tokens
from ._cache import JudgeCache, default_cache_path
from ._factory import JUDGE_SPECS, make_judge
from ._fake import FakeJudge, Script

__all__ = ["FakeJudge", "JUDGE_SPECS", "Judge", "JudgeCache", "JudgeRequest", "JudgeResponse",
           "Script", "TokenLogprob", "default_cache_path", "estimate_tokens", "make_judge"]
