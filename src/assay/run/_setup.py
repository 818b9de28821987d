"""What a run needs before it scores: the checked dataset with its metric plan, and the
engine that scores it; and :class:`StreamScorer`, for rows that keep arriving.

Example:
    >>> source, dataset, total, plan = read_and_plan(
    ...     [{"answer": "a", "ground_truth": "a"}], "exact_match", unavailable={}, mapping=None,
    ...     max_field_chars=100_000, long_fields="refuse")
    >>> dataset, total, [m.name for m in plan.metrics]
    ('<records>', 1, ['exact_match'])
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..costs import PriceBook
from ..data import DatasetStream, LongFields, Row, rows_from_records
from ..embeddings import Embedder, check_embedder_spec, local_embedder_missing
from ..errors import ConfigError, option
from ..judges import Judge, check_judge_spec
from ..metrics import Metric, MetricPlanner, Plan
from ..records import typed_summary
from ._complete import RowAgent, planned_row
from ._folding import EvalOptions
from ._local import LocalEngine
from ._options import JudgeOptions, ReadOptions, RunOptions, ScoringOptions
from ._panel import check_panel_ids
from ._panel_tally import price_panel_usage
from ._score import Scorer, ScoreSettings
from ._tally import RunTally, run_summary

if TYPE_CHECKING:
    from ._ray import RayEngine

__all__ = ["ENGINES", "StreamScorer", "add_usage", "check_engine", "judge_list", "make_runner",
           "read_and_plan", "unavailable_metrics"]

#: Where rows are scored: ``local`` (asyncio in this process) or ``ray`` (a Ray cluster).
ENGINES = ("local", "ray")


def check_engine(engine: str) -> None:
    """A ConfigError for an engine that is not one of :data:`ENGINES` (the scoring settings
    are checked when the run builds them: ``ScoringOptions.settings``).

    Example:
        >>> check_engine("spark")
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: Got engine='spark'. Must be one of ['local', 'ray'].
    """
    if engine not in ENGINES:
        raise ConfigError(f"Got {option('engine', engine)}. Must be one of {list(ENGINES)}.")


def read_and_plan(data: str | Path | Iterable[Mapping[str, Any]],
                   metrics: str | Sequence[str | Metric], *, unavailable: dict[str, str],
                   mapping: Mapping[str, str] | None, max_field_chars: int,
                   long_fields: LongFields, agent: RowAgent | None = None,
                   ) -> tuple[DatasetStream | list[Row], str, int, Plan]:
    """Check the whole dataset (every problem in one DataError, before any judge call) and
    plan the metrics its fields allow: ``(rows, dataset name, row count, plan)``. With an
    ``agent``, a QA row may lack its answer (the agent gives it), and the plan is made for the
    rows as the agent will leave them (:func:`planned_row`)."""
    source: DatasetStream | list[Row]
    answer_required = agent is None
    if isinstance(data, (str, Path)):
        dataset = str(data)
        source = DatasetStream(data, mapping=mapping, max_field_chars=max_field_chars,
                               long_fields=long_fields, answer_required=answer_required)
        planner = MetricPlanner(metrics, unavailable=unavailable, source=dataset)
        total = source.check(lambda rows: planner.add(_as_planned(agent, rows)))
    else:
        dataset = "<records>"
        source = rows_from_records(data, mapping=mapping, max_field_chars=max_field_chars,
                                   long_fields=long_fields, answer_required=answer_required)
        planner = MetricPlanner(metrics, unavailable=unavailable, source=dataset)
        planner.add(_as_planned(agent, source))
        total = len(source)
    return source, dataset, total, planner.finish()


def _as_planned(agent: RowAgent | None, rows: list[Row]) -> list[Row]:
    return rows if agent is None else [planned_row(agent, row) for row in rows]


def unavailable_metrics(embeddings: str | Embedder) -> dict[str, str]:
    """The metrics that cannot run here, each with why: ``semantic_similarity`` when the
    offline embedder is asked for and its extra is not installed."""
    missing = local_embedder_missing() if embeddings == "local" else None
    return {"semantic_similarity": missing} if missing else {}


def add_usage(summary: dict[str, Any], runner: Any,
              stats: tuple[dict[str, Any] | None, dict[str, Any] | None],
              prices: PriceBook | None = None) -> None:
    """Put the judge's and the embedder's usage (``stats``: the runner's, taken before it
    closed) and a panel's usage per judge (priced with ``prices`` where the judge declares
    no price of its own) into ``summary``."""
    judge_stats, embedder_stats = stats
    if judge_stats is not None:
        summary["judge"] = {"id": runner.judge_id, **judge_stats}
    if (usage := runner.panel_usage()) and "panel" in summary:
        summary["panel"]["usage"] = usage  # requests, tokens, cost per judge
        if prices is not None:
            price_panel_usage(usage, prices)
    if embedder_stats is not None:
        summary["embeddings"] = {"id": runner.embedder_id, **embedder_stats}


def judge_list(judge: str | Judge | Sequence[str | Judge]) -> list[str | Judge]:
    """The judges of ``evaluate(judge=...)``, each spec checked: one, or a panel's list.

    Example:
        >>> judge_list("fake"), judge_list(["fake:a", "fake:b"])
        (['fake'], ['fake:a', 'fake:b'])
    """
    judges = (list(judge) if isinstance(judge, Sequence) and not isinstance(judge, str)
              else [judge])
    if not judges:
        raise ConfigError(f"Got {option('judge', [])}. Give a judge, or several for a panel.")
    for spec in judges:
        check_judge_spec(spec)
    return judges


def make_runner(plan: Plan, *, judge: str | Judge | Sequence[str | Judge],
                 embeddings: str | Embedder, unavailable: dict[str, str],
                 settings: ScoreSettings, engine: str, ray_address: str | None,
                 ray_workers: int | None) -> LocalEngine | RayEngine:
    """The engine that scores the plan's metrics, with a judge (or a panel of judges: a list of
    two or more) and an embedder only when a metric needs them (a judge made here from a spec
    is closed by the engine; an instance passed in stays open for its owner). How judge
    calls are made (timeout, budget, cache, ...) is ``settings.calls``.

    Raises:
        ConfigError: two judges of a panel with the same id.
    """
    uses_judge = any(m.uses_judge for m in plan.metrics)
    embedder_users = [m for m in plan.metrics if m.uses_embedder]
    uses_embedder = any(not m.embedder_optional for m in embedder_users) or (
        bool(embedder_users) and "semantic_similarity" not in unavailable)
    specs = judge_list(judge)
    if engine == "ray":
        from ._ray import RayEngine  # Ray is an optional extra: imported only when asked for

        return RayEngine(plan.metrics,
                         judge=(specs if len(specs) > 1 else specs[0]) if uses_judge else None,
                         embedder=embeddings if uses_embedder else None, settings=settings,
                         address=ray_address, workers=ray_workers)
    scorer = Scorer(plan.metrics, judge=specs if uses_judge else None,
                    embedder=embeddings if uses_embedder else None, settings=settings)
    try:
        check_panel_ids([j.id for j in scorer.judges])
    except BaseException:
        scorer.close_caches()
        raise
    in_flight = (max(j.max_in_flight for j in scorer.judges) if scorer.judges
                 else settings.calls.concurrency)
    return LocalEngine(scorer, workers=(in_flight or 8) * 2)  # a row's metrics overlap


class StreamScorer:
    """Scores rows that keep arriving (``assay watch``), and keeps the running tally: one
    scorer for the whole process, with the same planner checks, judge wrapper (cache, budget,
    retries, adaptive concurrency), injection defence and record shape as :func:`evaluate`,
    fed by an async iterator.

    :func:`evaluate` makes one run per call, for a dataset that ends; a stream never ends,
    and its caller records the rows itself (``assay.records.RunRecorder``), as they are
    scored. The metrics are named explicitly (``auto`` needs the whole dataset to choose); a
    metric that does not apply to a row is recorded unscored with the reason, as in a run.

    Example:
        >>> import asyncio
        >>> from assay.data import rows_from_records
        >>> from assay.judges import FakeJudge
        >>> rows = rows_from_records([{"id": "t1", "question": "Q?", "answer": "A."}])
        >>> async def go():
        ...     scorer = StreamScorer("fluency,f1_score", judge=FakeJudge(),
        ...                           judging=JudgeOptions(cache=None))
        ...     got = []
        ...     async def feed():
        ...         for row in rows:
        ...             yield row
        ...     await scorer.score(feed(), got.append)
        ...     await scorer.aclose()
        ...     return got[0]["fluency"]["value"], got[0]["f1_score"]["error"][:15]
        >>> asyncio.run(go())
        (5.0, 'does not apply:')

    Args:
        metrics: the metrics, ``"a,b"`` or a list (not ``auto``).
        judge, embeddings, scoring, judging: as for :func:`evaluate`.

    Raises:
        ConfigError: ``auto``, an unknown metric, or one that cannot run here.
    """

    def __init__(self, metrics: str | Sequence[str | Metric], *,
                 judge: str | Judge | Sequence[str | Judge] = "local",
                 embeddings: str | Embedder = "local",
                 scoring: ScoringOptions | None = None,
                 judging: JudgeOptions | None = None) -> None:
        names = ([m.strip() for m in metrics.split(",")] if isinstance(metrics, str)
                 else [m for m in metrics if isinstance(m, str)])
        if not metrics or "auto" in names or names == [""]:
            raise ConfigError(f"Got {option('metrics', metrics)}. Name the metrics to score "
                              "each row with, e.g. groundedness,relevance: rows arrive one "
                              "at a time, so they cannot be chosen from the data.")
        self.options = EvalOptions(reading=ReadOptions(), scoring=scoring or ScoringOptions(),
                                   judging=judging or JudgeOptions(), run=RunOptions())
        self.settings = self.options.scoring.settings()
        #: What the judge calls are priced with (the ``prices`` file of ``judging``).
        self.prices = PriceBook.load(self.options.judging.prices)
        judges = judge_list(judge)
        self._judge = judges[0] if len(judges) == 1 else judges
        check_embedder_spec(embeddings)
        self._embeddings = embeddings
        self._unavailable = unavailable_metrics(embeddings)
        planner = MetricPlanner(metrics, unavailable=self._unavailable, source="watch")
        self.plan = Plan(metrics=list(planner.candidates))
        self.tally = RunTally(self.plan.metrics)
        self.started = time.monotonic()
        self.runner = self._new_runner()

    def _new_runner(self) -> Any:
        return make_runner(self.plan, judge=self._judge, embeddings=self._embeddings,
                           unavailable=self._unavailable,
                           settings=self.options.score_settings(self.settings),
                           engine="local", ray_address=None, ray_workers=None)

    @property
    def judge_id(self) -> str | None:
        """The judge's id (a panel's), or ``None`` when no metric uses a judge."""
        return self.runner.judge_id  # type: ignore[no-any-return]

    @property
    def metric_versions(self) -> dict[str, str]:
        """``{metric: version}`` of the metrics scored."""
        return {m.name: m.version for m in self.plan.metrics}

    def recorded_settings(self) -> dict[str, Any]:
        """The settings a stored run records (as :func:`evaluate` records them)."""
        return self.options.recorded_settings(self.settings, judge=self._judge,
                                              embeddings=self._embeddings, out_dir=None,
                                              ray_workers=None)

    async def score(self, rows: AsyncIterator[Row],
                    on_record: Callable[[dict[str, Any]], None]) -> None:
        """Score each row of ``rows`` until it ends; ``on_record`` gets each record (any
        order), after the tally counted it.

        Raises:
            JudgeStoppedError: the judge failed the same hard way several times in a row
                (the rows in flight got no record); :meth:`restart` gives a fresh judge.
            ConfigError: a setting or install problem.
        """
        async def pairs() -> AsyncIterator[tuple[Row, dict[str, Any]]]:
            async for row in rows:
                yield row, {}

        def counted(record: dict[str, Any]) -> None:
            self.tally.add(record)
            on_record(record)

        await self.runner.run(pairs(), counted)

    async def restart(self) -> None:
        """Close the judge and embedder and open new ones (after the judge stopped)."""
        await self.runner.aclose()
        self.runner = self._new_runner()

    def summary(self, *, complete: bool, dataset: str = "watch") -> dict[str, Any]:
        """The summary of every record scored so far (``summary.json``'s shape)."""
        summary = run_summary(self.tally.rows, self.tally, self.plan.metrics, self.started,
                              dataset, self.settings.lang, [], complete,
                              options=self.settings.as_dict(),
                              on_injection=self.settings.on_injection, prices=self.prices)
        add_usage(summary, self.runner, self.runner.stats(), self.prices)
        return typed_summary(summary)

    async def aclose(self) -> None:
        """Close the judge, the embedder and the caches."""
        await self.runner.aclose()
