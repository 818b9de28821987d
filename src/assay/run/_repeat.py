"""A judge metric asked several times per row (``assay run --repeat K``), and the row's one
result from its repeats.

Each repeat is a judge call of its own (:func:`~assay.calls.as_repeat`: the cache keeps each
repeat's answer apart, the first under the key a run without repeats uses). How a row's
repeats combine (:func:`combine_repeats`):

- numbers (ratings, severities, shares): ``value`` is the mean of the scored repeats, and
  ``weighted`` the mean of theirs when each has one;
- labels (a pairwise choice, a custom metric's named label): the label most repeats gave,
  as a panel of judges does; a tie leaves the row unscored with the split as its reason (a
  label is never made up, and labels are never averaged);
- ``repeats`` keeps every repeat's value in order (``None`` for an unscored one); ``reason``
  and ``details`` are the first scored repeat's (for a label, the first that gave it);
  ``details.unscored_repeats`` lists the others' errors (``--resume`` asks again a row whose
  repeat failed a call or gave an answer that could not be read: the cache answers the rest);
- no repeat scored: the row is unscored with the first repeat's reason and details;
- a panel of judges (repeats of the panel's combined answer): ``details.panel`` gives each
  judge's mean over the repeats it scored, so the panel's agreement figures compare like with
  like.

Example:
    >>> from assay.metrics import MetricResult
    >>> r = combine_repeats([MetricResult(value=4.0, reason="clear"), MetricResult(value=5.0),
    ...                      MetricResult.unscored("judge call failed: HTTP 500: boom")])
    >>> r.value, r.repeats, r.reason, r.details["unscored_repeats"][0]["repeat"]
    (4.5, [4.0, 5.0, None], 'clear', 3)
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ..calls import as_repeat
from ..metrics import UNREADABLE, MetricResult, unreadable_kind
from ._panel import panel_label

__all__ = ["ask_repeats", "combine_repeats"]


async def ask_repeats(ask: Callable[[], Awaitable[MetricResult]], times: int) -> MetricResult:
    """``ask()`` ``times`` times at once, each as its own repeat, combined
    (:func:`combine_repeats`); once, as it is, when ``times`` is 1."""
    if times <= 1:
        return await ask()
    results = await asyncio.gather(*(as_repeat(i, ask) for i in range(times)))
    return combine_repeats(results)


def combine_repeats(results: Sequence[MetricResult]) -> MetricResult:
    """The row's result from its repeats' (in order); see the module docstring for the rules.

    Example:
        >>> from assay.metrics import MetricResult
        >>> def pick(c): return MetricResult(value=1.0 if c == "CANDIDATE" else 0.0,
        ...                                   details={"choice": c})
        >>> r = combine_repeats([pick("BASELINE"), pick("CANDIDATE"), pick("CANDIDATE")])
        >>> r.value, r.details["choice"], r.repeats
        (1.0, 'CANDIDATE', [0.0, 1.0, 1.0])
        >>> combine_repeats([pick("BASELINE"), pick("CANDIDATE")]).error
        'the repeats split with no majority: BASELINE 1, CANDIDATE 1'
    """
    values = [r.value for r in results]
    scored = [r for r in results if r.value is not None]
    if not scored:
        return results[0].model_copy(update={"repeats": values})
    missed = [_missed(i, r) for i, r in enumerate(results) if r.value is None]
    labels = [label for r in scored if (label := panel_label(r)) is not None]
    if labels:
        ranked = Counter(labels).most_common()
        if len(ranked) > 1 and ranked[1][1] == ranked[0][1]:
            split = ", ".join(f"{label} {n}" for label, n in sorted(Counter(labels).items()))
            return MetricResult.unscored(f"the repeats split with no majority: {split}",
                                         **_with_missed(scored[0].details, missed)
                                         ).model_copy(update={"repeats": values})
        chosen = next(r for r in scored if panel_label(r) == ranked[0][0])
        return chosen.model_copy(update={
            "details": _with_missed(chosen.details, missed), "repeats": values})
    first = scored[0]
    weights = [r.weighted for r in scored]
    details = _with_missed(first.details, missed)
    if isinstance(details.get("panel"), dict):
        details["panel"] = _judge_means(scored)
    return first.model_copy(update={
        "value": math.fsum(r.value for r in scored if r.value is not None) / len(scored),
        "weighted": (math.fsum(w for w in weights if w is not None) / len(weights)
                     if all(w is not None for w in weights) else None),
        "details": details, "repeats": values})


def _judge_means(scored: Sequence[MetricResult]) -> dict[str, Any]:
    """A panel's ``details.panel`` over the repeats: each judge's first entry with a value,
    its value the mean of the values it gave (its first entry when it gave none)."""
    panels = [r.details.get("panel") for r in scored]
    entries: dict[str, list[dict[str, Any]]] = {}
    for panel in panels:
        for judge, entry in (panel if isinstance(panel, dict) else {}).items():
            entries.setdefault(judge, []).append(entry)
    out: dict[str, Any] = {}
    for judge, seen in entries.items():
        given = [e for e in seen if isinstance(e.get("value"), (int, float))]
        out[judge] = ({**given[0], "value": math.fsum(e["value"] for e in given) / len(given)}
                      if given else seen[0])
    return out


def _missed(index: int, result: MetricResult) -> dict[str, Any]:
    """An unscored repeat's entry in ``details.unscored_repeats`` (1-based)."""
    entry: dict[str, Any] = {"repeat": index + 1, "error": result.error}
    if kind := unreadable_kind(result):
        entry[UNREADABLE] = kind
    return entry


def _with_missed(details: dict[str, Any], missed: list[dict[str, Any]]) -> dict[str, Any]:
    return {**details, "unscored_repeats": missed} if missed else dict(details)
