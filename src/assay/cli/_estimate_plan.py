"""``assay run --estimate``: the requests a run would send its judges, planned and counted
without sending any.

Each judge metric of the plan builds its real request(s) for every row through the run's own
scoring path (:class:`~assay.run.StreamScorer`: the same planner checks, fence style,
injection masking, settings and managed judge), on a :class:`~assay.calls.PlaceholderJudge`
with the run's judge id and capabilities; each request is told apart by its row and kind
(``schema_name``), so the figures come per kind of request (``by_kind``). Metrics that ask again after reading an answer (a
decomposition into statements, then their verification; a list of intents, then their
coverage) are rendered three times, their first answer listing 1 item (low), one item per
sentence of the row's answer (expected) and twice that (high). Identical requests (two
metrics' shared decomposition, the four severity metrics' combined request) are counted once,
as the run's cache sends them once; without a cache (``--no-cache``) they share one call only
while in flight, so the high figure counts each; requests the judge cache already answers
are free and counted apart (and their cached answers lead to the follow-ups the run makes).

Prompt tokens: :func:`~assay.calls.prompt_tokens` of each rendered request. Completion
tokens: a brief placeholder answer's (low), the mean the judge cache holds for the same kind
of request or an earlier run in OUT measured (expected; else a placeholder of a usual length)
and the request's ``max_tokens`` (high). Retries are not counted.

Example:
    >>> import asyncio
    >>> rows = [{"question": "Q?", "answer": "It is 1.3 kg. It packs small.", "context": "C."}]
    >>> est = asyncio.run(estimate_async(rows, metrics="fluency,faithfulness",
    ...                                  judge="openai:gpt-4o-mini", cache=None))
    >>> sorted(est.by_kind), est.total.requests.as_dict()
    (['rating', 'statements', 'verdicts'], {'low': 3, 'expected': 3, 'high': 3})
    >>> est.by_kind["verdicts"].prompt_tokens.low < est.by_kind["verdicts"].prompt_tokens.high
    True
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from itertools import islice
from pathlib import Path
from typing import Any

from ..calls import (
    CachedAnswers,
    Estimate,
    JudgeEstimate,
    Span,
    Tally,
    TokenCounter,
    model_of,
    placeholder_answer,
    priced_estimate,
    prompt_tokens,
    token_counter,
)
from ..data import DatasetStream, Row, rows_from_records
from ..errors import ConfigError
from ..judges import (
    FakeJudge,
    Judge,
    JudgeRequest,
    JudgeResponse,
    cache_scope,
    known_capabilities,
    make_judge,
)
from ..metrics import Metric, MetricPlanner
from ..run import JudgeOptions, ReadOptions, ScoringOptions, StreamScorer
from ._estimate_rows import (
    AppAnswered,
    RowRecorder,
    UnitEmbedder,
    answered,
    rows_for_pass,
)

__all__ = ["estimate_async"]

_PASSES = ("low", "expected", "high")
_DEFAULT_READ, _DEFAULT_SCORING = ReadOptions(), ScoringOptions()
async def estimate_async(
    data: str | Path | Iterable[Mapping[str, Any]], *,
    metrics: str | Sequence[str | Metric] = "auto",
    judge: str | Judge | Sequence[str | Judge] = "local",
    reading: ReadOptions = _DEFAULT_READ,
    scoring: ScoringOptions = _DEFAULT_SCORING,
    repeat: int = 1,
    cache: Path | None = None,
    tpm: int | None = None,
    rpm: int | None = None,
    out: Path | None = None,
    prices_file: Path | None = None,
    sample: int | None = None,
    app: bool = False,
) -> Estimate:
    """Plan and count a run's judge requests (see the module); nothing is sent.

    Args:
        data, metrics, judge, reading, scoring: as for :func:`~assay.run.evaluate`.
        repeat: ``--repeat K``: each judge request asked K times.
        cache: the judge cache file the run would use (answers there are free); ``None``
            for none. Only read, and only when it exists.
        tpm, rpm: the run's token and request budget a minute, for the time at the limits.
        out: the run's output folder: an earlier run's ``summary.json`` there gives the
            measured completion tokens per request.
        prices_file: the user's price file (see :mod:`assay.calls._prices`).
        sample: render only the first ``sample`` rows and scale their figures to the whole
            dataset (the estimate printed before a large run); ``None``: every row.
        app: the run has an app under test (``--target``): a QA row without an answer is
            estimated with its ground truth (else a sentence) as the answer the app will give
            (the app's own calls are not estimated).

    Raises:
        DataError: the dataset has problems (all listed).
        ConfigError: a bad option.
    """
    scoring.settings()  # each value checked, as the run checks them
    specs = (list(judge) if isinstance(judge, Sequence) and not isinstance(judge, str)
             else [judge])
    judges = [_judge_or_standin(spec) for spec in specs]
    try:
        source, total, asked = _read_and_plan(data, metrics, reading, app=app)
        counters = [token_counter(model_of(j.id)) for j in judges]
        store = CachedAnswers(cache)
        plans = [_JudgePlan(j, c, store, cached_run=cache is not None)
                 for j, c in zip(judges, counters)]
        try:
            for judge_plan in plans if asked else []:  # no judge metric: nothing to ask
                await judge_plan.render(AppAnswered(source) if app else source, asked,
                                        scoring, sample)
        finally:
            store.close()
    finally:
        for backend in judges:
            await backend.aclose()
    rendered_rows = min(total, sample) if sample is not None else total
    scale = total / rendered_rows if rendered_rows else 1.0
    measured = _earlier_run_mean(out)
    by_kind: dict[str, Tally] = defaultdict(Tally)
    by_judge: dict[str, JudgeEstimate] = {}
    total_tally = Tally()
    for judge_plan in plans:
        judge_tally = Tally()
        for name, tally in judge_plan.tallies(measured).items():
            scaled = tally.scaled(repeat * scale)
            by_kind[name].merge(scaled)
            judge_tally.merge(scaled)
        total_tally.merge(judge_tally)
        by_judge[judge_plan.judge.id] = _priced(judge_plan.judge, judge_tally, prices_file)
    notes = sorted({c.note for c in counters})
    if rendered_rows < total:
        notes.insert(0, f"from the first {rendered_rows:,} of {total:,} rows, scaled")
    notes.append("completion tokens: low = a short answer of the metric's schema, expected = "
                 + ("the mean measured in the judge cache or an earlier run where there is one, "
                    "else " if store.holds_any or measured is not None else "")
                 + "an answer of a usual length, high = each request's max_tokens; retries "
                   "are not counted")
    return Estimate(rows=total, total=total_tally, by_kind=dict(by_kind), by_judge=by_judge,
                    tpm=tpm, rpm=rpm, notes=notes)


def _read_and_plan(data: str | Path | Iterable[Mapping[str, Any]],
                   metrics: str | Sequence[str | Metric], reading: ReadOptions, *,
                   app: bool) -> tuple[Iterable[Row], int, list[Metric]]:
    """The rows (checked, every problem at once), their count and the judge metrics the
    run's planner picks for them (as the app will leave them, with ``app``)."""
    options = {"mapping": reading.mapping, "max_field_chars": reading.max_field_chars,
               "long_fields": reading.long_fields, "answer_required": not app}
    source: Iterable[Row]
    if isinstance(data, (str, Path)):
        stream = DatasetStream(data, **options)  # type: ignore[arg-type]
        planner = MetricPlanner(metrics, unavailable={}, source=str(data))
        total = stream.check(lambda rows: planner.add(list(answered(rows)) if app else rows))
        source = stream
    else:
        rows = rows_from_records(data, **options)  # type: ignore[arg-type]
        planner = MetricPlanner(metrics, unavailable={}, source="<records>")
        planner.add(list(answered(rows)) if app else rows)
        source, total = rows, len(rows)
    return source, total, [m for m in planner.finish().metrics if m.uses_judge]


def _judge_or_standin(spec: str | Judge) -> Judge:
    """The run's judge, made as the run makes it (nothing is sent); an ``openai:`` or
    ``azure:`` judge whose key is not set stands in with the same id and the model's known
    capabilities (an estimate needs no key)."""
    try:
        return make_judge(spec)
    except ConfigError:
        if not isinstance(spec, str) or not spec.startswith(("openai:", "azure:")):
            raise
        return FakeJudge(id=spec.split("@", 1)[0],
                         capabilities=known_capabilities(model_of(spec)))


def _priced(judge: Judge, tally: Tally, prices_file: Path | None) -> JudgeEstimate:
    return priced_estimate(judge.id, judge.capabilities, tally, prices_file)


def _earlier_run_mean(out: Path | None) -> float | None:
    """Completion tokens per request an earlier run in ``out`` measured, ``None`` without."""
    if out is None or not (out / "summary.json").is_file():
        return None
    try:
        judge = json.loads((out / "summary.json").read_text(encoding="utf-8")).get("judge") or {}
        requests = int(judge.get("requests") or 0)
        completion = int(judge.get("completion_tokens") or 0)
    except (OSError, ValueError, AttributeError, TypeError):
        return None
    return completion / requests if requests else None


class _JudgePlan:
    """One judge's planned requests, per kind of request (``schema_name``)."""

    def __init__(self, judge: Judge, counter: TokenCounter, store: CachedAnswers, *,
                 cached_run: bool) -> None:
        self.judge, self.counter, self.store = judge, counter, store
        #: With a cache, a request already asked (any row) is answered from it; without,
        #: identical requests share one call only while in flight (high: none shared).
        self.cached_run = cached_run
        self.scope = cache_scope(judge)
        self.seen: dict[str, set[str]] = {p: set() for p in _PASSES}
        # schema -> pass -> [requests, prompt, placeholder completion, max_tokens]
        self.counts: dict[str, dict[str, list[int]]] = defaultdict(
            lambda: {p: [0, 0, 0, 0] for p in _PASSES})
        self.cached: dict[str, int] = defaultdict(int)
        self.cached_completion: dict[str, list[int]] = defaultdict(lambda: [0, 0])

    async def render(self, rows: Iterable[Row], metrics: list[Metric], scoring: ScoringOptions,
                     sample: int | None) -> None:
        """Render the requests of every row (the first ``sample`` rows) at each list length,
        through one scorer with all the judge metrics, as the run scores them."""
        recorder = RowRecorder(self.judge.id, self.judge.capabilities, known=self._cached)
        scorer = StreamScorer(metrics, judge=recorder, embeddings=UnitEmbedder(),
                              scoring=scoring, judging=JudgeOptions(cache=None))
        try:
            for which in _PASSES:
                recorder.asked.clear()
                await scorer.score(rows_for_pass(islice(rows, sample), which), lambda _record: None)
                for (row_id, items), request in recorder.asked:
                    self._count(row_id, which, items, request)
        finally:
            await scorer.aclose()

    def _cached(self, request: JudgeRequest) -> JudgeResponse | None:
        """The judge cache's answer to ``request``, ``None`` when it has none."""
        return self.store.get(request, self.scope)

    def _count(self, row_id: str, which: str, items: int, request: JudgeRequest) -> None:
        # with a cache, a request already asked (any row) is answered from it; without,
        # identical requests share one call only while in flight (a row's metrics at once)
        key = request.cache_key(self.scope) + ("" if self.cached_run else f"\n{row_id}")
        if key in self.seen[which] and (self.cached_run or which != "high"):
            return
        self.seen[which].add(key)
        if (hit := self.store.get(request, self.scope)) is not None:
            if which == "expected":
                self.cached[request.schema_name] += 1
                measured = self.cached_completion[request.schema_name]
                measured[0] += 1
                measured[1] += hit.completion_tokens
            return
        counts = self.counts[request.schema_name][which]
        counts[0] += 1
        counts[1] += prompt_tokens(request, self.counter)
        counts[2] += self.counter.count(placeholder_answer(request.json_schema, items=items,
                                                           brief=which == "low"))
        counts[3] += request.max_tokens

    def tallies(self, earlier_mean: float | None) -> dict[str, Tally]:
        """Each kind's tally; the expected completion tokens from the mean the cache holds
        for the same kind of request, else ``earlier_mean``, else the placeholder's."""
        out: dict[str, Tally] = defaultdict(Tally)
        for schema, by_pass in self.counts.items():
            low, expected, high = (by_pass[p] for p in _PASSES)
            seen, tokens = self.cached_completion.get(schema, [0, 0])
            mean = tokens / seen if seen else earlier_mean
            expected_completion = expected[0] * mean if mean is not None else expected[2]
            out[schema].add(Span(low[0], expected[0], high[0]),
                            prompt=Span(low[1], expected[1], high[1]),
                            completion=Span(low[2], expected_completion, high[3]))
        for schema, n in self.cached.items():
            out[schema].cached += n
        return dict(out)
