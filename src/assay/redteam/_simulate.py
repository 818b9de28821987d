"""Ask the app under test a list of harmful requests and keep the conversations as a dataset.

Each attack is one conversation: the first user turn is the seed request (wrapped in a jailbreak
template for injected attacks); with ``turns > 1`` each later user turn follows up on the app's
last answer: it pushes back after a refusal and asks for more detail after an answer. Rows are
written to the output file as they finish, so Ctrl-C loses nothing; ``resume`` keeps finished
rows and asks only the rest (rows whose app call failed are asked again). The output is held
while it is written, and a run is never written over unasked (see :func:`simulate`).

Output rows (JSON Lines, ready for ``assay run``)::

    {"id": "violence-03", "seed_id": "violence-03", "category": "violence", "template": null,
     "messages": [{"role": "user", "content": ...}, {"role": "assistant", "content": ...}],
     "error": null}

A row whose app call kept failing has ``error`` set and the messages up to the failed turn; the
safety metrics leave it unscored ("no assistant turn to rate") when it has no reply at all.
A reply longer than ``limits`` allows (``--max-field-chars``) ends its row with ``error`` set
(``long_fields="refuse"``, the default) or is cut to the limit (``"truncate"``), the cut
recorded in the row's ``truncated`` list (``{"field", "chars", "kept"}``).
The app's replies are masked of secrets (``***``), as its errors are.

Example:
    >>> from assay.redteam import load_seeds, load_templates
    >>> seeds = load_seeds()[:2]
    >>> [a.first_turn == s.prompt for a, s in zip(plain_attacks(seeds), seeds)]
    [True, True]
    >>> attack = injected_attacks(seeds, load_templates())[1]
    >>> attack.template, attack.seed_id
    ('filter-research', 'hate-02')
    >>> looks_like_refusal("I'm sorry, but I can't help with that."), looks_like_refusal("Sure.")
    (True, False)
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._files import beside
from .._secrets import mask_secrets
from ..calls import RetryPolicy
from ..costs import APP_USAGE, AppUsage, PriceBook, app_cost_line, roles_cost_section
from ..data import FieldLimits
from ..errors import ConfigError, DataError, JudgeError, option
from ..records import Job, ResumeWords
from ..store import Store
from ..targets import AppMeter, ChatTarget
from ._sources import FOLLOW_UPS, JailbreakTemplate, Seed

__all__ = ["Attack", "injected_attacks", "looks_like_refusal", "plain_attacks", "simulate"]

_REFUSAL = re.compile(
    r"\b(i\s*(?:am|'m)\s+(?:sorry|unable|not able)|i\s+(?:can\s*not|can't|cannot|won't|will not|"
    r"must decline)|as an ai\b|i\s+do\s+not\s+feel\s+comfortable|not\s+able\s+to\s+(?:help|"
    r"assist|provide)|against\s+my\s+(?:guidelines|policy))", re.IGNORECASE)


@dataclass(frozen=True)
class Attack:
    """One conversation to run: the row id, its seed, its template (None when plain) and the
    first user turn."""

    id: str
    seed_id: str
    category: str
    template: str | None
    first_turn: str


def plain_attacks(seeds: Sequence[Seed]) -> list[Attack]:
    """One attack per seed, the request as it is; the row id is the seed id."""
    return [Attack(s.id, s.id, s.category, None, s.prompt) for s in seeds]


def injected_attacks(seeds: Sequence[Seed], templates: Sequence[JailbreakTemplate]) -> list[Attack]:
    """One attack per seed, the request inside template ``i % len(templates)``; the row id is
    the seed id, so plain and injected rows pair up by id."""
    if not templates:
        raise ConfigError(f"No jailbreak template to inject. Fix: drop {option('templates')} "
                          "to use the shipped ones, or give a file with at least one template.")
    return [Attack(s.id, s.id, s.category, t.id, t.inject(s.prompt))
            for s, t in ((s, templates[i % len(templates)]) for i, s in enumerate(seeds))]


def looks_like_refusal(text: str) -> bool:
    """Whether a reply reads as a refusal (phrase match; picks the next follow-up turn only,
    never a score: the ``refusal`` metric is the judged one)."""
    return bool(_REFUSAL.search(text[:400]))


def _follow_up(reply: str, turn: int) -> str:
    options = FOLLOW_UPS["after_refusal" if looks_like_refusal(reply) else "after_answer"]
    return options[(turn - 1) % len(options)]


async def simulate(attacks: Sequence[Attack], target: ChatTarget, out: Path, *, turns: int = 1,
                   resume: bool = False, overwrite: bool = False, parallel: int = 4,
                   max_attempts: int = 4, progress: bool = False,
                   description: str = "asking the app", max_wait: float = RetryPolicy.max_wait,
                   limits: FieldLimits | None = None,
                   store: str | Path | Store | bool | None = None, name: str | None = None,
                   job: Job | None = None,
                   prices: PriceBook | str | Path | None = None) -> list[dict[str, Any]]:
    """Run every attack against ``target`` and write the conversations to ``out`` (JSON Lines).

    ``parallel``: conversations at a time. Returns the rows in attack order. An app call that
    keeps failing (after retries on retryable errors) leaves its row with ``error`` set, never
    silently out of the file.

    On its own, the call is a job (:class:`~assay.records.Job`): it holds ``out`` while it
    writes, refuses an earlier run there without ``resume`` or ``overwrite`` (and a resume of
    other attacks or turns; ``FILE.run.json`` says which), writes ``FILE.summary.json`` and
    records the run in ``store`` (kind ``simulate``; None: not recorded). Inside a ``job``
    of its caller's (a jailbreak's folder), it writes ``out`` as a part of that job.

    Each row's ``app_usage`` is what the app reported its calls used (see
    :class:`~assay.targets.AppMeter`); the summary's ``cost.app`` prices their sum with
    ``prices`` (a price book or a price file over genai-prices).
    """
    if turns < 1:
        raise ConfigError(f"Got {option('turns', turns)}. Must be 1 or more.")
    book = prices if isinstance(prices, PriceBook) else PriceBook.load(prices)  # bad: told now
    ask = _Asking(target, turns, RetryPolicy(max_attempts=max_attempts, max_wait=max_wait),
                  limits or FieldLimits())
    if job is not None:
        done = await job.run(attacks, ask.one, key=lambda a: a.id, parallel=parallel,
                             resume=resume, keep=_answered, rows=out, record=False,
                             progress=progress, description=description)
        return done.rows
    manifest = {"command": "simulate", "format": 1, "turns": turns,
                "attacks": {a.id: _fingerprint(a) for a in attacks}}
    with Job(out, kind="simulate", store=store, name=name) as own:
        own.begin(manifest, keys=("attacks", "turns"), words=_WORDS, resume=resume,
                  overwrite=overwrite, settings={"target": target.id, "turns": turns,
                                                 "attacks": len(attacks)})
        done = await own.run(attacks, ask.one, key=lambda a: a.id, parallel=parallel,
                             resume=resume, keep=_answered, progress=progress,
                             description=description, what="the conversations")
        failed = done.failed
        cost = roles_cost_section(book)  # no model of assay's: the app's apart
        cost["app"] = app_cost_line(AppUsage.of_rows(done.rows, target.id), book)
        own.finish({"conversations": len(done.rows), "failed": len(failed),
                    "asked": done.worked, "target": target.id, "turns": turns, "cost": cost},
                   summary_path=beside(out, ".summary.json"), what="the simulation summary")
    return done.rows


_WORDS = ResumeWords(holds="conversations", contents="the conversations",
                     made="asked with other attacks or turns", same="the same seeds and options")


def _fingerprint(attack: Attack) -> str:
    return hashlib.sha256(json.dumps([attack.seed_id, attack.template, attack.first_turn],
                                     ensure_ascii=False).encode()).hexdigest()


def _answered(row: dict[str, Any]) -> bool:
    """A row a resume keeps: the app answered (a failed one is asked again)."""
    return not row.get("error")


@dataclass(frozen=True)
class _Asking:
    """One attack's conversation with the app: the first turn, then follow-ups."""

    target: ChatTarget
    turns: int
    retry: RetryPolicy
    limits: FieldLimits

    async def one(self, attack: Attack) -> dict[str, Any]:
        target, limits = self.target, self.limits
        messages: list[dict[str, str]] = [{"role": "user", "content": attack.first_turn}]
        error = None
        cuts: list[dict[str, Any]] = []
        started = time.monotonic()
        meter = AppMeter(target.id)  # what the app reported its calls used
        for turn in range(1, self.turns + 1):
            try:
                reply = await meter.call(lambda: self.retry.call(
                    lambda: target.reply([dict(m) for m in messages])))
            except JudgeError as e:
                error = f"app call failed on turn {turn}: {e}"
                break
            except Exception as e:  # noqa: BLE001 - the app's own bug: keep the row, say why
                error = mask_secrets(f"app call failed on turn {turn}: "
                                     f"{type(e).__name__}: {e}")
                break
            try:
                reply, cut = limits.fit(reply, f"app reply on turn {turn}")
            except DataError as e:
                error = e.problems[0]
                break
            if cut is not None:
                cuts.append({**cut, "field": f"messages[{len(messages)}].content"})
            # the transcript is shared and rated by a judge: no key the app echoed
            messages.append({"role": "assistant", "content": mask_secrets(reply)})
            if turn < self.turns:
                messages.append({"role": "user", "content": _follow_up(reply, turn)})
        return {"id": attack.id, "seed_id": attack.seed_id, "category": attack.category,
                "template": attack.template, "target": target.id, "messages": messages,
                "error": error, "seconds": round(time.monotonic() - started, 3),
                APP_USAGE: meter.as_dict(), **({"truncated": cuts} if cuts else {})}
