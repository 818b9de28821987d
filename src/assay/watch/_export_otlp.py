"""Scores sent back to the user's tracing backend, so they show beside the trace they judge.

Each scored record becomes one OTLP/HTTP JSON request (``POST`` to the URL, normally
``http://HOST:4318/v1/traces``, ``Content-Type: application/json``): a ``resourceSpans`` of
service ``assay`` holding one small span named ``evaluation`` (a new span id, the trace's
``traceId``, the root span as its parent, start = end = now) whose events are one
``gen_ai.evaluation.result`` per metric result, as the OpenTelemetry GenAI semantic conventions
name them (an event lives on a span, and a span already exported cannot be given one):

- ``gen_ai.evaluation.name``: the metric (required by the conventions);
- ``gen_ai.evaluation.score.value``: the value, only when the metric scored the row;
- ``gen_ai.evaluation.score.label``: the result's label, when it has one;
- ``gen_ai.evaluation.explanation``: the judge's reason (at most ``EXPLANATION_CHARS``);
- ``gen_ai.response.id``: the evaluated completion's id, when the record knows it
  (``record["watch"]["response_id"]``).

The span itself carries the app's and the judge's cost, seconds and tokens on the trace
(``assay.cost.app_usd``, ``assay.cost.judge_usd``, ``assay.latency.app_s``, ...; an unknown
price: no dollars, ``assay.cost.*_unknown_reason`` instead): see :mod:`._export_spend`.

A result left unscored sends no score (none is made up): its event has ``error.type``
``unscored`` (the conventions' error attribute) and an explanation that starts ``unscored:``
and says why (the result's error or reason). A metric that does not apply to the row
(``does not apply ...``) sends nothing. Texts pass ``mask_secrets`` first.

``send`` never raises: a request refused with 429 or 5xx (or that cannot connect or times
out) is tried again, up to ``attempts`` times in all, after the server's ``Retry-After`` (at
most ``max_wait_s``) or an exponential backoff; what still fails is counted by kind
(``stats()``) and logged once per kind on the ``assay.watch`` logger, with the URL's
credentials masked and never a header value.

Example:
    >>> body = evaluation_request({"id": "t1", "groundedness": {"value": 4.0, "reason": "ok"}},
    ...                           trace_id="0af7651916cd43dd8448eb211c80319c",
    ...                           span_id="b7ad6b7169203331")
    >>> span = body["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    >>> span["name"], span["parentSpanId"], len(span["spanId"])
    ('evaluation', 'b7ad6b7169203331', 16)
    >>> event = span["events"][0]
    >>> event["name"], {a["key"]: a["value"] for a in event["attributes"]}[
    ...     "gen_ai.evaluation.score.value"]
    ('gen_ai.evaluation.result', {'doubleValue': 4.0})
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import math
import random
import re
import secrets
import time
from collections import Counter
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

import httpx

from .._secrets import mask_secrets
from .._version import __version__
from ..errors import ConfigError, option
from ._export_spend import otlp_attr as _attr
from ._export_spend import spend_attributes

__all__ = ["EVENT_NAME", "EXPLANATION_CHARS", "HEADER_VARIABLES", "ScoreExporter",
           "evaluation_request", "headers_from_env"]

log = logging.getLogger("assay.watch")

#: The event each metric result becomes.
EVENT_NAME = "gen_ai.evaluation.result"
#: The longest explanation sent (a reason longer than this is cut, with an ellipsis).
EXPLANATION_CHARS = 2000
#: Statuses worth trying again.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_SPAN_KIND_INTERNAL = 1
_HEX = re.compile(r"[0-9a-f]+")


def _text(value: Any) -> str:
    text = mask_secrets(str(value))
    return text if len(text) <= EXPLANATION_CHARS else text[:EXPLANATION_CHARS - 1] + "…"


def _score(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _event(metric: str, result: Mapping[str, Any], now_ns: str,
           response_id: str | None) -> dict[str, Any] | None:
    """One ``gen_ai.evaluation.result`` event; None for a metric that does not apply."""
    error, reason = result.get("error"), result.get("reason")
    value = _score(result.get("value"))
    if value is None and str(error or "").startswith("does not apply"):
        return None
    attrs = [_attr("gen_ai.evaluation.name", metric)]
    if value is not None:
        attrs.append(_attr("gen_ai.evaluation.score.value", value))
        if result.get("label") is not None:
            attrs.append(_attr("gen_ai.evaluation.score.label", _text(result["label"])))
        if reason:
            attrs.append(_attr("gen_ai.evaluation.explanation", _text(reason)))
    else:
        why = error or reason or "no value and no reason recorded"
        attrs += [_attr("error.type", "unscored"),
                  _attr("gen_ai.evaluation.explanation", _text(f"unscored: {why}"))]
    if response_id:
        attrs.append(_attr("gen_ai.response.id", _text(response_id)))
    return {"timeUnixNano": now_ns, "name": EVENT_NAME, "attributes": attrs}


def _results(record: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """The record's metric results (as the report finds them: a mapping with a value or an
    error), in the record's order."""
    return [(str(k), v) for k, v in record.items()
            if k not in ("id", "watch") and isinstance(v, Mapping)
            and ("value" in v or "error" in v)]


def evaluation_request(record: Mapping[str, Any], *, trace_id: str, span_id: str | None,
                       now_ns: int | None = None) -> dict[str, Any]:
    """The OTLP/JSON ``ExportTraceServiceRequest`` carrying ``record``'s results as events on
    a new ``evaluation`` span of trace ``trace_id`` (32 hex digits), child of ``span_id``
    (16 hex digits, or None for no parent). See the module docstring."""
    now = str(now_ns if now_ns is not None else time.time_ns())
    watch = record.get("watch")
    response_id = watch.get("response_id") if isinstance(watch, Mapping) else None
    events = [e for name, result in _results(record)
              if (e := _event(name, result, now, response_id)) is not None]
    span: dict[str, Any] = {
        "traceId": trace_id.lower(), "spanId": secrets.token_hex(8), "name": "evaluation",
        "kind": _SPAN_KIND_INTERNAL, "startTimeUnixNano": now, "endTimeUnixNano": now,
        "attributes": [_attr("assay.row.id", _text(record.get("id", ""))),
                       *spend_attributes(record)], "events": events}
    if span_id:
        span["parentSpanId"] = span_id.lower()
    return {"resourceSpans": [{
        "resource": {"attributes": [_attr("service.name", "assay")]},
        "scopeSpans": [{"scope": {"name": "assay.watch", "version": __version__},
                        "spans": [span]}]}]}


def _retry_after(header: str | None, *, cap: float) -> float | None:
    """Seconds a ``Retry-After`` header asks for (a number or an HTTP date), at most ``cap``.

    Example:
        >>> _retry_after("2", cap=30), _retry_after("120", cap=30), _retry_after("soon", cap=30)
        (2.0, 30, None)
    """
    if not header:
        return None
    try:
        return min(max(float(header), 0.0), cap)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return None
    return min(max(when.timestamp() - time.time(), 0.0), cap)


def _valid_id(value: str | None, digits: int) -> bool:
    return value is not None and len(value) == digits and _HEX.fullmatch(value.lower()) is not None


def _bad_url(url: str, what: str) -> ConfigError:
    return ConfigError(f"Got {option('export_otlp', mask_secrets(url))}: {what}. It is the "
                       "OTLP/HTTP traces endpoint of your collector or tracing backend, e.g. "
                       "'http://127.0.0.1:4318/v1/traces'.")


#: The OpenTelemetry exporter variables whose headers go with every export (the traces one
#: first, as the SDKs read them).
HEADER_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS")


def headers_from_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The headers an OpenTelemetry exporter would send, from ``environ``: the first of
    :data:`HEADER_VARIABLES` that is set, as ``key1=value1,key2=value2`` with the values
    percent-decoded (the W3C Baggage form the OpenTelemetry specification uses). A pair
    without ``=`` is left out.

    Example:
        >>> headers_from_env({"OTEL_EXPORTER_OTLP_HEADERS":
        ...                   "x-honeycomb-team=abc123, x-scope=a%20b,broken"})
        {'x-honeycomb-team': 'abc123', 'x-scope': 'a b'}
        >>> headers_from_env({})
        {}
    """
    raw = next((environ[k] for k in HEADER_VARIABLES if environ.get(k)), "")
    pairs = (part.split("=", 1) for part in raw.split(",") if "=" in part)
    return {key.strip(): unquote(val.strip()) for key, val in pairs if key.strip()}


class ScoreExporter:
    """Sends each scored record's results to an OTLP/HTTP JSON traces endpoint (see the
    module docstring). ``headers`` (e.g. ``{"Authorization": "Bearer ..."}``) go with every
    request and are never logged; credentials in the URL (``https://user:pw@host/...``) go as
    basic auth. A URL that is not http(s) with a host raises ``ConfigError``. Use one exporter per process and ``aclose`` it at the end."""

    def __init__(self, url: str, *, headers: Mapping[str, str] | None = None,
                 timeout_s: float = 10.0, attempts: int = 4, backoff_s: float = 0.5,
                 max_wait_s: float = 30.0) -> None:
        try:
            parsed = httpx.URL(url)
        except httpx.InvalidURL as e:
            raise _bad_url(url, str(e)) from None
        if parsed.scheme not in ("http", "https") or not parsed.host:
            raise _bad_url(url, "it needs http:// or https:// and a host")
        # credentials in the URL go as basic auth, so that no log line (ours or httpx's) has them
        self._auth = httpx.BasicAuth(parsed.username, parsed.password) \
            if parsed.username or parsed.password else None
        self.url = str(parsed.copy_with(username=None, password=None)) if self._auth else url
        self.shown_url = mask_secrets(self.url)
        self._headers = {**{str(k): str(v) for k, v in (headers or {}).items()},
                         "Content-Type": "application/json"}
        self.timeout_s, self.attempts = timeout_s, max(int(attempts), 1)
        self.backoff_s, self.max_wait_s = backoff_s, max_wait_s
        self._client: httpx.AsyncClient | None = None
        self._sent = 0
        self._retried = 0
        self._failed: Counter[str] = Counter()

    def stats(self) -> dict[str, Any]:
        """``{"sent", "failed", "retried", "failures": {kind: count}}`` so far (records)."""
        return {"sent": self._sent, "failed": sum(self._failed.values()),
                "retried": self._retried, "failures": dict(self._failed)}

    async def send(self, record: Mapping[str, Any], *, trace_id: str, span_id: str | None
                   ) -> None:
        """Send ``record``'s results as events on trace ``trace_id`` under span ``span_id``
        (the root span); never raises (failures are counted and logged)."""
        if not _valid_id(trace_id, 32) or (span_id is not None and not _valid_id(span_id, 16)):
            self._fail("bad trace or span id", "a trace id is 32 hex digits and a span id 16; "
                       "the record is not sent")
            return
        try:
            body = evaluation_request(record, trace_id=trace_id, span_id=span_id)
            if not body["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["events"]:
                return  # no metric result to send
            await self._post(body)
        except Exception as e:  # noqa: BLE001 - an exporter must never stop the scoring
            self._fail(type(e).__name__, mask_secrets(str(e))[:300])

    async def _post(self, body: dict[str, Any]) -> None:
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self.timeout_s, headers=self._headers,
                                             auth=self._auth)
        for attempt in range(1, self.attempts + 1):
            last = attempt == self.attempts
            wait = self.backoff_s * 2 ** (attempt - 1) * (0.5 + random.random())
            try:
                answer = await self._client.post(self.url, json=body)
            except (httpx.TimeoutException, httpx.TransportError) as e:
                kind = "timeout" if isinstance(e, httpx.TimeoutException) else \
                    f"cannot connect ({type(e).__name__})"
                if last:
                    self._fail(kind, mask_secrets(str(e))[:300])
                    return
            else:
                if answer.status_code < 300:
                    self._sent += 1
                    return
                if answer.status_code not in RETRY_STATUSES or last:
                    self._fail(f"HTTP {answer.status_code}",
                               mask_secrets(answer.text.strip()[:300]) or "no message")
                    return
                asked = _retry_after(answer.headers.get("Retry-After"), cap=self.max_wait_s)
                wait = asked if asked is not None else wait
            self._retried += 1
            await asyncio.sleep(min(wait, self.max_wait_s))

    def _fail(self, kind: str, detail: str) -> None:
        first = kind not in self._failed
        self._failed[kind] += 1
        if first:
            log.warning("scores not exported to %s: %s (%s); further failures of this kind are "
                        "counted, not logged", self.shown_url, kind, detail)

    async def aclose(self) -> None:
        """Close the HTTP client (the exporter sends nothing more)."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None
