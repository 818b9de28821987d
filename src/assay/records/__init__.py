"""The run as written and read back: the output folder and its lock, ``results.jsonl``
(written in dataset order as rows finish, read back on resume), ``summary.json`` and its
schema, the run store's recording, bootstrap and Wilson intervals, the failed-call tally and the
progress bar. The report, compare, the web UI and the CI gate read runs through here.

Each public name is imported on first use (PEP 562): a command that needs one of them does
not import the run store (SQLAlchemy) or numpy unless that name needs them.

Example:
    >>> import json, pathlib, tempfile
    >>> from assay.records import ResultsWriter, load_finished, mean_interval
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> with ResultsWriter(out / "results.jsonl") as writer:
    ...     writer.write({"id": "r1", "results": {"f1": {"value": 1.0}}})
    >>> sorted(load_finished(out / "results.jsonl"))
    ['r1']
    >>> mean_interval([1.0, 0.0, 1.0, 1.0]).mean
    0.75
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:  # what the lazy names below resolve to, for type checkers and IDEs
    from ._failures import call_failures, over_failed_share
    from ._interval import (
        BOOTSTRAP_RESAMPLES,
        BOOTSTRAP_SEED,
        MeanInterval,
        bootstrap_mean_ci,
        mean_interval,
        with_interval,
    )
    from ._job import Job, JobRows
    from ._load import RunData, load_run, load_run_dir, stored_run_ref
    from ._manifest import MANIFEST_NAME, RunManifest, read_manifest
    from ._outdir import OutputClaim, hold_output, lock_file, lock_output
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
    from ._side_run import ResumeWords, check_resume_files, plain_difference
    from ._sink import ResultSink
    from ._stored_row import StoredRow, judge_spec_of, store_reasons, write_reasons
    from ._summary import (
        SCHEMA_VERSION,
        MetricSummary,
        RunSummary,
        summary_json_schema,
        typed_summary,
    )
    from ._wilson import wilson_interval

#: Each public name and the module it lives in.
_LAZY: dict[str, str] = {
    "call_failures": "._failures",
    "over_failed_share": "._failures",
    "BOOTSTRAP_RESAMPLES": "._interval",
    "BOOTSTRAP_SEED": "._interval",
    "MeanInterval": "._interval",
    "bootstrap_mean_ci": "._interval",
    "mean_interval": "._interval",
    "with_interval": "._interval",
    "Job": "._job",
    "JobRows": "._job",
    "RunData": "._load",
    "load_run": "._load",
    "load_run_dir": "._load",
    "stored_run_ref": "._load",
    "MANIFEST_NAME": "._manifest",
    "RunManifest": "._manifest",
    "read_manifest": "._manifest",
    "OutputClaim": "._outdir",
    "hold_output": "._outdir",
    "lock_file": "._outdir",
    "lock_output": "._outdir",
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
    "check_resume_files": "._side_run",
    "plain_difference": "._side_run",
    "ResultSink": "._sink",
    "StoredRow": "._stored_row",
    "judge_spec_of": "._stored_row",
    "store_reasons": "._stored_row",
    "write_reasons": "._stored_row",
    "SCHEMA_VERSION": "._summary",
    "MetricSummary": "._summary",
    "RunSummary": "._summary",
    "summary_json_schema": "._summary",
    "typed_summary": "._summary",
    "wilson_interval": "._wilson",
}

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "MANIFEST_NAME",
    "SCHEMA_VERSION",
    "EvalResult",
    "Job",
    "JobRows",
    "MeanInterval",
    "MetricSummary",
    "OutputClaim",
    "ResultSink",
    "ResultsWriter",
    "ResumeWords",
    "RowProgress",
    "RunData",
    "RunManifest",
    "RunRecorder",
    "RunSummary",
    "StoredRow",
    "attempt",
    "bootstrap_mean_ci",
    "call_failures",
    "check_resume_files",
    "file_sha256",
    "hold_output",
    "is_call_failure",
    "judge_spec_of",
    "kept_results",
    "load_finished",
    "load_run",
    "load_run_dir",
    "lock_file",
    "lock_output",
    "mean_interval",
    "open_run_store",
    "over_failed_share",
    "plain_difference",
    "read_manifest",
    "reorder_results",
    "result_value",
    "rewrite_in_order",
    "start_recording",
    "store_reasons",
    "stored_run_ref",
    "summary_json_schema",
    "typed_summary",
    "wilson_interval",
    "with_interval",
    "work_each",
    "write_reasons",
    "write_summary",
]


__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
