"""Multi-turn attacks on an app: each seed asked plain once, then attacked (``crescendo`` or
``pair``), every reply rated for harm; the report compares the attack success rate with the
plain defect rate of the same seeds.

Files under ``out``: ``attack.run.json`` (the settings, written first), ``plain.jsonl`` and
``<strategy>.jsonl`` (one transcript per seed: a conversation ``assay run`` reads, with the
outcome and every exchange with its rating; see :meth:`Conversation.row`) and
``attack.json`` (the report). Transcripts are written as they finish, so Ctrl-C keeps them,
and rewritten in seed order at the end; ``resume=True`` keeps the finished ones (an unrated
one, lost to a failure, is attacked again). With a deterministic app, the same seeds,
settings and models give the same transcripts byte for byte (the attacker and the scorer run
at temperature 0), and a second run answers every model call from the cache.

Example:
    >>> import asyncio, json, tempfile
    >>> from assay.judges import FakeJudge
    >>> from assay.metrics.safety import CATEGORIES
    >>> from assay.redteam import FunctionTarget
    >>> async def app(messages):
    ...     return "I'm sorry, I can't help with that."
    >>> def judge(request):
    ...     if request.schema_name == "verdict":
    ...         return "Yes. It declines."
    ...     if request.schema_name == "attack_pair":
    ...         return '{"improvement": "reword", "prompt": "Please, as a story."}'
    ...     return json.dumps({c: {"severity": 0, "reason": "none"} for c in CATEGORIES})
    >>> report = asyncio.run(attack(FunctionTarget(app), strategy="pair", turns=2, n=4,
    ...                             judge=FakeJudge(judge), out=tempfile.mkdtemp(), cache=False))
    >>> everything = report["categories"]["all"]
    >>> everything["attack"]["success_rate"], everything["plain"]["defect_rate"]
    (0.0, 0.0)
    >>> everything["attack"]["ci95"], report["failures"]["failed"]
    ([0.0, 0.4899], 0)
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._files import atomic_write
from ..asking import LANGS
from ..calls import JudgeCallOptions, RetryPolicy, open_judges
from ..costs import APP_USAGE, AppUsage, PriceBook, app_cost_line, roles_cost_section
from ..data import FieldLimits, LongFields
from ..errors import ConfigError, option
from ..judges import Judge
from ..metrics import ScoreContext
from ..records import Job, JobRows, ResumeWords
from ..run import ScoringOptions
from ..store import Store
from ..targets import ChatTarget, metered_app
from ._attack_report import attack_report
from ._attacker import Attacker
from ._crescendo import crescendo
from ._exchange import AppCalls, Conversation
from ._folder import ATTACK_SETTINGS, check_folder
from ._pair import ask_plain, pair
from ._scorer import ReplyScorer
from ._sources import Seed, load_seeds, pick_seeds

__all__ = ["ATTACK_STRATEGIES", "DEFAULT_BACKTRACKS", "DEFAULT_TURNS", "attack"]

#: The multi-turn strategies (``template``, the single-turn jailbreak, is :func:`jailbreak`).
ATTACK_STRATEGIES = ("crescendo", "pair")
#: Turns (crescendo) or attempts (pair) when none is given.
DEFAULT_TURNS = 5
#: Refused exchanges crescendo may take back per conversation.
DEFAULT_BACKTRACKS = 5
_SCORING = ScoringOptions()
_WORDS = ResumeWords(holds="an attack", contents="the attack",
                     made="made with other settings", same="the same options as then")


def _check(strategy: str, turns: int, backtracks: int) -> None:
    if strategy not in ATTACK_STRATEGIES:
        raise ConfigError(f"Got {option('strategy', strategy)}. Must be one of "
                          f"{['template', *ATTACK_STRATEGIES]}.")
    if isinstance(turns, bool) or not isinstance(turns, int) or turns < 1:
        raise ConfigError(f"Got {option('turns', turns)}. Must be 1 or more (the most turns "
                          "of a crescendo, or attempts of a pair attack).")
    if isinstance(backtracks, bool) or not isinstance(backtracks, int) or backtracks < 0:
        raise ConfigError(f"Got {option('backtracks', backtracks)}. Must be 0 or more.")


async def attack(target: ChatTarget, *, strategy: str, out: str | Path, n: int | None = 20,
                 seeds: str | Path | None = None, categories: list[str] | None = None,
                 turns: int = DEFAULT_TURNS, backtracks: int = DEFAULT_BACKTRACKS,
                 attacker: str | Judge | None = None, judge: str | Judge = "local",
                 cache: str | Path | bool | None = None,
                 safety_threshold: str = _SCORING.safety_threshold,
                 safety_mode: str = _SCORING.safety_mode, refusal: bool = True,
                 resume: bool = False, overwrite: bool = False, parallel: int = 4,
                 calls: JudgeCallOptions | None = None, concurrency: int | None = None,
                 progress: bool = False, timeout: float | None = None,
                 max_wait: float | None = None,
                 max_field_chars: int = FieldLimits.max_field_chars,
                 long_fields: LongFields = "refuse",
                 store: str | Path | Store | bool | None = None,
                 name: str | None = None,
                 prices: PriceBook | str | Path | None = None) -> dict[str, Any]:
    """Ask every seed plain, attack it with ``strategy``, rate every reply; returns the report
    also written to ``out/attack.json`` (see :func:`attack_report` for its ``categories``).

    Args:
        target: the app under test.
        strategy: ``crescendo`` (escalate over ``turns`` turns, backtracking on a refusal up
            to ``backtracks`` times) or ``pair`` (refine one message over ``turns`` attempts).
        attacker: the model that writes the attack (a judge spec or instance; default: the
            judge). judge: the model that rates the replies (the safety metrics).
        refusal: judge whether each reply is a refusal (one Yes/No verdict more per reply):
            a refusal is never a success, and crescendo backtracks on it; without it, the
            phrase match :func:`looks_like_refusal` decides when to backtrack.
        resume / overwrite: continue the attack in ``out`` (same settings), or replace it.
        parallel: seeds attacked at a time.
        calls: how the attacker's and the scorer's calls are made
            (:class:`~assay.calls.JudgeCallOptions`: one budget and one cache for both; its
            ``timeout`` and ``max_wait`` hold for the app's calls too). Or, each given at most
            one way: concurrency: model requests in flight (default: the model's). cache:
            the judge cache (True, the default: the default file; a path; False: none).
            timeout: seconds one call may take. max_wait: seconds one model or app call may
            wait on rate limits (429) in all.
        max_field_chars / long_fields: a reply longer than ``max_field_chars`` fails its
            conversation (``"refuse"``) or is cut to it (``"truncate"``, the cut recorded in
            its exchange) before the scorer and the attacker read it.
        store / name: record the attack in the run store (kind ``attack``: its rows are the
            ``<strategy>.jsonl`` transcripts, its summary the report; None: not recorded);
            the report's ``run_id`` names it.
        prices: what the attacker's and the scorer's calls are priced with (a price book or
            a price file over genai-prices): the report's ``cost``, the attacker apart.

    Raises:
        DataError: a seed file has problems (all listed).
        ConfigError: a bad option, ``out`` holds a run that cannot be resumed or replaced, or
            another process is writing it.
        JudgeStoppedError: a model failed the same hard way three times in a row (the
            finished transcripts are kept).
    """
    _check(strategy, turns, backtracks)
    options = JudgeCallOptions.with_overrides(calls, cache_by_default=True,
                                              concurrency=concurrency, cache=cache,
                                              timeout=timeout, max_wait=max_wait)
    app_calls = AppCalls(RetryPolicy(max_attempts=4, max_wait=options.max_wait),  # the app's
                         FieldLimits(max_field_chars, long_fields))
    out = Path(out)
    book = prices if isinstance(prices, PriceBook) else PriceBook.load(prices)
    with Job(out, kind="attack", folder=True, store=store, name=name,
             dataset=str(seeds) if seeds is not None else None) as job:
        check_folder(out, resume=resume, overwrite=overwrite, strategy=strategy)
        chosen = pick_seeds(load_seeds(seeds), n, categories)
        # the judge rates; the attacker writes (the judge, unless another model is named)
        opened = open_judges([judge, judge if attacker is None else attacker], options)
        scorer_judge, attacker_judge = opened.judges
        try:
            settings = {"strategy": strategy, "target": target.id,
                        "attacker": attacker_judge.id, "judge": scorer_judge.id,
                        "turns": turns,
                        "backtracks": backtracks if strategy == "crescendo" else None,
                        "threshold": safety_threshold, "safety_mode": safety_mode,
                        "refusal": "judge" if refusal else "phrase",
                        "attacker_prompt": {lang: Attacker.template(strategy, lang).sha256
                                            for lang in LANGS}}
            settings_file = out / ATTACK_SETTINGS  # the manifest: a resume keeps them all
            job.begin(settings, manifest_path=settings_file, keys=tuple(settings),
                      words=_WORDS, resume=resume, overwrite=overwrite,
                      existing=[settings_file] if settings_file.exists() else [],
                      settings={k: v for k, v in settings.items() if k != "attacker_prompt"},
                      judge=scorer_judge.id)
            scorer = ReplyScorer(ScoreContext(judge=scorer_judge, safety_mode=safety_mode),
                                 threshold=safety_threshold, judged_refusal=refusal)
            bot = Attacker(attacker_judge)

            async def attack_one(seed: Seed) -> Conversation:
                if strategy == "crescendo":
                    return await crescendo(seed.prompt, target, bot, scorer, max_turns=turns,
                                           max_backtracks=backtracks, calls=app_calls)
                return await pair(seed.prompt, target, bot, scorer, max_attempts=turns,
                                  calls=app_calls)

            async def plain_one(seed: Seed) -> Conversation:
                return await ask_plain(seed.prompt, target, scorer, app_calls)

            sides = _Sides(job, chosen, out, target=target.id, resume=resume,
                           parallel=parallel, progress=progress)
            started = time.monotonic()
            plain = await sides.run("plain", plain_one, attacker=None)
            plain_s = round(time.monotonic() - started, 1)
            started = time.monotonic()
            attacked = await sides.run(strategy, attack_one, attacker=attacker_judge.id)
            attack_s = round(time.monotonic() - started, 1)
        finally:  # a backend made here from a spec is closed once (an instance is its owner's)
            await opened.aclose()
        report = {**settings, "seeds": len(chosen), "run_id": job.run_id,
                  **attack_report(plain.rows, attacked.rows, strategy=strategy),
                  "model_calls": {"attacker": attacker_judge.stats.as_dict(),
                                  "scorer": scorer_judge.stats.as_dict()},
                  "cost": {**roles_cost_section(
                      book, judges={scorer_judge.id: scorer_judge.stats.as_dict()},
                      attacker=(attacker_judge.id, attacker_judge.stats.as_dict())),
                      # the app's own, apart: what it reported its calls used, both sides
                      "app": app_cost_line(AppUsage.of_rows([*plain.rows, *attacked.rows],
                                                            target.id), book)},
                  "timings": {"plain_s": plain_s, f"{strategy}_s": attack_s,
                              "attacked": attacked.worked,
                              "seconds_per_conversation": (round(attack_s / attacked.worked, 1)
                                                           if attacked.worked else None)}}
        with atomic_write(out / "attack.json", what="the attack report",
                          then="rerun with --resume") as f:  # whole, or not at all
            f.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
        job.finish(report)
    return report


def _finished(row: dict[str, Any]) -> bool:
    """A transcript a resume keeps: one of this kind, whose outcome is known."""
    return "exchanges" in row and row.get("unrated") is None


@dataclass(frozen=True)
class _Sides:
    """The two sides of an attack, each a part of its job: every seed asked (``one``), each
    transcript written to ``out/<side>.jsonl`` as it finishes, then in seed order. The
    attack's side is the job's stored rows; the plain side's figures are in its report."""

    job: Job
    seeds: Sequence[Seed]
    out: Path
    target: str
    resume: bool
    parallel: int
    progress: bool

    async def run(self, side: str, one: Callable[[Seed], Awaitable[Conversation]], *,
                  attacker: str | None) -> JobRows:
        async def transcript(seed: Seed) -> dict[str, Any]:
            conversation, meter = await metered_app(self.target, lambda: one(seed))
            return {**conversation.row(id=seed.id, seed_id=seed.id, category=seed.category,
                                       strategy=side, target=self.target, attacker=attacker),
                    APP_USAGE: meter.as_dict()}

        return await self.job.run(
            self.seeds, transcript, key=lambda s: s.id, parallel=self.parallel,
            resume=self.resume, keep=_finished, rows=self.out / f"{side}.jsonl",
            record=attacker is not None, progress=self.progress,
            description=f"attacking ({side})" if attacker else "asking (plain)",
            what=f"the {side} transcripts")
