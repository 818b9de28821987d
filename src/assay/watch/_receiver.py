"""The OTLP/HTTP receiver: ``POST /v1/traces`` and ``/v1/logs`` (JSON or protobuf, maybe
gzipped; an endpoint ending in ``/`` too), ``POST /v1/metrics`` (answered, not read: see
``_logs``) and ``GET /v1/status``.

The GenAI event log records of ``/v1/logs`` are spooled with their trace, and read with its
spans (they arrive before or after them).

Spans are written to the spool (durably) before the answer, which is what an OTLP/HTTP
exporter expects: ``200`` with an empty ``ExportTraceServiceResponse`` in the request's
encoding (``partialSuccess`` counts spans left out, e.g. without a trace id); ``400`` with
the reason for a body that does not decode; ``415`` for another content type (or protobuf
without the ``watch`` extra) or another content encoding than gzip; ``429`` with
``Retry-After`` while the spool's backlog is full, ``503`` with ``Retry-After`` when the spool
cannot be written or too many bodies (or bytes) are held already (the exporters retry both:
see :mod:`._body_budget`); ``401`` without the token, when one is set (``Authorization:
Bearer TOKEN``, compared in constant time). A client that goes away mid-body is logged in one
line and counted, as is a body that does not decode (``400``), never a traceback.

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
    >>> answer.status_code, answer.json(), client.get("/v1/status").json()["spans"]
    (200, {}, 1)
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
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..errors import DataError
from ._body_budget import BodyBudget
from ._deadlines import CUT_KEY
from ._decode import PROTOBUF_MISSING, decode_export, gunzip, spans_of
from ._logs import genai_records, metrics_answer

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


#: ``Content-Encoding`` values a body may have (none is identity).
ENCODINGS = ("gzip", "identity")


def receiver_app(intake: Intake, *, budget: BodyBudget | None = None) -> Starlette:
    """The receiver's ASGI app over ``intake``; ``budget`` bounds the bodies held at once
    (default: 16 bodies, ``4 * intake.max_body`` bytes). ``app.state.cut(phase, client)``
    logs and counts a connection closed for being slow (see :mod:`._deadlines`)."""
    budget = budget or BodyBudget(16, 4 * intake.max_body)
    slow = {"header_timeouts": 0, "body_timeouts": 0, "disconnects": 0}

    def authorized(request: Request) -> bool:
        if not intake.token:
            return True
        given = request.headers.get("authorization", "").encode()
        return hmac.compare_digest(given, f"Bearer {intake.token}".encode())

    async def receive(request: Request) -> tuple[bytes, str] | Response:
        """The body of an export (inflated) and its content type, or the answer refusing it:
        the checks traces and logs share (token, content type and encoding, backlog, size,
        the body budget, gzip)."""
        if not authorized(request):
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
        encoding = request.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ENCODINGS:
            intake.rejected("unsupported content encoding")
            return _error(415, f"unsupported content encoding {encoding!r}: send the body "
                               "gzipped (Content-Encoding: gzip) or as it is (no header)")
        if intake.backlog_full():
            intake.rejected("backlog full")
            return _error(429, "the backlog of traces to score is full; retry later",
                          headers={"Retry-After": str(RETRY_AFTER_S)})
        length = request.headers.get("content-length", "")
        if length.isdigit() and int(length) > intake.max_body:
            intake.rejected("body too large")
            return _error(413, f"the body is over {intake.max_body:,} bytes")
        body = await read_body(request, int(length) if length.isdigit() else 0)
        if isinstance(body, Response):
            return body
        if encoding == "gzip":
            try:
                body = gunzip(body, intake.max_body)
            except DataError as e:
                return refused(request, e)
        return body, content_type

    async def traces(request: Request) -> Response:
        got = await receive(request)
        if isinstance(got, Response):
            return got
        body, content_type = got
        try:
            export = decode_export(body, content_type)
        except DataError as e:
            return refused(request, e)
        spans, bad = spans_of(export)
        return _spooled(lambda: intake.accept(spans, bad), content_type, len(bad),
                        bad[0] if bad else "")

    async def logs(request: Request) -> Response:
        got = await receive(request)
        if isinstance(got, Response):
            return got
        body, content_type = got
        try:
            export = decode_export(body, content_type, kind="logs")
        except DataError as e:
            return refused(request, e)
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

    def refused(request: Request, e: DataError) -> Response:
        """400 for a body that does not decode: one log line and a count."""
        intake.rejected("bad body")
        log.warning("refused a request from %s (400): %s", _client(request),
                    "; ".join(e.problems)[:300])
        return _error(400, "; ".join(e.problems))

    async def read_body(request: Request, length: int) -> bytes | Response:
        """The body, held within the budget while it comes; or the answer refusing it."""
        claim = budget.claim(length)
        if claim is None:
            return busy()
        received = bytearray()
        try:
            async for chunk in request.stream():
                received += chunk
                if len(received) > intake.max_body:
                    intake.rejected("body too large")
                    return _error(413, f"the body is over {intake.max_body:,} bytes")
                if not claim.cover(len(received)):
                    return busy()
        except ClientDisconnect:
            gone(request, len(received))
            return Response(status_code=400)  # nobody reads it
        finally:
            claim.release()  # the body is decoded before the next await: one at a time
        return bytes(received)

    async def status(request: Request) -> Response:
        if not authorized(request):
            return _error(401, "a valid Authorization: Bearer token is required")
        return JSONResponse({**intake.status(), "receiver": {**budget.status(), **slow}})

    def busy() -> Response:
        intake.rejected("busy")
        return _error(503, f"{budget.max_bodies} request bodies or {budget.max_bytes:,} bytes "
                           "are being read already; retry later",
                      headers={"Retry-After": str(RETRY_AFTER_S)})

    def gone(request: Request, received: int) -> None:
        if request.scope.get(CUT_KEY):  # closed by the body deadline: said and counted there
            return
        slow["disconnects"] += 1
        intake.rejected("client disconnected")
        log.warning("a client (%s) went away before its request body was complete (%s bytes "
                    "came); nothing of it was kept", _client(request), f"{received:,}")

    def cut(phase: str, client: str) -> None:
        slow["header_timeouts" if phase == "headers" else "body_timeouts"] += 1
        intake.rejected(f"{phase} timeout")
        log.warning("closed the connection of %s: its request %s did not arrive in time",
                    client, phase)

    # an exporter's endpoint may end in a slash: a redirect would be taken as delivered
    app = Starlette(routes=[*(Route(f"/v1/{kind}{slash}", handler, methods=["POST"])
                              for kind, handler in (("traces", traces), ("logs", logs),
                                                    ("metrics", metrics))
                              for slash in ("", "/")),
                            Route("/v1/status", status, methods=["GET"]),
                            Route("/status", status, methods=["GET"])])
    app.state.cut = cut
    return app


def _client(request: Request) -> str:
    """``HOST:PORT`` of the client, for a log line."""
    return f"{request.client.host}:{request.client.port}" if request.client else "a client"


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
