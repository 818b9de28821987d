"""A run's labelled rows as a rated dataset: each row's stored input fields plus, per labelled
metric, ``{metric}/human_rating`` (a rating or a label of a custom scale) or
``{metric}/human_pairwise_choice`` (BASELINE, CANDIDATE or TIE), the columns that
``assay calibrate`` (and ``assay align``) read.

Several raters on one (row, metric): without ``rater``, their labels are combined: whole-number
ratings by their median (the lower middle one for an even count, so it stays on the scale),
texts (labels, pairwise choices) by majority; a text label without a majority, or numbers mixed
with texts, is left out and counted in ``RatedRows.split``. With ``rater``, only that rater's
labels are used. A single rater's comment goes in ``{metric}/human_comment``.

Example:
    >>> from assay.store import open_store
    >>> with open_store(":memory:") as store:
    ...     rid = store.create_run()
    ...     store.add_rows(rid, [{"id": "q1"}, {"id": "q2"}],
    ...                    inputs={"q1": {"question": "Q?", "answer": "A.", "extra": {"t": 1}}})
    ...     for who, v in (("ann", 2), ("bob", 4), ("cy", 5)):
    ...         _ = store.save_label(rid, "q1", "coherence", rater=who, value=v)
    ...     rated = rated_rows(store, rid)
    >>> rated.rows
    [{'t': 1, 'question': 'Q?', 'answer': 'A.', 'id': 'q1', 'coherence/human_rating': 4}]
    >>> rated.combined, rated.raters
    (1, ['ann', 'bob', 'cy'])
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._labels import Label, LabelStore

__all__ = ["PAIRWISE_CHOICES", "RatedRows", "combine_labels", "human_column", "rated_rows"]

#: The values of a pairwise label, as ``assay calibrate`` reads them.
PAIRWISE_CHOICES = ("BASELINE", "CANDIDATE", "TIE")


@dataclass
class RatedRows:
    """What :func:`rated_rows` found: ``rows`` (dataset lines, in the run's row order),
    ``raters`` (every rater whose labels were read), ``combined`` (row-metric pairs whose labels
    came from several raters), ``split`` (``(row id, metric)`` left out: no majority) and
    ``no_inputs`` (rated row ids left out: the run stored no input fields for them)."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    raters: list[str] = field(default_factory=list)
    combined: int = 0
    split: list[tuple[str, str]] = field(default_factory=list)
    no_inputs: list[str] = field(default_factory=list)


def human_column(metric: str, value: int | str) -> str:
    """The rated-dataset column of a label of ``metric``.

    Example:
        >>> human_column("preference", "TIE"), human_column("coherence", 4)
        ('preference/human_pairwise_choice', 'coherence/human_rating')
    """
    pairwise = isinstance(value, str) and value.upper() in PAIRWISE_CHOICES
    return f"{metric}/human_pairwise_choice" if pairwise else f"{metric}/human_rating"


def combine_labels(values: Sequence[int | str]) -> int | str | None:
    """One label from several raters' ``values``: the median of whole numbers (the lower middle
    one for an even count), the majority of texts; None when texts have no majority or numbers
    are mixed with texts.

    Example:
        >>> combine_labels([2, 5]), combine_labels(["TIE", "TIE", "BASELINE"])
        (2, 'TIE')
        >>> combine_labels(["BASELINE", "CANDIDATE"]) is None
        True
    """
    if all(isinstance(v, int) for v in values):
        return int(statistics.median_low(values))
    if any(isinstance(v, int) for v in values):
        return None
    counts = Counter(values).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return None
    return counts[0][0]


def _flat(inputs: Mapping[str, Any], row_id: str) -> dict[str, Any]:
    """Stored input fields (other fields under ``extra``) as a dataset line."""
    extra = inputs.get("extra") if isinstance(inputs.get("extra"), Mapping) else {}
    return {**dict(extra or {}), **{k: v for k, v in inputs.items() if k != "extra"},
            "id": row_id}


def rated_rows(store: LabelStore, run_id: str, *, rater: str | None = None) -> RatedRows:
    """The labelled rows of run ``run_id`` (a full id) as rated dataset lines (see the module's
    docstring for several raters); ``rater`` keeps that rater's labels only."""
    labels = store.labels(run_id, rater=rater)
    by_cell: dict[str, dict[str, list[Label]]] = {}
    for label in labels:
        by_cell.setdefault(label.row_id, {}).setdefault(label.metric, []).append(label)
    found = RatedRows(raters=sorted({lb.rater for lb in labels}))
    inputs = store.inputs(run_id, list(by_cell))
    for row_id, metrics in by_cell.items():
        if row_id not in inputs:
            found.no_inputs.append(row_id)
            continue
        line = _flat(inputs[row_id], row_id)
        for metric, given in metrics.items():
            value = combine_labels([lb.value for lb in given])
            found.combined += len(given) > 1
            if value is None:
                found.split.append((row_id, metric))
                continue
            line[human_column(metric, value)] = (
                value.upper() if isinstance(value, str) and value.upper() in PAIRWISE_CHOICES
                else value)
            if len(given) == 1 and given[0].comment:
                line[f"{metric}/human_comment"] = given[0].comment
        if any(k.endswith(("/human_rating", "/human_pairwise_choice")) for k in line):
            found.rows.append(line)
    return found
