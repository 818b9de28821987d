"""How model calls are made, as one typed object: :class:`JudgeCallOptions` (requests in
flight, the deadline of one call, tries, the wait allowed on rate limits, the token / request
budget, the cache file), one default per field.

Every function that asks a model takes it as ``calls=``; the keywords some of them took before
(``concurrency=``, ``timeout=``, ...) are folded into it by :meth:`JudgeCallOptions.with_overrides`,
and every command's judge-call flags become one (see ``assay.cli._call_flags``).

Example:
    >>> options = JudgeCallOptions(concurrency=4)
    >>> options.timeout, options.attempts, options.cache
    (120.0, 6, None)
    >>> JudgeCallOptions.with_overrides(options, timeout=30).timeout
    30.0
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError, option
from ..judges import cache_file
from ._deadline import DEFAULT_TIMEOUT, check_timeout
from ._spend import check_limits

__all__ = ["JudgeCallOptions"]


def _whole(name: str, value: object, *, least: int, none_ok: bool) -> None:
    """A ConfigError naming ``name`` unless ``value`` is a whole number >= ``least`` (or
    ``None`` when ``none_ok``)."""
    if value is None and none_ok:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        what = f"a whole number, at least {least}" + (", or None" if none_ok else "")
        raise ConfigError(f"Got {option(name, value)}. Must be {what}.")


@dataclass(frozen=True, kw_only=True)
class JudgeCallOptions:
    """How judge and embedding calls are made (plain values: it is sent as it is to the
    workers of a Ray run).

    Attributes:
        concurrency: model requests in flight, fixed. ``None`` (default): a remote judge runs
            at the endpoint's pace (64 at first, more while latency stays flat, half as many
            after a 429 or 5xx, at most 128 or the judge's own cap); a local judge keeps 8
            slots. ``tpm`` / ``rpm`` cap both. Items in flight (rows, conversations,
            attacks) are a job's ``parallel``, not this.
        timeout: seconds one call may take in all (connecting, waiting, reading the answer);
            a call past it is tried once more, then fails ("timed out after N s").
        attempts: tries per call for errors worth retrying (5xx, timeouts, resets).
        max_wait: seconds one call may spend waiting on rate limits (429) in all; 429s do not
            use up ``attempts``.
        tpm, rpm: client-side token / request budget per minute (``None``: no limit).
        cache: the judge (and embedding) cache file; ``None``: no cache.
        max_cost: US dollars the run's model requests may cost in all (``None``: no limit):
            no request is sent that would pass it (see :mod:`assay.calls._spend`).
        max_tokens: tokens (prompt and completion) the run's model requests may use in all.
        prices: a price file over genai-prices' list (see :mod:`assay.costs`), for the
            prices ``max_cost`` is kept with.

    Example:
        >>> JudgeCallOptions(attempts=0)
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: Got attempts=0. Must be a whole number, at least 1.
    """

    concurrency: int | None = None
    timeout: float = DEFAULT_TIMEOUT
    attempts: int = 6
    max_wait: float = 600.0
    tpm: int | None = None
    rpm: int | None = None
    cache: Path | None = None
    max_cost: float | None = None
    max_tokens: int | None = None
    prices: Path | None = None

    def __post_init__(self) -> None:
        _whole("concurrency", self.concurrency, least=1, none_ok=True)
        object.__setattr__(self, "timeout", check_timeout(self.timeout))
        _whole("attempts", self.attempts, least=1, none_ok=False)
        wait = self.max_wait
        if (isinstance(wait, bool) or not isinstance(wait, (int, float))
                or not math.isfinite(wait) or wait < 0):
            raise ConfigError(f"Got {option('max_wait', wait)}. Must be a finite number of "
                              "seconds, 0 or more.")
        object.__setattr__(self, "max_wait", float(wait))
        _whole("tpm", self.tpm, least=1, none_ok=True)
        _whole("rpm", self.rpm, least=1, none_ok=True)
        if self.cache is not None and not isinstance(self.cache, Path):
            if not isinstance(self.cache, str):
                raise ConfigError(f"Got {option('cache', self.cache)}. Must be a path or None.")
            object.__setattr__(self, "cache", Path(self.cache))
        check_limits(self.max_cost, self.max_tokens)
        if self.prices is not None and not isinstance(self.prices, Path):
            object.__setattr__(self, "prices", Path(self.prices))

    @staticmethod
    def with_overrides(calls: JudgeCallOptions | None, *, cache_by_default: bool = False,
                       **given: Any) -> JudgeCallOptions:
        """``calls`` (or the defaults) with the separate keywords a function also takes
        (``concurrency=``, ``timeout=``, ``max_attempts=``/``attempts=``, ``max_wait=``,
        ``tpm=``, ``rpm=``, ``cache=``, ``max_cost=``, ``max_tokens=``); a keyword left at
        ``None`` is not given. ``cache``
        may be ``True`` (the default cache file), a path, or ``False`` (none);
        ``cache_by_default``: with neither ``calls`` nor ``cache`` given, use the default
        cache file (for the functions whose cache was on unless turned off).

        Example:
            >>> JudgeCallOptions.with_overrides(None, tpm=90_000, cache=False).tpm
            90000
            >>> JudgeCallOptions.with_overrides(JudgeCallOptions(tpm=1), tpm=2)
            Traceback (most recent call last):
            ...
            assay.errors.ConfigError: Got tpm=2 and calls=JudgeCallOptions(tpm=1). Give it one way: in calls= only.

        Raises:
            ConfigError: a value given both in ``calls`` and as a keyword, or a bad value.
        """
        if cache_by_default and calls is None and given.get("cache") is None:
            given = {**given, "cache": True}
        changes = {("attempts" if k == "max_attempts" else k): v
                   for k, v in given.items() if v is not None}
        if "cache" in changes:
            changes["cache"] = cache_file(changes["cache"])
        if calls is None:
            return JudgeCallOptions(**changes)
        for name, value in changes.items():
            if getattr(calls, name) != getattr(_DEFAULTS, name):
                raise ConfigError(
                    f"Got {option(name, value)} and calls=JudgeCallOptions("
                    f"{name}={getattr(calls, name)!r}). Give it one way: in calls= only.")
        return dataclasses.replace(calls, **changes) if changes else calls


_DEFAULTS = JudgeCallOptions()
