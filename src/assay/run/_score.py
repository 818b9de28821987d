"""Scoring rows: every planned metric of a row, concurrently, on a judge and an embedder wrapped
with the cache, the token budget, a concurrency cap and retries.

The local engine builds one :class:`Scorer` in its process; the Ray engine builds one in each
worker (with a budget shared by all of them), so both score a row the same way.

Example:
    >>> import asyncio
    >>> from assay.data import rows_from_records
    >>> from assay.metrics import get_metric
    >>> row = rows_from_records([{"answer": "Paris.", "ground_truth": "Paris"}])[0]
    >>> async def go():
    ...     scorer = Scorer([get_metric("exact_match")], judge=None, embedder=None)
    ...     try:
    ...         return await scorer.score(row)
    ...     finally:
    ...         await scorer.aclose()
    >>> asyncio.run(go())["exact_match"]["value"]
    1.0
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..asking import FENCE_STYLE
from ..calls import (
    Budget,
    JudgeCallOptions,
    RowClock,
    SpendLimit,
    metered,
    open_embedder,
    open_judges,
    row_clock,
)
from ..data import Row
from ..embeddings import Embedder
from ..errors import ConfigError, JudgeStoppedError
from ..injection import mask_row, preload_detectors
from ..judges import Judge
from ..metrics import (
    Metric,
    MetricFamily,
    MetricResult,
    ScoreContext,
    ScoringSettings,
    families_for,
    with_defaults,
)
from ..records import ROW_LATENCY
from ._injection import WITHHOLDING_MODES, injection_of, injection_reason, unknown_languages
from ._panel import Panel, panel_id
from ._panel_tally import SEP, judge_usage
from ._repeat import ask_repeats

__all__ = ["ScoreSettings", "Scorer", "score_row"]

log = logging.getLogger("assay")

@dataclass(frozen=True)
class ScoreSettings:
    """How rows are scored, apart from the judge and embedder themselves: the run's scoring
    settings (``scoring``, which every ScoreContext carries) and how judge and embedding calls
    are made (``calls``: plain values, so the Ray engine can send them to its workers);
    ``repeat``: how many times each judge metric is asked per row (see :mod:`._repeat`)."""

    scoring: ScoringSettings = field(default_factory=ScoringSettings)
    calls: JudgeCallOptions = field(default_factory=JudgeCallOptions)
    repeat: int = 1


class Scorer:
    """The metrics of a run and everything they score with: the managed judge and embedder
    (opened by :func:`~assay.calls.open_judges` / :func:`~assay.calls.open_embedder` with
    ``settings.calls``: cache, budget, pace, retries, deadline), and the score context.

    ``judge``: a spec or a Judge, or a panel's list of them (see
    :class:`~assay.run._panel.Panel`); ``embedder`` likewise. A backend made here from a spec
    is closed by :meth:`aclose`; an instance the caller passed in stays open for its owner.
    ``budget`` is the token / request budget the judges wait on: one shared by every worker
    of a Ray run, or (``None``) one made from ``settings.calls``; ``spend`` the spending
    limit (``--max-cost`` / ``--max-tokens``) they reserve in, the same way.
    """

    def __init__(self, metrics: Sequence[Metric], *,
                 judge: str | Judge | Sequence[str | Judge] | None,
                 embedder: str | Embedder | None, settings: ScoreSettings | None = None,
                 budget: Budget | None = None, spend: SpendLimit | None = None) -> None:
        settings = settings if settings is not None else ScoreSettings()
        self.metrics = [with_defaults(m) for m in metrics]  # a bare plugin's too (as planned)
        if any(m.uses_judge for m in self.metrics):  # every row will be scanned (score_row):
            preload_detectors()  # the language model loads while the judge opens (its SDK)
        self.fence = settings.scoring.fence
        self.repeat = settings.repeat  # each judge metric asked this many times per row
        specs = ([] if judge is None else list(judge)
                 if isinstance(judge, Sequence) and not isinstance(judge, str) else [judge])
        self._opened_judges = open_judges(specs, settings.calls, budget=budget, spend=spend)
        try:
            self._opened_embedder = (open_embedder(embedder, settings.calls)
                                     if embedder is not None else None)
        except BaseException:
            self._opened_judges.close_cache()  # a bad embedder spec: no file left open
            raise
        #: The managed judges: one, or a panel's (each with its own pace and counters).
        self.judges = self._opened_judges.judges
        self.judge = self.judges[0] if self.judges else None
        self.embedder = (self._opened_embedder.embedder
                         if self._opened_embedder is not None else None)
        # the run's settings, checked once when they were built, as they are
        self.ctx = ScoreContext(judge=self.judge, embedder=self.embedder,
                                settings=settings.scoring)
        #: Two judges or more: every judge metric is asked of each and combined (see Panel).
        self.panel = (Panel([(j.id, ScoreContext(judge=j, embedder=self.embedder,
                                                 settings=settings.scoring))
                             for j in self.judges]) if len(self.judges) > 1 else None)
        self.families = families_for(self.metrics)
        #: Whether scoring a row may wait (on a judge, an embedder): else rows can be scored
        #: one after another with no task per row (see LocalEngine).
        self.waits = (self.judge is not None or self.embedder is not None
                      or any(_waits(m) for m in self.metrics))

    @property
    def judge_id(self) -> str | None:
        """The judge's id, a panel's (:func:`panel_id`), or ``None`` without a judge."""
        if self.panel is not None:
            return panel_id(self.panel.ids)
        return self.judge.id if self.judge is not None else None

    def judge_stats(self, *, per_judge: bool = False) -> dict[str, int] | None:
        """What the judge did (a panel's judges' counters added up), ``None`` without one;
        ``per_judge``: a panel's judges' own counters too, each under its judge's id and the
        counter's name joined by a tab (what a Ray worker sends: see
        :func:`~assay.run._panel_tally.split_usage`)."""
        if not self.judges:
            return None
        total: Counter[str] = Counter()
        for judge in self.judges:
            counters = judge.stats.as_dict()
            total.update(counters)
            if per_judge and self.panel is not None:
                total.update({f"{judge.id}{SEP}{k}": v for k, v in counters.items()})
        return dict(total)

    def panel_usage(self) -> dict[str, dict[str, Any]] | None:
        """A panel's usage per judge (:func:`judge_usage`), ``None`` without a panel."""
        if self.panel is None:
            return None
        return {judge.id: judge_usage(judge) for judge in self.judges}

    async def score(self, row: Row, previous: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The row's record: ``{"id", <metric>: result, ...}`` (see :func:`score_row`), its
        rubrics rendered with the run's fence style."""
        token = FENCE_STYLE.set(self.fence)
        try:
            return await score_row(row, self.metrics, self.ctx, previous or {},
                                   families=self.families, panel=self.panel,
                                   repeat=self.repeat)
        finally:
            FENCE_STYLE.reset(token)

    async def score_in_line(self, row: Row,
                            previous: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """:meth:`score` for a run whose metrics never wait (``not self.waits``): the same
        record, without the steps only judge metrics need (injection scan, fence style,
        tasks)."""
        previous = previous or {}
        ctx = self.ctx
        record: dict[str, Any] = {"id": row.id}
        for metric in self.metrics:
            record[metric.name] = (
                await _score_one(metric, row, row, ctx, previous, None)).as_record()
        for family in self.families:
            record.update(family.row_details(record))
        return record

    def close_caches(self) -> None:
        """Close the caches now (a run that fails before scoring, where nothing awaits)."""
        self._opened_judges.close_cache()
        if self._opened_embedder is not None:
            self._opened_embedder.close_cache()

    async def aclose(self) -> None:
        """Close the caches and the connections of the backends made from specs."""
        if self._opened_embedder is not None:
            await self._opened_embedder.aclose()
        await self._opened_judges.aclose()


async def _score_one(metric: Metric, row: Row, judged: Row, ctx: ScoreContext,
                     previous: Mapping[str, Any], found: dict[str, Any] | None,
                     panel: Panel | None = None, repeat: int = 1) -> MetricResult:
    """One metric's result for the row (``judged``: the row as judge metrics read it); a
    judge metric asked of each judge of ``panel``, when there is one, and ``repeat`` times
    (combined by :func:`~assay.run._repeat.combine_repeats`)."""
    if metric.name in previous:
        return MetricResult.model_validate(previous[metric.name])
    if row.extra.get("app_failed"):  # a traced app call that failed: no answer to score
        return MetricResult.unscored(str(row.extra["app_failed"]))
    why = metric.applies(row)
    if why:
        return MetricResult.unscored(f"does not apply: {why}")
    if found is not None and metric.uses_judge and ctx.settings.on_injection == "unscored":
        return MetricResult.unscored(injection_reason(found), injection=found)
    if not metric.uses_judge:
        return await _ask(metric, row, ctx)
    if panel is not None:
        result, meter = await metered(lambda: ask_repeats(
            lambda: panel.score(lambda judge_ctx: _ask(metric, judged, judge_ctx)), repeat))
    else:
        result, meter = await metered(lambda: ask_repeats(lambda: _ask(metric, judged, ctx),
                                                          repeat))
    if meter.usage:  # what this row's judge calls for the metric used, per judge
        result.details["usage"] = meter.as_dict()
    return result


async def _ask(metric: Metric, row: Row, ctx: ScoreContext) -> MetricResult:
    """``metric.score(row, ctx)``, a bug in the metric kept to the row as an unscored result."""
    try:
        return await metric.score(row, ctx)
    except (ConfigError, JudgeStoppedError):
        raise  # a setting, install or judge problem: stop the run and say how to fix it
    except Exception as e:  # a bug in one metric must not lose the row
        log.exception("metric %s failed on row %s", metric.name, row.id)
        return MetricResult.unscored(f"internal error in {metric.name}: {type(e).__name__}: {e}")


def _waits(metric: Metric) -> bool:
    """Whether ``metric`` calls a judge or an embedder (and so may wait)."""
    return metric.uses_judge or metric.uses_embedder


async def score_row(row: Row, metrics: Sequence[Metric], ctx: ScoreContext,
                    previous: Mapping[str, Any], *,
                    families: Sequence[MetricFamily] | None = None,
                    panel: Panel | None = None, repeat: int = 1) -> dict[str, Any]:
    """Score ``row`` with every metric (those in ``previous`` are kept as they are).

    A metric that does not apply, or that fails with a bug, gives an unscored result with the
    reason; a ConfigError (a setting or install problem) or a JudgeStoppedError (the judge
    keeps failing the same hard way) stops the run. A row whose texts address the evaluator
    is flagged (``record["injection"]``, and ``details["injection"]`` on each judge metric);
    ``ctx.settings.injection_detector`` says what finds it (``learned``, the default, or
    ``patterns``); ``ctx.settings.on_injection`` says what else: ``"mask"`` and ``"fail"``:
    its judge metrics read it with the flagged text withheld; ``"unscored"``: they are not
    asked.
    With a ``panel``, each judge metric is asked of every judge and their answers combined
    (:func:`~assay.run._panel.combine_panel`); the other metrics are scored once. With
    ``repeat`` K > 1, each judge metric is asked K times (:mod:`~assay.run._repeat`); the
    others, deterministic, once.
    """
    mode = ctx.settings.on_injection
    learned = ctx.settings.injection_detector == "learned"
    judges = any(m.uses_judge for m in metrics)
    found = injection_of(row, learned=learned) if judges else None
    judged = row
    if found is not None and mode in WITHHOLDING_MODES:
        found["withheld"] = True
        judged = mask_row(row, learned=learned)

    clocks: dict[str, RowClock] = {}  # each judge metric's seconds on the judge (row_latency)

    async def one(metric: Metric) -> MetricResult:
        if not metric.uses_judge or metric.name in previous:
            return await _score_one(metric, row, judged, ctx, previous, found, panel, repeat)
        with row_clock() as clocks[metric.name]:
            return await _score_one(metric, row, judged, ctx, previous, found, panel, repeat)

    # Metrics that call no judge or embedder never wait: score them in line, and make tasks
    # only for the rest (a task per metric per row costs more than a token F1).
    waiting = [m for m in metrics if _waits(m)]
    results = {m.name: await one(m) for m in metrics if not _waits(m)}
    if waiting:  # each metric ends before an error (e.g. a budget stop) is raised: what is
        # in flight finishes (and is cached) instead of going on unwatched
        done = await asyncio.gather(*(one(m) for m in waiting), return_exceptions=True)
        for outcome in done:
            if isinstance(outcome, BaseException):
                raise outcome
        results.update(zip((m.name for m in waiting), done))  # type: ignore[arg-type]
    # the defence is thinner in a language the detector does not know: looked at once the
    # judge was asked, so a run's first request never waits for the language model's load
    unknown = unknown_languages(row) if judges else None
    record: dict[str, Any] = {"id": row.id}
    for metric in metrics:
        result = results[metric.name]
        if found is not None and metric.uses_judge and metric.name not in previous:
            result.details.setdefault("injection", found)
        record[metric.name] = result.as_record()
    if found is not None:
        record["injection"] = found
    if unknown:
        record["injection_language"] = unknown
    for family in families_for(metrics) if families is None else families:
        record.update(family.row_details(record))  # e.g. the RAG family's stage diagnosis
    if clocks:  # the judge's seconds on this row: its calls' wall time (a cache hit: 0)
        record[ROW_LATENCY] = {
            "judge_s": round(sum(c.judge_s for c in clocks.values()), 4),
            "judge_by_metric": {name: round(c.judge_s, 4) for name, c in clocks.items()}}
    return record
