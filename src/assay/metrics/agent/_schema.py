"""``tool_schema_validity``: the share of predicted calls whose arguments parse as a JSON
object and validate against the declared tool's parameters (JSON Schema, with the
``jsonschema`` package: ``pip install 'assay[agents]'``). A call to a tool the row's ``tools``
do not declare is invalid; a tool declared without ``parameters`` takes any object.

Example:
    >>> import asyncio
    >>> from assay.data import rows_from_records
    >>> row = rows_from_records([{"messages": [
    ...     {"role": "user", "content": "Weather?"},
    ...     {"role": "assistant", "content": None, "tool_calls": [
    ...         {"id": "c1", "function": {"name": "weather", "arguments": '{"city": 7}'}},
    ...         {"id": "c2", "function": {"name": "weather", "arguments": '{"city": "Oslo"}'}}]}],
    ...     "tools": [{"type": "function", "function": {"name": "weather", "parameters": {
    ...         "type": "object", "properties": {"city": {"type": "string"}}}}}]}])[0]
    >>> result = asyncio.run(ToolSchemaValidity().score(row, None))
    >>> result.value, result.details["invalid"]
    (0.5, ["call 1 weather: at 'city': 7 is not of type 'string'"])
"""

from __future__ import annotations

import importlib.util
from typing import Any

from ...data import Row, ToolCall
from .._base import MetricResult, ScoreContext
from .._register import register
from ._trajectory import AgentMetric

__all__ = ["ToolSchemaValidity", "jsonschema_missing"]

_ANY_OBJECT: dict[str, Any] = {"type": "object"}


def jsonschema_missing() -> str | None:
    """Why ``tool_schema_validity`` cannot run here (the package is not installed), or None.

    Example:
        >>> jsonschema_missing() is None  # installed in the test environment
        True
    """
    if importlib.util.find_spec("jsonschema") is None:
        return ("tool_schema_validity needs the jsonschema package: "
                "pip install 'assay[agents]' (or pip install jsonschema)")
    return None


def _problem(call: ToolCall, row: Row) -> str | None:
    """Why ``call``'s arguments break its tool's schema, or None when they are valid."""
    import jsonschema  # an optional extra: imported only when the metric scores

    spec = next((t for t in row.tools or [] if t.name == call.name), None)
    if spec is None:
        return f"call to {call.name!r}, a tool the row does not declare"
    args = call.arguments()
    if args is None:
        return "arguments are not a JSON object"
    schema = spec.parameters if spec.parameters is not None else _ANY_OBJECT
    try:
        validator_class = jsonschema.validators.validator_for(schema)
        validator_class.check_schema(schema)
    except jsonschema.SchemaError as e:
        return f"the declared schema of {call.name!r} is not valid JSON Schema: {e.message}"
    error = jsonschema.exceptions.best_match(validator_class(schema).iter_errors(args))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"at {where!r}: {error.message}" if where else error.message


class ToolSchemaValidity(AgentMetric):
    """Share of predicted calls whose arguments validate against the declared tool's schema;
    unscored when the conversation made no call."""

    name = "tool_schema_validity"
    required = frozenset({"messages", "tools"})

    def unavailable_reason(self) -> str | None:
        """Why the metric cannot run on this machine, or None (see the planner)."""
        return jsonschema_missing()

    async def score(self, row: Row, ctx: ScoreContext | None) -> MetricResult:
        calls = row.tool_calls()
        if not calls:
            return MetricResult.unscored("the conversation made no tool calls")
        if (missing := jsonschema_missing()) is not None:
            return MetricResult.unscored(missing)
        invalid = [f"call {i + 1} {call.name}: {why}" for i, call in enumerate(calls)
                   if (why := _problem(call, row)) is not None]
        valid = len(calls) - len(invalid)
        why = f"{valid} of {len(calls)} calls have arguments valid for their tool's schema"
        if invalid:
            why += ": " + "; ".join(invalid[:3])
        return MetricResult(value=round(valid / len(calls), 4), reason=why,
                            details={"calls": len(calls), "invalid": invalid})


register(ToolSchemaValidity())
