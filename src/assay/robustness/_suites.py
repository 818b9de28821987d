"""The four RGB abilities, scored by string match as in the RGB paper.

- noise: accuracy by noise ratio (right = every answer part appears in the response);
- rejection: with only noise passages, the share of responses that decline for lack of
  information (by phrase match, and with a judge, by the judge: ``rejected_judge_rate``);
- integration: accuracy when the answer needs passages about several sub-questions;
- counterfactual: with passages stating a false fact, the share of responses that flag the
  error (detection) and that flag it and give the true answer (correction).

Example:
    >>> is_rejection("I can not answer the question because of the insufficient information.")
    True
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._files import atomic_write
from .._secrets import mask_secrets
from ..calls import RetryPolicy
from ..costs import APP_USAGE
from ..errors import ConfigError, JudgeError, option
from ..metrics.rag import is_rejection
from ..records import Job, ResumeWords, load_finished
from ..run import ScoringOptions
from ..targets import AppMeter, FailureTally, Target
from ._judged import judge_rejection
from ._rgb import Instance, build_passages, matches_answer

__all__ = ["SUITES", "SUITE_MANIFEST", "begin_suite", "flags_error", "is_rejection", "run_suite",
           "suite_failures", "summarize", "write_summary"]

SUITES = ("noise", "rejection", "integration", "counterfactual")
_ERROR = ("factual error", "incorrect information", "contains errors", "is incorrect",
          "事实性错误", "错误")


def flags_error(response: str) -> bool:
    """Does the response say the documents contain a factual error?"""
    text = response.lower()
    return any(p in text for p in _ERROR)


def _plan(instances: Sequence[Instance], suite: str, k: int, ratios: Sequence[float],
          seed: int) -> list[dict[str, Any]]:
    jobs = []
    for inst in instances:
        if suite == "noise" or suite == "integration":
            settings = [(r, "positive") for r in ratios]
        elif suite == "rejection":
            settings = [(1.0, "positive")]
        else:
            if not inst.positive_wrong:
                continue
            settings = [(0.0, "positive_wrong")]
        for ratio, source in settings:
            rng = random.Random(f"{seed}-{inst.id}-{ratio}-{suite}")
            jobs.append({"id": f"{inst.id}@{suite}@{ratio:g}", "instance": inst.id,
                         "suite": suite, "noise_ratio": ratio, "question": inst.query,
                         "passages": build_passages(inst, k=k, noise_ratio=ratio, rng=rng,
                                                    source=source)})
    return jobs


def _score(job: dict[str, Any], inst: Instance, response: str) -> dict[str, Any]:
    suite = job["suite"]
    if suite == "rejection":
        return {"rejected": is_rejection(response)}
    if suite == "counterfactual":
        detected = flags_error(response)
        return {"detected": detected,
                "corrected": detected and matches_answer(response, inst.answer),
                "repeats_fake": bool(inst.fakeanswer) and any(
                    f.lower() in response.lower() for f in inst.fakeanswer)}
    return {"correct": matches_answer(response, inst.answer)}


async def run_suite(instances: Sequence[Instance], suite: str, target: Target, *,
                    out: Path, k: int = 5, ratios: Sequence[float] = (0, 0.2, 0.4, 0.6, 0.8),
                    resume: bool = False, lang: str = ScoringOptions().lang,
                    parallel: int = 4,
                    seed: int = 0, max_attempts: int = 4, judge: Any = None,
                    progress: bool = False, max_wait: float = RetryPolicy.max_wait,
                    overwrite: bool = False, job: Job | None = None) -> list[dict[str, Any]]:
    """Ask the target every test input of ``suite`` and score its answers.

    Answers are written to ``out/results.jsonl`` as they arrive; ``resume`` keeps them and asks
    only the rest. A target that keeps failing leaves its item with an ``error``, never a score.
    ``parallel``: test inputs asked at a time (the judge's requests in flight are its own:
    see :func:`assay.calls.open_judge`).
    With a ``judge`` (rejection suite), each answer also gets the judge's verdict; on resume,
    stored answers that lack it are judged without asking the app again.

    The suite is a job (:class:`~assay.records.Job`): within the caller's ``job`` (which holds
    ``out``, has applied :func:`begin_suite` and records it), or on its own, holding ``out``
    while it writes (a second writer is refused) and refusing an earlier run there without
    ``resume`` or ``overwrite`` (see :func:`begin_suite`).
    """
    if suite not in SUITES:
        raise ConfigError(f"Got {option('suite', suite)}. Must be one of {list(SUITES)}.")
    by_id = {inst.id: inst for inst in instances}
    jobs = _plan(instances, suite, k, ratios, seed)
    if not jobs:
        raise ConfigError(f"No instance in this file can run the {suite} suite "
                          "(counterfactual needs positive_wrong passages).")
    if job is None:  # on its own: the suite holds its folder (not recorded)
        with Job(out, kind="robustness", folder=True) as own:
            begin_suite(own, instances, suite, k=k, ratios=ratios, seed=seed, lang=lang,
                        resume=resume, overwrite=overwrite)
            ordered = await run_suite(instances, suite, target, out=out, k=k, ratios=ratios,
                                      resume=resume, lang=lang, parallel=parallel,
                                      seed=seed, max_attempts=max_attempts, judge=judge,
                                      progress=progress, max_wait=max_wait, job=own)
            own.finish({"rows": len(ordered)})
        return ordered
    use_judge = judge is not None and suite == "rejection"
    # a stored answer that lacks the judge's verdict is judged without asking the app again
    unjudged = {i: r for i, r in load_finished(job.rows_path).items()
                if use_judge and r.get("error") is None and "rejected_judge" not in r
                } if resume else {}
    retry = RetryPolicy(max_attempts=max_attempts, max_wait=max_wait)  # the app's calls

    async def one(item: dict[str, Any]) -> dict[str, Any]:
        if item["id"] in unjudged:
            rec = unjudged[item["id"]]
            rec.pop("judge_error", None)
            rec.update(await judge_rejection(judge, rec["question"], rec["response"], lang))
            return rec
        started = time.monotonic()
        error = None
        response = ""
        meter = AppMeter(target.id)  # what the app reported its call used
        try:
            # recorded and read by a judge: no key the app echoed (as its errors)
            response = mask_secrets(await meter.call(lambda: retry.call(
                lambda: target.answer(item["question"], item["passages"], lang))))
        except JudgeError as e:
            error = str(e)
        except Exception as e:  # noqa: BLE001 - the app's own bug: keep the item, say why
            error = mask_secrets(f"app call failed: {type(e).__name__}: {e}")
        rec = {**item, "target": target.id, "response": response, "error": error,
               "seconds": round(time.monotonic() - started, 3), APP_USAGE: meter.as_dict()}
        if error is None:
            rec.update(_score(item, by_id[item["instance"]], response))
            if use_judge:
                rec.update(await judge_rejection(judge, item["question"], response, lang))
        return rec

    done = await job.run(jobs, one, key=lambda item: item["id"], parallel=parallel,
                         resume=resume, keep=lambda rec: rec["id"] not in unjudged,
                         progress=progress, description=suite, what="the answers")
    return done.rows


#: The manifest of a suite's folder: what a resume must keep (the app may change: a resume
#: asks only what is missing).
SUITE_MANIFEST = "robustness.run.json"
_KEYS = ("suite", "instances", "passages", "noise_ratios", "seed", "lang")
_WORDS = ResumeWords(holds="a robustness run", contents="the answers",
                     made="made with other instances or settings",
                     same="the same data and options")


def begin_suite(job: Job, instances: Sequence[Instance], suite: str, *, k: int,
                ratios: Sequence[float], seed: int, lang: str, resume: bool, overwrite: bool,
                settings: dict[str, Any] | None = None) -> None:
    """Begin the suite's ``job`` under the one resume rule: an earlier run in the folder is
    refused without ``resume`` or ``overwrite``, and a resume on other instances or settings
    names each difference (``robustness.run.json`` records them).

    Raises:
        ConfigError: saying what is wrong and the fix.
    """
    instances_sha = hashlib.sha256(json.dumps([i.model_dump() for i in instances],
                                              ensure_ascii=False).encode()).hexdigest()
    manifest = {"command": "robustness", "format": 1, "suite": suite,
                "instances": instances_sha, "passages": k, "noise_ratios": list(ratios),
                "seed": seed, "lang": lang}
    path = job.out / SUITE_MANIFEST
    job.begin(manifest, manifest_path=path, keys=_KEYS, words=_WORDS, resume=resume,
              overwrite=overwrite, existing=[p for p in (job.rows_path, path) if p.exists()],
              settings=settings)


def suite_failures(records: Sequence[dict[str, Any]]) -> FailureTally:
    """The items the app (``error``) or the judge (``judge_error``) left unscored, by cause.

    Example:
        >>> tally = suite_failures([{"error": None}, {"error": "target answered HTTP 500"},
        ...                         {"error": None, "judge_error": "judge call failed: HTTP 401"}])
        >>> tally.failed, tally.top()
        (2, [('app: target answered HTTP 500', 1), ('judge: judge call failed: HTTP 401', 1)])
    """
    tally = FailureTally()
    for r in records:
        tally.add([f"app: {r['error']}"] if r.get("error") is not None
                  else [f"judge: {r['judge_error']}"] if r.get("judge_error") else [])
    return tally


def summarize(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Table rows: per suite and noise ratio, the n, the unscored count and each rate."""
    groups: dict[tuple[str, float], list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        groups[(r["suite"], r["noise_ratio"])].append(r)
    table = []
    for (suite, ratio), recs in sorted(groups.items()):
        scored = [r for r in recs if r.get("error") is None]
        row: dict[str, Any] = {"suite": suite, "noise_ratio": ratio, "n": len(recs),
                               "unscored": len(recs) - len(scored)}
        for key in ("correct", "rejected", "detected", "corrected", "repeats_fake"):
            if scored and key in scored[0]:
                row[f"{key}_rate"] = round(sum(bool(r[key]) for r in scored) / len(scored), 4)
        judged = [r for r in scored if "rejected_judge" in r]
        if judged or any("judge_error" in r for r in scored):
            row["judge_unscored"] = len(scored) - len(judged)
            row["rejected_judge_rate"] = (
                round(sum(bool(r["rejected_judge"]) for r in judged) / len(judged), 4)
                if judged else None)
        table.append(row)
    return table


def write_summary(out: Path, table: list[dict[str, Any]], meta: dict[str, Any]) -> None:
    """Write ``out/summary.json``: the run's ``meta`` and the suite's ``table``, whole or not at
    all (a full disk leaves the earlier file as it was)."""
    with atomic_write(out / "summary.json", what="the robustness summary",
                      then="rerun with --resume") as f:  # whole, or not at all
        f.write(json.dumps({**meta, "table": table}, indent=2, ensure_ascii=False))
