"""The HTML report of a run: one self-contained file (no network), with score distributions,
defect rates, calibration, a filterable per-row table with details (a conversation as turns
with each metric's per-turn reasons beside the turn they name, an agent's tool calls with
their results and findings, a generated row's source with its evidence marked), and a
comparison.

Example:
    >>> import tempfile
    >>> from assay.records import load_run_dir
    >>> from assay.run import RunOptions, evaluate
    >>> out = tempfile.mkdtemp()
    >>> _ = evaluate([{"id": "q1", "answer": "a", "ground_truth": "a"}], metrics="exact_match",
    ...              run=RunOptions(out=out))
    >>> html = render_report(load_run_dir(out), inputs={"q1": {"answer": "a"}})
    >>> "exact_match" in html and "q1" in html
    True
"""

from ._arena_view import arena_headline, arena_view, metric_of, position_line
from ._conversation import ConversationView
from ._jobs import JOB_KINDS, job_exchanges, job_headline, job_inputs, job_row_notes, job_summary
from ._load import calibration_of, find_dataset, inputs_for_run, load_calibration, load_inputs
from ._model import (
           fmt,
           metric_names,
           pretty_json,
           scale_of,
           template_environment,
           value_css,
           value_of,
)
from ._render import language_mark, render_report
from ._row import metric_views, row_input_parts
from ._skipped import SkippedTraces, skipped_traces
from ._stats import Pager, RunStats

__all__ = [
           "JOB_KINDS",
           "ConversationView",
           "Pager",
           "RunStats",
           "SkippedTraces",
           "arena_headline",
           "arena_view",
           "calibration_of",
           "find_dataset",
           "fmt",
           "inputs_for_run",
           "job_exchanges",
           "job_headline",
           "job_inputs",
           "job_row_notes",
           "job_summary",
           "language_mark",
           "load_calibration",
           "load_inputs",
           "metric_names",
           "metric_of",
           "metric_views",
           "position_line",
           "pretty_json",
           "render_report",
           "row_input_parts",
           "scale_of",
           "skipped_traces",
           "template_environment",
           "value_css",
           "value_of",
]
