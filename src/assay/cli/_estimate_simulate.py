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

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agents import AgentRunner
from ..calls import Estimate, JudgeEstimate, RetryPolicy, Tally
from ..data import FieldLimits, LongFields
from ..redteam import Attack, AttackAsking
from ..scenarios import DEFAULT_MAX_TURNS, SimulationFiles, converse, read_scenarios
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
    long_fields: LongFields = "refuse", out: Path | None = None) -> Estimate:
    """Count the requests of ``assay simulate --scenarios`` (see the module); nothing is sent.
    ``out``: the simulation's file; an earlier simulation there gives the expected pass its
    measured user turns per scenario and the mean length of the app's replies and the user's
    messages.

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
    measured = measured_conversations(out) if out is not None else None
    try:
        for which in PASSES:
            for scenario in chosen:
                mean = measured if measured is not None and which == "expected" else None
                player = StandInUser(backend.id, backend.capabilities, which,
                                     chars=mean.user_chars if mean else None,
                                     stop_after=mean.turns.get(scenario.id) if mean else None)
                replies = StandInApp(target, which, chars=mean.app_chars if mean else None)
                await converse(scenario, runner=AgentRunner(replies, limits=limits),
                               user_model=player, seed=seed,
                               max_turns=max_turns or DEFAULT_MAX_TURNS)
                for request, answer in zip(player.requests, player.answers, strict=True):
                    user.add(which, request, completion=mean.user_completion
                             if mean and mean.user_completion is not None
                             else user.counter.count(answer))
                turns[which] += count_app(app, which, replies)
    finally:
        await backend.aclose()
    notes = [*app_note(target, turns),
             ("conversations: low one user turn, expected "
              + ("the user turns, replies and messages measured in the earlier simulation in "
                 f"{out}" if measured is not None else
                 "every turn (the scenario's max_turns) at a usual length")
              + ", high every turn with each answer at its max_tokens")]
    if tools:
        notes.append("tool calls and the app's agent steps (--tools) are not counted")
    roles = {"simulated_user": user, **({"app": app} if app is not None else {})}
    return estimate_of(roles, rows=len(chosen), unit="conversation", tpm=tpm, rpm=rpm,
                       prices_file=prices_file, notes=notes)


@dataclass(frozen=True)
class Measured:
    """An earlier simulation's conversations: user turns per scenario id, and the mean
    characters of the app's replies and of the user's messages."""

    turns: dict[str, int]
    app_chars: int | None
    user_chars: int | None
    #: The user model's completion tokens per request (its summary's), ``None``: not known.
    user_completion: float | None = None


def measured_conversations(out: Path) -> Measured | None:
    """What the finished conversations in ``out`` measured, ``None`` without any."""
    turns: dict[str, int] = {}
    said: dict[str, list[int]] = {"assistant": [], "user": []}
    try:
        lines = out.read_text(encoding="utf-8").splitlines()
        rows = [json.loads(line) for line in lines if line.strip()]
    except (OSError, ValueError):
        return None
    for row in rows:
        if not isinstance(row, dict) or row.get("error"):
            continue
        turns[str(row.get("id"))] = int((row.get("simulation") or {}).get("user_turns") or 1)
        for m in row.get("messages") or []:
            if m.get("role") in said and isinstance(m.get("content"), str):
                said[m["role"]].append(len(m["content"]))

    def mean(xs: list[int]) -> int | None:
        return round(sum(xs) / len(xs)) if xs else None

    if not turns:
        return None
    try:  # the user model's own counts, in the summary beside the file
        user = json.loads(SimulationFiles.beside(out).summary.read_text(encoding="utf-8"))
        stats = user["user_model"]
        completion = int(stats["completion_tokens"]) / int(stats["requests"])
    except (OSError, ValueError, KeyError, TypeError, ZeroDivisionError):
        completion = None
    return Measured(turns, mean(said["assistant"]), mean(said["user"]), completion)


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
        asking = AttackAsking(replies, turns, RetryPolicy(max_attempts=1), limits)  # type: ignore[arg-type]
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
