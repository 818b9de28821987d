"""What the review page needs, without a web framework: which metrics of a run a person can
rate and on what scale, how far a person's label is from the judge's score, and the order of
the review queue ("disagreements first" puts the rows where they differ most first).

A metric is rateable when it has a discrete scale, as ``assay calibrate`` reads it: a pairwise
metric (BASELINE, CANDIDATE, TIE), a custom pointwise metric (its labels), or a 1-5 judge
metric. Continuous metrics (f1_score, similarity) are shown but not rated.

Example:
    >>> s = RatingScale("coherence", "rating", [1, 2, 3, 4, 5])
    >>> s.distance(5, {"value": 2.0}), s.parse("4"), s.parse("9") is None
    (0.75, 4, True)
    >>> p = RatingScale("pref", "pairwise", ["BASELINE", "CANDIDATE", "TIE"])
    >>> p.distance("TIE", {"value": 1.0, "details": {"choice": "CANDIDATE"}})
    0.5
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import AssayError
from ..metrics import get_metric
from ..report import metric_names
from ..store import PAIRWISE_CHOICES, Label, RunInfo

__all__ = ["PAIRWISE_KEYS", "RatingScale", "disagreement", "queue_order", "rating_scales"]

#: Keyboard shortcuts of the pairwise choices, and what each means on the page.
PAIRWISE_KEYS = {"BASELINE": ("a", "A: baseline better"), "CANDIDATE": ("b", "B: candidate better"),
                 "TIE": ("t", "Tie")}


@dataclass(frozen=True)
class RatingScale:
    """A rateable metric: ``kind`` ``rating`` (whole numbers), ``labels`` (a custom scale's
    labels, in order) or ``pairwise``; ``values`` in scale order."""

    metric: str
    kind: str
    values: list[int | str]

    def parse(self, raw: str) -> int | str | None:
        """The scale's value for a form field's text (case-insensitive), else None."""
        text = raw.strip().lower()
        return next((v for v in self.values if str(v).lower() == text), None)

    def judge_label(self, result: Mapping[str, Any]) -> int | str | float | None:
        """The judge's answer on this scale in a stored result: its choice, its label, or its
        (possibly probability-weighted) value for a rating; None when unscored."""
        if result.get("value") is None:
            return None
        details = result.get("details") if isinstance(result.get("details"), Mapping) else {}
        if self.kind == "pairwise":
            return details.get("choice") if details else None
        if self.kind == "labels":
            return details.get("label") if details else None
        weighted = result.get("weighted")
        value = weighted if isinstance(weighted, (int, float)) else result.get("value")
        return float(value) if isinstance(value, (int, float)) else None

    def distance(self, human: int | str, result: Mapping[str, Any]) -> float | None:
        """How far ``human`` is from the judge's answer, 0 (same) to 1 (opposite ends); None
        when the judge left the row unscored or the label is off the scale."""
        judged = self.judge_label(result)
        if judged is None:
            return None
        if self.kind == "pairwise":
            pair = {str(human).upper(), str(judged).upper()}
            return 0.0 if len(pair) == 1 else 0.5 if "TIE" in pair else 1.0
        if self.kind == "labels":
            at = [str(v) for v in self.values]
            if str(human) not in at or str(judged) not in at or len(at) < 2:
                return None
            return abs(at.index(str(human)) - at.index(str(judged))) / (len(at) - 1)
        lo, hi = float(min(self.values)), float(max(self.values))  # type: ignore[type-var]
        if not isinstance(human, int) or hi <= lo or not isinstance(judged, float):
            return None
        return round(min(abs(human - judged) / (hi - lo), 1.0), 4)


def _scale_of(name: str, agg: Mapping[str, Any], records: Sequence[Mapping[str, Any]]
              ) -> RatingScale | None:
    if "choices" in agg or "candidate_win_rate" in agg:
        return RatingScale(name, "pairwise", list(PAIRWISE_CHOICES))
    labels = agg.get("labels")
    if isinstance(labels, Mapping) and labels:
        keys = [str(k) for k in labels]
        values: list[int | str] = ([int(k) for k in keys] if all(k.lstrip("-").isdigit()
                                                                 for k in keys) else list(keys))
        return RatingScale(name, "labels", values)
    details = [r[name].get("details") for r in records
               if isinstance(r.get(name), Mapping) and isinstance(r[name].get("details"), Mapping)]
    if any("choice" in d for d in details):
        return RatingScale(name, "pairwise", list(PAIRWISE_CHOICES))
    try:
        metric = get_metric(name)
    except AssayError:
        return None
    if metric.uses_judge and tuple(metric.value_range) == (1.0, 5.0):
        return RatingScale(name, "rating", [1, 2, 3, 4, 5])
    return None


def rating_scales(info: RunInfo, records: Sequence[Mapping[str, Any]]) -> dict[str, RatingScale]:
    """The rateable metrics of a stored run, by name in the run's metric order: read from the
    run's aggregates (pairwise win rates, a custom scale's label counts), else from the rows'
    details, else from the metric registry (a 1-5 judge metric). ``records`` may be a sample
    (e.g. the row on the page) when the run has a summary."""
    summary = info.summary or {}
    aggs = summary.get("metrics") if isinstance(summary.get("metrics"), Mapping) else {}
    found: dict[str, RatingScale] = {}
    for name in metric_names(summary, records):
        agg = (aggs or {}).get(name)
        scale = _scale_of(name, agg if isinstance(agg, Mapping) else {}, records)
        if scale is not None:
            found[name] = scale
    return found


def disagreement(labels: Iterable[Label], record: Mapping[str, Any],
                 scales: Mapping[str, RatingScale]) -> float | None:
    """The largest distance between a person's label and the judge's answer on one row (see
    ``RatingScale.distance``); None when no label can be compared.

    Example:
        >>> from assay.store import Label
        >>> lab = Label("r", "q1", "coherence", "ann", 1, None, "")
        >>> disagreement([lab], {"coherence": {"value": 5.0}},
        ...              {"coherence": RatingScale("coherence", "rating", [1, 2, 3, 4, 5])})
        1.0
    """
    found = [scales[lb.metric].distance(lb.value, record[lb.metric]) for lb in labels
             if lb.metric in scales and isinstance(record.get(lb.metric), Mapping)]
    known = [d for d in found if d is not None]
    return max(known) if known else None


def queue_order(records: Sequence[Mapping[str, Any]], labels: Iterable[Label],
                scales: Mapping[str, RatingScale]) -> list[tuple[str, float | None]]:
    """``(row id, disagreement)`` of every row, disagreements first: rows whose labels differ
    most from the judge first, then labelled rows that agree, then the rest in run order.

    Example:
        >>> from assay.store import Label
        >>> s = {"m": RatingScale("m", "rating", [1, 2, 3, 4, 5])}
        >>> recs = [{"id": i, "m": {"value": 3.0}} for i in ("a", "b", "c")]
        >>> queue_order(recs, [Label("r", "b", "m", "x", 3, None, ""),
        ...                    Label("r", "c", "m", "x", 5, None, "")], s)
        [('c', 0.5), ('b', 0.0), ('a', None)]
    """
    by_row: dict[str, list[Label]] = {}
    for label in labels:
        by_row.setdefault(label.row_id, []).append(label)
    scored = [(str(r.get("id")), disagreement(by_row.get(str(r.get("id")), []), r, scales))
              for r in records]
    return sorted(scored, key=lambda pair: 0.0 if pair[1] is None else -(pair[1] + 1.0))
