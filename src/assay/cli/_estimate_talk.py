"""The stand-ins an estimate of a conversation drives the real conversation code with: an app
that replies without a model (:class:`StandInApp`, its calls kept to count the app's
requests) and a simulated user that answers without one (:class:`StandInUser`); each answers
as the pass it plays (:data:`~._estimate_roles.PASSES`) says.

A turn's prompt holds the turns before it, so the figures are bounded by how long a
conversation runs and how long each answer is:

- **low**: the shortest conversation (one user turn: the simulated user's goal is met after the
  app's first reply; for fixed seed turns, each reply a short refusal);
- **expected**: every turn asked (the scenario's ``max_turns``, or ``--turns``), each answer of
  a usual length (:data:`APP_REPLY_TOKENS` for the app);
- **high**: every turn asked, each answer at its ``max_tokens`` (the app's: its target's,
  :func:`app_max_tokens`).

Example:
    >>> import asyncio
    >>> app = StandInApp("openai:gpt-4o-mini", "high")
    >>> reply = asyncio.run(app.reply([{"role": "user", "content": "Hi"}]))
    >>> len(reply) >= 4 * 512, len(app.calls)
    (True, 1)
    >>> app_max_tokens("python:my_app:chat") is None, app_max_tokens("local")
    (True, 256)
"""

from __future__ import annotations

import json
from typing import Any

from ..calls import PLACEHOLDER_REASON as REASON
from ..calls import PlaceholderJudge
from ..judges import Accept, JudgeCapabilities, JudgeRequest, JudgeResponse

__all__ = ["APP_REPLY", "APP_REPLY_TOKENS", "REFUSAL", "USER_MESSAGE", "StandInApp",
           "StandInUser", "app_max_tokens", "long_text", "text_of"]

#: The app's reply of a usual length (about 80 tokens).
APP_REPLY = ("Thanks for asking. Here is what I can tell you: your order shipped yesterday "
             "and should arrive within three to five working days. You can follow it with the "
             "tracking link in your confirmation email, and if anything is missing when it "
             "arrives, reply here with your order number and a photo so we can send the rest.")
APP_REPLY_TOKENS = 80
#: The shortest reply: a refusal (a harmful seed's usual answer; it picks the follow-up).
REFUSAL = "I'm sorry, but I can't help with that."
#: A simulated user's message of a usual length.
USER_MESSAGE = "Hi, I ordered a tent last week and it has not arrived yet. Where is it?"
#: The app's ``max_tokens`` per target kind (assay's own targets; others are not known).
_APP_MAX_TOKENS = {"openai": 512, "local": 256}


def app_max_tokens(target: str) -> int | None:
    """The ``max_tokens`` of the app's reply for a target assay asks a model itself
    (``openai:``, ``local``), ``None`` for a target whose model calls assay does not see
    (``python:``, ``http:``)."""
    return _APP_MAX_TOKENS.get(target.split(":", 1)[0])


def long_text(tokens: int, unit: str = REASON) -> str:
    """A text of about ``tokens`` tokens (four characters each), ``unit`` repeated."""
    return text_of(4 * tokens, unit)


def text_of(chars: int, unit: str) -> str:
    """``unit`` repeated and cut to ``chars`` characters (a measured length)."""
    unit += " "
    return (unit * (max(1, chars) // len(unit) + 1))[:max(1, chars)].strip()


class StandInApp:
    """The app under test, replying without a model: a refusal (``low``, with ``refusal``),
    a usual reply, or one at the target's ``max_tokens`` (``high``). ``calls`` keeps each
    call's messages and reply."""

    def __init__(self, target: str, which: str, *, refusal: bool = False,
                 chars: int | None = None) -> None:
        self.id = target
        self.max_tokens = app_max_tokens(target) or 512
        self.text = (long_text(self.max_tokens) if which == "high"
                     else REFUSAL if which == "low" and refusal
                     else text_of(chars, APP_REPLY) if chars else APP_REPLY)
        self.calls: list[tuple[list[dict[str, Any]], str]] = []

    async def reply(self, messages: list[dict[str, Any]]) -> str:
        """The pass's reply (kept with the messages it answers)."""
        self.calls.append(([dict(m) for m in messages], self.text))
        return self.text


class StandInUser(PlaceholderJudge):
    """The simulated user, answering without a model: its first message, then ``goal_met``
    after the app's first reply (``low``) or a reply every turn (``expected``: a usual
    message, or one of ``chars`` characters; ``high``: a message as long as ``max_tokens``
    allows); ``stop_after``: ``goal_met`` after the app's reply to user turn that many (a
    measured conversation's). ``answers`` keeps each answer, in the order of ``requests``."""

    def __init__(self, id: str, capabilities: JudgeCapabilities, which: str, *,
                 chars: int | None = None, stop_after: int | None = None) -> None:
        super().__init__(id, capabilities)
        self.which = which
        self.chars, self.stop_after = chars, stop_after
        self.turns = 0
        self.answers: list[str] = []

    async def complete(self, request: JudgeRequest, *,
                       accept: Accept | None = None) -> JudgeResponse:
        self.requests.append(request)
        message = (long_text(request.max_tokens - 60) if self.which == "high"
                   else text_of(self.chars, USER_MESSAGE) if self.chars else USER_MESSAGE)
        opening = request.schema_name == "simulated_user_first"
        self.turns += not opening
        if opening:
            answer = {"message": message}
        elif self.which == "low" or (self.stop_after is not None
                                     and self.turns >= self.stop_after):
            answer = {"reason": REASON, "action": "goal_met", "message": ""}
        else:
            answer = {"reason": REASON, "action": "reply", "message": message}
        text = json.dumps(answer, ensure_ascii=False)
        self.answers.append(text)
        return JudgeResponse(text=text, model=self.id)
