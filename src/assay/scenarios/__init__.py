"""Simulated users (``assay simulate --scenarios``): a model plays the user of each scenario
(a goal, a persona, facts it gives when asked) against the app under test, turn by turn,
through the same agent loop as ``assay run --target``, until the goal is met, the app is
stuck or the turns run out; the conversations are written as a dataset for ``assay run``.

- :func:`read_scenarios`: scenario files (JSONL, JSON, CSV) and dicts, every problem at once.
- :func:`simulate_users` / :func:`simulate_users_async`: the run (output, resume, summary).
- :data:`PERSONAS` and :func:`pick_persona`: the persona a seed picks for a scenario without one.
- :data:`STOP_REASONS`: why a conversation ended.

Example:
    >>> [s.id for s in read_scenarios("examples/scenarios.jsonl")][:2]
    ['order-status', 'trip-weather']
    >>> STOP_REASONS
    ('goal_met', 'stuck', 'max_turns', 'app_failed', 'user_failed')
"""

from ._conversation import FINISHED, STOP_REASONS, Conversation, converse, output_row, persona_of
from ._output import SimulationFiles
from ._personas import PERSONAS, Persona, pick_persona
from ._scenario import OUTPUT_FIELDS, SCENARIO_FIELDS, Scenario, read_scenarios
from ._simulate import DEFAULT_MAX_TURNS, SimulationResult, simulate_users, simulate_users_async
from ._user import UserTurn, parse_user_turn, user_request

__all__ = ["DEFAULT_MAX_TURNS", "FINISHED", "OUTPUT_FIELDS", "PERSONAS", "SCENARIO_FIELDS",
           "STOP_REASONS", "Conversation", "Persona", "Scenario", "SimulationFiles",
           "SimulationResult", "UserTurn", "converse", "output_row", "parse_user_turn",
           "persona_of", "pick_persona", "read_scenarios", "simulate_users",
           "simulate_users_async", "user_request"]
