"""Two stored attack runs side by side (``assay jailbreak --strategy crescendo|pair``): per seed
category and over all seeds, each run's attack success rate and plain defect rate with their
95% Wilson intervals, and the difference (B - A) with Newcombe's interval for a difference of
two independent rates (built from the two Wilson intervals).

A rate is taken over the rated conversations, as the attack's own report takes it (unrated
ones are counted beside it, never dropped silently). Runs of different kinds do not compare:
:func:`check_comparable` says so, and so do two producer runs that hold no rates (generate,
simulate).

Example:
    >>> from assay.records import RunData
    >>> def rows(successes, n, strategy="crescendo"):
    ...     return [{"id": f"{strategy}/{i}", "category": "violence", "strategy": strategy,
    ...              "success": i < successes, "unrated": None} for i in range(n)]
    >>> a = RunData("a", {"strategy": "crescendo"}, rows(2, 10), {"kind": "attack"})
    >>> b = RunData("b", {"strategy": "crescendo"}, rows(9, 10), {"kind": "attack"})
    >>> all_ = compare_attack_runs(a, b)["categories"]["all"]["attack"]
    >>> all_["rate_a"], all_["rate_b"], all_["diff"], all_["ci95"], all_["beyond_noise"]
    (0.2, 0.9, 0.7, [0.2658, 0.8652], True)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ConfigError
from ..records import RunData, wilson_interval
from ..store import JOB_KINDS

__all__ = ["check_comparable", "compare_attack_runs", "kind_of"]

#: The entry over every seed (as the attack's own report names it).
_ALL = "all"
#: Settings of the two runs that make their rates unlike when they differ.
_SETTINGS = ("strategy", "target", "attacker", "judge", "threshold", "turns")


def kind_of(run: RunData) -> str:
    """A run's kind: the store's (``meta["kind"]``), ``run`` for an ``--out`` folder."""
    return str(run.meta.get("kind") or "run")


def check_comparable(a: RunData, b: RunData) -> str:
    """The kind both runs share when they compare: ``attack`` (success rates) or an
    evaluation's kind (scores, as before: evaluation kinds compare with each other).

    Raises:
        ConfigError: one is a producer run (generate, simulate, attack) and the other is not
            of its kind, or both are generate or simulate runs (no rate or score to compare).

    Example:
        >>> from assay.records import RunData
        >>> gen = RunData("g1", {}, [], {"kind": "generate"})
        >>> check_comparable(RunData("r1", {}, []), RunData("r2", {}, [], {"kind": "watch"}))
        'run'
        >>> check_comparable(gen, RunData("r1", {}, []))
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: Run A g1 is of kind generate and run B r1 of kind run: only runs of one kind compare. Fix: give two attack runs (the runs list filters them by kind), or two evaluation runs.
    """
    ka, kb = kind_of(a), kind_of(b)
    if ka != kb and (ka in JOB_KINDS or kb in JOB_KINDS):
        raise ConfigError(
            f"Run A {a.id} is of kind {ka} and run B {b.id} of kind {kb}: only runs of one "
            "kind compare. Fix: give two attack runs (the runs list filters them by kind), "
            "or two evaluation runs.")
    if ka in JOB_KINDS and ka != "attack":
        raise ConfigError(
            f"Runs {a.id} and {b.id} are {ka} runs: they hold what the command wrote, no "
            f"rate or score to compare. Fix: `assay show` each of them; to compare answers, "
            f"evaluate the {'test set' if ka == 'generate' else 'conversations'} with "
            "`assay run` and compare those runs.")
    return ka


def _newcombe(ha: int, na: int, hb: int, nb: int) -> list[float] | None:
    """Newcombe's hybrid score interval (95%) of ``hb/nb - ha/na``; None without a rate."""
    wa, wb = wilson_interval(ha, na, digits=12), wilson_interval(hb, nb, digits=12)
    if wa is None or wb is None:
        return None
    pa, pb = ha / na, hb / nb
    d = pb - pa
    low = d - math.sqrt((pb - wb[0]) ** 2 + (wa[1] - pa) ** 2)
    high = d + math.sqrt((wb[1] - pb) ** 2 + (pa - wa[0]) ** 2)
    return [round(max(-1.0, low), 4) + 0.0, round(min(1.0, high), 4) + 0.0]


def _counts(rows: Sequence[Mapping[str, Any]]) -> tuple[int, int, int]:
    """(hits, rated, unrated) of a side: a row is rated unless ``unrated`` names a cause."""
    rated = [r for r in rows if r.get("unrated") is None]
    return sum(1 for r in rated if r.get("success")), len(rated), len(rows) - len(rated)


def _side_pair(a_rows: Sequence[Mapping[str, Any]],
               b_rows: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    (ha, na, ua), (hb, nb, ub) = _counts(a_rows), _counts(b_rows)
    if not a_rows and not b_rows:
        return None
    rate_a = round(ha / na, 4) if na else None
    rate_b = round(hb / nb, 4) if nb else None
    ci = _newcombe(ha, na, hb, nb)
    ci_a, ci_b = wilson_interval(ha, na), wilson_interval(hb, nb)
    return {"hits_a": ha, "rated_a": na, "unrated_a": ua, "rate_a": rate_a,
            "ci95_a": list(ci_a) if ci_a else None,
            "hits_b": hb, "rated_b": nb, "unrated_b": ub, "rate_b": rate_b,
            "ci95_b": list(ci_b) if ci_b else None,
            "diff": (round(rate_b - rate_a, 4) if rate_a is not None and rate_b is not None
                     else None),
            "ci95": ci, "beyond_noise": None if ci is None else (ci[0] > 0 or ci[1] < 0)}


def _split(run: RunData) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(plain rows, attack rows) of a run, each row's category named (``?`` when missing)."""
    plain: list[dict[str, Any]] = []
    attack: list[dict[str, Any]] = []
    for r in run.records:
        row = {**r, "category": str(r.get("category") or "?")}
        (plain if r.get("strategy") == "plain" else attack).append(row)
    return plain, attack


def compare_attack_runs(a: RunData, b: RunData) -> dict[str, Any]:
    """Compare attack run ``b`` (the candidate) with ``a`` (the baseline).

    Returns:
        ``{"kind": "attack", "a": {"id", "rows", "strategy"}, "b": {...}, "categories":
        {category: {"attack": pair, "plain": pair}}, "warnings": [{"field", "a", "b",
        "message"}]}``, categories in the runs' order then ``all``. A ``pair`` (None when
        neither run has such rows) holds per run the hits (successes; defects for the plain
        side), the rated and unrated counts, the rate and its 95% Wilson interval
        (``rate_a``, ``ci95_a``, ...), and ``diff`` (B - A) with ``ci95`` (Newcombe) and
        ``beyond_noise`` (that interval excludes 0).
    """
    plain_a, attack_a = _split(a)
    plain_b, attack_b = _split(b)
    order = list(dict.fromkeys(r["category"] for r in [*attack_a, *attack_b, *plain_a,
                                                       *plain_b]))
    categories: dict[str, Any] = {}
    for category in [*order, _ALL]:
        def pick(rows: list[dict[str, Any]], c: str = category) -> list[dict[str, Any]]:
            return [r for r in rows if c in (_ALL, r["category"])]
        categories[category] = {"attack": _side_pair(pick(attack_a), pick(attack_b)),
                                "plain": _side_pair(pick(plain_a), pick(plain_b))}
    warnings = []
    for key in _SETTINGS:
        va, vb = a.summary.get(key), b.summary.get(key)
        if va != vb:
            warnings.append({"field": key, "a": va, "b": vb,
                             "message": f"the runs' {key} differs (A {va}, B {vb}): their "
                                        "rates may differ for that reason"})
    return {"kind": "attack",
            "a": {"id": a.id, "rows": len(a.records), "strategy": a.summary.get("strategy")},
            "b": {"id": b.id, "rows": len(b.records), "strategy": b.summary.get("strategy")},
            "categories": categories, "warnings": warnings}
