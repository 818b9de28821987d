"""What one quality bar decided: the record every CI output is written from.

A gate checks bars (``--fail-under``, ``--fail-over``, ``--max-drop``); each bar ends in one
:class:`BarOutcome`: ``pass``, ``fail`` or ``inconclusive`` (a verdict the rows cannot yet
decide), with the figure it was decided on, its interval, one line a person reads and, for
a failed or undecided bar, the rows that weigh most (:class:`RowNote`). The terminal, JUnit
XML, the markdown summary, ``--json`` and the pytest plugin all print the same outcomes.

Example:
    >>> outcome = BarOutcome(name="groundedness", kind="max_drop", bar=0.2, verdict="pass",
    ...                      value=-0.05, interval=(-0.15, 0.05),
    ...                      message="groundedness: no worse than -0.2 (diff -0.05, 95% CI "
    ...                              "[-0.15, +0.05])")
    >>> outcome.passed, outcome.verdict
    (True, 'pass')
    >>> from dataclasses import replace
    >>> worst_verdict([outcome, replace(outcome, verdict="inconclusive")])
    'inconclusive'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

__all__ = ["BarKind", "BarOutcome", "RowNote", "Verdict", "worst_verdict"]

Verdict = Literal["pass", "fail", "inconclusive"]
"""A bar's decision; a run's verdict is its bars' worst (:func:`worst_verdict`)."""

BarKind = Literal["fail_under", "fail_over", "max_drop"]
"""Which option set the bar: a floor or a ceiling on a run's value, or the most a metric may
get worse from a baseline run to the candidate."""


@dataclass(frozen=True, kw_only=True)
class RowNote:
    """One row a person should look at: its id, what it scored (``shown``: ``"2"`` for a
    run, ``"4 -> 2"`` for a comparison) and the judge's reason, if any."""

    id: str
    shown: str
    reason: str | None = None


@dataclass(frozen=True, kw_only=True)
class BarOutcome:
    """One bar and what it decided.

    Attributes:
        name: the bar's name as the user wrote it (``groundedness``,
            ``violence_defect_rate``, ``f1_score_unscored_rate``).
        kind: the option that set it.
        bar: its number (a floor, a ceiling, or the allowed drop).
        verdict: ``pass``, ``fail`` or ``inconclusive``.
        value: the figure decided on: the run's value for a floor or ceiling; the paired
            difference (candidate - baseline) for ``max_drop``. None: nothing to decide on.
        interval: the value's confidence interval, where it has one.
        message: one line that says what was decided and why, with the numbers.
        decide: for ``inconclusive``: what would decide it (e.g. "about 120 more shared
            rows, or --repeat 3").
        worst: the rows that weigh most against the bar (at most a few).
        lower_is_better: whether a higher value is worse (severities, defect rates).
    """

    name: str
    kind: BarKind
    bar: float
    verdict: Verdict
    value: float | None = None
    interval: tuple[float, float] | None = None
    message: str = ""
    decide: str | None = None
    worst: tuple[RowNote, ...] = ()
    lower_is_better: bool = False

    @property
    def passed(self) -> bool:
        """Whether the verdict is ``pass``."""
        return self.verdict == "pass"


def worst_verdict(outcomes: Iterable[BarOutcome]) -> Verdict:
    """``fail`` if any bar failed, else ``inconclusive`` if any is, else ``pass`` (no bars:
    ``pass``).

    Example:
        >>> worst_verdict([])
        'pass'
    """
    verdicts = {o.verdict for o in outcomes}
    if "fail" in verdicts:
        return "fail"
    return "inconclusive" if "inconclusive" in verdicts else "pass"
