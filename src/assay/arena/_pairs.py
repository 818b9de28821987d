"""The arena's comparisons as rows of a run, and read back from its records.

Each pair of systems that both answered a row becomes one row of the arena's run: the row's
question (and context, when it has one) with one system's answer as ``answer`` and the
other's as ``baseline_model_response``, which the pairwise metric judges in both orders. Which
system sits in which field is drawn per row and pair from a seeded coin, so that nothing the
metric does with the two fields favours the system named first. The row's id names the test
row and the two systems (``q1 | v2 vs v1``); :class:`Pair` keeps them by that id.

Example:
    >>> from assay.data import Row
    >>> from assay.arena._systems import Field, System
    >>> q = lambda a: {"q1": Row(id="q1", line=1, question="2+2?", answer=a)}
    >>> field = Field([System("v1", "v1.jsonl", q("4")), System("v2", "v2.jsonl", q("5"))],
    ...               ["q1"], {})
    >>> pairs = pair_rows(field)
    >>> [(r["id"], r["answer"], r["baseline_model_response"]) for r in pairs.values()]
    [('q1 | v2 vs v1', '5', '4')]
    >>> comparison_of({"id": "q1 | v2 vs v1", "preference": {"value": 0.0}}, "preference")
    Comparison(row_id='q1', a='v2', b='v1', outcome=0.0, length=0.0)
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from typing import Any

from ._ratings import Comparison
from ._systems import Field

__all__ = ["comparison_of", "length_gap", "pair_id", "pair_rows", "split_pair_id"]


def pair_id(row_id: str, answer: str, baseline: str) -> str:
    """The arena run's row id for a test row and the systems in ``answer`` and
    ``baseline_model_response``."""
    return f"{row_id} | {answer} vs {baseline}"


def split_pair_id(pair: str) -> tuple[str, str, str]:
    """``(row id, answer's system, baseline's system)`` of a :func:`pair_id`; system names
    hold no " vs " or " | " (see :func:`~assay.arena._systems.read_systems`).

    Example:
        >>> split_pair_id("q 7 | v2 vs v1")
        ('q 7', 'v2', 'v1')
    """
    row_id, _, systems = pair.rpartition(" | ")
    answer, _, baseline = systems.partition(" vs ")
    return row_id, answer, baseline


def pair_rows(field: Field, *, seed: int = 0) -> dict[str, dict[str, Any]]:
    """One record per test row and pair of systems that both answered it, row by row, by
    its id."""
    coin = random.Random(seed)
    out: dict[str, dict[str, Any]] = {}
    for row_id in field.row_ids:
        present = [s for s in field.systems if row_id in s.rows]
        for first, second in itertools.combinations(present, 2):
            answer, baseline = (first, second) if coin.random() < 0.5 else (second, first)
            row = answer.rows[row_id]
            pair = pair_id(row_id, answer.name, baseline.name)
            out[pair] = {"id": pair, "question": row.question, "answer": row.answer,
                         "baseline_model_response": baseline.rows[row_id].answer}
            if row.context:
                out[pair]["context"] = row.context
    return out


def length_gap(pair: Mapping[str, Any]) -> float:
    """A pair row's normalised answer-length difference, ``answer`` minus
    ``baseline_model_response`` over their sum (0 for two empty answers).

    Example:
        >>> length_gap({"answer": "abc", "baseline_model_response": "a"})
        0.5
    """
    a, b = len(pair.get("answer") or ""), len(pair.get("baseline_model_response") or "")
    return (a - b) / (a + b) if a + b else 0.0


def comparison_of(record: Mapping[str, Any], metric: str,
                  pairs: Mapping[str, Mapping[str, Any]] | None = None) -> Comparison:
    """The judged pair a record of the arena's run holds: ``a`` the system in ``answer``,
    ``outcome`` the metric's value (1 ``a`` won, 0 it lost, 0.5 a tie; ``None`` unscored: no
    outcome is made up); with the arena's ``pairs`` (by id), the answers' length gap."""
    row_id, answer, baseline = split_pair_id(str(record["id"]))
    value = (record.get(metric) or {}).get("value")
    pair = (pairs or {}).get(str(record["id"]))
    return Comparison(row_id, answer, baseline, None if value is None else float(value),
                      length_gap(pair) if pair is not None else 0.0)
