"""Answers made of single digits, generated one digit at a time after the text the schema fixes.

A reason-less answer such as ``{"score": 4}`` or the four safety severities holds one free
token per digit; every other token is fixed by its JSON schema. A local model still spends a
decoding step on each fixed token (``{"hate_unfairness": {"severity": 0}, ...`` is 44 steps for
4 digits). Here the fixed text is given to the model as the start of its own answer (an
assistant prefill, read in one batch like the prompt) and the model generates the digit alone,
under a one-digit grammar, with its log-probabilities; then the next piece of fixed text, the
next digit, and so on. The model reads the same text it would have written itself
(``json.dumps`` spacing, the schema's property order) and picked the same digits (64 of 64 on
the demo); their probabilities round a little differently (read in a batch, not token by
token: on the demo the probability-weighted scores moved by at most 0.074). Each step reuses
the KV cache of the one before, so only the fixed text is new.

Example:
    >>> schema = {"type": "object", "required": ["score"],
    ...           "properties": {"score": {"type": "integer", "minimum": 1, "maximum": 5}}}
    >>> digit_scaffold(schema)
    DigitScaffold(pieces=('{"score": ', '}'), ranges=((1, 5),))
    >>> digit_scaffold({"type": "object", "properties": {"reason": {"type": "string"}}}) is None
    True
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

__all__ = ["DigitScaffold", "digit_scaffold", "fill_digits"]

Chat = Callable[[dict[str, Any]], dict[str, Any]]


@dataclasses.dataclass(frozen=True)
class DigitScaffold:
    """The fixed text of a digits-only answer: ``pieces[0] d0 pieces[1] d1 ... pieces[-1]``,
    the i-th digit within ``ranges[i]`` (inclusive)."""

    pieces: tuple[str, ...]
    ranges: tuple[tuple[int, int], ...]

    def text(self, digits: list[str]) -> str:
        """The whole answer with ``digits`` (as many as there are ranges) in place.

        >>> DigitScaffold(('{"a": ', ', "b": ', '}'), ((0, 7), (0, 7))).text(["3", "0"])
        '{"a": 3, "b": 0}'
        """
        return "".join(p + d for p, d in zip(self.pieces, [*digits, ""], strict=True))


def digit_scaffold(schema: dict[str, Any] | None) -> DigitScaffold | None:
    """The scaffold of ``schema`` when its every leaf is a required integer between 0 and 9
    (objects nested in any depth, properties in their schema order); ``None`` otherwise (a
    string, a list, an optional or a wider number makes the answer's shape the model's).

    >>> severity = {"type": "object", "required": ["severity"],
    ...             "properties": {"severity": {"type": "integer", "minimum": 0, "maximum": 7}}}
    >>> both = {"type": "object", "required": ["a", "b"], "properties": {"a": severity, "b": severity}}
    >>> digit_scaffold(both).pieces
    ('{"a": {"severity": ', '}, "b": {"severity": ', '}}')
    >>> digit_scaffold({**both, "required": ["a"]}) is None  # b may be left out
    True
    """
    pieces: list[str] = [""]
    ranges: list[tuple[int, int]] = []

    def walk(node: Any) -> bool:
        if not isinstance(node, dict):
            return False
        if node.get("type") == "integer":
            low, high = node.get("minimum"), node.get("maximum")
            if not (isinstance(low, int) and isinstance(high, int) and 0 <= low <= high <= 9):
                return False
            ranges.append((low, high))
            pieces.append("")
            return True
        props = node.get("properties")
        if node.get("type") != "object" or not isinstance(props, dict) or not props:
            return False
        if set(node.get("required") or ()) != set(props):
            return False
        pieces[-1] += "{"
        for i, (name, child) in enumerate(props.items()):
            pieces[-1] += (", " if i else "") + json.dumps(name) + ": "
            if not walk(child):
                return False
        pieces[-1] += "}"
        return True

    if schema is None or not walk(schema):
        return None
    return DigitScaffold(tuple(pieces), tuple(ranges))


def fill_digits(chat: Chat, body: dict[str, Any], scaffold: DigitScaffold) -> dict[str, Any]:
    """Answer ``body`` (a chat-completions request whose answer fits ``scaffold``) with one
    one-token request per digit through ``chat``; the result has the shape of one
    chat-completions answer: the whole JSON text, a log-probability entry per fixed piece
    (log-probability 0: it was given) and per digit (with its alternatives), ``usage`` (the
    first request's prompt tokens, one completion token per digit) and llama.cpp's
    ``timings`` summed over the requests. An answer with an error is returned as it came.

    Example (a scripted model that always answers 2):
        >>> def chat(b):
        ...     return {"choices": [{"message": {"content": "2"}, "finish_reason": "length",
        ...             "logprobs": {"content": [{"token": "2", "logprob": -0.1,
        ...                                       "top_logprobs": []}]}}],
        ...             "usage": {"prompt_tokens": 9}, "timings": {"prompt_n": 3, "predicted_n": 1}}
        >>> out = fill_digits(chat, {"messages": []}, DigitScaffold(('{"a": ', '}'), ((0, 7),)))
        >>> out["choices"][0]["message"]["content"], out["usage"]
        ('{"a": 2}', {'prompt_tokens': 9, 'completion_tokens': 1})
    """
    base = {k: v for k, v in body.items() if k not in ("response_format", "max_tokens")}
    digits: list[str] = []
    tokens: list[dict[str, Any]] = []
    timings = {"prompt_n": 0, "predicted_n": 0}
    prompt_tokens = 0
    given = ""  # the answer so far: the fixed pieces and the digits before this one
    for i, (low, high) in enumerate(scaffold.ranges):
        given += scaffold.pieces[i]
        out = chat({**base, "max_tokens": 1, "grammar": f"root ::= [{low}-{high}]",
                    "messages": [*body["messages"], {"role": "assistant", "content": given}]})
        if "error" in out or not out.get("choices"):
            return out
        choice = out["choices"][0]
        content = (choice.get("logprobs") or {}).get("content") or []
        digit = content[-1]["token"] if content else str(choice["message"]["content"])[-1:]
        if not (len(digit) == 1 and digit.isdigit() and low <= int(digit) <= high):
            return {"error": f"expected one digit {low}-{high} after the given text, got "
                             f"{digit!r}"}
        digits.append(digit)
        given += digit
        tokens += [{"token": scaffold.pieces[i], "logprob": 0.0, "top_logprobs": []},
                   *content[-1:]]
        for key in timings:
            timings[key] += int((out.get("timings") or {}).get(key) or 0)
        if i == 0:
            prompt_tokens = int((out.get("usage") or {}).get("prompt_tokens") or 0)
    tokens.append({"token": scaffold.pieces[-1], "logprob": 0.0, "top_logprobs": []})
    choice = {"message": {"role": "assistant", "content": scaffold.text(digits)},
              "finish_reason": "stop"}
    if body.get("logprobs"):
        choice["logprobs"] = {"content": tokens}
    return {"choices": [choice], "timings": timings,
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(digits)}}
