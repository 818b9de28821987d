"""OTLP trace exports as the receiver gets them: JSON or protobuf bodies, maybe gzipped, read
into ``(span, resource)`` pairs in OTLP JSON form (hex trace and span ids, as OTLP JSON has
them).

Protobuf needs the ``watch`` extra (``opentelemetry-proto``): :data:`PROTOBUF_MISSING` says
why it is not available, or is ``None``.

Example:
    >>> body = b'{"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"spans":'
    >>> body += b' [{"traceId": "W47/95gDgQPSabYzgT/GDA==", "name": "chat"}, {"name": "x"}]}]}]}'
    >>> spans, bad = spans_of(decode_export(body, "application/json"))
    >>> [s["traceId"] for s, _ in spans], bad
    (['5b8efff798038103d269b633813fc60c'], ['span 2: no traceId'])
    >>> try:
    ...     decode_export(b"{oops", "application/json")
    ... except DataError as e:
    ...     print(e.problems[0][:28])
    the body is not OTLP JSON: E
"""

from __future__ import annotations

import base64
import gzip
import json
import zlib
from collections.abc import Mapping
from typing import Any

from ..data import otlp_id
from ..errors import DataError

__all__ = ["PROTOBUF_MISSING", "decode_export", "gunzip", "protobuf_missing", "spans_of"]


def _protobuf_missing() -> str | None:
    try:
        from google.protobuf import json_format  # noqa: F401
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2  # noqa: F401
    except ImportError as e:
        return f"protobuf bodies need opentelemetry-proto ({e}); pip install 'assay[watch]'"
    return None


#: Why protobuf bodies cannot be read here (``None``: they can).
PROTOBUF_MISSING = _protobuf_missing()

def protobuf_missing() -> str | None:
    """Why protobuf bodies cannot be read here (``pip install 'assay[watch]'``), or ``None``."""
    return PROTOBUF_MISSING


#: Hex ids in OTLP JSON; base64 in protobuf's JSON mapping.
_ID_KEYS = ("traceId", "spanId", "parentSpanId")


def gunzip(body: bytes, limit: int) -> bytes:
    """A gzip body inflated, at most ``limit`` bytes (DataError beyond, or when it is not
    gzip)."""
    try:
        out = zlib.decompressobj(16 + zlib.MAX_WBITS)
        data = out.decompress(body, limit + 1)
    except (zlib.error, gzip.BadGzipFile) as e:
        raise DataError([f"the body is not gzip: {e}"]) from None
    if len(data) > limit:
        raise DataError([f"the body inflates to more than {limit:,} bytes"])
    return data


def decode_export(body: bytes, content_type: str, *, kind: str = "trace") -> dict[str, Any]:
    """An ``ExportTraceServiceRequest`` (or with ``kind="logs"`` an
    ``ExportLogsServiceRequest``) as OTLP JSON, trace and span ids in hex.

    Example:
        >>> decode_export(b'{"resourceLogs": []}', "application/json", kind="logs")
        {'resourceLogs': []}
        >>> try:
        ...     decode_export(b"[" * 100_000, "application/json", kind="logs")
        ... except DataError as e:
        ...     print(e.problems[0])
        the body is not OTLP JSON: it is nested too deeply

    Raises:
        DataError: the body does not decode (the message says why).
    """
    key = "resourceLogs" if kind == "logs" else "resourceSpans"
    if "protobuf" in content_type:
        return _from_protobuf(body, kind)
    try:
        export = json.loads(body)
    except (ValueError, UnicodeDecodeError) as e:
        raise DataError([f"the body is not OTLP JSON: {e}"]) from None
    except RecursionError:
        raise DataError(["the body is not OTLP JSON: it is nested too deeply"]) from None
    if not isinstance(export, dict) or not isinstance(export.get(key, []), list):
        raise DataError([(f"the body is not an OTLP {kind} export: expected an object with a "
                          f"{key} list")])
    return export


def _from_protobuf(body: bytes, kind: str) -> dict[str, Any]:
    if PROTOBUF_MISSING is not None:
        raise DataError([PROTOBUF_MISSING])
    from google.protobuf import json_format
    from google.protobuf.message import DecodeError
    from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

    request: Any = (logs_service_pb2.ExportLogsServiceRequest() if kind == "logs"
                    else trace_service_pb2.ExportTraceServiceRequest())
    try:
        request.ParseFromString(body)
    except DecodeError as e:
        raise DataError([f"the body is not an OTLP protobuf {kind} export: {e}"]) from None
    export = json_format.MessageToDict(request)
    for rs in export.get("resourceSpans") or []:
        for ss in rs.get("scopeSpans") or []:
            for span in ss.get("spans") or []:
                _hex_ids(span)
                for link in span.get("links") or []:
                    _hex_ids(link)
    return export


def _hex_ids(item: dict[str, Any]) -> None:
    for key in _ID_KEYS:
        if isinstance(item.get(key), str):
            item[key] = base64.b64decode(item[key]).hex()


def spans_of(export: Mapping[str, Any]) -> tuple[list[tuple[dict[str, Any], dict[str, Any]]],
                                                 list[str]]:
    """``([(span, resource)], problems)``: each usable span with its resource (ids lower-case
    hex, whether sent in hex or in base64), and one line per span left out (no trace id)."""
    spans: list[tuple[dict[str, Any], dict[str, Any]]] = []
    bad: list[str] = []
    n = 0
    for rs in _items(export.get("resourceSpans")):
        rs = rs if isinstance(rs, dict) else {}
        found = rs.get("resource")
        resource: dict[str, Any] = found if isinstance(found, dict) else {}
        for ss in _items(rs.get("scopeSpans") or rs.get("instrumentationLibrarySpans")):
            scope = ss.get("scope") if isinstance(ss, dict) else None
            for span in _items(ss.get("spans") if isinstance(ss, dict) else None):
                n += 1
                tid = span.get("traceId") if isinstance(span, dict) else None
                if not isinstance(tid, str) or not tid.strip():
                    bad.append(f"span {n}: no traceId" if isinstance(span, dict)
                               else f"span {n}: not an object")
                    continue
                clean = dict(span)
                for key in _ID_KEYS:
                    if isinstance(clean.get(key), str):
                        clean[key] = otlp_id(clean[key])  # hex, also from base64
                if isinstance(scope, dict):  # which library wrote it, kept with the span
                    clean.setdefault("scope", {k: scope[k] for k in ("name", "version")
                                               if k in scope})
                spans.append((clean, resource))
    return spans, bad


def _items(value: Any) -> list[Any]:
    """``value`` when it is a list, else no items (a malformed export gives what it can)."""
    return value if isinstance(value, list) else []
