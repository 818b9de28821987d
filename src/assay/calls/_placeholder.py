"""A judge that answers without a model, so a run's requests can be rendered and counted
without sending any: each metric builds its real request(s) and gets back a placeholder that
follows the request's JSON schema.

Metrics that ask again after reading an answer (claims, faithfulness, intents: one request
per statement a first request listed) ask as many follow-ups as the placeholder lists items,
so the estimate renders each row at three list lengths (see :mod:`assay.cli._estimate_plan`).

Example:
    >>> import asyncio
    >>> from assay.judges import JudgeCapabilities, JudgeRequest
    >>> schema = {"type": "object", "properties": {"statements": {"type": "array",
    ...           "items": {"type": "string"}}}}
    >>> judge = PlaceholderJudge("openai:m", JudgeCapabilities(), items=2)
    >>> req = JudgeRequest(messages=[{"role": "user", "content": "x"}], schema_name="s",
    ...                    json_schema=schema)
    >>> asyncio.run(judge.complete(req)).text
    '{"statements": ["The answer states one fact from the context.", "The answer states one fact from the context."]}'
    >>> len(judge.requests)
    1
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..judges import Accept, JudgeCache, JudgeCapabilities, JudgeRequest, JudgeResponse

__all__ = ["REASON", "STATEMENT", "CachedAnswers", "PlaceholderJudge", "placeholder_answer"]

#: A judge's reason of a usual length (two sentences), what a placeholder reason says.
REASON = ("The answer is supported by the context and addresses the question directly; each "
          "of its claims can be traced to the context and it adds no unsupported detail.")
#: A listed statement (or intent, claim) of a usual length.
STATEMENT = "The answer states one fact from the context."


def placeholder_answer(schema: dict[str, Any] | None, *, items: int = 1,
                       brief: bool = False) -> str:
    """A JSON answer that follows ``schema``: lists of ``items`` elements, scores at their
    maximum (a passing answer asks for no explanation), severities at their minimum, reasons
    of a usual length; ``"Yes"`` when the request has no schema (a verdict read from its
    first token). ``brief``: every text a few words (the shortest usual answer).

    Example:
        >>> placeholder_answer({"type": "object", "properties": {
        ...     "score": {"type": "integer", "minimum": 1, "maximum": 5}}})
        '{"score": 5}'
        >>> placeholder_answer(None)
        'Yes'
        >>> placeholder_answer({"type": "object", "properties": {"reason": {"type": "string"}}},
        ...                    brief=True)
        '{"reason": "Supported."}'
    """
    if schema is None:
        return "Yes"
    answer = _instance(schema, schema.get("$defs") or {}, "", 0, items)
    return json.dumps(_briefly(answer) if brief else answer)


def _briefly(answer: Any) -> Any:
    """``answer`` with every text a few words."""
    if isinstance(answer, dict):
        return {k: _briefly(v) for k, v in answer.items()}
    if isinstance(answer, list):
        return [_briefly(v) for v in answer]
    return "Supported." if answer in (REASON, STATEMENT) else answer


def _instance(schema: dict[str, Any], defs: dict[str, Any], name: str, depth: int,
              items: int) -> Any:
    if depth > 8:
        return None
    if "$ref" in schema:
        return _instance(defs.get(schema["$ref"].split("/")[-1], {}), defs, name, depth + 1,
                         items)
    if "enum" in schema:
        values = schema["enum"]
        return next((v for v in values if str(v).lower() in ("yes", "true")), values[0])
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = [o for o in schema[key] if o.get("type") != "null"] or schema[key]
            return _instance(options[0], defs, name, depth + 1, items)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((t for t in kind if t != "null"), "string")
    lowered = name.lower()
    if kind == "object" or "properties" in schema:
        return {k: _instance(v, defs, k, depth + 1, items)
                for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        n = max(int(schema.get("minItems", 0)), items)
        n = min(n, int(schema.get("maxItems", n)))
        return [_instance(schema.get("items") or {"type": "string"}, defs, name, depth + 1,
                          items) for _ in range(n)]
    if kind in ("integer", "number"):
        low, high = schema.get("minimum", 0), schema.get("maximum", 1)
        value = low if ("severity" in lowered or "rate" in lowered) else high
        return int(value) if kind == "integer" else float(value)
    if kind == "boolean":
        return True
    if "verdict" in lowered or "label" in lowered:
        return "yes"
    if "reason" in lowered or "explanation" in lowered:
        return REASON
    return STATEMENT


class PlaceholderJudge:
    """Stands in for a run's judge (same ``id`` and ``capabilities``, so metrics build the
    requests they would send it): keeps every request in ``requests`` and answers each with
    ``known(request)`` when that gives an answer (the judge cache's, so a metric's next
    request is the one the run will make), else :func:`placeholder_answer`. It sends nothing."""

    def __init__(self, id: str, capabilities: JudgeCapabilities, *, items: int = 1,
                 known: Callable[[JudgeRequest], JudgeResponse | None] | None = None) -> None:
        self.id = id
        self.known = known
        self.capabilities = capabilities
        self.items = items
        self.max_concurrency: int | None = None
        self.requests: list[JudgeRequest] = []

    async def complete(self, request: JudgeRequest, *,
                       accept: Accept | None = None) -> JudgeResponse:
        """The placeholder answer to ``request`` (kept in ``requests``)."""
        self.requests.append(request)
        if self.known is not None and (answer := self.known(request)) is not None:
            return answer  # what the judge cache holds: the run's next request follows it
        text = placeholder_answer(request.json_schema, items=self.items)
        return JudgeResponse(text=text, model=self.id)

    async def aclose(self) -> None:
        return None


class CachedAnswers:
    """The answers a judge cache file holds, read only (what an estimate counts as free):
    ``get(request, scope)`` with the judge's cache scope (:func:`assay.judges.cache_scope`).
    A file that does not exist is not made: nothing is cached then.

    Example:
        >>> import tempfile
        >>> answers = CachedAnswers(Path(tempfile.mkdtemp()) / "none.sqlite")
        >>> req = JudgeRequest(messages=[{"role": "user", "content": "x"}], schema_name="s")
        >>> answers.holds_any, answers.get(req, "openai:m")
        (False, None)
    """

    def __init__(self, path: Path | None) -> None:
        self._cache = JudgeCache(path) if path is not None and Path(path).is_file() else None

    @property
    def holds_any(self) -> bool:
        """Whether there is a cache file to read."""
        return self._cache is not None

    def get(self, request: JudgeRequest, scope: str) -> JudgeResponse | None:
        """The cached answer to ``request`` under ``scope``, ``None`` when there is none."""
        return self._cache.get(request.cache_key(scope)) if self._cache is not None else None

    def close(self) -> None:
        """Close the file."""
        if self._cache is not None:
            self._cache.close()
