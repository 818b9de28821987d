"""Agent metrics: tool calls against the row's ``reference_tool_calls`` and ``tools``, with no
judge. Two calls match when their names are equal and their arguments match under the rules
of the Berkeley Function Calling Leaderboard's AST checker (see :func:`match_call`).

Example:
    >>> from assay.data import ReferenceCall, ToolCall
    >>> ref = ReferenceCall(name="convert", arguments={"amount": 10.5, "to": "EUR"})
    >>> call = ToolCall(id="c1", name="convert", arguments_text='{"to": "eur", "amount": 10.5}')
    >>> match_call(call, ref)
    []
"""

from ._compare import Comparison, compare_calls, compare_row, max_matching
from ._match import Mismatch, MismatchKind, match_call, same_value, standardize
from ._schema import ToolSchemaValidity, jsonschema_missing
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

__all__ = ["AGENT_METRICS", "AgentMetric", "Comparison", "Mismatch", "MismatchKind",
           "ToolArgumentAccuracy", "ToolCallAccuracy", "ToolCallF1", "ToolSchemaValidity",
           "TrajectoryAnyOrderMatch", "TrajectoryExactMatch", "TrajectoryInOrderMatch",
           "TrajectoryPrecision", "TrajectoryRecall", "compare_calls", "compare_row",
           "jsonschema_missing", "match_call", "max_matching", "same_value", "standardize"]
