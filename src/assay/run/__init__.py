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
from ._outdir import MANIFEST_NAME, read_manifest
from ._progress import RowProgress
from ._recording import RunRecorder, file_sha256, open_run_store
from ._results import ResultsWriter, load_finished, rewrite_in_order

__all__ = [
    "DETECTORS",
    "INJECTION_MODES",
    "MANIFEST_NAME",
    "Budget",
    "EmbeddingStats",
    "EvalResult",
    "Grant",
    "JudgeStats",
    "ManagedEmbedder",
    "ManagedJudge",
    "ResultsWriter",
    "RetryPolicy",
    "RowProgress",
    "RunData",
    "RunRecorder",
    "evaluate",
    "evaluate_async",
    "file_sha256",
    "load_finished",
    "load_run",
    "load_run_dir",
    "open_run_store",
    "read_manifest",
    "rewrite_in_order",
]
