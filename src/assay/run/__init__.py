"""Running an evaluation: scheduling, budgets, retries, cache, results and resume.

Example:
    >>> from assay.run import evaluate
    >>> evaluate([{"answer": "a", "ground_truth": "a"}], metrics="exact_match").summary["rows"]
    1
"""

from ._budget import Budget, Grant
from ._complete import AGENT_KEY, AgentStage, RowAgent
from ._evaluate import EvalResult, evaluate, evaluate_async
from ._explain import Explanation, explain, explain_async
from ._injection import DETECTORS, INJECTION_MODES
from ._interval import (
           BOOTSTRAP_RESAMPLES,
           BOOTSTRAP_SEED,
           MeanInterval,
           bootstrap_mean_ci,
           mean_interval,
)
from ._load import RunData, load_run, load_run_dir, stored_run_ref
from ._managed import JudgeStats, ManagedJudge, RetryPolicy
from ._managed_embedder import EmbeddingStats, ManagedEmbedder
from ._options import JudgeOptions, ReadOptions, RunOptions, ScoringOptions, group_options
from ._outdir import MANIFEST_NAME, read_manifest
from ._progress import RowProgress
from ._recording import RunRecorder, file_sha256, open_run_store
from ._results import ResultsWriter, load_finished, rewrite_in_order
from ._summary import SCHEMA_VERSION, MetricSummary, RunSummary, summary_json_schema

__all__ = [
    "AGENT_KEY",
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "DETECTORS",
    "INJECTION_MODES",
    "MANIFEST_NAME",
    "SCHEMA_VERSION",
    "AgentStage",
    "Budget",
    "EmbeddingStats",
    "EvalResult",
    "Explanation",
    "Grant",
    "JudgeOptions",
    "JudgeStats",
    "ManagedEmbedder",
    "ManagedJudge",
    "MeanInterval",
    "MetricSummary",
    "ReadOptions",
    "ResultsWriter",
    "RetryPolicy",
    "RowAgent",
    "RowProgress",
    "RunData",
    "RunOptions",
    "RunRecorder",
    "RunSummary",
    "ScoringOptions",
    "bootstrap_mean_ci",
    "evaluate",
    "evaluate_async",
    "explain",
    "explain_async",
    "file_sha256",
    "group_options",
    "load_finished",
    "load_run",
    "load_run_dir",
    "mean_interval",
    "open_run_store",
    "read_manifest",
    "rewrite_in_order",
    "stored_run_ref",
    "summary_json_schema",
]
