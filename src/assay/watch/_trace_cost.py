"""What the watched app spent on one trace, read from the trace itself: its model calls' tokens
(GenAI semantic-convention usage attributes, and the older and OpenInference names), priced
with a :class:`~assay.costs.PriceBook`, and its seconds (the root span's, and its model
calls').

- Tokens: ``gen_ai.usage.input_tokens`` / ``output_tokens`` (older: ``prompt_tokens`` /
  ``completion_tokens``; OpenInference ``llm.token_count.prompt`` / ``completion``), cache
  reads and writes (``gen_ai.usage.cache_read.input_tokens`` /
  ``cache_creation.input_tokens`` and their older spellings) and reasoning tokens where the
  span reports them. No call is counted twice: a span whose descendants report usage too is
  left out (an agent's or a framework's total over the calls under it), and so is a span
  that records again a call beside it (its time holds the other's and its tokens are the
  same: LangChain's span and its OpenAI client's, as OpenInference records them).
- Model: ``gen_ai.response.model``, else ``gen_ai.request.model`` (``llm.model_name``); the
  provider ``gen_ai.provider.name`` (``gen_ai.system``). Each model's calls are priced on
  their tokens summed (as a run prices each judge's). A model nobody prices makes the
  trace's cost *unknown* with the reason, never ``$0``; so does a trace that reports no
  tokens at all.
- Seconds: ``latency_s``, the root span's duration (the request end to end; without the
  root span, first start to last end); ``llm_s``, the model-call spans' durations summed
  (the innermost, as for tokens).

Example:
    >>> from assay.costs import ModelPrice
    >>> span = {"spanId": "a1", "startTimeUnixNano": "0", "endTimeUnixNano": "1500000000",
    ...         "attributes": [
    ...     {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
    ...     {"key": "gen_ai.request.model", "value": {"stringValue": "shop-model"}},
    ...     {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "1000"}},
    ...     {"key": "gen_ai.usage.output_tokens", "value": {"intValue": "200"}}]}
    >>> export = {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}
    >>> book = PriceBook({"shop-model": ModelPrice(input=1.0, output=4.0)})
    >>> spend = app_spend(export, book)
    >>> spend["usd"], spend["prompt_tokens"], spend["models"], spend["latency_s"]
    (0.0018, 1000, ['shop-model'], 1.5)
    >>> app_spend(export, PriceBook())["unknown_reason"]
    "no price for model 'shop-model' (add it to a --prices file)"
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..costs import Cost, PriceBook, Usage, cost_figures

__all__ = ["NO_USAGE", "app_spend"]

#: The reason of a trace whose spans report no tokens.
NO_USAGE = ("the trace reports no token usage (no gen_ai.usage.input_tokens / output_tokens "
            "on its model-call spans)")

#: Each token counter of :class:`~assay.costs.Usage` and the attributes that carry it, first
#: found wins (semantic conventions, their older names, OpenLLMetry's, OpenInference's).
_TOKENS = {
    "prompt_tokens": ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens",
                      "llm.usage.prompt_tokens", "llm.token_count.prompt"),
    "completion_tokens": ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens",
                          "llm.usage.completion_tokens", "llm.token_count.completion"),
    "cached_tokens": ("gen_ai.usage.cache_read.input_tokens",
                      "gen_ai.usage.cache_read_input_tokens", "gen_ai.usage.input_tokens.cached",
                      "llm.token_count.prompt_details.cache_read"),
    "cache_write_tokens": ("gen_ai.usage.cache_creation.input_tokens",
                           "gen_ai.usage.cache_creation_input_tokens",
                           "gen_ai.usage.input_tokens.cache_write",
                           "llm.token_count.prompt_details.cache_write"),
    "reasoning_tokens": ("gen_ai.usage.reasoning.output_tokens", "gen_ai.usage.reasoning_tokens",
                         "llm.token_count.completion_details.reasoning"),
}
_MODEL = ("gen_ai.response.model", "gen_ai.request.model", "llm.model_name",
          "llm.response.model", "llm.request.model")
_PROVIDER = ("gen_ai.provider.name", "gen_ai.system", "llm.provider", "llm.system")
_ASKED = ("gen_ai.request.model", "llm.request.model")
#: ``gen_ai.operation.name`` values of a model call.
_MODEL_CALLS = frozenset({"chat", "text_completion", "generate_content", "embeddings"})


def _value(v: Any) -> Any:
    if not isinstance(v, Mapping):
        return None
    for key in ("stringValue", "intValue", "doubleValue"):
        if key in v:
            return v[key]
    return None


def _attrs(span: Mapping[str, Any]) -> dict[str, Any]:
    raw = span.get("attributes")
    return {kv["key"]: _value(kv.get("value")) for kv in raw if isinstance(kv, Mapping)
            and isinstance(kv.get("key"), str)} if isinstance(raw, list) else {}


def _count(value: Any) -> int | None:
    try:
        n = int(float(value))
    except (TypeError, ValueError):
        return None
    return n if n >= 0 else None


def _nanos(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _spans(export: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    for resource in export.get("resourceSpans") or []:
        for scope in resource.get("scopeSpans") or [] if isinstance(resource, Mapping) else []:
            for span in scope.get("spans") or [] if isinstance(scope, Mapping) else []:
                if isinstance(span, Mapping):
                    yield span


def _usage(attrs: Mapping[str, Any]) -> Usage | None:
    found = {name: next((n for key in keys if (n := _count(attrs.get(key))) is not None), None)
             for name, keys in _TOKENS.items()}
    if found["prompt_tokens"] is None and found["completion_tokens"] is None:
        return None
    return Usage(**{k: v or 0 for k, v in found.items()})


def _first(attrs: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    return next((str(attrs[k]) for k in keys if isinstance(attrs.get(k), str) and attrs[k]),
                None)


def _tokens(usage: Usage | None) -> tuple[int, int] | None:
    return None if usage is None else (usage.prompt_tokens, usage.completion_tokens)


def _recorded_again(chosen: set[str], times: Mapping[str, tuple[int, int]],
                    usages: Mapping[str, Usage]) -> set[str]:
    """The spans of ``chosen`` that record a call another span of ``chosen`` records too: its
    time holds the other's, and its tokens are the same (of two with the same times, the one
    with the smaller id). Spans are compared only with those of the same tokens that start
    within their time, so a long trace costs little."""
    same: dict[tuple[int, int] | None, list[tuple[int, int, str]]] = {}
    for span_id in chosen:
        if span_id in times:
            start, end = times[span_id]
            same.setdefault(_tokens(usages.get(span_id)), []).append((start, -end, span_id))
    again = set()
    for group in same.values():
        group.sort()  # by start, the longest first: a span's calls recorded within come after
        for k, (a0, a1, a) in enumerate(group):
            for b0, b1, _b in group[k + 1:]:
                if b0 > -a1:
                    break
                if -b1 <= -a1:  # within a's time (same times: the later, larger id, stays)
                    again.add(a)
                    break
    return again


def _innermost(marked: set[str], parents: Mapping[str, str | None]) -> set[str]:
    """The marked spans none of whose descendants is marked."""
    outer: set[str] = set()
    for span_id in marked:
        parent, seen = parents.get(span_id), {span_id}
        while parent is not None and parent not in seen:
            if parent in marked:
                outer.add(parent)
            seen.add(parent)
            parent = parents.get(parent)
    return marked - outer


def app_spend(export: Mapping[str, Any], book: PriceBook) -> dict[str, Any]:
    """The app's figures for one trace (an OTLP/JSON traces export): ``usd`` (``None`` with
    ``unknown_reason`` when unknown), ``requests`` (model calls), the token counts
    (``None`` when no span reports any), ``models``, ``latency_s`` and ``llm_s`` (``None``
    when the spans carry no times). See the module docstring."""
    spans = list(_spans(export))
    ids = [str(s.get("spanId") or f"#{k}") for k, s in enumerate(spans)]
    parents = {i: (str(s["parentSpanId"]) if s.get("parentSpanId") else None)
               for i, s in zip(ids, spans, strict=True)}
    attrs = dict(zip(ids, (_attrs(s) for s in spans), strict=True))
    usages = {i: u for i in ids if (u := _usage(attrs[i])) is not None}
    calls = {i for i in ids if i in usages or attrs[i].get("gen_ai.operation.name") in _MODEL_CALLS
             or attrs[i].get("openinference.span.kind") == "LLM"}
    times = _times(spans, ids)
    counted = _innermost(set(usages), parents)
    counted -= _recorded_again(counted, times, usages)
    calls = _innermost(calls, parents)
    calls -= _recorded_again(calls, times, usages)
    order = {span_id: k for k, span_id in enumerate(ids)}
    cost, total = Cost.zero(), Usage()
    by_model: dict[tuple[str, str | None, str | None], Usage] = {}
    for span_id in sorted(counted, key=order.__getitem__):
        a, used = attrs[span_id], usages[span_id]
        model = _first(a, _MODEL)
        if model is None:
            cost = cost.add(Cost.unknown("a model-call span reports tokens but no model "
                                         "(gen_ai.response.model / gen_ai.request.model)"))
        else:
            key = (model, _first(a, _PROVIDER), _first(a, _ASKED))
            by_model[key] = by_model.get(key, Usage()) + used
        total = total + used
    for (model, provider, asked), used in by_model.items():  # priced per model, as a run's
        cost = cost.add(_priced(book, model, used, provider=provider, asked=asked))
    models = [model for model, _, _ in by_model]
    if not counted:
        cost = Cost.unknown(NO_USAGE)
    out = cost_figures(cost, total, len(calls))
    if not counted:
        out["prompt_tokens"] = out["completion_tokens"] = None
    out["models"] = list(dict.fromkeys(models))
    out["latency_s"], out["llm_s"] = _seconds(times, ids, parents, calls)
    return out


def _priced(book: PriceBook, model: str, used: Usage, *, provider: str | None,
            asked: str | None) -> Cost:
    """``used`` on ``model`` at ``book``'s prices; a response model nobody prices is tried
    under the request model's name (``gpt-4o-2024-08-06`` asked as ``gpt-4o``)."""
    cost = book.cost(model, used, provider=provider)
    if cost.usd is None and asked and asked != model:
        again = book.cost(asked, used, provider=provider)
        if again.usd is not None:
            return again
    return cost


def _times(spans: list[Mapping[str, Any]], ids: list[str]) -> dict[str, tuple[int, int]]:
    """Each span's (start, end) in nanoseconds, when it has both (and ends after it starts)."""
    times = {}
    for span_id, span in zip(ids, spans, strict=True):
        start, end = _nanos(span.get("startTimeUnixNano")), _nanos(span.get("endTimeUnixNano"))
        if start is not None and end is not None and end >= start:
            times[span_id] = (start, end)
    return times


def _seconds(times: Mapping[str, tuple[int, int]], ids: list[str],
             parents: Mapping[str, str | None], calls: set[str]
             ) -> tuple[float | None, float | None]:
    """(the root span's seconds, or first start to last end; the calls' seconds summed)."""
    roots = [i for i in ids if parents[i] is None and i in times]
    if roots:
        start, end = times[roots[0]]
    elif times:
        start, end = min(t[0] for t in times.values()), max(t[1] for t in times.values())
    else:
        return None, None
    timed = [times[i] for i in calls if i in times]
    llm = round(sum(e - s for s, e in timed) / 1e9, 4) if timed else None
    return round((end - start) / 1e9, 4), llm


def judge_spend(record: Mapping[str, Any], book: PriceBook) -> dict[str, Any]:
    """The judge's figures for one scored record: its metric results' usage
    (``details["usage"]``, ``{judge: counters}``) priced with ``book`` (no judge call, e.g.
    assay's cache answered: ``$0``, nothing was spent), and ``latency_s``, the judge's seconds
    on the row (``row_latency.judge_s``, ``None`` when no judge was asked).

    Example:
        >>> rec = {"id": "t", "fluency": {"value": 4, "details": {"usage": {
        ...     "openai:gpt-4o-mini": {"requests": 1, "prompt_tokens": 1000,
        ...                            "completion_tokens": 10}}}},
        ...        "row_latency": {"judge_s": 0.8}}
        >>> s = judge_spend(rec, PriceBook())
        >>> s["usd"], s["requests"], s["prompt_tokens"], s["latency_s"]
        (0.000156, 1, 1000, 0.8)
    """
    per_judge: dict[str, Usage] = {}
    requests = 0
    for result in record.values():
        details = result.get("details") if isinstance(result, Mapping) else None
        usage = details.get("usage") if isinstance(details, Mapping) else None
        for judge, counters in (usage or {}).items() if isinstance(usage, Mapping) else ():
            if isinstance(counters, Mapping):
                used = Usage(**{k: _count(counters.get(k)) or 0 for k in _TOKENS})
                per_judge[str(judge)] = per_judge.get(str(judge), Usage()) + used
                requests += _count(counters.get("requests")) or 0
    cost, total = Cost.zero(), Usage()
    for judge, used in per_judge.items():
        cost, total = cost.add(book.cost(judge, used)), total + used
    out = cost_figures(cost, total, requests)
    latency = record.get("row_latency")
    seconds = latency.get("judge_s") if isinstance(latency, Mapping) else None
    out["latency_s"] = float(seconds) if isinstance(seconds, (int, float)) else None
    return out
