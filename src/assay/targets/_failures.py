"""Rows that could not be scored, and why: the share that decides whether a red-team or
robustness command exits 3, and the top causes its terminal names.

A row failed when the app under test gave no usable answer, when a judge (or embedding)
call failed, or when the judge's answer could not be read (empty, not JSON, out of range: the
result is marked unreadable, with its raw text), as in ``assay run``. "Does not apply" is no
failure. Each cause counts a row once, however many metrics it hit.

Example:
    >>> tally = FailureTally()
    >>> tally.add([])
    >>> tally.add(["judge call failed: HTTP 500 (gave up after 6 attempts)"] * 2)
    >>> tally.rows, tally.failed, tally.share
    (2, 1, 0.5)
    >>> tally.top()
    [('judge call failed: HTTP 500 (gave up after 6 attempts)', 1)]
    >>> unscored_causes({"id": "a", "violence": {"value": None, "error": "does not apply: x"},
    ...                  "refusal": {"value": None, "error": "assistant turn 1 could not be "
    ...                              "judged: judge call failed: HTTP 401"}},
    ...                 ["violence", "refusal"])
    ['judge call failed: HTTP 401']
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import option
from ..metrics import call_failure_cause, unreadable_kind

__all__ = ["DEFAULT_MAX_FAILED_SHARE", "FailureTally", "cause_key", "unscored_causes"]

#: Above this share of failed rows a command exits 3 (``--max-failed-share``, as ``assay run``).
DEFAULT_MAX_FAILED_SHARE = 0.05

#: A conversation metric's reason wraps the turn's own reason: the cause is the inner one.
_TURN_PREFIX = re.compile(r"^assistant turn \d+ could not be (?:rated|judged|scored): ")
_CAUSE_CHARS = 160


def cause_key(reason: str) -> str:
    """How causes are grouped: the reason's first line without a conversation turn's prefix,
    at most 160 characters.

    Example:
        >>> cause_key("assistant turn 3 could not be rated: judge call failed: timeout\\nmore")
        'judge call failed: timeout'
    """
    first = (reason.strip().split("\n", 1)[0] or "no reason given").strip()
    first = _TURN_PREFIX.sub("", first)
    return first if len(first) <= _CAUSE_CHARS else first[:_CAUSE_CHARS - 1] + "…"


def unscored_causes(record: Mapping[str, Any], metrics: Sequence[str]) -> list[str]:
    """The reasons of ``record``'s metrics among ``metrics`` lost to a failed call or an
    unreadable judge answer; a metric that does not apply, or that is missing from the
    record, is no failure."""
    causes = []
    for name in metrics:
        result = record.get(name)
        if not isinstance(result, Mapping) or result.get("value") is not None:
            continue
        error = str(result.get("error") or "unscored without a reason")
        if call_failure_cause(error) is not None or unreadable_kind(result) is not None:
            causes.append(cause_key(error))
    return causes


@dataclass
class FailureTally:
    """Rows seen, rows failed, and how many rows each cause hit."""

    rows: int = 0
    failed: int = 0
    causes: Counter[str] = field(default_factory=Counter)
    #: Causes not kept (a tally read back from a report keeps its top causes only).
    more_causes: int = 0

    def add(self, causes: Iterable[str], *, prefix: str = "") -> None:
        """Count one row with its failure causes (none: the row is fine); ``prefix`` tells
        where the row comes from, e.g. ``"injected: "``."""
        distinct = {prefix + cause_key(c) for c in causes}
        self.rows += 1
        if distinct:
            self.failed += 1
            self.causes.update(distinct)

    @property
    def share(self) -> float:
        """Failed rows over rows (0.0 when there were none)."""
        return round(self.failed / self.rows, 4) if self.rows else 0.0

    def top(self, n: int = 5) -> list[tuple[str, int]]:
        """The ``n`` causes that hit the most rows, most first (ties by text)."""
        return sorted(self.causes.items(), key=lambda kv: (-kv[1], kv[0]))[:n]

    def as_dict(self, n: int = 10) -> dict[str, Any]:
        """For a report file: counts, share, the top ``n`` causes and how many more there are.

        Example:
            >>> tally = FailureTally()
            >>> tally.add(["a"]); tally.add(["b"]); tally.add(["b"])
            >>> tally.as_dict(n=1)
            {'rows': 3, 'failed': 3, 'share': 1.0, 'causes': [{'cause': 'b', 'rows': 2}], 'more_causes': 1}
            >>> FailureTally.from_dict(tally.as_dict(n=1)).describe(0.05)[-1].strip()
            '... and 1 more causes'
        """
        top = self.top(n)
        return {"rows": self.rows, "failed": self.failed, "share": self.share,
                "causes": [{"cause": c, "rows": k} for c, k in top],
                "more_causes": self.more_causes + len(self.causes) - len(top)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FailureTally:
        """A tally read back from :meth:`as_dict` (with its top causes)."""
        return cls(rows=int(data["rows"]), failed=int(data["failed"]),
                   causes=Counter({str(c["cause"]): int(c["rows"]) for c in data["causes"]}),
                   more_causes=int(data.get("more_causes", 0)))

    def describe(self, max_share: float, n: int = 5) -> list[str]:
        """Terminal lines: how many rows failed against the allowed share, then the top
        causes with their row counts; empty when nothing failed.

        Example:
            >>> tally = FailureTally()
            >>> tally.add(["app call failed on turn 1: RuntimeError: boom"], prefix="plain: ")
            >>> print("\\n".join(tally.describe(0.05)))
            1 of 1 rows (100.0%) could not be scored, over max_failed_share='5.0%'. Top causes:
                 1  plain: app call failed on turn 1: RuntimeError: boom
        """
        if not self.failed:
            return []
        over = "over" if self.share > max_share else "within"
        head = (f"{self.failed} of {self.rows} rows ({self.share:.1%}) could not be scored, "
                f"{over} {option('max_failed_share', format(max_share, '.1%'))}. Top causes:")
        lines = [head]
        top = self.top(n)
        lines += [f"  {k:>4}  {cause}" for cause, k in top]
        if (more := self.more_causes + len(self.causes) - len(top)) > 0:
            lines.append(f"        ... and {more} more causes")
        return lines
