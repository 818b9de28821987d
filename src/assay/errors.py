"""One documented exception tree for everything assay raises on purpose.

Example:
    >>> from assay.errors import AssayError, DataError
    >>> issubclass(DataError, AssayError)
    True
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from ._secrets import mask_secrets

__all__ = ["OPTION_NAMER", "AssayError", "CallTimeoutError", "ConfigError", "DataError", "JudgeError",
           "JudgeStoppedError", "JudgeUnavailableError", "OutputError", "RetryableJudgeError",
           "option"]

#: How an error message names an option, given its Python keyword and an example value (or
#: None). Unset, messages name keywords (``judge='local'``); the CLI sets it for the length of a
#: command so that the same messages name its flags (``--judge local``).
OPTION_NAMER: ContextVar[Callable[[str, object], str] | None] = ContextVar(
    "assay_option_namer", default=None)


def option(keyword: str, value: object = None) -> str:
    """An option as the caller knows it: the Python keyword, or the CLI flag inside a command.

    The library's error messages name options through this, never as CLI flags: the CLI maps
    keywords to its flags (see :data:`OPTION_NAMER`).

    Example:
        >>> option("judge", "openai:MODEL"), option("resume", True), option("mapping")
        ("judge='openai:MODEL'", 'resume=True', 'mapping')
        >>> token = OPTION_NAMER.set(lambda k, v: f"--{k} {v}")
        >>> option("judge", "openai:MODEL")
        '--judge openai:MODEL'
        >>> OPTION_NAMER.reset(token)
    """
    namer = OPTION_NAMER.get()
    if namer is not None:
        return namer(keyword, value)
    return keyword if value is None else f"{keyword}={value!r}"


def _rebuild(cls: type[Exception], args: tuple[Any, ...], fields: dict[str, Any]) -> Exception:
    """An error rebuilt from pickle with its keyword-only fields (see ``__reduce__``)."""
    return cls(*args, **fields)


class AssayError(Exception):
    """Base class of every error assay raises deliberately."""


class DataError(AssayError):
    """The dataset cannot be evaluated; ``problems`` lists every problem found, one per item.

    Example:
        >>> err = DataError(["data.jsonl line 2, field 'answer': missing. Fix: add it."])
        >>> "line 2" in str(err)
        True
    """

    def __init__(self, problems: list[str], *, source: str = "",
                 outcome: str = "nothing was evaluated") -> None:
        self.problems = list(problems)
        self.source = source
        head = f"{source}: " if source else ""
        n = len(self.problems)
        lines = [f"{head}{n} problem{'s' if n != 1 else ''} found; {outcome}."]
        lines += [f"  - {p}" for p in self.problems]
        super().__init__("\n".join(lines))


class ConfigError(AssayError):
    """A setting, option or installation is wrong; the message says how to fix it."""


class OutputError(AssayError):
    """A file assay was writing could not be written: the disk or quota is full, the file
    system is read-only, permission is denied. The message names what was written, the path,
    the cause and the fix, on one line; ``path`` and ``errno`` are kept. The CLI exits 3 on it
    (the work was not saved; it is not a failed gate, exit 1).

    Example:
        >>> import errno
        >>> e = OutputError("Cannot write the report /tmp/r.html: no space left on device.",
        ...                 path="/tmp/r.html", errno=errno.ENOSPC)
        >>> e.errno == errno.ENOSPC
        True
    """

    def __init__(self, message: str, *, path: str | None = None,
                 errno: int | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.errno = errno


class JudgeError(AssayError):
    """A judge call failed for good (after retries, or with an error that retrying cannot fix).

    Judges, embedders and targets build these from what a provider answered, which may repeat
    the key it refused; the message is masked of secrets when the error is made (see
    :func:`assay._secrets.mask_secrets`), so no result, store, log or terminal shows them.

    Example:
        >>> str(JudgeError("HTTP 401: Incorrect API key provided: sk-proj-a1b2c3d4e5f6"))
        'HTTP 401: Incorrect API key provided: ***'
    """

    def __init__(self, *args: object) -> None:
        super().__init__(*(mask_secrets(a) if isinstance(a, str) else a for a in args))


class JudgeUnavailableError(JudgeError):
    """A judge call failed in a way that says the judge cannot answer at all: nothing listens
    at the endpoint, the key is refused (401/403), the model or path is unknown (404).

    ``endpoint`` is the URL called (without credentials or query), ``status`` the HTTP status
    (None for a connection failure), ``kind`` what failed (``connection``, ``auth``,
    ``forbidden``, ``not_found``) and ``fix`` the likely fix.

    Example:
        >>> e = JudgeUnavailableError("HTTP 401: invalid key", kind="auth", status=401,
        ...                           endpoint="http://127.0.0.1:9/v1/chat/completions",
        ...                           fix="check OPENAI_API_KEY")
        >>> e.kind, e.status
        ('auth', 401)
    """

    def __init__(self, message: str, *, kind: str, status: int | None = None,
                 endpoint: str | None = None, fix: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.endpoint = endpoint
        self.fix = fix

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with its fields (a Ray worker's error reaches the driver whole)."""
        return (_rebuild, (type(self), (str(self),), {"kind": self.kind, "status": self.status,
                                                      "endpoint": self.endpoint, "fix": self.fix}))

    def describe(self) -> str:
        """One paragraph for the terminal: endpoint, status, the provider's message, the fix."""
        parts = [f"endpoint: {self.endpoint or 'unknown'}"]
        parts.append(f"HTTP status: {self.status}" if self.status else "HTTP status: none "
                     "(no connection)")
        parts.append(f"the judge said: {self}")
        if self.fix:
            parts.append(f"likely fix: {self.fix}")
        return "\n".join(f"  {p}" for p in parts)


class JudgeStoppedError(AssayError):
    """The run stopped early: the judge failed the same hard way several times in a row
    (see :class:`JudgeUnavailableError`). Finished rows are kept; ``--resume`` continues.

    It is not a ``JudgeError`` on purpose: a metric that records a failed call as unscored must
    let this one through, so the run stops instead of filling a table with unscored rows.
    """

    def __init__(self, cause: JudgeUnavailableError, failures: int) -> None:
        self.cause = cause
        self.failures = failures
        super().__init__(f"the judge failed {failures} times in a row the same way, so the run "
                         f"stopped early:\n{cause.describe()}")

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with its cause (a Ray worker's stop reaches the driver as this error, and
        the command exits 3, not with Ray's wrapper of an error it could not rebuild).

        Example:
            >>> import pickle
            >>> e = JudgeStoppedError(JudgeUnavailableError("HTTP 401", kind="auth",
            ...                                             status=401, fix="check the key"), 3)
            >>> back = pickle.loads(pickle.dumps(e))
            >>> type(back).__name__, back.failures, back.cause.fix, str(back) == str(e)
            ('JudgeStoppedError', 3, 'check the key', True)
        """
        return (type(self), (self.cause, self.failures))


class RetryableJudgeError(JudgeError):
    """A judge call failed in a way that may succeed later (429, 5xx, timeout, connection).

    ``retry_after`` is the server's requested wait in seconds, when it gave one.
    ``unreachable`` carries the :class:`JudgeUnavailableError` to raise if the last try fails
    the same way (a refused connection or a failed DNS lookup: worth a few quick tries, since a
    server may be restarting, but not the full retry budget).
    """

    def __init__(self, message: str, *, retry_after: float | None = None, status: int | None = None,
                 rate_limited: bool = False,
                 unreachable: JudgeUnavailableError | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.status = status
        self.rate_limited = rate_limited
        self.unreachable = unreachable


class CallTimeoutError(RetryableJudgeError):
    """A judge, embedding or target call passed its deadline (``timeout``, ``--timeout``):
    the whole call, connecting, waiting and reading the answer, took too long. Retried once
    (a server may have been busy), then the row is unscored with this reason.

    Example:
        >>> e = CallTimeoutError("timed out after 30 s")
        >>> isinstance(e, RetryableJudgeError), str(e)
        (True, 'timed out after 30 s')
    """
