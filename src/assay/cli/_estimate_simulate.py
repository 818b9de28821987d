"""``assay simulate --estimate``: the requests a simulation would send, counted without sending
any, the simulated user's and the app's apart.

``--scenarios``: each scenario is played through the run's own conversation
(:func:`assay.scenarios._conversation.converse`, the real :class:`~assay.agents.AgentRunner`
and the real user prompt) against stand-ins (:mod:`._estimate_talk`), once per pass. Turn k's
prompt holds turns 1..k-1, so the passes bound it: **low** one user turn (the goal met after
the app's first reply), **expected** the scenario's ``max_turns`` (else ``--max-turns``) with
answers of a usual length, **high** ``max_turns`` with every answer (the user's and the app's)
at its ``max_tokens``. Seed requests (the default mode): each attack through the run's own
asking (fixed follow-ups, ``--turns``), the app's replies a short refusal (low), a usual reply
(expected) or at ``max_tokens`` (high).

The app's requests count when assay asks its model itself (``--target openai:MODEL``, or
``local``, free); a ``python:`` or ``http:`` app's own model calls are not visible to assay,
so its turns are said and not priced. Tool calls (``--tools``), retries and an app's agent
steps are not counted.

Example:
    >>> import asyncio
    >>> est = asyncio.run(estimate_scenarios([{"id": "s1", "goal": "Find my order."}],
    ...     target="openai:gpt-4o-mini", user_model="openai:gpt-4o-mini", max_turns=3))
    >>> est.by_role["simulated_user"].tally.requests.as_dict()
    {'low': 2, 'expected': 4, 'high': 4}
    >>> est.by_role["app"].tally.requests.as_dict()
    {'low': 1, 'expected': 3, 'high': 3}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..agents import AgentRunner
from ..calls import Estimate, JudgeEstimate, RetryPolicy, Tally
from ..data import FieldLimits, LongFields
from ..redteam import Attack
from ..redteam._simulate import _Asking
from ..scenarios import DEFAULT_MAX_TURNS, read_scenarios
from ..scenarios._conversation import converse
from ._estimate_plan import _judge_or_standin
from ._estimate_roles import PASSES, RoleCount, app_request, estimate_of
from ._estimate_talk import StandInApp, StandInUser, app_max_tokens

__all__ = ["app_note", "app_role", "ask_attacks", "count_app", "estimate_scenarios",
           "estimate_seed_requests"]


def app_role(target: str) -> RoleCount | None:
    """The app's count when assay asks its model itself, else ``None``."""
    return RoleCount(target) if app_max_tokens(target) is not None else None


def count_app(role: RoleCount | None, which: str, app: StandInApp) -> int:
    """Count the stand-in app's calls in pass ``which`` (when its model is known); their
    number."""
    for messages, reply in app.calls:
        if role is not None:
            role.add(which, app_request(messages, app.max_tokens),
                     completion=role.counter.count(reply))
    return len(app.calls)


def app_note(target: str, turns: Mapping[str, int]) -> list[str]:
    """What the estimate says of a target whose model calls assay does not see."""
    if app_max_tokens(target) is not None:
        return []
    return [(f"app {target}: its own model calls are not visible to assay (not estimated); "
            f"app turns {turns['low']:,} / {turns['expected']:,} / {turns['high']:,}")]


async def estimate_scenarios(
    scenarios: str | Path | Sequence[Mapping[str, Any]], *, target: str,
    user_model: str = "local", max_turns: int | None = None, seed: int = 0,
    tools: str | None = None, tpm: int | None = None, rpm: int | None = None,
    prices_file: Path | None = None, max_field_chars: int = FieldLimits.max_field_chars,
    long_fields: LongFields = "refuse") -> Estimate:
    """Count the requests of ``assay simulate --scenarios`` (see the module); nothing is sent.

    Raises:
        DataError: the scenarios are not valid (every problem listed).
        ConfigError: a bad option or price file.
    """
    chosen = read_scenarios(scenarios)
    backend = _judge_or_standin(user_model)
    user = RoleCount(user_model, local=backend.capabilities.local)
    app = app_role(target)
    turns = dict.fromkeys(PASSES, 0)
    limits = FieldLimits(max_field_chars, long_fields)
    try:
        for which in PASSES:
            for scenario in chosen:
                player = StandInUser(backend.id, backend.capabilities, which)
                replies = StandInApp(target, which)
                await converse(scenario, runner=AgentRunner(replies, limits=limits),
                               user_model=player, seed=seed,
                               max_turns=max_turns or DEFAULT_MAX_TURNS)
                for request, answer in zip(player.requests, player.answers, strict=True):
                    user.add(which, request, completion=user.counter.count(answer))
                turns[which] += count_app(app, which, replies)
    finally:
        await backend.aclose()
    notes = [*app_note(target, turns),
             ("conversations: low one user turn, expected every turn (the scenario's max_turns) "
             "at a usual length, high every turn with each answer at its max_tokens")]
    if tools:
        notes.append("tool calls and the app's agent steps (--tools) are not counted")
    roles = {"simulated_user": user, **({"app": app} if app is not None else {})}
    return estimate_of(roles, rows=len(chosen), unit="conversation", tpm=tpm, rpm=rpm,
                       prices_file=prices_file, notes=notes)


async def ask_attacks(attacks: Sequence[Attack], *, target: str, turns: int,
                      limits: FieldLimits, app: RoleCount | None
                      ) -> tuple[dict[str, int], dict[str, list[dict[str, Any]]]]:
    """Each attack through the run's own asking, once per pass, against the stand-in app:
    the app's calls per pass (counted in ``app``) and each pass's conversations (what a judge
    would rate)."""
    calls = dict.fromkeys(PASSES, 0)
    rows: dict[str, list[dict[str, Any]]] = {}
    for which in PASSES:
        replies = StandInApp(target, which, refusal=True)
        asking = _Asking(replies, turns, RetryPolicy(max_attempts=1), limits)  # type: ignore[arg-type]
        rows[which] = [await asking.one(attack) for attack in attacks]
        calls[which] = count_app(app, which, replies)
    return calls, rows


async def estimate_seed_requests(attacks: Sequence[Attack], *, target: str, turns: int,
                                 limits: FieldLimits, tpm: int | None = None,
                                 rpm: int | None = None,
                                 prices_file: Path | None = None) -> Estimate:
    """Count the app's requests of ``assay simulate`` with seed requests (see the module)."""
    app = app_role(target)
    calls, _ = await ask_attacks(attacks, target=target, turns=turns, limits=limits, app=app)
    notes = [*app_note(target, calls),
             (f"{turns} user turn(s) per conversation; the app's replies: low a short refusal, "
             "expected a usual reply, high at max_tokens")]
    estimate = estimate_of({"app": app} if app is not None else {}, rows=len(attacks),
                           unit="conversation", tpm=tpm, rpm=rpm, prices_file=prices_file,
                           notes=notes)
    if app is None:  # nothing assay sees: the cost is unknown, not $0
        estimate.by_role["app"] = JudgeEstimate(
            Tally(), None, f"the app's own model calls ({target}) are not visible to assay",
            "", model=target)
    return estimate
