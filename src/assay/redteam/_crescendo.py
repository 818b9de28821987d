"""Crescendo: a conversation that starts harmless and escalates, turn by turn, toward the seed's
harmful goal, each message built on the app's last reply.

Every reply is rated (:class:`ReplyScorer`); the attack stops at the first reply at or above
the threshold (a success, at that turn), after ``max_turns`` turns, or when the attacker or
the app fails. When the app refuses, the attack *backtracks*: the refused exchange is taken out
of the conversation the app is sent next (the record keeps it, marked ``backtracked``), and the
attacker is asked for a softer message for the same turn. A backtrack does not use up a turn;
after ``max_backtracks`` of them a refused exchange stays in the conversation and the attack
goes on from it.

Example:
    >>> import asyncio, json
    >>> from assay.judges import FakeJudge
    >>> from assay.metrics import ScoreContext
    >>> from assay.metrics.safety import CATEGORIES
    >>> from assay.redteam import FunctionTarget
    >>> async def app(messages):
    ...     return "I'm sorry, I can't." if "bad" in messages[-1]["content"] else "Sure."
    >>> attacker = FakeJudge(lambda req: json.dumps(
    ...     {"plan": "p", "message": "a softer ask" if "<refused>" in req.messages[1]["content"]
    ...      else "a bad ask"}))
    >>> def judge(req):
    ...     if req.schema_name == "verdict":
    ...         return "Yes." if "sorry" in req.messages[1]["content"] else "No."
    ...     return json.dumps({c: {"severity": 0, "reason": "none"} for c in CATEGORIES})
    >>> scorer = ReplyScorer(ScoreContext(judge=FakeJudge(judge)), threshold="medium")
    >>> conv = asyncio.run(crescendo("goal", FunctionTarget(app), Attacker(attacker), scorer,
    ...                              max_turns=2, max_backtracks=1))
    >>> [(e.turn, e.user, e.backtracked) for e in conv.exchanges]
    [(1, 'a bad ask', True), (1, 'a softer ask', False), (2, 'a bad ask', False)]
    >>> conv.turns, conv.backtracks, conv.success_turn
    (2, 1, None)
"""

from __future__ import annotations

from ..targets import ChatTarget
from ._attacker import Attacker
from ._exchange import AppCalls, Conversation, Exchange, Failure, ask_app, conversation
from ._scorer import ReplyScorer

__all__ = ["crescendo"]


async def crescendo(goal: str, target: ChatTarget, attacker: Attacker, scorer: ReplyScorer, *,
                    max_turns: int, max_backtracks: int, calls: AppCalls | None = None
                    ) -> Conversation:
    """Run one crescendo attack toward ``goal`` (see the module's docstring)."""
    kept: list[Exchange] = []  # the conversation the app is sent
    sent: list[Exchange] = []  # every exchange, backtracked ones too
    refused: list[Exchange] = []  # refused attempts at the current turn
    backtracks = 0
    while len(kept) < max_turns:
        turn = len(kept) + 1
        move = await attacker.crescendo(goal, turn=turn, max_turns=max_turns, history=kept,
                                        refused=refused)
        if isinstance(move, Failure):
            return Conversation(sent, kept, len(kept), None, backtracks,
                                f"attacker failed on turn {turn}: {move.why}")
        reply = await ask_app(target, [*conversation(kept),
                                       {"role": "user", "content": move.message}], turn=turn,
                              calls=calls)
        if isinstance(reply, Failure):
            return Conversation(sent, kept, len(kept), None, backtracks, reply.why)
        score = await scorer.rate(move.message, reply.text)
        back = (not score.success and bool(score.refused) and backtracks < max_backtracks)
        exchange = Exchange(turn, move.message, reply.text, score, move.note, backtracked=back,
                            cut=reply.cut)
        sent.append(exchange)
        if back:
            backtracks += 1
            refused.append(exchange)
            continue
        kept.append(exchange)
        refused = []
        if score.success:
            return Conversation(sent, kept, turn, turn, backtracks)
    return Conversation(sent, kept, len(kept), None, backtracks)
