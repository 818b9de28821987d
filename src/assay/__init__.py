"""assay: evaluate generative-AI apps (QA, chat, RAG) with trustworthy scores and reasons.

``import assay`` is cheap: the public names below are imported on first use (PEP 562), so a
script that only needs ``assay.errors`` or ``assay.judges`` never pays for the runner, the
store or the calibration tables, and heavy optional libraries (``openai``, ``xllamacpp``,
``onnxruntime``, ``ray``, ...) are imported only where they are used.

Example:
    >>> import assay
    >>> result = assay.evaluate([{"answer": "Paris", "ground_truth": "Paris"}], metrics="f1_score")
    >>> result.summary["metrics"]["f1_score"]["mean"]
    1.0
"""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

from .errors import AssayError, ConfigError, DataError, JudgeError

if TYPE_CHECKING:  # what the lazy names below resolve to, for type checkers and IDEs
    from .calibration import CalibrationResult, calibrate
    from .data import Row, read_dataset
    from .judges import FakeJudge, Judge, JudgeCapabilities, JudgeRequest, JudgeResponse, make_judge
    from .metrics import Metric, MetricResult, get_metric, register
    from .metrics.custom import PairwiseMetric, PointwiseMetric, load_metric_file
    from .records import MetricSummary, RunSummary
    from .run import (
        EvalResult,
        Explanation,
        JudgeOptions,
        ReadOptions,
        RunOptions,
        ScoringOptions,
        evaluate,
        evaluate_async,
        explain,
    )

from ._version import __version__

#: Public name -> the package that defines it (imported on first access).
_LAZY: dict[str, str] = {
    "CalibrationResult": ".calibration", "calibrate": ".calibration",
    "Row": ".data", "read_dataset": ".data",
    "FakeJudge": ".judges", "Judge": ".judges", "JudgeCapabilities": ".judges",
    "JudgeRequest": ".judges", "JudgeResponse": ".judges", "make_judge": ".judges",
    "Metric": ".metrics", "MetricResult": ".metrics", "get_metric": ".metrics",
    "register": ".metrics",
    "PairwiseMetric": ".metrics.custom", "PointwiseMetric": ".metrics.custom",
    "load_metric_file": ".metrics.custom",
    "EvalResult": ".run", "evaluate": ".run", "evaluate_async": ".run",
    "Explanation": ".run", "explain": ".run",
    "MetricSummary": ".records", "RunSummary": ".records", "JudgeOptions": ".run", "ReadOptions": ".run",
    "RunOptions": ".run", "ScoringOptions": ".run",
}

__all__ = ["AssayError", "CalibrationResult", "ConfigError", "DataError", "EvalResult",
           "Explanation", "FakeJudge", "Judge", "JudgeCapabilities", "JudgeError", "JudgeOptions", "JudgeRequest",
           "JudgeResponse", "Metric", "MetricResult", "MetricSummary", "PairwiseMetric",
           "PointwiseMetric", "ReadOptions", "Row", "RunOptions", "RunSummary", "ScoringOptions", "__version__", "calibrate", "evaluate", "evaluate_async", "explain", "get_metric",
           "load_metric_file", "make_judge", "read_dataset", "register"]


def __getattr__(name: str) -> Any:
    """Import a public name's package (or a subpackage, ``assay.judges``) on first access and
    keep the name here."""
    package = _LAZY.get(name)
    if package is None:
        if name.startswith("_") or find_spec(f"{__name__}.{name}") is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        return import_module(f".{name}", __name__)
    value = getattr(import_module(package, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
