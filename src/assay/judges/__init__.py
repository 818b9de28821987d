"""Judges: the protocol and capabilities, OpenAI-compatible and embedded backends, the scripted
fake, the cache. Importing it loads neither ``openai`` nor ``xllamacpp``: each backend imports
its library on first use.

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
from ._cache import JudgeCache, cache_file, cache_scope, default_cache_path
from ._endpoint import client_endpoint, public_url, split_model_url
from ._factory import (
    JUDGE_KINDS,
    JUDGES_GROUP,
    check_judge_spec,
    judge_protocol_gaps,
    make_judge,
    register_judge,
)
from ._fake import FakeJudge, Script, Truncated
from ._known import known_capabilities
from ._local import LocalJudge
from ._openai import OpenAIJudge, azure_judge, openai_client
from ._openai_calls import call_openai

#: The built-in ``--judge`` forms, as errors list them (``JUDGE_KINDS.specs()`` adds plugins'),
#: read from the kinds the backends above registered.
JUDGE_SPECS = JUDGE_KINDS.builtin_specs()

__all__ = [
    "JUDGES_GROUP",
    "JUDGE_KINDS",
    "JUDGE_SPECS",
    "Accept",
    "FakeJudge",
    "Judge",
    "JudgeCache",
    "JudgeCapabilities",
    "JudgeRequest",
    "JudgeResponse",
    "LocalJudge",
    "OpenAIJudge",
    "Script",
    "TokenLogprob",
    "Truncated",
    "azure_judge",
    "cache_file",
    "cache_scope",
    "call_openai",
    "check_judge_spec",
    "client_endpoint",
    "default_cache_path",
    "estimate_tokens",
    "judge_protocol_gaps",
    "known_capabilities",
    "make_judge",
    "openai_client",
    "public_url",
    "register_judge",
    "split_model_url",
]
