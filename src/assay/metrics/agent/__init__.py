"""Agent metrics. Deterministic ones (no judge): tool calls against the row's
``reference_tool_calls`` and ``tools``. Judged ones: 1-5 rubrics over a compact view of the
conversation (:class:`AgentView`), one judge request per row per metric. Two calls match when their names are equal and their arguments match under the rules
of the Berkeley Function Calling Leaderboard's AST checker (see :func:`match_call`).

Example:
    >>> from assay.data import ReferenceCall, ToolCall
    >>> ref = ReferenceCall(name="convert", arguments={"amount": 10.5, "to": "EUR"})
    >>> call = ToolCall(id="c1", name="convert", arguments_text='{"to": "eur", "amount": 10.5}')
    >>> match_call(call, ref)
    []
"""

from ._compare import Comparison, compare_calls, compare_row, max_matching
from ._judged import (
    AGENT_JUDGED,
    INTENT_RESOLUTION,
    NO_ANSWER,
    NO_TOOL_RESULT,
    STEP_EFFICIENCY,
    TASK_ADHERENCE,
    TASK_COMPLETION,
    TOOL_OUTPUT_GROUNDEDNESS,
    TOOL_SELECTION,
    AgentRubricMetric,
)
from ._match import Mismatch, MismatchKind, match_call, same_value, standardize
from ._schema import ToolSchemaValidity, jsonschema_missing
from ._steps_text import RESULT_CHARS, AgentView, is_agent_row
from ._trajectory import (
    AgentMetric,
    ToolArgumentAccuracy,
    ToolCallAccuracy,
    ToolCallF1,
    TrajectoryAnyOrderMatch,
    TrajectoryExactMatch,
    TrajectoryInOrderMatch,
    TrajectoryPrecision,
    TrajectoryRecall,
)

#: The agent metrics, in the order ``--metrics auto`` plans them on rows that allow them.
AGENT_METRICS = ("tool_call_accuracy", "tool_call_f1", "tool_argument_accuracy",
                 "trajectory_exact_match", "trajectory_in_order_match",
                 "trajectory_any_order_match", "trajectory_precision", "trajectory_recall",
                 "tool_schema_validity")

__all__ = ["AGENT_JUDGED", "AGENT_METRICS", "INTENT_RESOLUTION", "NO_ANSWER", "NO_TOOL_RESULT",
           "RESULT_CHARS",
           "STEP_EFFICIENCY", "TASK_ADHERENCE", "TASK_COMPLETION", "TOOL_OUTPUT_GROUNDEDNESS",
           "TOOL_SELECTION", "AgentMetric", "AgentRubricMetric", "AgentView", "Comparison",
           "Mismatch", "MismatchKind",
           "ToolArgumentAccuracy", "ToolCallAccuracy", "ToolCallF1", "ToolSchemaValidity",
           "TrajectoryAnyOrderMatch", "TrajectoryExactMatch", "TrajectoryInOrderMatch",
           "TrajectoryPrecision", "TrajectoryRecall", "compare_calls", "compare_row",
           "is_agent_row", "jsonschema_missing", "match_call", "max_matching", "same_value", "standardize"]
