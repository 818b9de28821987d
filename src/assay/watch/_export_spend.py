"""The app's and the judge's cost and seconds on a trace, as attributes of the ``evaluation``
span the score export sends (:mod:`._export_otlp`), from the record's ``watch`` entry
(:mod:`._trace_cost`):

- ``assay.cost.app_usd`` / ``assay.cost.judge_usd``: dollars; absent when the price is
  unknown, and then ``assay.cost.app_unknown_reason`` / ``assay.cost.judge_unknown_reason``
  says why (never ``0`` for unknown);
- ``assay.latency.app_s`` (the trace's root span, end to end), ``assay.latency.app_llm_s``
  (its model calls) and ``assay.latency.judge_s`` (the judge's seconds on the row), each when
  known;
- ``assay.usage.app.input_tokens`` / ``output_tokens`` and ``assay.usage.judge.input_tokens``
  / ``output_tokens``, and ``assay.app.model`` (the app's models, comma-joined).

Example:
    >>> record = {"id": "t1", "watch": {
    ...     "app": {"usd": None, "unknown_reason": "no price for model 'm'", "requests": 1,
    ...             "prompt_tokens": 10, "completion_tokens": 2, "models": ["m"],
    ...             "latency_s": 1.25, "llm_s": 1.0},
    ...     "judge": {"usd": 0.0002, "requests": 1, "prompt_tokens": 300,
    ...               "completion_tokens": 20, "latency_s": 0.5}}}
    >>> attrs = {a["key"]: a["value"] for a in spend_attributes(record)}
    >>> "assay.cost.app_usd" in attrs, attrs["assay.cost.app_unknown_reason"]
    (False, {'stringValue': "no price for model 'm'"})
    >>> attrs["assay.cost.judge_usd"], attrs["assay.usage.app.input_tokens"]
    ({'doubleValue': 0.0002}, {'intValue': '10'})
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._secrets import mask_secrets

__all__ = ["otlp_attr", "spend_attributes"]


def otlp_attr(key: str, value: str | float) -> dict[str, Any]:
    """One OTLP/JSON attribute (a 64-bit integer written as a string, as OTLP JSON does).

    Example:
        >>> otlp_attr("n", 3), otlp_attr("x", 0.5)
        ({'key': 'n', 'value': {'intValue': '3'}}, {'key': 'x', 'value': {'doubleValue': 0.5}})
    """
    if isinstance(value, str):
        typed: dict[str, Any] = {"stringValue": value}
    elif isinstance(value, int) and not isinstance(value, bool):
        typed = {"intValue": str(value)}  # OTLP JSON writes 64-bit integers as strings
    else:
        typed = {"doubleValue": float(value)}
    return {"key": key, "value": typed}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def spend_attributes(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The cost, seconds and token attributes of ``record`` (see the module docstring); none
    for a record without the watch's figures."""
    watch = record.get("watch")
    out: list[dict[str, Any]] = []
    for who in ("app", "judge"):
        part = watch.get(who) if isinstance(watch, Mapping) else None
        if not isinstance(part, Mapping):
            continue
        if _number(part.get("usd")):
            out.append(otlp_attr(f"assay.cost.{who}_usd", float(part["usd"])))
        else:
            reason = part.get("unknown_reason") or "a price is unknown"
            out.append(otlp_attr(f"assay.cost.{who}_unknown_reason", mask_secrets(str(reason))))
        for key, name in (("latency_s", f"{who}_s"), ("llm_s", f"{who}_llm_s")):
            if _number(part.get(key)):
                out.append(otlp_attr(f"assay.latency.{name}", float(part[key])))
        for key, name in (("prompt_tokens", "input_tokens"),
                          ("completion_tokens", "output_tokens")):
            if _number(part.get(key)):
                out.append(otlp_attr(f"assay.usage.{who}.{name}", int(part[key])))
        models = part.get("models")
        if who == "app" and isinstance(models, list) and models:
            out.append(otlp_attr("assay.app.model", mask_secrets(",".join(map(str, models)))))
    return out
