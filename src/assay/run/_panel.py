"""A panel of judges: every judge metric of a row is asked of each judge, and the answers are
combined into the row's one result.

How a row's answers combine (:func:`combine_panel`):

- numeric scores (ratings, severities, shares): the mean of the values of the judges that
  gave one (``details.panel_rule == "mean"``);
- labels (a custom metric's named labels, a pairwise choice): the label most judges gave
  (``"majority"``); when two labels tie for the most votes the row is unscored with the
  split as its reason: a label is never made up, and no average of labels is taken;
- a judge whose call failed, or whose answer could not be read, is left out and recorded with
  its error; ``details.panel_answered`` says how many judges the value rests on; when none
  answered, the row is unscored with the reason (a failed call's error, when there is one, so
  that ``--resume`` asks again and the run's failed share counts it).

``details.panel`` keeps each judge's ``value`` and ``reason`` (and ``label`` / ``error``); the
other details are kept where every judge that answered has the same (e.g. the prompt's
sha256), and for a label, those of the first judge that gave it.

Example:
    >>> from assay.metrics import MetricResult
    >>> r = combine_panel({"a": MetricResult(value=4.0, reason="clear"),
    ...                    "b": MetricResult(value=5.0, reason="very clear"),
    ...                    "c": MetricResult.unscored("judge call failed: HTTP 500: boom")})
    >>> r.value, r.details["panel_answered"], r.details["panel"]["c"]["error"]
    (4.5, 2, 'judge call failed: HTTP 500: boom')
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from ..errors import ConfigError
from ..metrics import UNREADABLE, MetricResult, ScoreContext, unreadable_kind
from ..records import is_call_failure

__all__ = ["Panel", "check_panel_ids", "combine_panel", "panel_id", "panel_label"]


def panel_id(ids: Sequence[str]) -> str:
    """The id a panel's run records as its judge.

    Example:
        >>> panel_id(["fake:a", "fake:b"])
        'panel(fake:a, fake:b)'
    """
    return f"panel({', '.join(ids)})"


def check_panel_ids(ids: Sequence[str]) -> None:
    """A ConfigError when two judges of a panel have the same id (their answers would share
    cache entries and ``details.panel`` keys).

    Example:
        >>> check_panel_ids(["fake:a", "fake:a"])
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: The judges of a panel need distinct ids: got fake:a more than once (name an endpoint with openai:MODEL@URL, a scripted judge with fake:NAME).
    """
    if twice := sorted(judge for judge, n in Counter(ids).items() if n > 1):
        raise ConfigError(f"The judges of a panel need distinct ids: got {', '.join(twice)} "
                          "more than once (name an endpoint with openai:MODEL@URL, a "
                          "scripted judge with fake:NAME).")


def panel_label(result: MetricResult) -> str | None:
    """The label a result names (a pairwise ``choice``, a custom metric's named ``label``),
    ``None`` for a number.

    Example:
        >>> panel_label(MetricResult(value=1.0, details={"choice": "CANDIDATE"}))
        'CANDIDATE'
        >>> panel_label(MetricResult(value=4.0, details={"label": 4})) is None
        True
    """
    for key in ("choice", "label"):
        label = result.details.get(key)
        if isinstance(label, str):
            return label
    return None


def _entry(result: MetricResult) -> dict[str, Any]:
    """One judge's part of ``details.panel``."""
    entry: dict[str, Any] = {"value": result.value, "reason": result.reason}
    if (label := panel_label(result)) is not None:
        entry["label"] = label
    if result.value is None:
        entry["error"] = result.error
        if kind := unreadable_kind(result):
            entry[UNREADABLE] = kind
    return entry


def _shared_details(results: Sequence[MetricResult]) -> dict[str, Any]:
    """The details every one of ``results`` has with the same value."""
    first, *rest = results
    return {k: v for k, v in first.details.items()
            if all(k in r.details and r.details[k] == v for r in rest)}


def combine_panel(answers: Mapping[str, MetricResult]) -> MetricResult:
    """The row's result from each judge's (``{judge id: result}``, in the panel's order); see
    the module docstring for the rules.

    Example:
        >>> from assay.metrics import MetricResult
        >>> def pick(c): return MetricResult(value=1.0 if c == "CANDIDATE" else 0.0,
        ...                                   reason=c.lower(), details={"choice": c})
        >>> r = combine_panel({"a": pick("CANDIDATE"), "b": pick("BASELINE"),
        ...                    "c": pick("CANDIDATE")})
        >>> r.value, r.details["choice"], r.reason
        (1.0, 'CANDIDATE', 'CANDIDATE from 2 of 3 judges (a: candidate)')
        >>> split = combine_panel({"a": pick("CANDIDATE"), "b": pick("BASELINE")})
        >>> split.value, split.error
        (None, 'the judges of the panel split with no majority: BASELINE 1, CANDIDATE 1')
    """
    panel = {judge: _entry(r) for judge, r in answers.items()}
    scored = {judge: r for judge, r in answers.items() if r.value is not None}
    if not scored:
        return _none_answered(answers, panel)
    labels = {judge: label for judge, r in scored.items()
              if (label := panel_label(r)) is not None}
    if labels:
        return _majority(scored, labels, panel)
    values = [r.value for r in scored.values() if r.value is not None]
    weights = [r.weighted for r in scored.values() if r.weighted is not None]
    shown = ", ".join(f"{judge} {r.value:g}" for judge, r in scored.items())
    return MetricResult(
        value=round(math.fsum(values) / len(values), 4),
        weighted=round(math.fsum(weights) / len(weights), 4)
        if len(weights) == len(values) else None,
        reason=f"mean of {len(values)} of {len(answers)} judges ({shown})",
        details={**_shared_details(list(scored.values())), "panel": panel,
                 "panel_rule": "mean", "panel_answered": len(values)})


def _majority(scored: Mapping[str, MetricResult], labels: Mapping[str, str],
              panel: dict[str, Any]) -> MetricResult:
    counts = Counter(labels.values())
    ranked = counts.most_common()
    top, votes = ranked[0]
    rule = {"panel": panel, "panel_rule": "majority", "panel_answered": len(labels)}
    if len(ranked) > 1 and ranked[1][1] == votes:
        split = ", ".join(f"{label} {n}" for label, n in sorted(counts.items()))
        return MetricResult.unscored(
            f"the judges of the panel split with no majority: {split}", **rule)
    first = next(judge for judge, label in labels.items() if label == top)
    chosen = scored[first]
    return MetricResult(
        value=chosen.value,
        reason=f"{top} from {votes} of {len(labels)} judges ({first}: {chosen.reason})",
        details={**chosen.details, **rule})


def _none_answered(answers: Mapping[str, MetricResult], panel: dict[str, Any]) -> MetricResult:
    results = list(answers.values())
    errors = [r.error or "" for r in results]
    if len(set(errors)) == 1:  # the same reason from every judge ("does not apply", ...)
        why = errors[0]
    else:  # a failed call first: --resume asks again, and it counts in the failed share;
        # then an answer that could not be read (a failure too)
        why = next((e for e in errors if is_call_failure(e)), None) or next(
            (r.error or "" for r in results if unreadable_kind(r)), errors[0])
    kind = next((unreadable_kind(r) for r in results
                 if r.error == why and unreadable_kind(r)), None)
    return MetricResult(value=None, error=why,
                        reason=f"none of the {len(answers)} judges of the panel gave a score",
                        details={"panel": panel, "panel_answered": 0,
                                 **({UNREADABLE: kind} if kind else {})})


class Panel:
    """The judges of a panel, each with its own score context (its managed judge; the run's
    settings and embedder shared), asked at once for each row and metric.

    Example:
        >>> import asyncio
        >>> from assay.metrics import MetricResult, ScoreContext
        >>> panel = Panel([("a", ScoreContext()), ("b", ScoreContext())])
        >>> async def ask(ctx): return MetricResult(value=2.0)
        >>> asyncio.run(panel.score(ask)).details["panel"]
        {'a': {'value': 2.0, 'reason': None}, 'b': {'value': 2.0, 'reason': None}}
    """

    def __init__(self, members: Sequence[tuple[str, ScoreContext]]) -> None:
        self.members = list(members)
        self.ids = [judge for judge, _ in self.members]

    async def score(self, ask: Callable[[ScoreContext], Awaitable[MetricResult]]
                    ) -> MetricResult:
        """Every judge's result from ``ask(its context)``, combined (:func:`combine_panel`)."""
        results = await asyncio.gather(*(ask(ctx) for _, ctx in self.members))
        return combine_panel(dict(zip(self.ids, results, strict=True)))
