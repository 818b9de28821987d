"""Running an evaluation: :func:`evaluate` with its option objects, the engines that score
rows (local asyncio workers, or Ray), the scoring of each row, judge panels and the tally that
becomes the summary; :class:`StreamScorer` scores rows that keep arriving (``assay watch``). Model calls go through :mod:`assay.calls`; what a run writes and reads
back lives in :mod:`assay.records`.

Example:
    >>> from assay.run import evaluate
    >>> evaluate([{"answer": "a", "ground_truth": "a"}], metrics="exact_match").summary["rows"]
    1
"""

from ..records import EvalResult
from ._complete import AGENT_KEY, AgentStage, RowAgent
from ._evaluate import evaluate, evaluate_async
from ._explain import Explanation, explain, explain_async
from ._folding import group_options
from ._injection import DETECTORS, INJECTION_MODES
from ._options import JudgeOptions, ReadOptions, RunOptions, ScoringOptions
from ._setup import StreamScorer
from ._sync import run_sync

__all__ = [
    "AGENT_KEY",
    "DETECTORS",
    "INJECTION_MODES",
    "AgentStage",
    "EvalResult",
    "Explanation",
    "JudgeOptions",
    "ReadOptions",
    "RowAgent",
    "RunOptions",
    "ScoringOptions",
    "StreamScorer",
    "evaluate",
    "evaluate_async",
    "explain",
    "explain_async",
    "group_options",
    "run_sync",
]
