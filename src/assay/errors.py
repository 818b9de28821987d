"""One documented exception tree for everything assay raises on purpose.

Example:
    >>> from assay.errors import AssayError, DataError
    >>> issubclass(DataError, AssayError)
    True
"""

from __future__ import annotations

__all__ = ["AssayError", "ConfigError", "DataError", "JudgeError", "RetryableJudgeError"]


class AssayError(Exception):
    """Base class of every error assay raises deliberately."""


class DataError(AssayError):
    """The dataset cannot be evaluated; ``problems`` lists every problem found, one per item.

    Example:
        >>> err = DataError(["data.jsonl line 2, field 'answer': missing. Fix: add it."])
        >>> "line 2" in str(err)
        True
    """

    def __init__(self, problems: list[str], *, source: str = "") -> None:
        self.problems = list(problems)
        self.source = source
        head = f"{source}: " if source else ""
        n = len(self.problems)
        lines = [f"{head}{n} problem{'s' if n != 1 else ''} found; nothing was evaluated."]
        lines += [f"  - {p}" for p in self.problems]
        super().__init__("\n".join(lines))


class ConfigError(AssayError):
    """A setting, option or installation is wrong; the message says how to fix it."""


class JudgeError(AssayError):
    """A judge call failed for good (after retries, or with an error that retrying cannot fix)."""


class RetryableJudgeError(JudgeError):
    """A judge call failed in a way that may succeed later (429, 5xx, timeout, connection).

    ``retry_after`` is the server's requested wait in seconds, when it gave one.
    """

    def __init__(self, message: str, *, retry_after: float | None = None, status: int | None = None,
                 rate_limited: bool = False) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.status = status
        self.rate_limited = rate_limited
