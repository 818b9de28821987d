"""The arena: N versions of an app ranked from judged pairs (Bradley-Terry ratings with
bootstrap intervals over rows), as a run.

Example:
    >>> from assay.arena import Comparison, rate
    >>> board = rate([Comparison("1", "v2", "v1", 1.0), Comparison("2", "v2", "v1", 1.0),
    ...               Comparison("3", "v2", "v1", 0.0)], bootstrap=0)
    >>> [r.system for r in board.ratings]
    ['v2', 'v1']
"""

from ._arena import LEADERBOARD_FILE, ArenaResult, arena, arena_async, arena_metric
from ._ratings import Comparison, Leaderboard, Rating, rate

__all__ = ["LEADERBOARD_FILE", "ArenaResult", "Comparison", "Leaderboard", "Rating", "arena",
           "arena_async", "arena_metric", "rate"]
