"""How to make an instrumentation record message content, told by the instrumentation scope
that wrote the spans (its name and version), since the same convention is written by
libraries that take different settings:

- opentelemetry-instrumentation-openai-v2 on opentelemetry-util-genai (scope
  ``opentelemetry.util.genai.handler``; 2.4b0 for one): ``..._CAPTURE_MESSAGE_CONTENT`` takes
  ``NO_CONTENT``, ``SPAN_ONLY``, ``EVENT_ONLY`` or ``SPAN_AND_EVENT``, and turns ``true`` into
  ``NO_CONTENT``;
- its older releases (scope ``opentelemetry.instrumentation.openai_v2``; 2.1b0 for one):
  ``true``, and the messages are log records, which must be sent too;
- OpenLLMetry (scope ``opentelemetry.instrumentation.<library>``, version ``0.N.N``, no ``b``),
  which writes the 1.37 attributes from 0.62 on: ``TRACELOOP_TRACE_CONTENT``;
- OpenInference (scope ``openinference.instrumentation.<library>``): its ``HIDE`` settings.

Example:
    >>> print(scope_fix("opentelemetry.util.genai.handler", "1.1b0")[:75])
    set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (not true:
    >>> scope_fix("opentelemetry.instrumentation.openai.v1", "0.62.4")[:27]
    'set TRACELOOP_TRACE_CONTENT'
    >>> scope_fix("app", None) is None
    True
"""

from __future__ import annotations

import re

from ._otlp_openinference import FIX as OPENINFERENCE_FIX

__all__ = ["scope_fix"]

_CAPTURE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
_OPENLLMETRY_VERSION = re.compile(r"^0\.\d+\.\d+$")


def scope_fix(name: str, version: str | None) -> str | None:
    """The fix for spans of the instrumentation scope ``name`` (``version``), or None when the
    scope is not one of a known GenAI instrumentation (the convention's fix then holds)."""
    at = f" {version}" if version else ""
    if name == "opentelemetry.util.genai.handler":
        return (f"set {_CAPTURE}=SPAN_ONLY (not true: opentelemetry-util-genai{at}, which "
                "opentelemetry-instrumentation-openai-v2 2.4b0 and later write through, takes "
                "NO_CONTENT, SPAN_ONLY, EVENT_ONLY or SPAN_AND_EVENT and reads true as "
                "NO_CONTENT); with EVENT_ONLY, also send the app's logs to assay watch "
                "(/v1/logs)")
    if name == "opentelemetry.instrumentation.openai_v2":
        return (f"set {_CAPTURE}=true and send the app's logs too (an OTLPLogExporter to "
                "assay watch's /v1/logs, or the Collector's logs into the same file): "
                f"opentelemetry-instrumentation-openai-v2{at} writes the messages as log "
                "events, not on the spans")
    if name.startswith("openinference."):
        return OPENINFERENCE_FIX
    if name.startswith("opentelemetry.instrumentation.") and version and \
            _OPENLLMETRY_VERSION.match(version):
        return f"set TRACELOOP_TRACE_CONTENT=true (the default of OpenLLMetry{at})"
    return None
