"""Keep secrets out of everything assay writes or shows: drop secret-named settings, mask
secret-looking values and the values of the keys assay was given.

A run record is meant to be shared (exported, compared, shown in a UI), and a provider's error
may repeat the key it refused, so nothing that could be a credential is ever written. Three
rules:

- a mapping key whose name contains ``key``, ``secret``, ``token``, ``password``, ``auth`` or
  ``credential`` (any case) is dropped with its value. One exception: an integer under a name
  whose only sensitive word is ``token`` (``max_tokens``, ``tpm_tokens``) is a count, not a
  credential, and is kept;
- every string left is masked where it looks like a credential: a known key prefix (``sk-``,
  ``ghp_``, ``hf_``, ``AKIA``, ``xoxb-``, ``eyJ`` for JWTs, ...), a ``Bearer`` credential, the
  value of a secret-named setting written out (``api_key: ...``, ``X-Api-Key=...``), the
  password of a URL (``scheme://user:password@host``), a secret-named query parameter, or a
  standalone random-looking word (24+ letters and digits, mixing upper case, lower case and
  digits, as generated keys are). Ids and paths are data, not secrets, and stay whole: hex
  (trace and span ids, sha256 digests, git commits), uuids, ids with a word prefix
  (``call_...``, ``chatcmpl-...``) and every part of a path (a folder named by a hash). A key
  of one of those shapes (an Azure key is 32 hex digits) is masked by its value, below;
- the actual values of the keys assay uses (``OPENAI_API_KEY``, ``AZURE_OPENAI_API_KEY``, read
  when masking) and of those it was handed (a key passed in code, the credentials of a judge or
  target URL: :func:`remember_secret`) are masked wherever they occur, whatever their shape.
  Values shorter than 6 characters and the placeholders keyless local servers take
  (``no-key``, ``ollama``, ``EMPTY``, ...) are not secrets and are left alone.

Example:
    >>> sanitize({"model": "gpt-4o", "api_key": "sk-abc", "max_tokens": 512,
    ...           "url": "https://bob:hunter2@example.com/v1", "note": "use sk-proj-a1b2c3d4e5"})
    ... # doctest: +NORMALIZE_WHITESPACE
    {'model': 'gpt-4o', 'max_tokens': 512, 'url': 'https://bob:***@example.com/v1',
     'note': 'use ***'}
    >>> mask_secrets("Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf")
    'Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf'
    >>> mask_secrets("/home/me/.cache/assay/3f9a1c0e8b7d4a6f9e2c1b0a8d7e6f5c/qa.jsonl")
    '/home/me/.cache/assay/3f9a1c0e8b7d4a6f9e2c1b0a8d7e6f5c/qa.jsonl'
"""

from __future__ import annotations

import base64
import logging
import math
import os
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from ._url_userinfo import MASK, url_with_masked_userinfo, url_without_userinfo

__all__ = ["MASK", "SECRET_ENV", "is_secret_name", "mask_log_output", "mask_secrets",
           "remember_secret", "remember_url_credentials", "sanitize", "url_with_masked_userinfo",
           "url_without_userinfo"]

_SECRET_WORDS = ("key", "secret", "token", "password", "auth", "credential")
_COUNT_WORD = "token"

# Well-known credential prefixes (OpenAI/Anthropic, GitHub, GitLab, Hugging Face, Slack, AWS,
# Google, Stripe, JWTs), followed by the credential's body: 8+ characters, no path separator
# (``/data/hf_cache/x`` is a path), with a digit or both cases (``sk-learn`` is a word).
_PREFIXED = re.compile(  # the lookahead (every prefix's first letter) skips most positions fast
    r"(?<![A-Za-z0-9])(?=[sprghxAe])(?:sk-|rk-|pk_live_|sk_live_|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|"
    r"hf_|xox[abposr]-|AKIA|ASIA|AIza|eyJ)([A-Za-z0-9_\-.+=]{8,})")
# "Bearer <credential>": the credential has a digit somewhere (plain words are left alone).
_BEARER = re.compile(r"(?i)\b(bearer|basic|token)(\s+)([A-Za-z0-9_\-.+/=~]{8,})")
_URL_PASSWORD = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://[^/\s:@]*:)([^@\s/]+)(@)")
_SECRET_PARAM = re.compile(
    r"(?i)([?&;][^=&#\s]*(?:key|secret|token|password|auth|sig)[^=&#\s]*=)([^&#\s]+)")
# A secret-named setting written out, ``name: value`` or ``name=value`` (quotes allowed, as in
# JSON or a .env file): the value, 8+ credential characters starting with a letter or digit.
_NAMED_VALUE = re.compile(
    r"(?i)((?<![A-Za-z0-9])[\w.\-]{0,40}(?:key|secret|token|password|passwd|credential)[\"']?"
    r"[ \t]*[:=][ \t]*[\"']?)([A-Za-z0-9][A-Za-z0-9_\-.+/=~]{7,})")
_NAMED_WORDS = ("key", "secret", "token", "passw", "credential")
# Candidates for the random-looking rule: runs of word, path and id characters. Only a run of
# letters and digits alone (a sentence's full stop may follow) is looked at: not a path, a
# dotted name or a prefixed id (``call_...``, ``chatcmpl-...``).
_CANDIDATE = re.compile(r"[A-Za-z0-9_\-./\\+]{24,}")

#: The environment variables holding keys assay sends; their values are masked by value.
SECRET_ENV = ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY")
_MIN_SECRET = 6
# what keyless local servers are given in place of a key: not secrets, and common words
_PLACEHOLDERS = frozenset({"no-key", "ollama", "empty", "none", "null", "dummy", "unused",
                           "not-needed", "lm-studio", "sk-no-key-required"})
_remembered: set[str] = set()


def _is_secret_value(value: str) -> bool:
    return (len(value) >= _MIN_SECRET and value.strip() == value
            and value.lower() not in _PLACEHOLDERS)


def remember_secret(value: str | None) -> None:
    """Mask ``value`` from now on wherever :func:`mask_secrets` runs in this process (a key
    passed in code, a URL's password), whatever its shape; short values and placeholders
    (see the module's docstring) are ignored.

    Example:
        >>> remember_secret("hunter2!")
        >>> mask_secrets("login failed for hunter2!")
        'login failed for ***'
    """
    if value and _is_secret_value(value):
        _remembered.add(value)


_known: tuple[tuple[object, ...], list[str]] = ((), [])


def _known_values() -> list[str]:
    """The secret values to mask, longest first (so a value containing another goes whole);
    worked out again only when the environment's keys or the remembered values changed."""
    global _known
    env = tuple(os.environ.get(name) for name in SECRET_ENV)
    state = (*env, len(_remembered))
    if state != _known[0]:
        values = set(_remembered)
        values.update(v for v in env if v and _is_secret_value(v))
        _known = (state, sorted(values, key=len, reverse=True))
    return _known[1]


def remember_url_credentials(url: str) -> None:
    """Remember a URL's credentials as secrets: the password (or a lone user, a token) and
    their HTTP Basic form, which servers may echo in an error.

    Example:
        >>> remember_url_credentials("https://bob:s3cr3t-pw@h.example/v1")
        >>> mask_secrets("Incorrect API key provided: Basic Ym9iOnMzY3IzdC1wdw== (s3cr3t-pw)")
        'Incorrect API key provided: Basic *** (***)'
    """
    _, user, password = url_without_userinfo(url)
    if user is None:
        return
    remember_secret(password if password is not None else user)
    if password is not None:
        basic = base64.b64encode(f"{user}:{password}".encode()).decode()
        remember_secret(basic)


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


def _key_body(text: str) -> bool:
    """Whether what follows a known key prefix is a key's body: a digit or both cases, or a run
    of 20+ letters and digits (no word is that long); ``sk-learn-models`` is words.

    Example:
        >>> [_key_body(t) for t in ("learn-models", "proj-a1b2c3d4", "abcdefghijklmnopqrstuvwx")]
        [False, True, True]
    """
    return (any(c.isdigit() for c in text)
            or (any(c.isupper() for c in text) and any(c.islower() for c in text))
            or any(len(run) >= 20 for run in re.split(r"[^A-Za-z0-9]", text)))


def _random_looking(token: str) -> bool:
    """24+ letters and digits alone, upper case, lower case and digits mixed with high entropy:
    how generated keys (base62) look. Hex (trace ids, digests) has one case only and passes."""
    return (len(token) >= 24 and token.isascii() and token.isalnum()
            and any(c.isupper() for c in token) and any(c.islower() for c in token)
            and any(c.isdigit() for c in token) and _entropy(token) >= 3.0)


def _mask_random_looking(m: re.Match[str]) -> str:
    token = m.group(0).rstrip(".")
    return MASK + m.group(0)[len(token):] if _random_looking(token) else m.group(0)


def _credential_like(value: str) -> bool:
    """A value with letters and digits (``hunter2x``), not a word (``required``)."""
    return any(c.isalpha() for c in value) and any(c.isdigit() for c in value)


def mask_secrets(text: str) -> str:
    """``text`` with every credential-looking part replaced by ``***``.

    Example:
        >>> mask_secrets("Authorization: Bearer abcdefgh12345678")
        'Authorization: Bearer ***'
        >>> mask_secrets("postgresql://assay:pw@db:5432/runs")
        'postgresql://assay:***@db:5432/runs'
        >>> mask_secrets("https://x.example/v1?api-key=0123abcd&deployment=gpt")
        'https://x.example/v1?api-key=***&deployment=gpt'
        >>> mask_secrets("refused: xK9mQ2vL7pR4tY8wZ3nB6cF1hJ5d (the app's key)")
        "refused: *** (the app's key)"
        >>> mask_secrets('{"x-api-key": "a1b2c3d4e5f6a7b8"}')
        '{"x-api-key": "***"}'
        >>> mask_secrets("trace 4bf92f3577b34da6a3ce929d0e0e4736 span 00f067aa0ba902b7")
        'trace 4bf92f3577b34da6a3ce929d0e0e4736 span 00f067aa0ba902b7'
        >>> mask_secrets("/data/qa_2024_v2.jsonl")
        '/data/qa_2024_v2.jsonl'
    """
    for value in _known_values():
        if value in text:
            text = text.replace(value, MASK)
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
    if (":" in text or "=" in text) and any(w in low for w in _NAMED_WORDS):
        text = _NAMED_VALUE.sub(lambda m: m.group(1) + MASK
                                if _credential_like(m.group(2)) else m.group(0), text)
    text = _PREFIXED.sub(lambda m: MASK if _key_body(m.group(1)) else m.group(0), text)
    return _CANDIDATE.sub(_mask_random_looking, text)


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


class _MaskingFilter(logging.Filter):
    """Masks each record's message and traceback text (see :func:`mask_log_output`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = mask_secrets(message)
        if masked != message:
            record.msg, record.args = masked, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = mask_secrets(record.exc_text)
        return True


def mask_log_output() -> None:
    """Mask secrets in everything the root logger's handlers write (messages and tracebacks),
    e.g. an exception that quotes a refused key; the commands call it once they configured
    logging. Calling it again adds nothing.

    Example:
        >>> import io
        >>> stream = io.StringIO()
        >>> logging.getLogger().addHandler(handler := logging.StreamHandler(stream))
        >>> mask_log_output(); mask_log_output()
        >>> logging.getLogger("demo").warning("refused Bearer abcdefgh12345678")
        >>> stream.getvalue()
        'refused Bearer ***\\n'
        >>> logging.getLogger().removeHandler(handler)
    """
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, _MaskingFilter) for f in handler.filters):
            handler.addFilter(_MaskingFilter())
