"""How the candidates of an earlier ``assay generate`` on the same file went, read back for
the expected figures of ``assay generate --estimate``: how many candidates its keep rate
needs, and how far along its chain of requests each one gets (a candidate rejected when its
draft is read asks one request; one whose answer did not parse asks it twice; ...).

The rejected file says why each candidate was rejected and whether its draft was read (its
``question``): the draft's reasons stop a candidate after its first request, a verdict that
did not parse or a judge that said it is not standalone after its second; the others
(unsupported, answered, near-duplicate) asked their whole chain, as a kept one did.

Example:
    >>> run = EarlierRun(generated=4, kept=2, stops={(1, None): 0.25, (2, 1): 0.25})
    >>> run.candidates(n=2, cap=6)
    4.0
    >>> [run.times_asked(k) for k in range(3)]
    [1.0, 1.0, 0.5]
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..generate import OutputFiles

__all__ = ["EarlierRun", "earlier_run"]

#: Reasons found when the judge's draft is read: the candidate asked its first request only.
_AT_DRAFT = {"evidence not found in the source", "evidence not from both passages",
             "not a question (copies the document)", "not standalone (phrase)",
             "wrong language"}


@dataclass(frozen=True)
class EarlierRun:
    """An earlier run's ``generated`` and ``kept`` candidates, and ``stops``: the share of
    its candidates per ``(requests of the chain asked, the one asked twice or None)``; the
    other candidates asked their whole chain."""

    generated: int
    kept: int
    stops: dict[tuple[int, int | None], float]
    #: The judge's completion tokens per request in that run (``None``: not recorded).
    completion_mean: float | None = None

    def candidates(self, n: int, cap: int) -> float:
        """The candidates a run wanting ``n`` rows is expected to make (at most ``cap``)."""
        return min(float(cap), n * self.generated / self.kept) if self.kept else float(cap)

    def times_asked(self, k: int) -> float:
        """How many times a candidate is expected to ask request ``k`` (0-based) of its
        chain."""
        stopped = sum(share for (reached, _), share in self.stops.items() if reached <= k)
        again = sum(share for (_, twice), share in self.stops.items() if twice == k)
        return max(0.0, 1.0 - stopped) + again


def _stop(record: dict[str, Any]) -> tuple[int, int | None] | None:
    """Where a rejected candidate stopped, ``None`` when it asked its whole chain."""
    reason, drafted = record.get("reason"), record.get("question") is not None
    if reason == "unreadable judge answer":  # the draft, or the first verdict, asked twice
        return (2, 1) if drafted else (1, 0)
    if reason == "judge call failed":
        return (2, None) if drafted else (1, None)
    if reason in _AT_DRAFT:
        return (1, None)
    if reason == "not standalone (judge)":
        return (2, None)
    return None


def earlier_run(files: OutputFiles) -> EarlierRun | None:
    """The earlier run whose summary is beside the output, ``None`` without a readable one."""
    try:
        summary = json.loads(files.summary.read_text(encoding="utf-8"))
        generated, kept = int(summary["generated"]), int(summary["kept"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if generated <= 0:
        return None
    try:
        lines = files.rejected.read_text(encoding="utf-8").splitlines()
        records = [json.loads(line) for line in lines if line.strip()]
    except (OSError, ValueError):  # the summary's reasons alone: drafts taken as unread
        records = [{"reason": reason} for reason, count in
                   dict(summary.get("rejected_by_reason") or {}).items() for _ in range(count)]
    stops: dict[tuple[int, int | None], float] = {}
    for record in records:
        if isinstance(record, dict) and (at := _stop(record)) is not None:
            stops[at] = stops.get(at, 0.0) + 1 / generated
    judge = summary.get("judge") if isinstance(summary.get("judge"), dict) else {}
    requests = int(judge.get("requests") or 0)
    mean = int(judge.get("completion_tokens") or 0) / requests if requests else None
    return EarlierRun(generated, kept, stops, mean)
