"""Which finished traces are scored: ``--sample RATE`` and ``--filter EXPR``.

Sampling is decided by the trace id (a hash), so a restart samples the same traces. A filter
is one or more ``KEY=VALUE`` / ``KEY!=VALUE`` terms joined by ``,`` (all must hold); no code
is evaluated. ``KEY`` is looked up in the trace's resource attributes (``service.name``,
``deployment.environment``...) and then in any span's attributes; ``resource.KEY`` reads only
the resource, ``attr.KEY`` only the spans, and ``name`` is a span's name. ``KEY!=VALUE`` holds
when no span (nor the resource) has that value.

Example:
    >>> rule = parse_filter("service.name=shop,attr.gen_ai.request.model!=gpt-3")
    >>> export = {"resourceSpans": [{"resource": {"attributes": [
    ...     {"key": "service.name", "value": {"stringValue": "shop"}}]},
    ...     "scopeSpans": [{"spans": [{"name": "chat", "attributes": [
    ...     {"key": "gen_ai.request.model", "value": {"stringValue": "gpt-4o"}}]}]}]}]}
    >>> rule.keeps(export), parse_filter("name=embed").keeps(export)
    (True, False)
    >>> sampled("4bf92f3577b34da6a3ce929d0e0e4736", 1.0), sampled("x", 0.0)
    (True, False)
    >>> parse_filter("service.name")
    Traceback (most recent call last):
    ...
    assay.errors.ConfigError: Got filter='service.name'. Each term must be KEY=VALUE or KEY!=VALUE, joined by commas (all must hold), e.g. service.name=shop,attr.gen_ai.request.model=gpt-4o.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError, option

__all__ = ["TraceFilter", "parse_filter", "sampled"]


def sampled(trace_id: str, rate: float) -> bool:
    """Whether the trace is in the sample (the same answer for the same id, every time)."""
    if rate >= 1.0:
        return True
    digest = hashlib.sha256(trace_id.encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64 < rate


@dataclass(frozen=True)
class _Term:
    scope: str  # "any", "resource", "attr" or "name"
    key: str
    value: str
    equal: bool


@dataclass(frozen=True)
class TraceFilter:
    """The terms of a ``--filter`` (all must hold); no terms keeps every trace."""

    terms: tuple[_Term, ...] = ()

    def keeps(self, export: Mapping[str, Any]) -> bool:
        """Whether the trace (its spans as one OTLP JSON export) passes every term."""
        return all(self._holds(term, export) for term in self.terms)

    @staticmethod
    def _holds(term: _Term, export: Mapping[str, Any]) -> bool:
        found = any(v == term.value for v in _values(term, export))
        return found if term.equal else not found


def _values(term: _Term, export: Mapping[str, Any]) -> Iterator[str]:
    for rs in export.get("resourceSpans") or []:
        if term.scope in ("any", "resource"):
            resource = rs.get("resource") or {}
            yield from _attr(resource.get("attributes"), term.key)
        if term.scope == "resource":
            continue
        for ss in rs.get("scopeSpans") or []:
            for span in ss.get("spans") or []:
                if term.scope == "name":
                    yield str(span.get("name"))
                else:
                    yield from _attr(span.get("attributes"), term.key)


def _attr(raw: Any, key: str) -> Iterator[str]:
    for kv in raw if isinstance(raw, list) else []:
        if isinstance(kv, dict) and kv.get("key") == key and isinstance(kv.get("value"), dict):
            for v in kv["value"].values():  # one scalar: stringValue, intValue, boolValue...
                yield str(v).lower() if isinstance(v, bool) else str(v)


def parse_filter(expr: str | None) -> TraceFilter:
    """The filter ``expr`` (see the module docstring); ``None`` or empty keeps every trace.

    Raises:
        ConfigError: a term that is not ``KEY=VALUE`` or ``KEY!=VALUE`` (all named at once).
    """
    terms: list[_Term] = []
    bad: list[str] = []
    for part in (expr or "").split(","):
        part = part.strip()
        if not part:
            continue
        equal = "!=" not in part
        key, sep, value = part.partition("=" if equal else "!=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            bad.append(part)
            continue
        scope = "any"
        if key == "name":
            scope = "name"
        elif key.startswith(("resource.", "attr.")) and key.split(".", 1)[1]:
            scope, key = key.split(".", 1)
        terms.append(_Term(scope, key, value, equal))
    if bad:
        raise ConfigError(f"Got {option('filter', expr)}. Each term must be KEY=VALUE or "
                          "KEY!=VALUE, joined by commas (all must hold), e.g. "
                          "service.name=shop,attr.gen_ai.request.model=gpt-4o.")
    return TraceFilter(tuple(terms))
