"""The answer scale of a custom pointwise metric: an integer range or a list of labels.

Example:
    >>> s = Scale.parse("1-5")
    >>> s.labels, s.ordinal
    ([1, 2, 3, 4, 5], True)
    >>> s.parse_answer('{"score": 4, "reason": "Clear."}')
    (4, 'Clear.')
    >>> t = Scale.parse(["unhelpful", "partly", "helpful"])
    >>> t.parse_answer('{"score": "helpful", "reason": "Answers it."}'), t.value("helpful")
    (('helpful', 'Answers it.'), 2.0)
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import ConfigError
from ..judge import json_object, parse_rating

__all__ = ["Scale"]

_RANGE = re.compile(r"^\s*(-?\d+)\s*(?:-|\.\.|to)\s*(-?\d+)\s*$")


@dataclass(frozen=True)
class Scale:
    """Either ``low``..``high`` integers (ordinal) or named labels (``ordinal`` as declared).

    A label scale's value is the label's position in the list (0, 1, ...): list labels from
    worst to best when the mean should mean something.
    """

    labels: list[Any]
    numeric: bool
    ordinal: bool

    @classmethod
    def parse(cls, spec: str | Sequence[Any] | tuple[int, int], *,
              ordinal: bool | None = None) -> Scale:
        """``"1-5"``, ``(1, 5)`` or ``["bad", "ok", "good"]``; a ConfigError says what is wrong."""
        if isinstance(spec, str):
            m = _RANGE.match(spec)
            if not m:
                raise ConfigError(f"Got scale {spec!r}. Write an integer range such as '1-5', "
                                  "or a list of labels such as [bad, ok, good].")
            spec = (int(m.group(1)), int(m.group(2)))
        if (isinstance(spec, tuple) and len(spec) == 2
                and all(isinstance(x, int) and not isinstance(x, bool) for x in spec)):
            low, high = spec
            if not 0 <= low < high <= 9:
                raise ConfigError(f"Got scale {low}-{high}. An integer scale must lie within "
                                  "0-9 with low < high (one digit per score).")
            return cls(list(range(low, high + 1)), True, True if ordinal is None else ordinal)
        labels = list(spec)
        if len(labels) < 2 or not all(isinstance(x, str) and x.strip() for x in labels):
            raise ConfigError(f"Got scale {spec!r}. A label scale needs at least two non-empty "
                              "text labels.")
        if len({x.lower() for x in labels}) != len(labels):
            raise ConfigError(f"Got scale {labels!r}: labels must differ (case-insensitively).")
        return cls(labels, False, bool(ordinal))

    def describe(self) -> str:
        """How the prompt names the allowed answers."""
        if self.numeric:
            return f"an integer from {self.labels[0]} to {self.labels[-1]}"
        return "one of " + ", ".join(json.dumps(x) for x in self.labels)

    def json_schema(self) -> dict[str, Any]:
        """The structured-output schema: ``score`` first, then ``reason``."""
        score: dict[str, Any] = ({"type": "integer", "minimum": self.labels[0],
                                  "maximum": self.labels[-1]} if self.numeric
                                 else {"type": "string", "enum": list(self.labels)})
        return {"type": "object", "properties": {"score": score, "reason": {"type": "string"}},
                "required": ["score", "reason"], "additionalProperties": False}

    def parse_answer(self, text: str) -> tuple[Any, str] | None:
        """``(label, reason)`` from a JSON answer; ``None`` when it is not on the scale."""
        if self.numeric:
            return parse_rating(text, self.labels[0], self.labels[-1])
        obj = json_object(text)
        if obj is None or not isinstance(obj.get("reason"), str):
            return None
        score = obj.get("score")
        if not isinstance(score, str):
            return None
        for label in self.labels:
            if label.lower() == score.strip().lower():
                return label, obj["reason"].strip()
        return None

    def value(self, label: Any) -> float:
        """The number stored as the row's value: the integer itself, or the label's position."""
        return float(label) if self.numeric else float(self.labels.index(label))

    def label_of(self, value: float | None) -> Any:
        """The label for a stored value (inverse of :meth:`value`); ``None`` stays ``None``."""
        if value is None:
            return None
        return int(value) if self.numeric else self.labels[int(value)]
