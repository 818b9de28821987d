"""Agent metrics (placeholder on this branch; merged with the deterministic metrics)."""

from ._judged import (
                      AGENT_JUDGED,
                      INTENT_RESOLUTION,
                      STEP_EFFICIENCY,
                      TASK_ADHERENCE,
                      TASK_COMPLETION,
                      TOOL_OUTPUT_GROUNDEDNESS,
                      TOOL_SELECTION,
                      AgentRubricMetric,
)
from ._steps_text import RESULT_CHARS, AgentView, is_agent_row

__all__ = ["AGENT_JUDGED", "INTENT_RESOLUTION", "RESULT_CHARS", "STEP_EFFICIENCY",
           "TASK_ADHERENCE", "TASK_COMPLETION", "TOOL_OUTPUT_GROUNDEDNESS", "TOOL_SELECTION",
           "AgentRubricMetric", "AgentView", "is_agent_row"]
