"""Keep secrets out of the run store: drop secret-named settings, mask secret-looking values.

A run record is meant to be shared (exported, compared, shown in a UI), so nothing that could
be a credential is ever written. Two rules:

- a mapping key whose name contains ``key``, ``secret``, ``token``, ``password`` or ``auth``
  (any case) is dropped with its value. One exception: an integer under a name whose only
  sensitive word is ``token`` (``max_tokens``, ``tpm_tokens``) is a count, not a credential,
  and is kept;
- every string left is masked where it looks like a credential: a known key prefix (``sk-``,
  ``ghp_``, ``hf_``, ``AKIA``, ``xoxb-``, ``eyJ`` for JWTs, ...), a ``Bearer`` credential, a long
  random-looking token (24+ characters, a 16+ character run of mixed letters and digits), the
  password of a URL (``scheme://user:password@host``) or a secret-named query parameter.

Example:
    >>> sanitize({"model": "gpt-4o", "api_key": "sk-abc", "max_tokens": 512,
    ...           "url": "https://bob:hunter2@example.com/v1", "note": "use sk-proj-a1b2c3d4e5"})
    ... # doctest: +NORMALIZE_WHITESPACE
    {'model': 'gpt-4o', 'max_tokens': 512, 'url': 'https://bob:***@example.com/v1',
     'note': 'use ***'}
    >>> mask_secrets("Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf")
    'Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf'
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

__all__ = ["MASK", "is_secret_name", "mask_secrets", "sanitize"]

#: What a masked secret reads as.
MASK = "***"

_SECRET_WORDS = ("key", "secret", "token", "password", "auth")
_COUNT_WORD = "token"

# Well-known credential prefixes (OpenAI/Anthropic, GitHub, GitLab, Hugging Face, Slack, AWS,
# Google, Stripe, JWTs), followed by the credential's body.
_PREFIXED = re.compile(  # the lookahead (every prefix's first letter) skips most positions fast
    r"(?<![A-Za-z0-9])(?=[sprghxAe])(?:sk-|rk-|pk_live_|sk_live_|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|"
    r"hf_|xox[abposr]-|AKIA|ASIA|AIza|eyJ)[A-Za-z0-9_\-.+/=]{4,}")
# "Bearer <credential>": the credential has a digit somewhere (plain words are left alone).
_BEARER = re.compile(r"(?i)\b(bearer|basic|token)(\s+)([A-Za-z0-9_\-.+/=~]{8,})")
_URL_PASSWORD = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://[^/\s:@]*:)([^@\s/]+)(@)")
_SECRET_PARAM = re.compile(
    r"(?i)([?&;][^=&#\s]*(?:key|secret|token|password|auth|sig)[^=&#\s]*=)([^&#\s]+)")
# Candidate tokens for the entropy rule: runs of characters that credentials are made of.
_CANDIDATE = re.compile(r"[A-Za-z0-9_\-+/=]{24,}")


def is_secret_name(name: str, value: Any = None) -> bool:
    """Whether a setting called ``name`` (holding ``value``) must not be stored.

    Example:
        >>> is_secret_name("OPENAI_API_KEY"), is_secret_name("Authorization")
        (True, True)
        >>> is_secret_name("max_tokens", 512), is_secret_name("max_tokens", "512")
        (False, True)
        >>> is_secret_name("model")
        False
    """
    low = name.lower()
    hits = [w for w in _SECRET_WORDS if w in low]
    if not hits:
        return False
    is_count = isinstance(value, int) and not isinstance(value, bool)
    return not (hits == [_COUNT_WORD] and is_count)


def _entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(c / len(text) * math.log2(c / len(text)) for c in counts.values())


def _random_looking(token: str) -> bool:
    """A long run of mixed letters and digits with high entropy: how generated keys look.
    Words joined by dashes or underscores (model names, slugs) have short segments and pass."""
    if token.startswith("/"):
        return False  # an absolute path
    longest = max(re.split(r"[_\-]", token), key=len)
    if len(longest) < 16:
        return False
    has_letter = any(c.isalpha() for c in longest)
    has_digit = any(c.isdigit() for c in longest)
    return has_letter and has_digit and _entropy(longest) >= 3.0


def mask_secrets(text: str) -> str:
    """``text`` with every credential-looking part replaced by ``***``.

    Example:
        >>> mask_secrets("Authorization: Bearer abcdefgh12345678")
        'Authorization: Bearer ***'
        >>> mask_secrets("postgresql://assay:pw@db:5432/runs")
        'postgresql://assay:***@db:5432/runs'
        >>> mask_secrets("https://x.example/v1?api-key=0123abcd&deployment=gpt")
        'https://x.example/v1?api-key=***&deployment=gpt'
        >>> mask_secrets("3f9a1c0e8b7d4a6f9e2c1b0a8d7e6f5c"), mask_secrets("/data/qa_2024_v2.jsonl")
        ('***', '/data/qa_2024_v2.jsonl')
    """
    # each pattern runs only where its fixed part occurs (most text has none): same result,
    # a fraction of the time on long texts such as row inputs
    if "://" in text and "@" in text:
        text = _URL_PASSWORD.sub(lambda m: m.group(1) + MASK + m.group(3), text)
    if "=" in text:
        text = _SECRET_PARAM.sub(lambda m: m.group(1) + MASK, text)
    low = text.lower()
    if "bearer" in low or "basic" in low or "token" in low:
        text = _BEARER.sub(lambda m: m.group(1) + m.group(2) + MASK
                           if any(c.isdigit() for c in m.group(3)) else m.group(0), text)
    text = _PREFIXED.sub(MASK, text)
    return _CANDIDATE.sub(lambda m: MASK if _random_looking(m.group(0)) else m.group(0), text)


def sanitize(value: Any, *, drop_secret_names: bool = True) -> Any:
    """A JSON-ready copy of ``value`` with secrets dropped (by key name) and masked (by look).

    Mappings, lists, tuples and sets are walked; paths become strings; other non-JSON values
    become their masked ``str()``. With ``drop_secret_names=False`` only values are masked (for
    summaries, whose ``tokens`` counts are wanted).

    Example:
        >>> sanitize({"judge": {"headers": {"Authorization": "Bearer x"}, "temperature": 0.0}})
        {'judge': {'headers': {}, 'temperature': 0.0}}
        >>> sanitize({"tokens": {"prompt": 10}}, drop_secret_names=False)
        {'tokens': {'prompt': 10}}
    """
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for k, v in value.items():
            name = str(k)
            if drop_secret_names and is_secret_name(name, v):
                continue
            out[mask_secrets(name)] = sanitize(v, drop_secret_names=drop_secret_names)
        return out
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [sanitize(v, drop_secret_names=drop_secret_names) for v in items]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return mask_secrets(value)
    if isinstance(value, PurePath):
        return mask_secrets(str(value))
    return mask_secrets(str(value))
