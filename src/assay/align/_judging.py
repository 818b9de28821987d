"""Running one candidate metric on some rated rows (through :func:`assay.run.evaluate_async`:
cache, retries, concurrency and progress as in ``assay run``), nothing recorded in the store.

Example:
    >>> import asyncio
    >>> from assay.data import Row
    >>> from assay.judges import FakeJudge
    >>> from assay.metrics.custom import PointwiseMetric
    >>> m = PointwiseMetric("tone", "<a>{{ response }}</a>", scale="1-3")
    >>> rows = [Row(id="a", line=1, answer="Hi.")]
    >>> from assay.run import JudgeOptions
    >>> asyncio.run(judge_rows(m, rows, FakeJudge('{"score": 2, "reason": "ok"}'),
    ...                        judging=JudgeOptions(cache=None)))
    [Judged(label=2, score=2.0)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..data import Row, row_inputs
from ..judges import Judge
from ..metrics.custom import PointwiseMetric
from ..run import JudgeOptions, RunOptions, ScoringOptions, evaluate_async

__all__ = ["Judged", "judge_rows"]


@dataclass(frozen=True)
class Judged:
    """The judge's label for a row (``None``: unscored) and the score a map reads: the
    probability-weighted score, else the label's value."""

    label: Any
    score: float | None


def record_of(row: Row) -> dict[str, Any]:
    """``row`` as a dataset record again (id, fields, extra columns)."""
    fields = row_inputs(row)
    extra = fields.pop("extra", {})
    if "contexts" in fields:
        fields.pop("context", None)
    return {"id": row.id, **extra, **fields}


async def judge_rows(metric: PointwiseMetric, rows: Sequence[Row], judge: Judge, *,
                     judging: JudgeOptions, lang: str = ScoringOptions().lang,
                     progress: bool = False) -> list[Judged]:
    """The judge's verdict on each row, in order (``judging``: how judge calls are made)."""
    if not rows:
        return []
    result = await evaluate_async(
        [record_of(r) for r in rows], metrics=[metric], judge=judge,
        scoring=ScoringOptions(lang=lang),
        judging=judging,
        run=RunOptions(progress=progress))
    cells = {rec["id"]: rec.get(metric.name) or {} for rec in result.rows}
    out = []
    for row in rows:
        cell = cells.get(row.id, {})
        details = cell.get("details") or {}
        if cell.get("value") is None:
            out.append(Judged(None, None))
            continue
        score = details.get("judge_score", cell.get("weighted"))
        out.append(Judged(details.get("label"),
                          float(score if score is not None else cell["value"])))
    return out
