"""The OTLP/HTTP receiver: ``POST /v1/traces`` and ``/v1/logs`` (JSON or protobuf, maybe
gzipped; an endpoint ending in ``/`` too), ``POST /v1/metrics`` (answered, not read: see
``_logs``) and ``GET /v1/status``.

The GenAI event log records of ``/v1/logs`` are spooled with their trace, and read with its
spans (they arrive before or after them).

Spans are written to the spool (durably) before the answer, which is what an OTLP/HTTP
exporter expects: ``200`` with an empty ``ExportTraceServiceResponse`` in the request's
encoding (``partialSuccess`` counts spans left out, e.g. without a trace id); ``400`` with
the reason for a body that does not decode; ``415`` for another content type (or protobuf
without the ``watch`` extra); ``429`` with ``Retry-After`` while the spool's backlog is full,
``503`` when the spool cannot be written (the exporters retry both); ``401`` without the
token, when one is set (``Authorization: Bearer TOKEN``, compared in constant time).

Example:
    >>> from starlette.testclient import TestClient
    >>> class Intake:
    ...     token, max_body, got = None, 1 << 20, []
    ...     def backlog_full(self): return False
    ...     def accept(self, spans, bad): self.got += spans; return len(spans)
    ...     def rejected(self, why): pass
    ...     def metrics_posted(self): pass
    ...     def status(self): return {"spans": len(self.got)}
    >>> intake = Intake()
    >>> client = TestClient(receiver_app(intake))
    >>> body = {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "AA", "spanId": "01"}]}]}]}
    >>> answer = client.post("/v1/traces", json=body)
    >>> answer.status_code, answer.json(), client.get("/v1/status").json()
    (200, {}, {'spans': 1})
    >>> client.post("/v1/traces/", json=body, follow_redirects=False).status_code
    200
    >>> client.post("/v1/metrics", json={}).json()["partialSuccess"]["errorMessage"][:36]
    'assay watch does not read metrics: o'
    >>> answer = client.post("/v1/traces", content=b"nope",
    ...                      headers={"content-type": "application/json"})
    >>> answer.status_code, answer.json()["message"][:26]
    (400, 'the body is not OTLP JSON:')
"""

from __future__ import annotations

import hmac
import json
import logging
import sqlite3
from collections.abc import Callable
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..errors import DataError
from ._decode import PROTOBUF_MISSING, decode_export, gunzip, spans_of
from ._logs import decode_logs, genai_records, metrics_answer

__all__ = ["RETRY_AFTER_S", "Intake", "receiver_app"]

log = logging.getLogger("assay.watch")

#: Seconds an exporter is told to wait when the backlog is full: short, because an exporter
#: gives a batch up after its own timeout (the Python SDK's: 10 s in all, up to 6 tries).
RETRY_AFTER_S = 2


class Intake(Protocol):
    """What the receiver hands spans to (the watch)."""

    token: str | None
    max_body: int

    def backlog_full(self) -> bool: ...

    def accept(self, spans: list[tuple[dict[str, Any], dict[str, Any]]],
               bad: list[str]) -> int: ...

    def accept_logs(self, records: list[tuple[dict[str, Any], dict[str, Any]]],
                    others: int) -> int: ...

    def metrics_posted(self) -> None: ...

    def rejected(self, why: str) -> None: ...

    def status(self) -> dict[str, Any]: ...


def receiver_app(intake: Intake) -> Starlette:
    """The receiver's ASGI app over ``intake``."""

    def authorized(request: Request) -> bool:
        if not intake.token:
            return True
        given = request.headers.get("authorization", "").encode()
        return hmac.compare_digest(given, f"Bearer {intake.token}".encode())

    async def traces(request: Request) -> Response:
        got = await _receive(request, intake, authorized(request))
        if isinstance(got, Response):
            return got
        body, content_type = got
        try:
            export = decode_export(body, content_type)
        except DataError as e:
            intake.rejected("bad body")
            return _error(400, "; ".join(e.problems))
        spans, bad = spans_of(export)
        return _spooled(lambda: intake.accept(spans, bad), content_type, len(bad),
                        bad[0] if bad else "")

    async def logs(request: Request) -> Response:
        got = await _receive(request, intake, authorized(request))
        if isinstance(got, Response):
            return got
        body, content_type = got
        try:
            export = decode_logs(body, content_type)
        except DataError as e:
            intake.rejected("bad body")
            return _error(400, "; ".join(e.problems))
        records, others = genai_records(export)
        return _spooled(lambda: intake.accept_logs(records, others), content_type, 0, "",
                        kind="logs")

    async def metrics(request: Request) -> Response:
        if not authorized(request):
            intake.rejected("unauthorized")
            return _error(401, "a valid Authorization: Bearer token is required")
        intake.metrics_posted()
        body, media_type = metrics_answer(request.headers.get("content-type", "").lower())
        return Response(body, media_type=media_type)

    async def status(request: Request) -> Response:
        if not authorized(request):
            return _error(401, "a valid Authorization: Bearer token is required")
        return JSONResponse(intake.status())

    # an exporter's endpoint may end in a slash: a redirect would be taken as delivered
    return Starlette(routes=[*(Route(f"/v1/{kind}{slash}", handler, methods=["POST"])
                               for kind, handler in (("traces", traces), ("logs", logs),
                                                     ("metrics", metrics))
                               for slash in ("", "/")),
                             Route("/v1/status", status, methods=["GET"]),
                             Route("/status", status, methods=["GET"])])


async def _receive(request: Request, intake: Intake, authorized: bool
                   ) -> tuple[bytes, str] | Response:
    """The body of an export (inflated) and its content type, or the error answer: the
    checks traces and logs share (token, content type, backlog, size, gzip)."""
    if not authorized:
        intake.rejected("unauthorized")
        return _error(401, "a valid Authorization: Bearer token is required")
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type not in ("application/json", "application/x-protobuf"):
        intake.rejected("unsupported content type")
        return _error(415, f"unsupported content type {content_type!r}: send "
                           "application/json or application/x-protobuf")
    if content_type == "application/x-protobuf" and PROTOBUF_MISSING is not None:
        intake.rejected("protobuf without the watch extra")
        return _error(415, f"{PROTOBUF_MISSING}; or send OTLP JSON")
    if intake.backlog_full():
        intake.rejected("backlog full")
        return _error(429, "the backlog of traces to score is full; retry later",
                      headers={"Retry-After": str(RETRY_AFTER_S)})
    received = bytearray()
    async for chunk in request.stream():
        received += chunk
        if len(received) > intake.max_body:
            intake.rejected("body too large")
            return _error(413, f"the body is over {intake.max_body:,} bytes")
    body = bytes(received)
    try:
        if request.headers.get("content-encoding", "").lower() == "gzip":
            body = gunzip(body, intake.max_body)
    except DataError as e:
        intake.rejected("bad body")
        return _error(400, "; ".join(e.problems))
    return body, content_type


def _spooled(write: Callable[[], object], content_type: str, rejected: int, why: str, *,
             kind: str = "traces") -> Response:
    """Write to the spool, then answer: 200, or 503 when the spool cannot be written."""
    try:
        write()
    except (sqlite3.Error, OSError) as e:
        log.error("the spool could not be written (%s): answering 503", e)
        return _error(503, "the spool could not be written; retry later",
                      headers={"Retry-After": str(RETRY_AFTER_S)})
    return _ok(content_type, rejected, why, kind)


def _error(code: int, message: str, headers: dict[str, str] | None = None) -> Response:
    """An error answer: a JSON ``Status`` (``{"code", "message"}``), as OTLP/HTTP sends."""
    return JSONResponse({"code": code, "message": message}, status_code=code, headers=headers)


def _ok(content_type: str, rejected: int, why: str, kind: str = "traces") -> Response:
    """200 with an ``ExportTraceServiceResponse`` in the request's encoding (its
    ``partialSuccess`` set when spans were left out); for logs, an empty
    ``ExportLogsServiceResponse`` (both are empty messages: no bytes in protobuf)."""
    if content_type == "application/x-protobuf" and kind == "logs":
        return Response(b"", media_type="application/x-protobuf")
    if content_type == "application/x-protobuf":
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

        answer = trace_service_pb2.ExportTraceServiceResponse()
        if rejected:
            answer.partial_success.rejected_spans = rejected
            answer.partial_success.error_message = why
        return Response(answer.SerializeToString(), media_type="application/x-protobuf")
    body: dict[str, Any] = ({"partialSuccess": {"rejectedSpans": str(rejected),
                                                "errorMessage": why}} if rejected else {})
    return Response(json.dumps(body), media_type="application/json")
