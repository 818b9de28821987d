"""assay: evaluate generative-AI apps (QA, chat, RAG) with trustworthy scores and reasons.

Example:
    >>> import assay
    >>> result = assay.evaluate([{"answer": "Paris", "ground_truth": "Paris"}], metrics="f1_score")
    >>> result.summary["metrics"]["f1_score"]["mean"]
    1.0
"""

from .calibration import CalibrationResult, calibrate
from .data import Row, read_dataset
from .errors import AssayError, ConfigError, DataError, JudgeError
from .judges import FakeJudge, Judge, JudgeRequest, JudgeResponse, make_judge
from .metrics import Metric, MetricResult, get_metric, register
from .metrics.custom import PairwiseMetric, PointwiseMetric, load_metric_file
from .run import (
    EvalResult,
    JudgeOptions,
    ReadOptions,
    RunOptions,
    ScoringOptions,
    evaluate,
    evaluate_async,
)

__version__ = "0.1.0"

__all__ = ["AssayError", "CalibrationResult", "ConfigError", "DataError", "EvalResult",
           "FakeJudge", "Judge", "JudgeError", "JudgeOptions", "JudgeRequest", "JudgeResponse",
           "Metric", "MetricResult", "PairwiseMetric", "PointwiseMetric", "ReadOptions", "Row",
           "RunOptions", "ScoringOptions", "__version__",
           "calibrate", "evaluate", "evaluate_async", "get_metric", "load_metric_file",
           "make_judge", "read_dataset", "register"]
