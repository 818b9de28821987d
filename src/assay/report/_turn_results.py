"""The results that name one turn of a conversation, gathered from a row's result record (and
the row's own per-turn fields) so a page can show each beside the turn it names.

A turn is an index into the row's ``messages`` (0 is the first message). Three sources:

- a metric's ``details["turns"]``: ``[{"turn": 3, "value": 4, "reason": "..."}, ...]``, one
  entry per scored turn (the conversation metrics write it; a safety metric writes
  ``severity`` instead of ``value``);
- a metric's ``details["turn"]``: the one turn its whole result is about;
- an extra field of the row holding such a list (e.g. a multi-turn attack's per-reply
  severities and reasons): every entry an object with an integer ``turn``.

An entry whose ``turn`` is missing or not a whole number keeps ``turn=None``: the page shows it
at the conversation level rather than losing it.

Example:
    >>> record = {"id": "c", "coherence": {"value": 3.0, "details": {"turns": [
    ...     {"turn": 1, "value": 5.0, "reason": "clear"},
    ...     {"turn": 3, "value": 1.0, "reason": "rambles"}]}}}
    >>> [(r.metric, r.turn, r.value, r.reason) for r in turn_results(record)]
    [('coherence', 1, '5', 'clear'), ('coherence', 3, '1', 'rambles')]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..metrics import REGISTRY
from ._model import Scale, fmt, metric_names, scale_of, value_css

__all__ = ["TurnResult", "row_turn_fields", "turn_results"]

#: Keys of a per-turn entry that hold its number, in the order they are looked for.
VALUE_KEYS = ("value", "severity", "score")
#: Keys of a per-turn entry not repeated in its label (shown otherwise, or provenance).
_NOT_LABELLED = {"turn", "reason", "error", "weighted", "p_yes", "prompt_sha256", *VALUE_KEYS}
#: Facts of a per-turn entry too usual to label (relevance's rubric for all but the last turn).
_USUAL = {("rubric", "conversation")}


@dataclass
class TurnResult:
    """One result about one turn: ``metric`` (or the row field it comes from, ``origin``
    ``"row"``), the ``turn`` it names (None: it names none), its formatted ``value`` ("" when
    the entry has no number), ``css`` for the value (``v-good`` / ``v-mid`` / ``v-bad`` /
    ``unscored``), and its ``reason``, ``error`` and ``label`` (the entry's other facts, e.g.
    ``level High``)."""

    metric: str
    turn: int | None
    value: str
    css: str = ""
    reason: str = ""
    error: str = ""
    label: str = ""
    origin: str = "metric"


def _index(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(entry: Mapping[str, Any]) -> float | None:
    for key in VALUE_KEYS:
        v = entry.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
    return None


#: The safety metrics' severity scale: what a row field's ``severity`` is read on when its
#: values fit it.
SEVERITY_SCALE = Scale(0.0, 7.0, True, higher_is_better=False, severity=True)


def _scale(name: str, rows: list[Mapping[str, Any]], numbers: list[float]) -> Scale:
    """A registered metric's scale; else, for severities, the safety scale (0-7, lower is
    better) when the values fit it, else the values' span, lower better; else the values'."""
    scale = scale_of(name, numbers)
    if name in REGISTRY or not any(_number({"severity": e.get("severity")}) is not None
                                   for e in rows):
        return scale
    if all(0 <= n <= 7 for n in numbers):
        return SEVERITY_SCALE
    return Scale(scale.lo, scale.hi, scale.integer, higher_is_better=False)


def _label(entry: Mapping[str, Any]) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {fmt(v)}" for k, v in entry.items()
                     if k not in _NOT_LABELLED and v is not None
                     and not isinstance(v, (Mapping, list)) and (k, v) not in _USUAL)


def _entries(name: str, entries: list[Any], origin: str) -> list[TurnResult]:
    """Each entry of a per-turn list as a :class:`TurnResult` (entries that are not objects
    are left out: they name nothing)."""
    rows = [e for e in entries if isinstance(e, Mapping)]
    numbers = [n for e in rows if (n := _number(e)) is not None]
    scale = _scale(name, rows, numbers)
    out = []
    for entry in rows:
        number = _number(entry)
        error = str(entry.get("error") or "")
        value = fmt(number) if number is not None else ("unscored" if error else "")
        css = value_css(number, scale) if number is not None else ("unscored" if error else "")
        out.append(TurnResult(name, _index(entry.get("turn")), value, css,
                              reason=str(entry.get("reason") or ""), error=error,
                              label=_label(entry), origin=origin))
    return out


def row_turn_fields(extra: Mapping[str, Any] | None) -> list[str]:
    """The extra fields of a row that hold per-turn entries: non-empty lists whose every entry
    is an object with an integer ``turn``.

    Example:
        >>> row_turn_fields({"judged": [{"turn": 1, "severity": 6, "reason": "gives steps"}],
        ...                  "source": [{"doc": "a.md"}], "goal": "refund"})
        ['judged']
    """
    return [key for key, value in (extra or {}).items()
            if isinstance(value, list) and value
            and all(isinstance(e, Mapping) and _index(e.get("turn")) is not None for e in value)]


def turn_results(record: Mapping[str, Any] | None, *, names: Iterable[str] | None = None,
                 extra: Mapping[str, Any] | None = None) -> list[TurnResult]:
    """Every result in ``record`` that names turns, metric by metric (``names`` gives their
    order; default: the record's), then the per-turn entries of the row's ``extra`` fields
    (:func:`row_turn_fields`).

    Example:
        >>> rec = {"id": "c", "negative_rejection": {"value": 1.0, "reason": "declines",
        ...                                          "details": {"turn": 5}},
        ...        "violence": {"value": 6, "details": {"turns": [
        ...            {"turn": 1, "severity": 6, "level": "High", "reason": "graphic"}]}},
        ...        "f1_score": {"value": 0.5, "details": {}}}
        >>> [(r.metric, r.turn, r.value, r.css, r.label)
        ...  for r in turn_results(rec, extra={"judged": [{"turn": 1, "severity": 2}]})]
        ... # doctest: +NORMALIZE_WHITESPACE
        [('negative_rejection', 5, '1', 'v-good', ''), ('violence', 1, '6', 'v-bad', 'level High'),
         ('judged', 1, '2', 'v-mid', '')]
    """
    if record is None:
        record = {}
    order = list(names) if names is not None else metric_names({}, [record])
    out: list[TurnResult] = []
    for name in order:
        result = record.get(name)
        if not isinstance(result, Mapping) or not isinstance(result.get("details"), Mapping):
            continue
        details = result["details"]
        if isinstance(details.get("turns"), list):
            out += _entries(name, details["turns"], "metric")
        if "turn" in details:
            entry = {"turn": details["turn"], "value": result.get("value"),
                     "reason": result.get("reason"), "error": result.get("error")}
            out += _entries(name, [entry], "metric")
    for field in row_turn_fields(extra):
        out += _entries(field, extra[field] if extra else [], "row")
    return out
