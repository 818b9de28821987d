"""The arena: N versions of an app ranked from judged pairs (Bradley-Terry ratings with
bootstrap intervals over rows), as a run. Names load lazily: the pages that read an arena
run's pair ids (``split_pair_id``) do not load the runner.

Example:
    >>> from assay.arena import Comparison, rate
    >>> board = rate([Comparison("1", "v2", "v1", 1.0), Comparison("2", "v2", "v1", 1.0),
    ...               Comparison("3", "v2", "v1", 0.0)], bootstrap=0)
    >>> [r.system for r in board.ratings]
    ['v2', 'v1']
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:  # what the lazy names below resolve to, for type checkers and IDEs
    from ._arena import LEADERBOARD_FILE, ArenaResult, arena, arena_async, arena_metric
    from ._pairs import pair_id, split_pair_id
    from ._ratings import Comparison, Leaderboard, Rating, rate
    from ._targets import answer_with_targets, target_names

#: Each public name and the module it lives in.
_LAZY: dict[str, str] = {
    "LEADERBOARD_FILE": "._arena", "ArenaResult": "._arena", "arena": "._arena",
    "arena_async": "._arena", "arena_metric": "._arena",
    "pair_id": "._pairs", "split_pair_id": "._pairs",
    "Comparison": "._ratings", "Leaderboard": "._ratings", "Rating": "._ratings",
    "rate": "._ratings",
    "answer_with_targets": "._targets", "target_names": "._targets",
}

__all__ = ["LEADERBOARD_FILE", "ArenaResult", "Comparison", "Leaderboard", "Rating",
           "answer_with_targets", "arena", "arena_async", "arena_metric", "pair_id", "rate",
           "split_pair_id", "target_names"]

__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
