"""One simulated conversation: the user and the app take turns until the user's goal is met,
the app is stuck, the turns run out, or one side keeps failing.

1. The first user turn is the scenario's ``first_message`` as it is, else the simulated user
   writes it.
2. The app takes its turn through the agent loop of ``assay run --target``
   (:class:`assay.agents.AgentRunner`): its tool calls are run with the run's tool functions
   and the calls and results go into the transcript.
3. The simulated user reads the conversation and stops (``goal_met``, ``stuck``, with its
   reason) or writes its next message; at ``max_turns`` user turns, a next message ends the
   conversation as ``max_turns`` instead (the user is asked after the app's last turn all the
   same, so a goal met on the last turn counts as met).

An app call that keeps failing, or whose reply assay cannot read (``None``, a number, messages
of the wrong shape), ends it as ``app_failed``, a user-model answer that cannot be read twice
(or a failed call) as ``user_failed``; both keep the transcript so far and set ``error``
(masked of secrets). The app's messages are masked of secrets too before they go into the
transcript or to the user model (a third party): an app that echoes a key shows ``***``.

Example:
    >>> from assay.scenarios._personas import PERSONAS
    >>> s = Scenario(id="s1", goal="Find out the weather in Oslo.")
    >>> persona_of(s, seed=0)[1] in {p.name for p in PERSONAS}
    True
    >>> persona_of(Scenario(id="s2", goal="x", persona="A hiker."), seed=0)
    ('A hiker.', 'given')
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._secrets import mask_secrets
from ..agents import AgentRunner
from ..asking import Unanswered, ask_until_parsed
from ..costs import APP_USAGE, AppUsage
from ..data import FieldLimits, Row, rows_from_records
from ..errors import ConfigError
from ..judges import Judge
from ._personas import pick_persona
from ._scenario import Scenario
from ._user import UserTurn, parse_user_turn, prompt_id, prompt_lang, user_request

__all__ = ["FINISHED", "STOP_REASONS", "Conversation", "converse", "persona_of"]

#: Why a conversation ended, in the order the summary lists them.
STOP_REASONS = ("goal_met", "stuck", "max_turns", "app_failed", "user_failed")
#: The ends of a conversation that ran to its end (a resume keeps them; it runs the others
#: again).
FINISHED = ("goal_met", "stuck", "max_turns")
_RAW_CHARS = 300
#: The field of a cut the agent made to one of its new messages (see AgentRunner).
_NEW_MESSAGE = re.compile(r"messages\[(\d+)\]\.content")


@dataclass(frozen=True)
class Conversation:
    """A finished conversation: its output row and the seconds it took."""

    row: dict[str, Any]
    seconds: float


def persona_of(scenario: Scenario, seed: int) -> tuple[str, str]:
    """``(persona text, where it came from)``: the scenario's own (``"given"``), else the name
    of the one ``seed`` picks (see :func:`pick_persona`), its text in the prompt's language."""
    if scenario.persona:
        return scenario.persona, "given"
    persona = pick_persona(seed, scenario.id)
    return persona.text(prompt_lang(scenario.lang)), persona.name


async def converse(scenario: Scenario, *, runner: AgentRunner, user_model: Judge, seed: int,
                   max_turns: int) -> Conversation:
    """Simulate ``scenario`` against ``runner``'s app, the user played by ``user_model``.
    ``max_turns``: the run's, for a scenario that sets none.

    Raises:
        JudgeStoppedError: the user model failed the same hard way too often in a row.
    """
    started = time.monotonic()
    turns_allowed = scenario.max_turns or max_turns
    persona, picked = persona_of(scenario, seed)
    messages: list[dict[str, Any]] = ([{"role": "system", "content": scenario.system}]
                                      if scenario.system else [])
    notes: list[str] = []
    cuts: list[dict[str, Any]] = []
    user_turns = 0
    app_usage = AppUsage(runner.id)  # what the app reported its calls used, over its turns
    stop: tuple[str, str] | None = None
    error: str | None = None
    if scenario.first_message:
        messages.append({"role": "user", "content": scenario.first_message})
        user_turns = 1
    else:
        move = await _ask_user(user_model, scenario, persona, messages)
        if isinstance(move, str):
            stop, error = ("user_failed", move), move
        else:
            messages.append({"role": "user", "content": move.message})
            user_turns = 1
    while stop is None:
        entry = await _app_turn(runner, _app_row(scenario, messages, runner))
        app_usage.merge(entry.get(APP_USAGE))
        if "failure" in entry:
            error = str(entry["failure"])
            stop = ("app_failed", error)
            break
        for cut in entry.get("truncated", []):  # its field counts from the first new message
            at = len(messages) + int(_NEW_MESSAGE.fullmatch(cut["field"]).group(1))  # type: ignore[union-attr]
            cuts.append({**cut, "field": f"messages[{at}].content"})
            notes.append(f"user turn {user_turns}: the app's message {at} was cut from "
                         f"{cut['chars']:,} to {cut['kept']:,} characters")
        messages += entry["messages"]  # masked of secrets by the runner
        if entry.get("note"):
            notes.append(f"user turn {user_turns}: {entry['note']}")
        move = await _ask_user(user_model, scenario, persona, messages)
        if isinstance(move, str):
            stop, error = ("user_failed", move), move
        elif move.action != "reply":
            stop = (move.action, move.reason)
        elif user_turns >= turns_allowed:
            stop = ("max_turns", (f"{user_turns} user turns, the most allowed; the user "
                                  f"would go on ({move.reason or 'no reason given'})"))
        else:
            messages.append({"role": "user", "content": move.message})
            user_turns += 1
    simulation: dict[str, Any] = {
        "user_model": getattr(user_model, "id", None), "target": runner.id, "seed": seed,
        "persona": picked, "prompt": prompt_id(scenario.lang), "user_turns": user_turns,
        APP_USAGE: app_usage.as_dict()}
    if notes:
        simulation["notes"] = notes
    if cuts:
        simulation["truncated"] = cuts
    row = output_row(scenario, persona=persona, max_turns=turns_allowed, messages=messages,
                     stop=stop, simulation=simulation, error=error)
    return Conversation(row, round(time.monotonic() - started, 3))


def output_row(scenario: Scenario, *, persona: str, max_turns: int,
               messages: list[dict[str, Any]], stop: tuple[str, str], simulation: Mapping[str, Any],
               error: str | None) -> dict[str, Any]:
    """The row written for a conversation: the scenario's fields (its ``system`` as the first
    message, not a field: ``assay run`` would add it twice), the transcript, why it stopped,
    how it was simulated and the error, if any."""
    row: dict[str, Any] = {"id": scenario.id, "goal": scenario.goal, "persona": persona,
                           "facts": list(scenario.facts),
                           "expected_outcome": scenario.expected_outcome,
                           "max_turns": max_turns, "lang": scenario.lang}
    if scenario.first_message:
        row["first_message"] = scenario.first_message
    if scenario.tools is not None:
        row["tools"] = list(scenario.tools)
    row.update(scenario.extra)
    row.update(messages=messages, stop_reason=stop[0], stop_detail=stop[1],
               simulation=dict(simulation), error=error)
    return row


async def _app_turn(runner: AgentRunner, row: Row) -> dict[str, Any]:
    """The app's turn on ``row``, or its failure: a reply assay cannot read fails this
    conversation (as a failed call does), not the whole simulation."""
    try:
        return await runner.complete(row)
    except ConfigError as e:
        runner.stats.failed += 1
        return {"target": runner.id, "failure": mask_secrets(f"target call failed: {e}")}


def _app_row(scenario: Scenario, messages: list[dict[str, Any]], runner: AgentRunner) -> Row:
    """The conversation so far as the row the app is asked with, read under the runner's
    long-text rule (its messages were cut to it already)."""
    record: dict[str, Any] = {"id": scenario.id, "messages": messages}
    if scenario.tools is not None:
        record["tools"] = list(scenario.tools)
    limits = runner.limits or FieldLimits()
    return rows_from_records([record], source=f"scenario {scenario.id!r}",
                             max_field_chars=limits.max_field_chars,
                             long_fields=limits.long_fields)[0]


async def _ask_user(user_model: Judge, scenario: Scenario, persona: str,
                    messages: list[dict[str, Any]]) -> UserTurn | str:
    """The simulated user's move, or why there is none (masked of secrets)."""
    request = user_request(scenario, persona, messages)
    opening = request.schema_name == "simulated_user_first"
    got = await ask_until_parsed(user_model, request,
                                 lambda t: parse_user_turn(t, opening=opening),
                                 "the user model's answer is not a user turn in JSON as asked")
    if isinstance(got, Unanswered):
        shown = " ".join((got.raw_answer or "").split())
        if len(shown) > _RAW_CHARS:
            shown = shown[:_RAW_CHARS - 1] + "…"
        return mask_secrets(f"user model failed: {got.reason}"
                            + (f"; its answer: {shown}" if shown else ""))
    turn: UserTurn = got[0]
    return turn
