"""Running an evaluation: :func:`evaluate` with its option objects, the engines that score
rows (local asyncio workers, or Ray), the scoring of each row, judge panels and the tally that
becomes the summary; :class:`StreamScorer` scores rows that keep arriving (``assay watch``). Model calls go through :mod:`assay.calls`; what a run writes and reads
back lives in :mod:`assay.records`.

Each public name is imported on first use (PEP 562), so a command that only needs the option
objects (``ScoringOptions()``'s defaults for its flags) does not import the runner, the
injection patterns, the store or numpy.

Example:
    >>> from assay.run import evaluate
    >>> evaluate([{"answer": "a", "ground_truth": "a"}], metrics="exact_match").summary["rows"]
    1
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:  # what the lazy names below resolve to, for type checkers and IDEs
    from ..records import EvalResult
    from ._complete import AGENT_KEY, AgentStage, RowAgent
    from ._evaluate import evaluate, evaluate_async
    from ._explain import Explanation, explain, explain_async
    from ._folding import group_options
    from ._injection import DETECTORS, INJECTION_MODES
    from ._options import JudgeOptions, ReadOptions, RunOptions, ScoringOptions
    from ._setup import StreamScorer
    from ._sync import run_sync

#: Each public name and the module it lives in.
_LAZY: dict[str, str] = {
    "EvalResult": "..records",
    "AGENT_KEY": "._complete", "AgentStage": "._complete", "RowAgent": "._complete",
    "evaluate": "._evaluate", "evaluate_async": "._evaluate",
    "Explanation": "._explain", "explain": "._explain", "explain_async": "._explain",
    "group_options": "._folding",
    "DETECTORS": "._injection", "INJECTION_MODES": "._injection",
    "JudgeOptions": "._options", "ReadOptions": "._options", "RunOptions": "._options",
    "ScoringOptions": "._options",
    "StreamScorer": "._setup",
    "run_sync": "._sync",
}

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


__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
