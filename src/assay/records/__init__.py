"""The run as written and read back: the output folder and its lock, ``results.jsonl``
(written in dataset order as rows finish, read back on resume), ``summary.json`` and its
schema, the run store's recording, bootstrap and Wilson intervals, the failed-call tally and the
progress bar. The report, compare, the web UI and the CI gate read runs through here.

Example:
    >>> import json, pathlib, tempfile
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> with ResultsWriter(out / "results.jsonl") as writer:
    ...     writer.write({"id": "r1", "results": {"f1": {"value": 1.0}}})
    >>> sorted(load_finished(out / "results.jsonl"))
    ['r1']
    >>> mean_interval([1.0, 0.0, 1.0, 1.0]).mean
    0.75
"""

from ._failures import call_failures, over_failed_share
from ._interval import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    MeanInterval,
    bootstrap_mean_ci,
    mean_interval,
    with_interval,
)
from ._load import RunData, load_run, load_run_dir, stored_run_ref
from ._manifest import MANIFEST_NAME, RunManifest, read_manifest
from ._outdir import OutputClaim, hold_output, lock_output
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
from ._stored_row import StoredRow, judge_spec_of, store_reasons, write_reasons
from ._summary import SCHEMA_VERSION, MetricSummary, RunSummary, summary_json_schema, typed_summary
from ._wilson import wilson_interval

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "MANIFEST_NAME",
    "SCHEMA_VERSION",
    "EvalResult",
    "MeanInterval",
    "MetricSummary",
    "OutputClaim",
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
    "write_reasons",
    "write_summary",
]
