"""Simulated users (``assay simulate --scenarios``): a model plays the user of each scenario
(a goal, a persona, facts it gives when asked) against the app under test, turn by turn,
through the same agent loop as ``assay run --target``, until the goal is met, the app is
stuck or the turns run out; the conversations are written as a dataset for ``assay run``.

- :func:`read_scenarios`: scenario files (JSONL, JSON, CSV) and dicts as :class:`Scenario`
  objects, every problem at once.
- :func:`simulate_users` / :func:`simulate_users_async`: the run (output, resume, summary),
  returning a :class:`SimulationResult` (with the :class:`SimulationFiles` written); a scenario
  without a persona gets one picked by the seed; at most :data:`DEFAULT_MAX_TURNS` user turns
  unless told.
- :data:`STOP_REASONS`: why a conversation ended.

Example:
    >>> [s.id for s in read_scenarios("examples/scenarios.jsonl")][:2]
    ['order-status', 'trip-weather']
    >>> STOP_REASONS
    ('goal_met', 'stuck', 'max_turns', 'app_failed', 'user_failed')
"""

from ._conversation import STOP_REASONS, converse
from ._output import SimulationFiles
from ._scenario import Scenario, read_scenarios
from ._simulate import DEFAULT_MAX_TURNS, SimulationResult, simulate_users, simulate_users_async

__all__ = ["DEFAULT_MAX_TURNS", "STOP_REASONS", "Scenario", "SimulationFiles", "SimulationResult",
           "converse", "read_scenarios", "simulate_users", "simulate_users_async"]
