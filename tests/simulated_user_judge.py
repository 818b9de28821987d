"""A scripted simulated user for ``assay simulate --scenarios``: it reads the goal, the facts and
the conversation from the prompt it is shown (``prompts/sim_user``), and plays by plain rules:

- its first message is ``Hi, I need help. <goal>`` (no fact in it);
- after the app's turn: an app message that says it cannot help (``Sorry``, ``cannot``,
  ``can only help``, ``抱歉``) is ``stuck``, and so is a question the app asked before; a
  question gets the fact that shares most words with it (``I don't know that.`` when none
  does); any other answer is ``goal_met``.

Its knobs: ``endless`` (it never stops: ``Tell me more, please.``), ``broken`` (an answer that
is no JSON), ``fail`` (an exception to raise). It works on the prompt's text alone, so the
bench's fake judge server answers with it too (``tests/yes_no_judge.py``).

Example:
    >>> prompt = ("What you want from the app: Know if order A1 shipped.\\nWhat you know:\\n"
    ...           "- My order number is A1.\\n\\nHow you play:\\n<history>\\nUSER: Hi\\n"
    ...           "APP: What is your order number?\\n</history>")
    >>> answer_simulated_user(prompt, "simulated_user_turn")
    '{"reason": "The app asked: What is your order number?", "action": "reply", "message": "My order number is A1."}'
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from assay.judges import FakeJudge, JudgeRequest

_GOAL = re.compile(r"^(?:What you want from the app|你想从应用得到什么)[:：]\s*(.+)$", re.MULTILINE)
_FACTS = re.compile(r"^(?:What you know|你知道的情况)[:：]\n((?:- .*\n?)+)", re.MULTILINE)
_HISTORY = re.compile(r"<history>\n(.*?)\n</history>", re.DOTALL)
_TURN = re.compile(r"^(USER|APP|用户|应用): ?(.*)$", re.MULTILINE)
_CANNOT = re.compile(r"sorry|cannot|can't|can only help|抱歉|无法", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]{4,}|[\u4e00-\u9fff]{2}")
SCHEMAS = ("simulated_user_first", "simulated_user_turn")


def _facts(text: str) -> list[str]:
    found = _FACTS.search(text)
    lines = found.group(1).splitlines() if found else []
    return [line[2:].strip() for line in lines if not line[2:].strip().startswith(("(", "（"))]


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def answer_simulated_user(text: str, schema_name: str, *, endless: bool = False) -> str | None:
    """The scripted user's answer to a ``sim_user`` prompt, else None."""
    if schema_name not in SCHEMAS:
        return None
    goal = _GOAL.search(text)
    if schema_name == "simulated_user_first":
        return json.dumps({"message": f"Hi, I need help. {goal.group(1) if goal else ''}"})
    history = _HISTORY.search(text)
    turns = _TURN.findall(history.group(1) if history else "")
    app = [t for who, t in turns if who in ("APP", "应用")]
    last = app[-1] if app else ""
    if endless:
        return _move("The app is still talking.", "reply", "Tell me more, please.")
    if _CANNOT.search(last):
        return _move(f"The app says it cannot help: {last}", "stuck")
    if "?" in last or "？" in last:
        if last in app[:-1]:
            return _move("The app asks the same question again.", "stuck")
        scored = sorted(((len(_words(f) & _words(last)), -i, f)
                         for i, f in enumerate(_facts(text))), reverse=True)
        fact = scored[0][2] if scored and scored[0][0] else "I don't know that."
        return _move(f"The app asked: {last}", "reply", fact)
    return _move(f"The app answered: {last}", "goal_met")


def _move(reason: str, action: str, message: str = "") -> str:
    return json.dumps({"reason": reason, "action": action, "message": message},
                      ensure_ascii=False)


@dataclass
class ScriptedUser:
    """The scripted user as a :class:`FakeJudge` script (see the module's docstring)."""

    endless: bool = False
    broken: bool = False
    fail: Exception | None = None

    def __call__(self, request: JudgeRequest) -> str | Exception:
        if self.fail is not None:
            return self.fail
        if self.broken:
            return "I would say something nice here."
        text = "\n".join(m["content"] for m in request.messages)
        answer = answer_simulated_user(text, request.schema_name, endless=self.endless)
        assert answer is not None, request.schema_name
        return answer


def scripted_user(**knobs: object) -> FakeJudge:
    """A :class:`FakeJudge` running :class:`ScriptedUser` with ``knobs``."""
    return FakeJudge(ScriptedUser(**knobs), id="fake:user")  # type: ignore[arg-type]
