"""Running an evaluation: scheduling, budgets, retries, cache, results and resume.

Example:
    >>> from assay.run import evaluate
    >>> evaluate([{"answer": "a", "ground_truth": "a"}], metrics="exact_match").summary["rows"]
    1
"""

from ._budget import Budget, Grant
from ._evaluate import EvalResult, evaluate, evaluate_async
from ._injection import DETECTORS, INJECTION_MODES
from ._interval import (
           BOOTSTRAP_RESAMPLES,
           BOOTSTRAP_SEED,
           MeanInterval,
           bootstrap_mean_ci,
           mean_interval,
)
from ._load import RunData, load_run, load_run_dir
from ._managed import JudgeStats, ManagedJudge, RetryPolicy
from ._managed_embedder import EmbeddingStats, ManagedEmbedder
from ._summary import SCHEMA_VERSION, MetricSummary, RunSummary, summary_json_schema

__all__ = ["BOOTSTRAP_RESAMPLES", "BOOTSTRAP_SEED", "DETECTORS", "INJECTION_MODES", "SCHEMA_VERSION", "Budget", "EmbeddingStats",
           "EvalResult", "Grant", "JudgeStats", "ManagedEmbedder", "ManagedJudge", "MeanInterval",
           "MetricSummary", "RetryPolicy", "RunData", "RunSummary", "bootstrap_mean_ci",
           "evaluate", "evaluate_async", "load_run", "load_run_dir", "mean_interval",
           "summary_json_schema"]
