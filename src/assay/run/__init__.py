"""Running an evaluation: scheduling, budgets, retries, cache, results and resume.

Example:
    >>> from assay.run import evaluate
    >>> evaluate([{"answer": "a", "ground_truth": "a"}], metrics="exact_match").summary["rows"]
    1
"""

from ._budget import Budget, Grant
from ._evaluate import EvalResult, evaluate, evaluate_async
from ._injection import DETECTORS, INJECTION_MODES
from ._load import RunData, load_run, load_run_dir
from ._managed import JudgeStats, ManagedJudge, RetryPolicy
from ._managed_embedder import EmbeddingStats, ManagedEmbedder
from ._options import JudgeOptions, ReadOptions, RunOptions, ScoringOptions, group_options

__all__ = ["DETECTORS", "INJECTION_MODES", "Budget", "EmbeddingStats", "EvalResult", "Grant", "JudgeOptions", "JudgeStats", "ManagedEmbedder",
           "ManagedJudge", "ReadOptions", "RetryPolicy", "RunData", "RunOptions", "ScoringOptions",
           "evaluate", "evaluate_async", "group_options", "load_run", "load_run_dir"]
