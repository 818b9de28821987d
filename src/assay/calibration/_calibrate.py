"""``calibrate``: run a judge metric on rows that people rated, and measure the agreement.

The data holds the metric's inputs and a human column, ``{metric}/human_rating`` for
pointwise metrics (a 1-5 rubric metric, or a custom scale) and
``{metric}/human_pairwise_choice`` (BASELINE, CANDIDATE or TIE) for pairwise ones. The metric
runs on every row with each judge (answers cached, results kept per judge under ``out``), and
the figures compare the two over the rows both scored, with a reliability curve (the human
mean per bin of the judge's score; see :func:`._reliability.reliability`). A pairwise metric's report adds how
the judge treated the two positions (over every row it scored): ``position_consistency``,
``flips``, ``first_shown_share`` and ``decided_by``.

Example:
    >>> import json, tempfile, pathlib
    >>> from assay.judges import FakeJudge
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> rows = [{"question": "Q?", "answer": "A.", "coherence/human_rating": h} for h in (5, 2)]
    >>> _ = (d / "rated.jsonl").write_text("\\n".join(json.dumps(r) for r in rows))
    >>> judge = FakeJudge('{"score": 5, "reason": "clear"}', id="fake")
    >>> got = calibrate(d / "rated.jsonl", metric="coherence", judges=[judge], out=d / "cal",
    ...                 cache=None)
    >>> got.reports["fake"]["exact_agreement"], got.reports["fake"]["confusion_matrix"][4]
    (0.5, [0, 0, 0, 0, 1])
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._secrets import mask_secrets
from ..calls import JudgeCallOptions
from ..data import Row, read_dataset
from ..errors import ConfigError, DataError
from ..judges import Judge
from ..metrics import Metric, get_metric
from ..metrics.custom import CHOICES, PairwiseMetric, PointwiseMetric
from ..records import open_run_store
from ..run import JudgeOptions, evaluate, group_options
from ._reliability import reliability
from ._report import write_calibration
from ._stats import agreement_stats

__all__ = ["CalibrationResult", "HumanScale", "calibrate", "human_scale"]


@dataclass(frozen=True)
class HumanScale:
    """Where the human labels are and what they may be."""

    column: str
    labels: list[Any]
    ordinal: bool
    pairwise: bool

    def parse(self, raw: Any) -> Any:
        """The label for a raw cell, ``None`` for an empty one; ValueError when off the scale."""
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            return None
        if self.pairwise or not isinstance(self.labels[0], int):
            text = str(raw).strip().lower()
            for label in self.labels:
                if str(label).lower() == text:
                    return label
            raise ValueError(raw)
        number = raw
        if isinstance(raw, str):
            try:
                number = float(raw.strip())
            except ValueError:
                raise ValueError(raw) from None
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            raise ValueError(raw)  # noqa: TRY004 - an off-scale label, reported as a DataError
        if float(number).is_integer() and int(number) in self.labels:
            return int(number)
        raise ValueError(raw)


def human_scale(metric: Metric) -> HumanScale:
    """The human column and label set for ``metric``; a ConfigError if it has no discrete scale."""
    if isinstance(metric, PairwiseMetric):
        return HumanScale(f"{metric.name}/human_pairwise_choice", list(CHOICES), False, True)
    if isinstance(metric, PointwiseMetric):
        return HumanScale(f"{metric.name}/human_rating", list(metric.scale.labels),
                          metric.scale.ordinal, False)
    low, high = metric.value_range
    if metric.uses_judge and (low, high) == (1.0, 5.0):
        return HumanScale(f"{metric.name}/human_rating", [1, 2, 3, 4, 5], True, False)
    raise ConfigError(f"calibrate needs a metric with discrete scores (a 1-5 rubric metric, a "
                      f"custom pointwise scale or a pairwise metric); {metric.name!r} scores "
                      f"{low:g}-{high:g} continuously.")


def _judge_label(metric: Metric, cell: Mapping[str, Any]) -> Any:
    if cell.get("value") is None:
        return None
    details = cell.get("details") or {}
    if isinstance(metric, PairwiseMetric):
        return details.get("choice")
    if isinstance(metric, PointwiseMetric):
        return details.get("label")
    return round(cell["value"])


@dataclass
class CalibrationResult:
    """Per report (judge, or metric file and judge): the figures; and the files written."""

    metric: str
    reports: dict[str, dict[str, Any]]
    files: dict[str, Path] = field(default_factory=dict)


def _version_label(version: Metric, versions: Sequence[Metric]) -> str:
    """The metric file's stem (or the metric's name) that tells versions apart."""
    label = Path(version.source).stem if version.source else version.name
    same = [v for v in versions if (Path(v.source).stem if v.source else v.name) == label]
    return label if len(same) == 1 else f"{label}#{versions.index(version) + 1}"


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def calibrate(data: str | Path, *, metric: str | Metric | Sequence[Metric],
              judges: Sequence[str | Judge] = ("local",), out: str | Path | None = None,
              mapping: Mapping[str, str] | None = None, calls: JudgeCallOptions | None = None,
              **evaluate_kwargs: Any) -> CalibrationResult:
    """Agreement of ``metric`` (or several versions of it, e.g. two template files) with the
    human column of ``data``, for each judge. ``calls``: how judge calls are made
    (:class:`~assay.calls.JudgeCallOptions`); its fields may be given as keywords instead
    (``cache``, ``concurrency``, ``timeout``, ..., each one way at most). Other keyword
    arguments go to :func:`assay.evaluate` (``lang``, ``style``, ...).

    Raises:
        DataError: no row has the human column, or some human labels are off the scale (all
            listed, with line and value), before any judge call.
        ConfigError: the metric has no discrete scale, or versions disagree on the scale.
    """
    call_keys = {"concurrency", "timeout", "max_attempts", "max_wait", "tpm", "rpm", "cache"}
    judging = JudgeOptions.from_calls(JudgeCallOptions.with_overrides(
        calls, cache_by_default=True,
        **{k: evaluate_kwargs.pop(k) for k in call_keys & set(evaluate_kwargs)}))
    versions: list[Metric] = ([get_metric(metric)] if isinstance(metric, str) else
                              [metric] if not isinstance(metric, Sequence) else
                              [m for m in metric if not isinstance(m, str)])
    if not versions or not judges:
        raise ConfigError("calibrate needs a metric and at least one judge.")
    scales = [human_scale(m) for m in versions]
    scale = scales[0]
    if any(s != scale for s in scales[1:]):
        raise ConfigError("The metric versions to compare must share one human column and "
                          f"scale; got {[(s.column, s.labels) for s in scales]}.")
    rows = read_dataset(data, mapping=mapping)
    human = _human_labels(rows, scale, str(data))
    out_dir = Path(out) if out else Path("assay-out") / f"calibrate-{Path(data).stem}"
    reports: dict[str, dict[str, Any]] = {}
    # a spec's URL password stays out of the report's names and folders
    judge_ids = [mask_secrets(j) if isinstance(j, str) else j.id for j in judges]
    for version in versions:
        for judge, judge_id in zip(judges, judge_ids):
            name = judge_id if len(versions) == 1 else (
                _version_label(version, versions)
                + (f" @ {judge_id}" if len(judges) > 1 else ""))
            # A rerun replaces each judge's results folder: calibration is "rerun to
            # continue", and the judge cache answers what was asked before.
            stored = {"kind": "calibration", "run_name": f"calibrate {name}",
                      "tags": ["calibration", version.name], "overwrite": True,
                      **evaluate_kwargs}
            result = evaluate(data, metrics=[version], judge=judge, judging=judging,
                              **group_options(
                mapping=mapping, out=out_dir / _safe(name), **stored))
            by_id = {rec["id"]: rec for rec in result.rows}
            cells = [by_id[r.id][version.name] for r in rows]
            judged = [_judge_label(version, cell) for cell in cells]
            stats = agreement_stats(human, judged, labels=scale.labels, ordinal=scale.ordinal)
            curve = reliability(cells, human, labels=scale.labels, ordinal=scale.ordinal,
                                pairwise=scale.pairwise)
            if curve is not None:
                stats["reliability"] = curve
            stats["judge"] = result.summary["judge"]["id"] if result.summary["judge"] else judge_id
            stats["metric"] = version.name
            stats["human_column"] = scale.column
            lost = ((result.summary.get("failures") or {}).get("by_metric") or {}).get(
                version.name) or {}
            stats["failed_calls"] = int(lost.get("failed") or 0)
            stats["unreadable"] = int(lost.get("unreadable") or 0)
            if isinstance(version, PairwiseMetric):
                stats.update(_position_figures(result.summary["metrics"].get(version.name)))
            reports[name] = stats
            if result.summary.get("run_id"):
                _store_calibration(evaluate_kwargs.get("store"), result.summary, stats)
    files = write_calibration(out_dir, reports, metric=versions[0].name)
    return CalibrationResult(metric=versions[0].name, reports=reports, files=files)


#: A pairwise metric's position figures, copied from its aggregate into the report.
_POSITION_KEYS = ("position_consistency", "flips", "first_shown_share", "decided_by")


def _position_figures(aggregate: Mapping[str, Any] | None) -> dict[str, Any]:
    """How the judge treated the two positions, over every row it scored: position
    consistency, flips, the share of answers naming the first-shown output and which rule
    decided (token probabilities or agreement of the two orders).

    Example:
        >>> _position_figures({"mean": 0.5, "flips": 2, "position_consistency": 0.6})
        {'position_consistency': 0.6, 'flips': 2, 'first_shown_share': None, 'decided_by': None}
    """
    aggregate = aggregate or {}
    return {key: aggregate.get(key) for key in _POSITION_KEYS}


def _store_calibration(store: Any, summary: dict[str, Any], stats: dict[str, Any]) -> None:
    """Add the agreement figures to the stored run's summary (under ``calibration``)."""
    opened = open_run_store(store)
    if opened is None:
        return
    try:
        opened.update_summary(summary["run_id"], {"calibration": stats})
    finally:
        if opened is not store:
            opened.close()


def _human_labels(rows: Sequence[Row], scale: HumanScale, source: str) -> list[Any]:
    """Each row's human label (``None`` where empty); a DataError lists every off-scale cell
    (file, line, value), or says that no row has the column. Public as
    ``assay.calibration.human_labels`` (``assay align`` reads labels the same way)."""
    labels: list[Any] = []
    problems: list[str] = []
    for row in rows:
        raw = row.extra.get(scale.column)
        try:
            labels.append(scale.parse(raw))
        except ValueError:
            labels.append(None)
            problems.append(f"{source} line {row.line}, field {scale.column!r}: got {raw!r}. "
                            f"Fix: use one of {scale.labels} (or leave it empty).")
    if problems:
        raise DataError(problems)
    if all(label is None for label in labels):
        raise DataError([(f"{source}: no row has a value in the column {scale.column!r}. "
                          "Fix: add the human ratings in that column (one per row).")])
    return labels
