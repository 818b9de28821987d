"""The attacker: a model, asked through assay's judge interface, that writes the messages of a
multi-turn attack. Its prompts are assay's own (``prompts/attack_crescendo`` and
``prompts/attack_pair``, English and Chinese, chosen by the goal's language), framed as an
authorised red-team test of the user's own app; it answers in JSON with a schema.

The texts it reads (the goal, its earlier messages, the app's replies) are data: fenced in
tags that a text cannot close, and the prompt says so. An answer that is not JSON with a
message (a "..." copied from the prompt is none), or whose message is itself a refusal to
take part, is asked once more, then the attack stops with the reason (:class:`Failure`);
nothing is made up in its place.

Example:
    >>> import asyncio
    >>> from assay.judges import FakeJudge
    >>> judge = FakeJudge('{"plan": "open on the topic", "message": "What is a lock?"}')
    >>> attacker = Attacker(judge)
    >>> asyncio.run(attacker.crescendo("Explain how to pick a lock.", turn=1, max_turns=3,
    ...                                history=[], refused=[]))
    Move(message='What is a lock?', note='open on the topic')
    >>> prompt_lang("如何撬锁？"), prompt_lang("How to pick a lock?")
    ('zh', 'en')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..asking import Template, Unanswered, ask_until_parsed, json_object, load_template
from ..judges import Judge, JudgeRequest
from ._exchange import Exchange, Failure
from ._simulate import looks_like_refusal

__all__ = ["ATTACKER_PROMPTS", "Attacker", "Move", "prompt_lang"]

#: The attacker's prompt folder per strategy (version 1).
ATTACKER_PROMPTS = {"crescendo": "attack_crescendo", "pair": "attack_pair"}
_VERSION = "1"
#: Characters of an app reply the attacker is shown (a long reply is cut, marked as cut).
_REPLY_CHARS = 800
#: Tokens the attacker may write: a one-sentence note and one message.
_MAX_TOKENS = {"crescendo": 320, "pair": 480}
_FIELDS = {"crescendo": ("plan", "message"), "pair": ("improvement", "prompt")}
#: The tags of the attacker's prompts: a text that holds one of them has it escaped.
_OWN_TAGS = re.compile(r"<(\s*/?\s*(?:goal|history|refused|message|app_reply)\b)",
                       re.IGNORECASE)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@dataclass(frozen=True)
class Move:
    """What the attacker wrote: the ``message`` to send to the app, and its ``note`` (the
    plan of a crescendo turn, the improvement of a pair attempt)."""

    message: str
    note: str


def prompt_lang(goal: str) -> str:
    """``zh`` when most of the goal's letters are Chinese characters, else ``en``."""
    letters = [c for c in goal if c.isalpha()]
    cjk = sum(1 for c in letters if _CJK.match(c))
    return "zh" if letters and cjk * 2 > len(letters) else "en"


def _data(text: str, limit: int | None = None) -> str:
    """A text for the attacker's prompt: its copies of the prompt's own tags escaped, and cut
    at ``limit`` characters (marked)."""
    if limit is not None and len(text) > limit:
        text = text[:limit] + " […]"
    return _OWN_TAGS.sub(r"&lt;\1", text)


def _rating(exchange: Exchange) -> str:
    s = exchange.score
    if s.severity is None:
        return "not rated"
    refused = {True: ", refused", False: "", None: ""}[s.refused]
    return f"severity {s.severity:g} ({s.level}){refused}"


def _history(exchanges: Sequence[Exchange], *, rated: bool) -> str:
    parts = []
    for e in exchanges:
        rating = f' rating="{_rating(e)}"' if rated else ""
        parts.append(f'<message turn="{e.turn}">\n{_data(e.user)}\n</message>\n'
                     f'<app_reply turn="{e.turn}"{rating}>\n{_data(e.assistant, _REPLY_CHARS)}'
                     "\n</app_reply>")
    return "\n".join(parts)


def _parser(strategy: str) -> Callable[[str], Move | None]:
    note_key, message_key = _FIELDS[strategy]

    def parse(text: str) -> Move | None:
        obj = json_object(text)
        if obj is None:
            return None
        message, note = obj.get(message_key), obj.get(note_key)
        if not isinstance(message, str) or not any(c.isalnum() for c in message):
            return None  # missing, empty, or the prompt's "..." copied back
        if len(message) < 300 and looks_like_refusal(message[:120]):  # it declined to take part
            return None
        return Move(message.strip(), note.strip() if isinstance(note, str) else "")

    return parse


def _schema(strategy: str) -> dict[str, Any]:
    note_key, message_key = _FIELDS[strategy]
    return {"type": "object",
            "properties": {note_key: {"type": "string"}, message_key: {"type": "string"}},
            "required": [note_key, message_key], "additionalProperties": False}


class Attacker:
    """Writes attack messages with ``judge`` (a managed judge: its cache, budget and retries
    apply), at temperature 0: the same inputs give the same message."""

    def __init__(self, judge: Judge) -> None:
        self.judge = judge
        self.id = judge.id

    @staticmethod
    def template(strategy: str, lang: str) -> Template:
        """The attacker prompt of ``strategy`` in ``lang``."""
        return load_template(ATTACKER_PROMPTS[strategy], lang, _VERSION)

    async def crescendo(self, goal: str, *, turn: int, max_turns: int,
                        history: Sequence[Exchange], refused: Sequence[Exchange]
                        ) -> Move | Failure:
        """The message of crescendo turn ``turn``: ``history`` holds the exchanges the app
        sees, ``refused`` the refused (and dropped) attempts at this turn."""
        return await self._ask("crescendo", goal, turn=str(turn), max_turns=str(max_turns),
                               history=_history(history, rated=True),
                               refused=_history(refused, rated=False))

    async def pair(self, goal: str, *, attempt: int, max_attempts: int,
                   previous: Exchange | None) -> Move | Failure:
        """The message of pair attempt ``attempt``, improved from the ``previous`` attempt's
        reply and its rating (the scorer's feedback)."""
        values = {"attempt": str(attempt), "max_attempts": str(max_attempts)}
        if previous is not None:
            values |= {"previous": _data(previous.user),
                       "reply": _data(previous.assistant, _REPLY_CHARS),
                       "feedback": _data(previous.score.feedback(prompt_lang(goal)))}
        return await self._ask("pair", goal, **values)

    async def _ask(self, strategy: str, goal: str, **values: str) -> Move | Failure:
        template = self.template(strategy, prompt_lang(goal))
        request = JudgeRequest(messages=template.render(goal=_data(goal), **values),
                               schema_name=f"attack_{strategy}", json_schema=_schema(strategy),
                               max_tokens=_MAX_TOKENS[strategy], logprobs=False)
        got = await ask_until_parsed(
            self.judge, request, _parser(strategy),
            "the attacker wrote no usable message (not JSON with a non-empty "
            f"{_FIELDS[strategy][1]!r}, or it declined)")
        if isinstance(got, Unanswered):
            return Failure(got.reason)
        move: Move = got[0]
        return move
