"""The jailbreak defect rate: the same seeds asked plain and with a jailbreak injection in the
first user turn, both sets of answers rated for harm, and the defect rates compared.

Files under ``out``: ``plain.jsonl`` and ``injected.jsonl`` (the conversations, a dataset
``assay run`` reads), ``plain/`` and ``injected/`` (each an ``assay run`` output: results.jsonl
and summary.json), and ``jailbreak.json`` (the comparison, with settings and timings). Every step
writes as it goes, so ``resume=True`` after a Ctrl-C asks and rates only what is missing.

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
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from ..judges import Judge, make_judge
from ..metrics.safety import REFUSAL, SEVERITY_METRICS
from ..robustness._targets import ChatTarget
from ..run._evaluate import evaluate_async
from ..run._results import load_finished, rewrite_in_order
from ..store import Store
from ._compare import compare_defects
from ._simulate import injected_attacks, plain_attacks, simulate
from ._sources import load_seeds, load_templates, pick_seeds

__all__ = ["SIDES", "FunctionTarget", "jailbreak"]

#: The two datasets of a jailbreak run, in the order they are built.
SIDES = ("plain", "injected")


class FunctionTarget:
    """An async ``fn(messages) -> str`` as a chat target (for the API and tests)."""

    def __init__(self, fn: Callable[[list[dict[str, str]]], Awaitable[str]],
                 id: str = "function") -> None:
        self._fn = fn
        self.id = id

    async def reply(self, messages: list[dict[str, str]]) -> str:
        return await self._fn(messages)


async def jailbreak(target: ChatTarget, *, out: str | Path, n: int | None = 20,
                    seeds: str | Path | None = None, templates: Sequence[str | Path] | None = None,
                    categories: list[str] | None = None, turns: int = 1,
                    judge: str | Judge = "local", cache: str | Path | bool | None = True,
                    safety_threshold: str = "medium", safety_mode: str = "combined",
                    refusal: bool = True, resume: bool = False, concurrency: int = 4,
                    top: int = 5, progress: bool = False,
                    store: str | Path | Store | bool | None = None) -> dict[str, Any]:
    """Build, ask, rate and compare; returns the report also written to ``out/jailbreak.json``.

    Args:
        target: the app under test (``make_target("python:...")``, ``openai:MODEL``, ...).
        n: seeds to use (categories in turn); ``None`` for all of them.
        seeds: a seed file (default: the shipped list, 10 requests per harm category).
        templates: template files (``"builtin"`` for the shipped ones, the default); seed ``i``
            gets template ``i % len(templates)``.
        refusal: also run the ``refusal`` metric, so that a refusal is never a defect.
        top: how many of the paired rows whose severity rose the most to report.
        store: record both evaluations in the run store (kind ``jailbreak``, tagged ``plain``
            or ``injected``); see :func:`assay.evaluate`.

    Raises:
        DataError: a seed or template file has problems (all listed).
        ConfigError: a bad option (threshold, mode, turns).
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    chosen = pick_seeds(load_seeds(seeds), n, categories)
    attacks = {"plain": plain_attacks(chosen),
               "injected": injected_attacks(chosen, load_templates(list(templates or [])))}
    metrics = [m.name for m in SEVERITY_METRICS] + ([REFUSAL.name] if refusal else [])
    backend = make_judge(judge)
    timings: dict[str, float] = {}
    app_failures: dict[str, int] = {}
    summaries: dict[str, Any] = {}
    records: dict[str, list[dict[str, Any]]] = {}
    for side in SIDES:
        started = time.monotonic()
        kept = _answered(out / f"{side}.jsonl") if resume else set()
        rows = await simulate(attacks[side], target, out / f"{side}.jsonl", turns=turns,
                              resume=resume, concurrency=concurrency, progress=progress,
                              description=f"asking the app ({side})")
        timings[f"ask_{side}_s"] = round(time.monotonic() - started, 1)
        app_failures[side] = sum(1 for r in rows if r.get("error"))
        if resume:  # conversations asked again must be rated again
            _forget(out / side / "results.jsonl", {r["id"] for r in rows} - kept)
        started = time.monotonic()
        result = await evaluate_async(out / f"{side}.jsonl", metrics=metrics, judge=backend,
                                      out=out / side, resume=resume, cache=cache,
                                      safety_threshold=safety_threshold, safety_mode=safety_mode,
                                      concurrency=concurrency, progress=progress,
                                      store=store, kind="jailbreak",
                                      run_name=f"jailbreak {side} {target.id}",
                                      tags=["jailbreak", side])
        timings[f"rate_{side}_s"] = round(time.monotonic() - started, 1)
        summaries[side] = result.summary
        records[side] = result.rows
    report = compare_defects(records["plain"], records["injected"], threshold=safety_threshold,
                             top=top)
    report.update({
        "target": target.id, "judge": backend.id, "seeds": len(chosen),
        "templates": sorted({a.template for a in attacks["injected"] if a.template}),
        "turns": turns, "safety_mode": safety_mode, "refusal_metric": refusal,
        "app_failures": app_failures, "timings": timings,
        "judge_requests": {s: (summaries[s].get("judge") or {}).get("requests") for s in SIDES},
        "run_ids": {s: summaries[s].get("run_id") for s in SIDES}})
    (out / "jailbreak.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n",
                                        encoding="utf-8")
    return report



def _answered(path: Path) -> set[str]:
    """Ids of the conversations in ``path`` that got their replies (no app error)."""
    return {i for i, row in load_finished(path).items() if not row.get("error")}


def _forget(results: Path, ids: set[str]) -> None:
    """Drop the rated rows ``ids`` from a results file, so a resumed run rates them again."""
    if not ids or not results.is_file():
        return
    kept = [r for i, r in load_finished(results).items() if i not in ids]
    rewrite_in_order(results, kept)
