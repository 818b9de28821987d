"""The results that name one turn of a conversation, gathered from a row's result record (and
the row's own per-turn fields) so a page can show each beside the turn it names.

A turn is an index into the row's ``messages`` (0 is the first message). Three sources:

- a metric's ``details["turns"]``: ``[{"turn": 3, "value": 4, "reason": "..."}, ...]``, one
  entry per scored turn (the conversation metrics write it; a safety metric writes
  ``severity`` instead of ``value``);
- a metric's ``details["turn"]``: the one turn its whole result is about;
- a multi-turn attack transcript's ``exchanges`` (an extra field of the row): every message
  the attacker sent with the app's reply and its rating (``severity``, ``level``, ``harm``,
  ``reason``, ``refused``, ``success``), ``turn`` the attack's turn (1, 2, ...) and
  ``message`` the index of the reply in the row's messages (None when the reply is not
  there: crescendo took it back after a refusal).

An entry whose turn is missing or not a whole number keeps ``turn=None``: the page shows it
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

from ._model import Scale, fmt, metric_names, scale_of, value_css

__all__ = ["EXCHANGES_FIELD", "TurnResult", "exchange_results", "turn_results"]

#: The extra field of an attack transcript that lists its exchanges.
EXCHANGES_FIELD = "exchanges"
#: The name its ratings show under.
EXCHANGE_RATING = "attack rating"

#: Keys of a per-turn entry that hold its number, in the order they are looked for.
VALUE_KEYS = ("value", "severity", "score")
#: Keys of a per-turn entry not repeated in its label (shown otherwise, or provenance).
_NOT_LABELLED = {"turn", "reason", "error", "weighted", "p_yes", "prompt_sha256", *VALUE_KEYS}
#: Facts of a per-turn entry too usual to label (relevance's rubric for all but the last turn).
_USUAL = {("rubric", "conversation")}


@dataclass
class TurnResult:
    """One result about one turn: ``metric`` (``attack rating`` for an attack's exchange,
    ``origin`` ``"row"``: the row holds it, no metric), the ``turn`` it names (None: it names none), its formatted ``value`` ("" when
    the entry has no number), ``css`` for the value (``v-good`` / ``v-mid`` / ``v-bad`` /
    ``unscored``), and its ``reason``, ``error`` and ``label`` (the entry's other facts, e.g.
    ``level High``); ``quote``: the exchange's own text, for an attack's exchange that is not
    in the messages."""

    metric: str
    turn: int | None
    value: str
    css: str = ""
    reason: str = ""
    error: str = ""
    label: str = ""
    origin: str = "metric"
    quote: str = ""


def _index(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(entry: Mapping[str, Any]) -> float | None:
    for key in VALUE_KEYS:
        v = entry.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
    return None


#: The safety metrics' severity scale, which an attack's ratings use.
SEVERITY_SCALE = Scale(0.0, 7.0, True, higher_is_better=False, severity=True)


def _label(entry: Mapping[str, Any]) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {fmt(v)}" for k, v in entry.items()
                     if k not in _NOT_LABELLED and v is not None
                     and not isinstance(v, (Mapping, list)) and (k, v) not in _USUAL)


def _entries(name: str, entries: list[Any]) -> list[TurnResult]:
    """Each entry of a per-turn list as a :class:`TurnResult` (entries that are not objects
    are left out: they name nothing)."""
    rows = [e for e in entries if isinstance(e, Mapping)]
    numbers = [n for e in rows if (n := _number(e)) is not None]
    scale = scale_of(name, numbers)
    out = []
    for entry in rows:
        number = _number(entry)
        error = str(entry.get("error") or "")
        value = fmt(number) if number is not None else ("unscored" if error else "")
        css = value_css(number, scale) if number is not None else ("unscored" if error else "")
        out.append(TurnResult(name, _index(entry.get("turn")), value, css,
                              reason=str(entry.get("reason") or ""), error=error,
                              label=_label(entry)))
    return out


def exchange_results(extra: Mapping[str, Any] | None) -> list[TurnResult]:
    """The ratings of an attack transcript's exchanges (:data:`EXCHANGES_FIELD`), each at the
    message of its reply; one whose reply is not in the messages names no turn and quotes what
    was sent and replied.

    Example:
        >>> shown, taken_back = exchange_results({"exchanges": [
        ...     {"turn": 1, "message": None, "backtracked": True, "user": "How to ...?",
        ...      "assistant": "I can't.", "severity": 0, "level": "Very low", "harm": None,
        ...      "reason": "declines", "refused": True, "success": False},
        ...     {"turn": 1, "message": 1, "user": "As a story?", "assistant": "Once ...",
        ...      "severity": 5, "level": "Medium", "harm": "violence", "reason": "gives steps",
        ...      "refused": False, "success": True}]})[::-1]
        >>> shown.turn, shown.value, shown.css, shown.label
        (1, '5', 'v-bad', 'attack turn 1, level Medium, harm violence, refused no, success yes')
        >>> taken_back.turn, taken_back.label
        (None, 'attack turn 1, backtracked, level Very low, refused yes, success no')
        >>> taken_back.quote.splitlines()
        ['sent: How to ...?', "reply: I can't."]
    """
    found = (extra or {}).get(EXCHANGES_FIELD)
    if not isinstance(found, list):
        return []
    out = []
    for entry in found:
        if not isinstance(entry, Mapping):
            continue
        severity = _number({"severity": entry.get("severity")})
        error = str(entry.get("unscored") or "")
        facts = [f"attack turn {fmt(entry.get('turn'))}"]
        facts += ["backtracked"] if entry.get("backtracked") else []
        facts += [f"{k} {fmt(entry[k])}" for k in ("level", "harm", "refused", "success")
                  if entry.get(k) is not None]
        reason = str(entry.get("reason") or "")
        if entry.get("refused") and entry.get("refusal_reason"):
            reason = "; ".join(filter(None, [reason, f"refusal: {entry['refusal_reason']}"]))
        turn = _index(entry.get("message"))
        quote = "" if turn is not None else "\n".join(
            f"{label}: {entry[key]}" for key, label in (("user", "sent"), ("assistant", "reply"))
            if isinstance(entry.get(key), str))
        out.append(TurnResult(
            EXCHANGE_RATING, turn,
            fmt(severity) if severity is not None else ("unscored" if error else ""),
            value_css(severity, SEVERITY_SCALE) if severity is not None
            else ("unscored" if error else ""),
            reason=reason, error=error, label=", ".join(facts), origin="row", quote=quote))
    return out


def turn_results(record: Mapping[str, Any] | None, *, names: Iterable[str] | None = None,
                 extra: Mapping[str, Any] | None = None) -> list[TurnResult]:
    """Every result in ``record`` that names turns, metric by metric (``names`` gives their
    order; default: the record's), then the ratings of an attack's exchanges in the row's
    ``extra`` (:func:`exchange_results`).

    Example:
        >>> rec = {"id": "c", "negative_rejection": {"value": 1.0, "reason": "declines",
        ...                                          "details": {"turn": 5}},
        ...        "violence": {"value": 6, "details": {"turns": [
        ...            {"turn": 1, "severity": 6, "level": "High", "reason": "graphic"}]}},
        ...        "f1_score": {"value": 0.5, "details": {}}}
        >>> [(r.metric, r.turn, r.value, r.css, r.label) for r in turn_results(rec)]
        ... # doctest: +NORMALIZE_WHITESPACE
        [('negative_rejection', 5, '1', 'v-good', ''), ('violence', 1, '6', 'v-bad', 'level High')]
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
            out += _entries(name, details["turns"])
        if "turn" in details:
            entry = {"turn": details["turn"], "value": result.get("value"),
                     "reason": result.get("reason"), "error": result.get("error")}
            out += _entries(name, [entry])
    return out + exchange_results(extra)
