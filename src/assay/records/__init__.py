"""The run as written and read back: the output folder and its lock, ``results.jsonl``
(written in dataset order as rows finish, read back on resume), ``summary.json`` and its
schema, the run store's recording, bootstrap and Wilson intervals, the failed-call tally,
the test-retest figures of judge metrics asked several times per row, and the progress bar.
The report, compare, the web UI and the CI gate read runs through here.

Each public name is imported on first use (PEP 562): a command that needs one of them does
not import the run store (SQLAlchemy) or numpy unless that name needs them.

Example:
    >>> import json, pathlib, tempfile
    >>> from assay.records import ResultsWriter, load_finished, wilson_interval
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> with ResultsWriter(out / "results.jsonl") as writer:
    ...     writer.write({"id": "r1", "results": {"f1": {"value": 1.0}}})
    >>> sorted(load_finished(out / "results.jsonl"))
    ['r1']
    >>> wilson_interval(3, 4)
    (0.3006, 0.9544)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:  # what the lazy names below resolve to, for type checkers and IDEs
    from ._alpha import alpha_of
    from ._failures import call_failures
    from ._interval import bootstrap_mean_ci, with_interval
    from ._job import Job, JobRows
    from ._latency import (
        ROW_LATENCY,
        LatencyTally,
        latency_line,
        latency_lines,
        metric_latency_line,
    )
    from ._load import RunData, load_run, load_run_dir, stored_run_ref
    from ._manifest import MANIFEST_NAME, RunManifest, read_manifest
    from ._minute_spend import MinuteSeries
    from ._outdir import lock_file
    from ._pool import work_each
    from ._progress import RowProgress
    from ._recording import RunRecorder, file_sha256, open_run_store, start_recording
    from ._results import (
        EvalResult,
        ResultsWriter,
        attempt,
        is_call_failure,
        kept_results,
        load_finished,
        reorder_results,
        result_value,
        rewrite_in_order,
        write_summary,
    )
    from ._retest import RetestTally, with_failed_repeats
    from ._side_run import ResumeWords, plain_difference
    from ._sink import ResultSink
    from ._stored_row import StoredRow, judge_spec_of, store_reasons, write_reasons
    from ._summary import MetricSummary, RunSummary, typed_summary
    from ._wilson import wilson_interval

#: Each public name and the module it lives in.
_LAZY: dict[str, str] = {
    "call_failures": "._failures",
    "RetestTally": "._retest", "with_failed_repeats": "._retest",
    "alpha_of": "._alpha",
    "bootstrap_mean_ci": "._interval",
    "with_interval": "._interval",
    "Job": "._job",
    "LatencyTally": "._latency", "ROW_LATENCY": "._latency",
    "latency_line": "._latency", "latency_lines": "._latency", "metric_latency_line": "._latency",
    "JobRows": "._job",
    "RunData": "._load",
    "load_run": "._load",
    "load_run_dir": "._load",
    "stored_run_ref": "._load",
    "MANIFEST_NAME": "._manifest",
    "MinuteSeries": "._minute_spend",
    "RunManifest": "._manifest",
    "read_manifest": "._manifest",
    "lock_file": "._outdir",
    "work_each": "._pool",
    "RowProgress": "._progress",
    "RunRecorder": "._recording",
    "file_sha256": "._recording",
    "open_run_store": "._recording",
    "start_recording": "._recording",
    "EvalResult": "._results",
    "ResultsWriter": "._results",
    "attempt": "._results",
    "is_call_failure": "._results",
    "kept_results": "._results",
    "load_finished": "._results",
    "reorder_results": "._results",
    "result_value": "._results",
    "rewrite_in_order": "._results",
    "write_summary": "._results",
    "ResumeWords": "._side_run",
    "plain_difference": "._side_run",
    "ResultSink": "._sink",
    "StoredRow": "._stored_row",
    "judge_spec_of": "._stored_row",
    "store_reasons": "._stored_row",
    "write_reasons": "._stored_row",
    "MetricSummary": "._summary",
    "RunSummary": "._summary",
    "typed_summary": "._summary",
    "wilson_interval": "._wilson",
}

__all__ = [
    "MANIFEST_NAME",
    "ROW_LATENCY",
    "EvalResult",
    "Job",
    "JobRows",
    "LatencyTally",
    "MetricSummary",
    "MinuteSeries",
    "ResultSink",
    "ResultsWriter",
    "ResumeWords",
    "RetestTally",
    "RowProgress",
    "RunData",
    "RunManifest",
    "RunRecorder",
    "RunSummary",
    "StoredRow",
    "alpha_of",
    "attempt",
    "bootstrap_mean_ci",
    "call_failures",
    "file_sha256",
    "is_call_failure",
    "judge_spec_of",
    "kept_results",
    "latency_line",
    "latency_lines",
    "load_finished",
    "load_run",
    "load_run_dir",
    "lock_file",
    "metric_latency_line",
    "open_run_store",
    "plain_difference",
    "read_manifest",
    "reorder_results",
    "result_value",
    "rewrite_in_order",
    "start_recording",
    "store_reasons",
    "stored_run_ref",
    "typed_summary",
    "wilson_interval",
    "with_failed_repeats",
    "with_interval",
    "work_each",
    "write_reasons",
    "write_summary",
]


__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
