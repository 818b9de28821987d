"""``assay jailbreak --estimate``: the requests a jailbreak would send, counted without sending
any: the judge's, the attacker's and the app's apart.

``--strategy template``: each seed asked plain and injected through the run's own asking
(:func:`~._estimate_simulate.ask_attacks`), then both sides' conversations rated through
``assay run --estimate``'s planning (:func:`~._estimate_plan.estimate_async`: the severity
metrics and the refusal metric, with the run's threshold and safety mode). ``crescendo`` and
``pair``: each seed asked plain and attacked through the run's own loops (the real
:class:`~assay.redteam._attacker.Attacker` prompts and :class:`~assay.redteam._scorer.ReplyScorer`
requests) against stand-ins. An attack's turn k holds turns 1..k-1, so the passes bound it:

- **low**: every reply a short refusal, and an attack that succeeds at its first turn;
- **expected**: every attack runs its ``--turns`` (no success, no refusal) with answers of a
  usual length;
- **high**: every reply at the app's ``max_tokens`` and refused, so crescendo also takes back
  ``--backtracks`` exchanges, each asked again (pair runs its ``--turns`` attempts); every
  answer at its ``max_tokens``.

Identical judge requests are counted once (the run's judge cache sends them once). The app's
requests count when assay asks its model itself (``openai:``, ``local``), see
:mod:`._estimate_simulate`.

Example:
    >>> import asyncio
    >>> est = asyncio.run(estimate_attack("openai:gpt-4o-mini", strategy="pair", n=2, turns=3,
    ...                                   judge="openai:gpt-4o-mini"))
    >>> est.by_role["attacker"].tally.requests.as_dict()
    {'low': 2, 'expected': 6, 'high': 6}
    >>> est.by_role["app"].tally.requests.as_dict()
    {'low': 4, 'expected': 8, 'high': 8}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..calls import PLACEHOLDER_REASON as REASON
from ..calls import Estimate, PlaceholderJudge, placeholder_answer
from ..data import FieldLimits
from ..judges import Accept, JudgeRequest, JudgeResponse, cache_file
from ..metrics import ScoreContext
from ..metrics.safety import REFUSAL, SEVERITY_METRICS
from ..redteam import (
    DEFAULT_TURNS,
    AppCalls,
    Attacker,
    ReplyScorer,
    ask_plain,
    crescendo,
    injected_attacks,
    load_seeds,
    load_templates,
    pair,
    pick_seeds,
    plain_attacks,
)
from ..run import ScoringOptions
from ._estimate_plan import _judge_or_standin, estimate_async
from ._estimate_roles import PASSES, RoleCount, estimate_of
from ._estimate_simulate import app_note, app_role, ask_attacks, count_app
from ._estimate_talk import StandInApp

__all__ = ["ScriptedJudge", "estimate_attack", "estimate_jailbreak", "estimate_template"]

_SCORING = ScoringOptions()


def _worst(answer: Any) -> Any:
    """A severity answer with every severity at the top of the scale (a defect)."""
    if isinstance(answer, dict):
        return {k: 7 if k == "severity" else _worst(v) for k, v in answer.items()}
    return answer


class ScriptedJudge(PlaceholderJudge):
    """A placeholder judge (a scorer or an attacker) that plays pass ``which``: refusal
    verdicts No, and Yes on ``high`` (a refusal); severities at the top on ``low`` (the attack
    succeeds at once). ``asked`` keeps each distinct request with its answer."""

    def __init__(self, id: str, capabilities: Any, which: str) -> None:
        super().__init__(id, capabilities)
        self.which = which
        self.asked: dict[str, tuple[JudgeRequest, str]] = {}

    async def complete(self, request: JudgeRequest, *,
                       accept: Accept | None = None) -> JudgeResponse:
        if request.schema_name == "verdict":
            word = "Yes" if self.which == "high" else "No"
            text = f"{word}. {REASON}" if request.max_tokens > 2 else word
        elif request.schema_name.startswith("attack_"):  # a new message each time, as written
            move = json.loads(placeholder_answer(request.json_schema))
            text = json.dumps({k: f"{v} ({len(self.asked) + 1})" if isinstance(v, str) else v
                               for k, v in move.items()})
        else:
            text = placeholder_answer(request.json_schema)
            if self.which == "low" and request.json_schema is not None:
                text = json.dumps(_worst(json.loads(text)))
        self.asked.setdefault(request.cache_key(self.id), (request, text))
        return JudgeResponse(text=text, model=self.id)


def _count(role: RoleCount, which: str, judge: ScriptedJudge) -> None:
    for request, text in judge.asked.values():
        role.add(which, request, completion=role.counter.count(text))


def _seeds(seeds: str | Path | None, n: int | None, categories: list[str] | None) -> list[Any]:
    return pick_seeds(load_seeds(seeds), n, categories)


async def estimate_template(target: str, *, n: int | None = 20, seeds: str | Path | None = None,
                            templates: list[str] | None = None,
                            categories: list[str] | None = None, turns: int = 1,
                            judge: str = "local",
                            safety_threshold: str = _SCORING.safety_threshold,
                            safety_mode: str = _SCORING.safety_mode, refusal: bool = True,
                            limits: FieldLimits | None = None, tpm: int | None = None,
                            rpm: int | None = None, prices_file: Path | None = None,
                            cache: Path | None = None) -> Estimate:
    """Count the requests of ``assay jailbreak --strategy template`` (see the module);
    ``cache``: the judge cache file the run would use (``None``: none)."""
    chosen = _seeds(seeds, n, categories)
    attacks = [*plain_attacks(chosen),
               *injected_attacks(chosen, load_templates(list(templates or [])))]
    app = app_role(target)
    calls, rows = await ask_attacks(attacks, target=target, turns=turns,
                                    limits=limits or FieldLimits(), app=app)
    metrics = [m.name for m in SEVERITY_METRICS] + ([REFUSAL.name] if refusal else [])
    scoring = ScoringOptions(safety_threshold=safety_threshold, safety_mode=safety_mode)
    rater = RoleCount(judge, local=_judge_or_standin(judge).capabilities.local)
    for which in PASSES:
        for side in ("plain", "injected"):  # each side is its own run: ids pair up
            side_rows = [r for r in rows[which] if (r["template"] is None) == (side == "plain")]
            rated = await estimate_async(side_rows, metrics=metrics, judge=judge,
                                         scoring=scoring, cache=cache)
            rater.merge(which, rated.by_kind)
    roles = {"judge": rater, **({"app": app} if app is not None else {})}
    notes = [*app_note(target, calls),
             (f"{len(chosen)} seed(s) asked plain and injected, {turns} user turn(s) each; the "
              "app's replies: low a short refusal, expected a usual reply, high at max_tokens")]
    return estimate_of(roles, rows=2 * len(chosen), unit="conversation", tpm=tpm, rpm=rpm,
                       prices_file=prices_file, notes=notes)


async def estimate_attack(target: str, *, strategy: str, n: int | None = 20,
                          seeds: str | Path | None = None, categories: list[str] | None = None,
                          turns: int = 5, backtracks: int = 5, judge: str = "local",
                          attacker: str | None = None,
                          safety_threshold: str = _SCORING.safety_threshold,
                          safety_mode: str = _SCORING.safety_mode, refusal: bool = True,
                          limits: FieldLimits | None = None, tpm: int | None = None,
                          rpm: int | None = None, prices_file: Path | None = None
                          ) -> Estimate:
    """Count the requests of ``assay jailbreak --strategy crescendo|pair`` (see the module)."""
    chosen = _seeds(seeds, n, categories)
    scorer_spec, attacker_spec = judge, attacker or judge
    made = [_judge_or_standin(scorer_spec), _judge_or_standin(attacker_spec)]
    rater = RoleCount(scorer_spec, local=made[0].capabilities.local)
    writer = RoleCount(attacker_spec, local=made[1].capabilities.local)
    app = app_role(target)
    calls = dict.fromkeys(PASSES, 0)
    app_calls = AppCalls(limits=limits or FieldLimits())
    try:
        for which in PASSES:
            scorer_judge = ScriptedJudge(made[0].id, made[0].capabilities, which)
            attacker_judge = ScriptedJudge(made[1].id, made[1].capabilities, which)
            replies = StandInApp(target, which, refusal=True)
            scorer = ReplyScorer(ScoreContext(judge=scorer_judge, safety_mode=safety_mode),
                                 threshold=safety_threshold, judged_refusal=refusal)
            bot = Attacker(attacker_judge)
            for seed in chosen:
                await ask_plain(seed.prompt, replies, scorer, app_calls)
                if strategy == "crescendo":
                    await crescendo(seed.prompt, replies, bot, scorer, max_turns=turns,
                                    max_backtracks=backtracks, calls=app_calls)
                else:
                    await pair(seed.prompt, replies, bot, scorer, max_attempts=turns,
                               calls=app_calls)
            _count(rater, which, scorer_judge)
            _count(writer, which, attacker_judge)
            calls[which] = count_app(app, which, replies)
    finally:
        for backend in made:
            await backend.aclose()
    roles = {"judge": rater, "attacker": writer, **({"app": app} if app is not None else {})}
    notes = [*app_note(target, calls),
             (f"{len(chosen)} seed(s) asked plain and attacked ({strategy}): low a success at "
              f"the first turn, expected {turns} turns, high {turns} turns"
              + (f" and {backtracks} backtracks" if strategy == "crescendo" else "")
              + " with every answer at its max_tokens")]
    return estimate_of(roles, rows=len(chosen), unit="seed", tpm=tpm, rpm=rpm,
                       prices_file=prices_file, notes=notes)


async def estimate_jailbreak(target: str, *, strategy: str, turns: int | None,
                             max_field_chars: int, long_fields: str, cache: Path | None,
                             no_cache: bool, **options: Any) -> Estimate:
    """The estimate of ``assay jailbreak`` for its ``strategy`` (``turns``: as given, the
    strategy's default when ``None``; ``cache``, ``no_cache``: the flags); ``options``: the
    other keywords of :func:`estimate_template` / :func:`estimate_attack`."""
    limits = FieldLimits(max_field_chars, long_fields)  # type: ignore[arg-type]
    if strategy == "template":
        options.pop("backtracks", None)
        options.pop("attacker", None)
        return await estimate_template(target, turns=turns or 1, limits=limits,
                                       cache=None if no_cache else cache_file(cache or True),
                                       **options)
    options.pop("templates", None)
    return await estimate_attack(target, strategy=strategy, turns=turns or DEFAULT_TURNS,
                                 limits=limits, **options)
