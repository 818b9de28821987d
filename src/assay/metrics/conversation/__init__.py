"""Judged conversation metrics: how a whole conversation went, for multi-turn datasets such as
the conversations ``assay simulate --scenarios`` writes (any conversation row will do).

- ``goal_completion`` (1-5): the conversation reached the row's ``expected_outcome`` (or its
  ``goal`` when it gives none);
- ``knowledge_retention`` (1-5): the app neither asks again for what the user told it nor
  contradicts it later;
- ``role_adherence`` (1-5): the app's turns keep the role and instructions of the system message
  the conversation starts with;
- ``turn_relevance`` (0-1): the share of the app's turns that respond to the user's last message.

The first three send one judge request per conversation and may name the assistant turn their
reason is about (``details["turn"]``, an index into ``messages``); ``turn_relevance`` sends one
per assistant turn and gives a verdict for each (``details["turns"]``). The transcript is
numbered by those indices; every text is fenced as data (:mod:`assay.asking`), and a run
withholds text addressed to the judge from the turns first, as for every judge metric.
``goal_completion`` is in ``--metrics auto`` (it applies only to rows that give an outcome or a
goal); the other three are asked for by name.

Example:
    >>> from assay.data import Row, Turn
    >>> row = Row(id="s1", line=1, extra={"expected_outcome": "A table for two at 8 pm."},
    ...           messages=[Turn(role="user", content="A table for two tonight?"),
    ...                     Turn(role="assistant", content="Booked for two at 8 pm.")])
    >>> [m.applies(row) is None for m in CONVERSATION_JUDGED]
    [True, True, False, True]
    >>> ROLE_ADHERENCE.applies(row)
    "conversation does not start with a system message: role_adherence judges the app's turns against it"
"""

from ._rubric import GOAL_COMPLETION, KNOWLEDGE_RETENTION, ROLE_ADHERENCE, ConversationRubricMetric
from ._transcript import (
    NAMED_TURN_SCHEMA,
    ConversationView,
    instructions_of,
    parse_named_turn,
    place_turn,
    scenario_text,
)
from ._turn_relevance import TURN_RELEVANCE, TurnRelevance, share_of_turns

#: Every judged conversation metric, in the order they are listed.
CONVERSATION_JUDGED = (GOAL_COMPLETION, KNOWLEDGE_RETENTION, ROLE_ADHERENCE, TURN_RELEVANCE)

__all__ = ["CONVERSATION_JUDGED", "GOAL_COMPLETION",
           "KNOWLEDGE_RETENTION", "NAMED_TURN_SCHEMA", "ROLE_ADHERENCE", "TURN_RELEVANCE",
           "ConversationRubricMetric", "ConversationView", "TurnRelevance", "instructions_of",
           "parse_named_turn", "place_turn", "scenario_text", "share_of_turns"]
