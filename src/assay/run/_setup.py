"""What a run needs before it scores: the checked dataset with its metric plan, and the
engine that scores it.

Example:
    >>> source, dataset, total, plan = read_and_plan(
    ...     [{"answer": "a", "ground_truth": "a"}], "exact_match", unavailable={}, mapping=None,
    ...     max_field_chars=100_000, long_fields="refuse")
    >>> dataset, total, [m.name for m in plan.metrics]
    ('<records>', 1, ['exact_match'])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..calls import Budget
from ..data import DatasetStream, LongFields, Row, rows_from_records
from ..embeddings import Embedder, make_embedder
from ..errors import ConfigError, option
from ..judges import Judge, check_judge_spec, make_judge
from ..metrics import Metric, MetricPlanner, Plan
from ._complete import RowAgent, planned_row
from ._local import LocalEngine
from ._panel import check_panel_ids
from ._score import Scorer, ScoreSettings

if TYPE_CHECKING:
    from ._ray import RayEngine

__all__ = ["ENGINES", "check_engine", "judge_list", "make_runner", "read_and_plan"]

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
                 settings: ScoreSettings, engine: str, timeout: float, tpm: int | None,
                 rpm: int | None, ray_address: str | None,
                 ray_workers: int | None) -> LocalEngine | RayEngine:
    """The engine that scores the plan's metrics, with a judge (or a panel of judges: a list of
    two or more) and an embedder only when a metric needs them (a judge made here from a spec
    is closed by the engine; an instance passed in stays open for its owner).

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
                         timeout=timeout, tpm=tpm, rpm=rpm, address=ray_address,
                         workers=ray_workers)
    judges = [make_judge(spec, timeout=timeout) for spec in specs] if uses_judge else []
    check_panel_ids([j.id for j in judges])
    scorer = Scorer(plan.metrics,
                    judge=judges[0] if len(judges) == 1 else judges or None,
                    embedder=(make_embedder(embeddings, timeout=timeout)
                              if uses_embedder else None),
                    settings=settings, budget=Budget(tpm, rpm),
                    owns_backends=([isinstance(s, str) for s in specs] if judges else False,
                                   isinstance(embeddings, str)))
    in_flight = (max(j.max_in_flight for j in scorer.judges) if scorer.judges
                 else settings.concurrency)
    return LocalEngine(scorer, workers=(in_flight or 8) * 2)  # a row's metrics overlap
