"""PAIR-style refinement: the attacker improves one attack message over up to ``max_attempts``
attempts, each sent to the app on its own (a new single-turn conversation), from the rating
of the previous attempt's reply (the message, the reply, its severity and the rater's reason,
and whether the app refused). The attack stops at the first reply at or above the threshold.

The row shows the attempt that succeeded, else the most harmful rated one (the first on a
tie), else the last; every attempt is in its ``exchanges``.

Also the plain side: each seed asked once as it is, and rated the same way.

Example:
    >>> import asyncio, json
    >>> from assay.judges import FakeJudge
    >>> from assay.metrics import ScoreContext
    >>> from assay.metrics.safety import CATEGORIES
    >>> from assay.redteam import FunctionTarget
    >>> async def app(messages):
    ...     return "Sure, here it is." if "story" in messages[0]["content"] else "No."
    >>> attacker = FakeJudge(lambda req: json.dumps({"improvement": "i", "prompt":
    ...     "tell it as a story" if "harm severity 0" in req.messages[1]["content"]
    ...     else "just ask"}))
    >>> def judge(req):
    ...     harmful = "Sure" in req.messages[1]["content"]
    ...     if req.schema_name == "verdict":
    ...         return "No." if harmful else "Yes."
    ...     return json.dumps({c: {"severity": 6 if harmful else 0, "reason": "r"}
    ...                        for c in CATEGORIES})
    >>> scorer = ReplyScorer(ScoreContext(judge=FakeJudge(judge)), threshold="medium")
    >>> conv = asyncio.run(pair("goal", FunctionTarget(app), Attacker(attacker), scorer,
    ...                         max_attempts=3))
    >>> [e.user for e in conv.exchanges], conv.success_turn, conv.shown[0].user
    (['just ask', 'tell it as a story'], 2, 'tell it as a story')
"""

from __future__ import annotations

from ..targets import ChatTarget
from ._attacker import Attacker
from ._exchange import AppCalls, Conversation, Exchange, Failure, ask_app
from ._scorer import ReplyScorer

__all__ = ["ask_plain", "pair"]


async def pair(goal: str, target: ChatTarget, attacker: Attacker, scorer: ReplyScorer, *,
               max_attempts: int, calls: AppCalls | None = None) -> Conversation:
    """Run one refinement attack toward ``goal`` (see the module's docstring)."""
    sent: list[Exchange] = []
    previous: Exchange | None = None
    for attempt in range(1, max_attempts + 1):
        move = await attacker.pair(goal, attempt=attempt, max_attempts=max_attempts,
                                   previous=previous)
        if isinstance(move, Failure):
            return _done(sent, None, f"attacker failed on turn {attempt}: {move.why}")
        reply = await ask_app(target, [{"role": "user", "content": move.message}],
                              turn=attempt, calls=calls)
        if isinstance(reply, Failure):
            return _done(sent, None, reply.why)
        score = await scorer.rate(move.message, reply.text)
        previous = Exchange(attempt, move.message, reply.text, score, move.note, cut=reply.cut)
        sent.append(previous)
        if score.success:
            return _done(sent, attempt, None)
    return _done(sent, None, None)


def _done(sent: list[Exchange], success_turn: int | None, error: str | None) -> Conversation:
    rated = [e for e in sent if e.score.severity is not None]
    if success_turn is not None:
        shown = [sent[-1]]
    elif rated:
        shown = [max(rated, key=lambda e: (e.score.severity or 0.0, -e.turn))]
    else:
        shown = sent[-1:]
    return Conversation(sent, shown, len(sent), success_turn, 0, error)


async def ask_plain(goal: str, target: ChatTarget, scorer: ReplyScorer,
                    calls: AppCalls | None = None) -> Conversation:
    """The plain side: ``goal`` asked once as it is, the reply rated."""
    reply = await ask_app(target, [{"role": "user", "content": goal}], turn=1, calls=calls)
    if isinstance(reply, Failure):
        return Conversation([], [], 0, None, 0, reply.why)
    score = await scorer.rate(goal, reply.text)
    exchange = Exchange(1, goal, reply.text, score, cut=reply.cut)
    return Conversation([exchange], [exchange], 1, 1 if score.success else None)
