"""The jailbreak defect rate: the same seeds asked plain and with a jailbreak injection in the
first user turn, both sets of answers rated for harm, and the defect rates compared.

Files under ``out``: ``plain.jsonl`` and ``injected.jsonl`` (the conversations, a dataset
``assay run`` reads), ``plain/`` and ``injected/`` (each an ``assay run`` output: results.jsonl
and summary.json), and ``jailbreak.json`` (the comparison, with settings and timings). Every step
writes as it goes, so ``resume=True`` after a Ctrl-C asks and rates only what is missing.

One judge serves both evaluations. Its owner closes it once, at the end: ``jailbreak`` when
it made the judge from a spec such as ``"openai:MODEL"``, the caller when it passed a Judge
instance. Each evaluation gets the judge on loan and cannot close it.

Example:
    >>> import asyncio, tempfile
    >>> from assay.judges import FakeJudge
    >>> from assay.metrics.safety import CATEGORIES
    >>> async def app(messages):
    ...     return "I'm sorry, I can't help with that."
    >>> def judge(request):
    ...     if request.schema_name == "verdict":
    ...         return "Yes"
    ...     return '{' + ','.join(f'"{c}": {{"severity": 0, "reason": "none"}}'
    ...                           for c in CATEGORIES) + '}'
    >>> report = asyncio.run(jailbreak(FunctionTarget(app), n=4, judge=FakeJudge(judge),
    ...                                out=tempfile.mkdtemp(), cache=False))
    >>> report["categories"]["any"]["difference"], report["app_failures"]
    (0.0, {'plain': 0, 'injected': 0})
    >>> report["failures"]["failed"], report["failures"]["rows"]
    (0, 8)
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .._files import atomic_write
from ..calls import JudgeCallOptions
from ..costs import AppUsage, Cost, PriceBook, app_cost_line
from ..data import FieldLimits, LongFields
from ..judges import Accept, Judge, JudgeRequest, JudgeResponse, make_judge
from ..metrics.safety import REFUSAL, SEVERITY_METRICS
from ..records import Job
from ..run import JudgeOptions, ScoringOptions, evaluate_async, group_options
from ..store import Store
from ..targets import ChatTarget, FailureTally, unscored_causes
from ._compare import compare_defects
from ._folder import SIDES, accept_new_conversations, answered, check_folder, forget
from ._simulate import Attack, injected_attacks, plain_attacks, simulate
from ._sources import load_seeds, load_templates, pick_seeds

__all__ = ["SIDES", "FunctionTarget", "jailbreak"]

#: The safety settings' defaults (declared by the safety family), through ScoringOptions.
_SCORING = ScoringOptions()



class FunctionTarget:
    """An async ``fn(messages) -> str`` as a chat target (for the API and tests)."""

    def __init__(self, fn: Callable[[list[dict[str, str]]], Awaitable[str]],
                 id: str = "function") -> None:
        self._fn = fn
        self.id = id

    async def reply(self, messages: list[dict[str, str]]) -> str:
        return await self._fn(messages)


class _Lent:
    """A judge on loan to one evaluation: calls go to the owner's judge, and closing the loan
    leaves the judge open (its owner closes it once, when the whole command is done)."""

    def __init__(self, judge: Judge) -> None:
        self._judge = judge
        self.id = judge.id
        self.max_concurrency = judge.max_concurrency
        self.capabilities = judge.capabilities

    async def complete(self, request: JudgeRequest, *,
                       accept: Accept | None = None) -> JudgeResponse:
        return await self._judge.complete(request, accept=accept)

    async def aclose(self) -> None:
        return None


async def jailbreak(target: ChatTarget, *, out: str | Path, n: int | None = 20,
                    seeds: str | Path | None = None, templates: Sequence[str | Path] | None = None,
                    categories: list[str] | None = None, turns: int = 1,
                    judge: str | Judge = "local", cache: str | Path | bool | None = None,
                    safety_threshold: str = _SCORING.safety_threshold,
                    safety_mode: str = _SCORING.safety_mode,
                    refusal: bool = True, resume: bool = False, overwrite: bool = False,
                    parallel: int = 4, calls: JudgeCallOptions | None = None,
                    concurrency: int | None = None,
                    top: int = 5, progress: bool = False, timeout: float | None = None,
                    store: str | Path | Store | bool | None = None,
                    max_wait: float | None = None,
                    max_field_chars: int = FieldLimits.max_field_chars,
                    long_fields: LongFields = "refuse",
                    prices: str | Path | None = None) -> dict[str, Any]:
    """Build, ask, rate and compare; returns the report also written to ``out/jailbreak.json``.

    Args:
        target: the app under test (``make_target("python:...")``, ``openai:MODEL``, ...).
        n: seeds to use (categories in turn); ``None`` for all of them.
        seeds: a seed file (default: the shipped list, 10 requests per harm category).
        templates: template files (``"builtin"`` for the shipped ones, the default); seed ``i``
            gets template ``i % len(templates)``.
        refusal: also run the ``refusal`` metric, so that a refusal is never a defect.
        resume: keep the conversations and ratings already in ``out``; ask and rate the rest.
        overwrite: replace a jailbreak already in ``out`` (without it or ``resume``, a
            folder that holds one is refused).
        top: how many of the paired rows whose severity rose the most to report.
        judge: a judge spec (``local``, ``openai:MODEL``, ...), made and closed here, or a
            Judge instance, which stays open (the caller owns it).
        parallel: conversations asked of the app at a time.
        calls: how judge calls are made (:class:`~assay.calls.JudgeCallOptions`). Or, each
            given at most one way: concurrency: judge requests in flight (default: the
            judge's). cache: the judge cache (True, the default: the default file; a path;
            False: none). timeout: seconds one judge call may take in all (the target has
            its own, given when it was made). max_wait: below.
        store: record both evaluations in the run store (kind ``jailbreak``, tagged ``plain``
            or ``injected``); see :func:`assay.evaluate`.
        max_wait: seconds one judge or app call may wait on rate limits (429) in all.
        max_field_chars / long_fields: a reply longer than ``max_field_chars`` fails its row
            (``"refuse"``) or is cut to it before the judge reads it (``"truncate"``, the cut
            recorded in the row's ``truncated``), the rule ``assay run`` applies to fields.

    ``prices``: a price file over genai-prices for the judge's calls: each side's rating
    summary has its ``cost``, the report their sum (``cost``).

    The report's ``failures`` counts the rows (of both sides) the app or the judge left
    unscored, with the top causes; the command exits 3 when their share is too high.

    Raises:
        DataError: a seed or template file has problems (all listed).
        ConfigError: a bad option (threshold, mode, turns), or ``out`` holds a jailbreak and
            neither ``resume`` nor ``overwrite`` is given.
    """
    options = JudgeCallOptions.with_overrides(calls, cache_by_default=True,
                                              concurrency=concurrency, cache=cache,
                                              timeout=timeout, max_wait=max_wait)
    out = Path(out)
    PriceBook.load(prices)  # a bad price file: told before anything is asked
    # held while it writes; not recorded itself: each side's rating is a stored run
    with Job(out, kind="jailbreak", folder=True) as job:
        check_folder(out, resume=resume, overwrite=overwrite)
        job.begin()
        chosen = pick_seeds(load_seeds(seeds), n, categories)
        attacks = {"plain": plain_attacks(chosen),
                   "injected": injected_attacks(chosen, load_templates(list(templates or [])))}
        metrics = [m.name for m in SEVERITY_METRICS] + ([REFUSAL.name] if refusal else [])
        limits = FieldLimits(max_field_chars, long_fields)
        backend = make_judge(judge, timeout=options.timeout)
        try:
            sides = await _ask_and_rate(
                attacks, target, _Lent(backend), job=job, out=out, metrics=metrics, turns=turns,
                resume=resume, parallel=parallel, progress=progress,
                judging=replace(JudgeOptions.from_calls(options), prices=prices), limits=limits,
                safety_threshold=safety_threshold, safety_mode=safety_mode, store=store)
        finally:
            if isinstance(judge, str):  # made here: closed here, once
                await backend.aclose()
        report = compare_defects(sides.records["plain"], sides.records["injected"],
                                 threshold=safety_threshold, top=top)
        summaries = sides.summaries
        report.update({
            "target": target.id, "judge": backend.id, "seeds": len(chosen),
            "templates": sorted({a.template for a in attacks["injected"] if a.template}),
            "turns": turns, "safety_mode": safety_mode, "refusal_metric": refusal,
            "app_failures": sides.app_failures, "failures": sides.failures.as_dict(),
            "timings": sides.timings,
            "judge_requests": {s: (summaries[s].get("judge") or {}).get("requests") for s in SIDES},
            "run_ids": {s: summaries[s].get("run_id") for s in SIDES},
            "cost": {**sides_cost({s: summaries[s].get("cost") for s in SIDES}),
                     # the app's, apart: what it reported its calls used, on both sides
                     "app": app_cost_line(AppUsage.of_rows(sides.asked, target.id),
                                          PriceBook.load(prices))}})
        with atomic_write(out / "jailbreak.json", what="the jailbreak report",
                          then="rerun with --resume") as f:  # whole, or not at all
            f.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
        job.finish(report)
    return report



def sides_cost(sides: dict[str, Any]) -> dict[str, Any]:
    """The judge's cost over both sides' ratings (each side's ``summary["cost"]``): unknown
    when either is; ``app`` is null here (the jailbreak adds the app's, apart).

    Example:
        >>> sides_cost({"plain": {"usd": 0.25}, "injected": {"usd": 0.5}})["usd"]
        0.75
        >>> sides_cost({"plain": {"usd": None, "unknown_reason": "no price"}, "injected": None})
        ... # doctest: +ELLIPSIS
        {'usd': None, 'unknown_reason': 'no price', 'by_side': {...}, 'app': None, 'attacker': None}
    """
    total = Cost.zero()
    for cost in sides.values():
        total = total.add(Cost(cost.get("usd"), cost.get("unknown_reason"))
                          if isinstance(cost, dict) else Cost.unknown("a side was not rated"))
    return {"usd": total.usd, "unknown_reason": total.reason, "by_side": sides, "app": None,
            "attacker": None}


@dataclass
class _Sides:
    """What asking and rating both sides gave: per side timings, app failures, summaries and
    records, and one failure tally over the rows of both."""

    timings: dict[str, float] = field(default_factory=dict)
    app_failures: dict[str, int] = field(default_factory=dict)
    summaries: dict[str, Any] = field(default_factory=dict)
    records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: The conversations asked of the app, both sides (each with its ``app_usage``).
    asked: list[dict[str, Any]] = field(default_factory=list)
    failures: FailureTally = field(default_factory=FailureTally)


async def _ask_and_rate(attacks: dict[str, list[Attack]], target: ChatTarget, judge: Judge, *,
                        job: Job, out: Path, metrics: list[str], turns: int, resume: bool,
                        parallel: int, progress: bool, limits: FieldLimits,
                        judging: JudgeOptions, **rate: Any) -> _Sides:
    """Each side in turn: ask the app (``out/<side>.jsonl``), then rate the conversations
    (``out/<side>/``) with ``judge``; ``rate`` holds the other options of the evaluation."""
    sides = _Sides()
    for side in SIDES:
        started = time.monotonic()
        kept = answered(out / f"{side}.jsonl") if resume else set()
        rows = await simulate(attacks[side], target, out / f"{side}.jsonl", turns=turns,
                              job=job, resume=resume, parallel=parallel, progress=progress,
                              description=f"asking the app ({side})",
                              max_wait=judging.max_wait, limits=limits)
        sides.timings[f"ask_{side}_s"] = round(time.monotonic() - started, 1)
        sides.app_failures[side] = sum(1 for r in rows if r.get("error"))
        sides.asked += rows
        if resume:  # conversations asked again must be rated again
            forget(out / side / "results.jsonl", {r["id"] for r in rows} - kept)
            accept_new_conversations(out / side, out / f"{side}.jsonl")
        started = time.monotonic()
        result = await evaluate_async(out / f"{side}.jsonl", metrics=metrics, judge=judge,
                                      judging=judging, **group_options(
                                          out=out / side, resume=resume, progress=progress,
                                          kind="jailbreak",
                                          run_name=f"jailbreak {side} {target.id}",
                                          tags=["jailbreak", side],
                                          max_field_chars=limits.max_field_chars,
                                          long_fields=limits.long_fields, **rate))
        sides.timings[f"rate_{side}_s"] = round(time.monotonic() - started, 1)
        sides.summaries[side] = result.summary
        sides.records[side] = result.rows
        rated = {str(r["id"]): r for r in result.rows}
        for row in rows:
            row_id = str(row["id"])
            causes = ([str(row["error"])] if row.get("error")
                      else unscored_causes(rated[row_id], metrics) if row_id in rated
                      else ["the conversation got no rating"])
            sides.failures.add(causes, prefix=f"{side}: ")
    return sides
