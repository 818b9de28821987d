"""The review page's focus on one metric (``?metric=NAME``: a person labels one metric across
rows, its controls first and highlighted, the number keys rating it) and the progress shown
on the page: "12 of 50 rated by you for groundedness".

Example:
    >>> from assay.store import Label
    >>> mine = [Label("r", i, "coherence", "ann", 4, None, "") for i in ("q1", "q2")]
    >>> [p["text"] for p in progress(mine, ["coherence", "relevance"], total=5,
    ...                              focus="coherence")]
    ['2 of 5 rated by you for coherence', '0 of 5 rated by you for relevance']
    >>> focus_problem("nope", rateable=["coherence"], shown=["coherence", "f1_score"])
    "Got metric='nope'. This run has no metric of that name. Focus one of: coherence, e.g. ?metric=coherence."
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from ..store import Label

__all__ = ["focus_first", "focus_problem", "progress"]


def focus_problem(metric: str, *, rateable: Sequence[str], shown: Sequence[str]) -> str | None:
    """Why ``metric`` cannot be focused (a message naming the metrics that can), or None when
    it can. ``rateable`` are the metrics with a scale to rate, ``shown`` every metric of the
    row."""
    if metric in rateable:
        return None
    which = (f"{metric} is a continuous score, not rated here" if metric in shown
             else "This run has no metric of that name")
    if not rateable:
        return (f"Got metric={metric!r:.80}. {which}, and this run has no metric to rate (a 1-5 "
                "judge metric, a custom scale or a pairwise metric). Fix: leave out ?metric=.")
    return (f"Got metric={metric!r:.80}. {which}. Focus one of: {', '.join(rateable)}, e.g. "
            f"?metric={rateable[0]}.")


def focus_first(metrics: list[dict[str, Any]], focus: str) -> list[dict[str, Any]]:
    """The row's metric views with ``focus`` first, marked ``focused``; the others in order.

    Example:
        >>> [(m["name"], m["focused"]) for m in focus_first([{"name": "a"}, {"name": "b"}], "b")]
        [('b', True), ('a', False)]
    """
    for m in metrics:
        m["focused"] = bool(focus) and m["name"] == focus
    return sorted(metrics, key=lambda m: not m["focused"])


def progress(labels: Iterable[Label], metrics: Sequence[str], *, total: int,
             focus: str = "") -> list[dict[str, Any]]:
    """Per rateable metric (in ``metrics`` order): how many of the run's ``total`` rows the
    rater's ``labels`` cover, with the sentence the page shows, ``focused`` for ``focus``."""
    counts = Counter(label.metric for label in labels)
    return [{"metric": name, "rated": counts.get(name, 0), "total": total,
             "focused": name == focus,
             "text": f"{counts.get(name, 0)} of {total} rated by you for {name}"}
            for name in metrics]
