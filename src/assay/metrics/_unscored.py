"""How the reason of an unscored result is read: whether a failed call lost it (and which),
and how summaries group such reasons. Text only: see ``_base`` for the results themselves.

Example:
    >>> unscored_reason_key("embedding call failed: timeout: read timed out")
    'embedding call failed: timeout'
"""

from __future__ import annotations

import re

__all__ = ["call_failure_cause", "unscored_reason_key"]

#: A conversation metric wraps a turn's reason: "assistant turn 2 could not be rated: ...".
_TURN_PREFIX = re.compile(r"^assistant turn \d+ could not be \w+: ")
#: How the reason of a result lost to a failed call starts.
_CALL_FAILURES = ("judge call failed", "embedding call failed", "target call failed")


def call_failure_cause(error: str | None) -> str | None:
    """The cause of a result left unscored because a judge, embedding or agent target call
    failed (its kind, up to the second colon, without the provider's message), or None for any other
    reason ("does not apply", an unparsable answer). A conversation turn's prefix is skipped.

    Example:
        >>> call_failure_cause("judge call failed: HTTP 401: Error code: 401 - bad key")
        'judge call failed: HTTP 401'
        >>> call_failure_cause("assistant turn 2 could not be rated: judge call failed: "
        ...                    "server error (500): boom (gave up after 6 attempts)")
        'judge call failed: server error (500)'
        >>> call_failure_cause("judge answer does not start with Yes or No (asked twice)") is None
        True
    """
    if not isinstance(error, str):
        return None
    inner = _TURN_PREFIX.sub("", error)
    if not inner.startswith(_CALL_FAILURES):
        return None
    return ":".join(inner.split(":")[:2])[:120]


def unscored_reason_key(error: str) -> str:
    """How unscored reasons are grouped in summaries: a failed judge or embedding call by its
    cause (:func:`call_failure_cause`), any other reason by its text; at most 120 characters.

    Example:
        >>> unscored_reason_key("judge call failed: HTTP 401: Error code: 401 - bad key")
        'judge call failed: HTTP 401'
        >>> unscored_reason_key("does not apply: no context")
        'does not apply: no context'
    """
    return call_failure_cause(error) or error[:120]
