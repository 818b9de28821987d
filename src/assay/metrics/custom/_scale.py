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

from ...asking import json_object, parse_rating
from ...errors import ConfigError

__all__ = ["Scale", "ScoreMap"]

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


@dataclass(frozen=True)
class ScoreMap:
    """A monotone map from the judge's score to a label: ``thresholds`` are ``(label, lowest
    judge score)`` pairs in scale order; a score takes the last label whose lowest score it
    reaches (the first label below them all). Learned by ``assay align`` (isotonic regression)
    and kept in a metric file under ``calibration``.

    Example:
        >>> m = ScoreMap.parse({"thresholds": {1: 0, 3: 2.5, 5: 4.2}}, Scale.parse("1-5"))
        >>> m.label_for(2.49), m.label_for(2.5), m.label_for(4.9), m.as_dict()["input"]
        (1, 3, 5, 'weighted')
    """

    thresholds: tuple[tuple[Any, float], ...]
    input: str = "weighted"

    @classmethod
    def parse(cls, spec: Any, scale: Scale) -> ScoreMap:
        """From ``{"input": "weighted", "thresholds": {label: lowest score, ...}}``; a
        ConfigError says what is wrong."""
        table = spec.get("thresholds") if isinstance(spec, dict) else None
        if not isinstance(table, dict) or not table:
            raise ConfigError("calibration needs 'thresholds': a mapping of label to the lowest "
                              "judge score that gets it, e.g. {1: 0, 2: 2.4, 3: 3.6}.")
        if spec.get("input", "weighted") != "weighted" or set(spec) - {"input", "thresholds"}:
            raise ConfigError(f"calibration: got keys {sorted(spec)}; allowed: input "
                              "(weighted), thresholds.")
        by_key = {str(k).strip().lower(): v for k, v in table.items()}
        pairs: list[tuple[Any, float]] = []
        for label in scale.labels:
            low = by_key.pop(str(label).lower(), None)
            if low is None:
                continue
            if isinstance(low, bool) or not isinstance(low, (int, float)):
                raise ConfigError(f"calibration threshold of {label!r}: got {low!r}; must be "
                                  "a number.")
            pairs.append((label, float(low)))
        if by_key:
            raise ConfigError(f"calibration thresholds {sorted(by_key)} are not on the scale "
                              f"{scale.labels}.")
        lows = [low for _, low in pairs]
        if lows != sorted(lows):
            raise ConfigError(f"calibration thresholds must rise with the scale; got {table}.")
        return cls(tuple(pairs))

    def label_for(self, score: float) -> Any:
        """The label for a judge score."""
        label = self.thresholds[0][0]
        for candidate, low in self.thresholds[1:]:
            if score >= low:
                label = candidate
        return label

    def as_dict(self) -> dict[str, Any]:
        """The metric-file form (``calibration:`` key)."""
        return {"input": self.input, "thresholds": {k: v for k, v in self.thresholds}}
