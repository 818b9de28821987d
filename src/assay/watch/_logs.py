"""OTLP log and metric exports as the receiver gets them.

Logs: the GenAI instrumentations of the semantic conventions 1.28 to 1.36 send a model call's
messages as log records (``gen_ai.user.message``, ..., ``gen_ai.choice``), and the newer ones
may send a ``gen_ai.client.inference.operation.details`` event; each names its span by
``traceId`` and ``spanId``. Those records are kept (with their resource) to be read with
their trace's spans; other records are counted and left out.

Metrics are not read: an export is answered ``200`` with a ``partialSuccess`` that says so,
which the OTLP exporters take as delivered (a ``404`` is logged as an error on every export).

Example:
    >>> from assay.watch._decode import decode_export
    >>> body = (b'{"resourceLogs": [{"scopeLogs": [{"logRecords": [{"traceId": "5b8efff798038103'
    ...         b'd269b633813fc60c", "spanId": "eee19b7ec3c1b174", "eventName": '
    ...         b'"gen_ai.user.message"}, {"body": {"stringValue": "GET /"}}]}]}]}')
    >>> records, other = genai_records(decode_export(body, "application/json", kind="logs"))
    >>> [r["eventName"] for r, _ in records], other
    (['gen_ai.user.message'], 1)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..data import otlp_id
from ._decode import PROTOBUF_MISSING

__all__ = ["METRICS_NOT_READ", "genai_records", "metrics_answer"]

#: What an exporter of metrics is told (once in the watch's log too).
METRICS_NOT_READ = ("assay watch does not read metrics: only traces (/v1/traces) and the "
                    "GenAI events of logs (/v1/logs)")
_EVENTS = frozenset({"gen_ai.system.message", "gen_ai.user.message", "gen_ai.assistant.message",
                     "gen_ai.tool.message", "gen_ai.choice",
                     "gen_ai.client.inference.operation.details"})


def genai_records(export: Mapping[str, Any]) -> tuple[list[tuple[dict[str, Any],
                                                                 dict[str, Any]]], int]:
    """``([(log record, resource)], others)``: the GenAI event records of a logs export that
    name a trace and span (ids as lower-case hex), and how many other records it held."""
    found: list[tuple[dict[str, Any], dict[str, Any]]] = []
    others = 0
    for rl in _items(export.get("resourceLogs")):
        rl = rl if isinstance(rl, dict) else {}
        res = rl.get("resource")
        resource: dict[str, Any] = res if isinstance(res, dict) else {}
        for sl in _items(rl.get("scopeLogs")):
            for lr in _items(sl.get("logRecords") if isinstance(sl, dict) else None):
                record = _genai(lr)
                if record is None:
                    others += 1
                else:
                    found.append((record, resource))
    return found, others


def _genai(lr: Any) -> dict[str, Any] | None:
    """The record with hex ids when it is a GenAI event of a span, else None."""
    if not isinstance(lr, dict):
        return None
    name = lr.get("eventName")
    if name is None:  # the older form: an event.name attribute
        name = next((kv.get("value", {}).get("stringValue") for kv in _items(lr.get("attributes"))
                     if isinstance(kv, dict) and kv.get("key") == "event.name"
                     and isinstance(kv.get("value"), dict)), None)
    ids = {k: otlp_id(lr.get(k)) for k in ("traceId", "spanId")}
    if name not in _EVENTS or not all(isinstance(v, str) and v for v in ids.values()):
        return None
    return {**lr, **ids}


def metrics_answer(content_type: str) -> tuple[bytes, str]:
    """The body (and its media type) of a ``200`` to a metrics export: an
    ``ExportMetricsServiceResponse`` whose ``partialSuccess`` says metrics are not read."""
    if "protobuf" in content_type and PROTOBUF_MISSING is None:
        from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2

        answer = metrics_service_pb2.ExportMetricsServiceResponse()
        answer.partial_success.error_message = METRICS_NOT_READ
        return answer.SerializeToString(), "application/x-protobuf"
    body = {"partialSuccess": {"errorMessage": METRICS_NOT_READ}}
    return json.dumps(body).encode(), "application/json"


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
