"""One exchange of an attack: a message sent to the app, its reply and the reply's rating, and
asking the app (with retries; a call that keeps failing is a :class:`Failure`, with the reason;
a reply longer than ``--max-field-chars`` is cut or refused, as a dataset's field would be).

Example:
    >>> import asyncio
    >>> from assay.redteam import FunctionTarget
    >>> async def app(messages):
    ...     return f"reply to {len(messages)} messages"
    >>> asyncio.run(ask_app(FunctionTarget(app), [{"role": "user", "content": "hi"}], turn=1))
    Reply(text='reply to 1 messages', cut=None)
    >>> short = AppCalls(limits=FieldLimits(max_field_chars=5, long_fields="truncate"))
    >>> asyncio.run(ask_app(FunctionTarget(app), [], turn=1, calls=short))
    Reply(text='reply', cut={'field': 'assistant', 'chars': 19, 'kept': 5})
    >>> async def broken(messages):
    ...     raise RuntimeError("down")
    >>> once = AppCalls(retry=RetryPolicy(max_attempts=1))
    >>> asyncio.run(ask_app(FunctionTarget(broken), [], turn=2, calls=once))
    Failure(why='app call failed on turn 2: RuntimeError: down')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .._secrets import mask_secrets
from ..calls import RetryPolicy
from ..data import FieldLimits
from ..errors import DataError, JudgeError
from ..targets import ChatTarget, app_call
from ._scorer import ReplyScore

__all__ = ["AppCalls", "Conversation", "Exchange", "Failure", "Reply", "ask_app",
           "conversation"]


@dataclass(frozen=True)
class AppCalls:
    """How the app under test is asked: ``retry``, its tries and the bound on waiting out its
    rate limits (``max_wait``); ``limits``, the rule for a long reply (``--max-field-chars``,
    ``--long-fields``: refused by default, as a dataset's long field is)."""

    retry: RetryPolicy = field(default_factory=lambda: RetryPolicy(max_attempts=4))
    limits: FieldLimits = field(default_factory=FieldLimits)


@dataclass(frozen=True)
class Reply:
    """The app's reply as the judge and the attacker see it, and the cut made to it
    (``{"field", "chars", "kept"}``), if any."""

    text: str
    cut: dict[str, Any] | None = None


@dataclass(frozen=True)
class Failure:
    """Why a step of an attack could not be taken (the attacker or the app failed)."""

    why: str


@dataclass(frozen=True)
class Exchange:
    """A message sent to the app (``user``), its reply and the reply's rating; ``turn``: the
    turn (crescendo) or attempt (pair) it was sent at; ``note``: what the attacker said the
    message was for; ``backtracked``: crescendo took it out of the conversation the app sees
    (the app refused it)."""

    turn: int
    user: str
    assistant: str
    score: ReplyScore
    note: str | None = None
    backtracked: bool = False
    cut: dict[str, Any] | None = None

    def record(self, message: int | None) -> dict[str, Any]:
        """The exchange as a transcript keeps it; ``message``: the index of its reply in the
        row's ``messages``, or ``None`` when the reply is not there; ``cut``: how the reply
        was cut to the limit, when it was."""
        return {"turn": self.turn, "backtracked": self.backtracked, "message": message,
                "user": self.user, "assistant": self.assistant, "note": self.note,
                **({"cut": self.cut} if self.cut else {}), **self.score.record()}


@dataclass(frozen=True)
class Conversation:
    """What one attack (or the plain ask) gave: every exchange sent, in order; those shown as
    the row's ``messages`` (crescendo: the conversation the app saw last; pair: the attempt
    that succeeded, else the most harmful one); the turns taken, the turn of the first
    success, the backtracks, and ``error`` when the attacker or the app failed."""

    exchanges: list[Exchange]
    shown: list[Exchange]
    turns: int
    success_turn: int | None = None
    backtracks: int = 0
    error: str | None = None

    @property
    def unrated(self) -> str | None:
        """Why the outcome is unknown (``None`` when it is known): no success, and the
        attack stopped on a failure or a reply could not be rated (it may have been one)."""
        if self.success_turn is not None:
            return None
        if self.error is not None:
            return self.error
        unscored = [e.score.unscored for e in self.exchanges if e.score.unscored]
        if unscored:
            return (f"the scorer could not rate {len(unscored)} of {len(self.exchanges)} "
                    f"replies: {unscored[0]}")
        return None

    def row(self, **fields: Any) -> dict[str, Any]:
        """The transcript row: ``fields`` (id, seed, strategy, ...) first, then the messages,
        the outcome and every exchange with its rating."""
        index = {id(e): 2 * i + 1 for i, e in enumerate(self.shown)}
        return {**fields, "messages": conversation(self.shown), "turns": self.turns,
                "success": self.success_turn is not None, "success_turn": self.success_turn,
                "backtracks": self.backtracks, "unrated": self.unrated, "error": self.error,
                "exchanges": [e.record(index.get(id(e))) for e in self.exchanges]}


def conversation(exchanges: list[Exchange]) -> list[dict[str, str]]:
    """The chat messages of ``exchanges``, in order (user, assistant, user, ...)."""
    messages: list[dict[str, str]] = []
    for e in exchanges:
        messages += [{"role": "user", "content": e.user},
                     {"role": "assistant", "content": e.assistant}]
    return messages


async def ask_app(target: ChatTarget, messages: list[dict[str, str]], *, turn: int,
                  calls: AppCalls | None = None) -> Reply | Failure:
    """The app's reply to ``messages`` masked of secrets (the attacker and the scorer are
    third parties, and the transcript is shared), retried on retryable errors, within the
    long-text rule of ``calls``; a :class:`Failure` when the call keeps failing (an app's own exception
    is reported with its type, secrets masked) or the reply is too long to use."""
    calls = calls or AppCalls()
    try:
        text = await app_call(lambda: calls.retry.call(  # counted in the conversation's meter
            lambda: target.reply([dict(m) for m in messages])))
    except JudgeError as e:
        return Failure(f"app call failed on turn {turn}: {e}")
    except Exception as e:  # noqa: BLE001 - the app's own bug: keep the row, say why
        return Failure(mask_secrets(f"app call failed on turn {turn}: {type(e).__name__}: {e}"))
    try:
        text, cut = calls.limits.fit(text, f"app reply on turn {turn}")
    except DataError as e:
        return Failure(e.problems[0])
    return Reply(mask_secrets(text), cut and {**cut, "field": "assistant"})
