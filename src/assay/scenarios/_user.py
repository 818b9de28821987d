"""What the simulated user's model is asked, and reading its answer.

The prompt is ours, ``prompts/sim_user/v1/<lang>.md``: Chinese scenarios get the Chinese one,
every other language the English one with the language to write in named. It gives the
persona, the goal and the facts (to be given only when the app asks for them), and the
conversation so far as data inside ``<history>`` tags: the user's and the app's messages as
text (the app's tool calls and their results are not what a user sees, so they are left out;
each message is clipped at :data:`MESSAGE_CHARS`, and only the last :data:`HISTORY_MESSAGES`
are shown). The scenario's ``expected_outcome`` is never shown: it is for scoring.

Before the first message the model writes that message (``{"message": ...}``). After each of
the app's turns it answers ``{"reason", "action", "message"}``: ``reply`` with its next
message, or a stop, ``goal_met`` or ``stuck``, with its reason. An answer that is not one of
these (not JSON, an empty message, a message that plays the app's side) is asked once more,
then the conversation ends as ``user_failed``.

Example:
    >>> parse_user_turn('{"message": "Hi, where is my parcel?"}', opening=True)
    UserTurn(action='reply', message='Hi, where is my parcel?', reason='')
    >>> parse_user_turn('{"reason": "It answered.", "action": "goal_met", "message": ""}',
    ...                 opening=False)
    UserTurn(action='goal_met', message='', reason='It answered.')
    >>> parse_user_turn('{"reason": "", "action": "reply", "message": "A1005.\\nAPP: Thanks!"}',
    ...                 opening=False) is None
    True
    >>> history_text([{"role": "system", "content": "Be brief."},
    ...               {"role": "user", "content": "Order?"},
    ...               {"role": "assistant", "content": None, "tool_calls": []},
    ...               {"role": "tool", "tool_call_id": "c1", "content": "{}"},
    ...               {"role": "assistant", "content": "Shipped."}], "en")
    'USER: Order?\\nAPP: Shipped.'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._text import language_name
from ..asking import json_object, load_template
from ..judges import JudgeRequest
from ._scenario import Scenario

__all__ = ["ACTIONS", "HISTORY_MESSAGES", "MESSAGE_CHARS", "PROMPT", "PROMPT_VERSION", "STOPS",
           "UserTurn", "history_text", "parse_user_turn", "prompt_id", "prompt_lang",
           "user_request"]

PROMPT, PROMPT_VERSION = "sim_user", "1"
#: What the simulated user may do after an app turn: its stops, then going on.
STOPS = ("goal_met", "stuck")
ACTIONS = (*STOPS, "reply")
#: Each message shown to the simulated user is clipped at this many characters.
MESSAGE_CHARS = 1500
#: Only the last messages of a long conversation are shown to the simulated user.
HISTORY_MESSAGES = 16
_LABELS = {"en": ("USER", "APP"), "zh": ("用户", "应用")}
_NO_FACTS = {"en": "- (nothing in particular)", "zh": "- （没有特别的）"}
_OPENING: dict[str, Any] = {
    "type": "object", "properties": {"message": {"type": "string"}},
    "required": ["message"], "additionalProperties": False}
_TURN: dict[str, Any] = {
    "type": "object",
    "properties": {"reason": {"type": "string"},
                   "action": {"type": "string", "enum": list(ACTIONS)},
                   "message": {"type": "string"}},
    "required": ["reason", "action", "message"], "additionalProperties": False}
#: Tokens for the first message, and for a turn (a reason and a message; Chinese takes about
#: a token a character).
_MAX_TOKENS = {"opening": 200, "turn": 320}
_PLAYS_THE_APP = re.compile(r"(?im)^\s*(?:app|assistant|agent|应用|助手)\s*[:：]")
_USER_LABEL = re.compile(r"(?i)^\s*(?:user|用户)\s*[:：]\s*")


@dataclass(frozen=True)
class UserTurn:
    """What the simulated user did: ``reply`` with ``message``, or stopped (``goal_met``,
    ``stuck``) with ``reason``."""

    action: str
    message: str = ""
    reason: str = ""


def prompt_lang(lang: str) -> str:
    """The language of the prompt file for a user writing in ``lang``: ``zh`` or ``en``.

    Example:
        >>> prompt_lang("zh-TW"), prompt_lang("es")
        ('zh', 'en')
    """
    return "zh" if lang.split("-")[0].lower() == "zh" else "en"


def prompt_id(lang: str) -> str:
    """How a row names the prompt its user went through: ``sim_user/v1/en``."""
    return f"{PROMPT}/v{PROMPT_VERSION}/{prompt_lang(lang)}"


def history_text(messages: Sequence[dict[str, Any]], lang: str) -> str:
    """The conversation as the simulated user sees it: user and app messages with text, one
    label each (``USER:`` / ``APP:``), the last :data:`HISTORY_MESSAGES`; an app turn with no
    text at the end shows as empty."""
    user, app = _LABELS[prompt_lang(lang)]
    lines: list[str] = []
    for i, m in enumerate(messages):
        content = m.get("content")
        text = content.strip() if isinstance(content, str) else ""
        last = i == len(messages) - 1
        if m.get("role") == "user":
            lines.append(f"{user}: {_clip(text)}")
        elif m.get("role") == "assistant" and (text or last):
            lines.append(f"{app}: {_clip(text)}")
    return "\n".join(lines[-HISTORY_MESSAGES:])


def _clip(text: str) -> str:
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS - 1] + "…"


def user_request(scenario: Scenario, persona: str,
                 messages: Sequence[dict[str, Any]]) -> JudgeRequest:
    """The request for the simulated user's next move in ``messages`` (its first message
    when the conversation has no user or app text yet)."""
    lang = prompt_lang(scenario.lang)
    history = history_text(messages, scenario.lang)
    facts = "\n".join(f"- {f}" for f in scenario.facts) or _NO_FACTS[lang]
    template = load_template(PROMPT, lang, PROMPT_VERSION)
    rendered = template.render(persona=persona, goal=scenario.goal, facts=facts,
                               language=language_name(scenario.lang), history=history)
    opening = not history
    return JudgeRequest(messages=rendered,
                        schema_name="simulated_user_first" if opening else "simulated_user_turn",
                        json_schema=_OPENING if opening else _TURN,
                        max_tokens=_MAX_TOKENS["opening" if opening else "turn"],
                        logprobs=False)


def parse_user_turn(text: str, *, opening: bool) -> UserTurn | None:
    """The simulated user's move, or ``None`` when ``text`` is not one: not a JSON object, an
    unknown action, an empty message to send, or a message that writes the app's side too."""
    obj = json_object(text)
    if obj is None:
        return None
    action = "reply" if opening else obj.get("action")
    reason = obj.get("reason", "") if not opening else ""
    if action not in ACTIONS or not isinstance(reason, str):
        return None
    if action in STOPS:
        return UserTurn(str(action), reason=reason.strip())
    message = obj.get("message")
    if not isinstance(message, str):
        return None
    message = _USER_LABEL.sub("", message.strip(), count=1).strip()
    if not message or _PLAYS_THE_APP.search(message):
        return None
    return UserTurn("reply", message, reason.strip())
