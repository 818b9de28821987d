"""Scenarios for simulated users: reading them from a file (JSON Lines, JSON, CSV: any format
the dataset readers know) or from dicts, every problem reported at once.

A scenario is one record:

- ``goal`` (required): what the user wants from the app;
- ``id`` (default ``scenario-<line>``), ``persona`` (how the user writes; default: one picked
  by the seed, see :mod:`._personas`), ``first_message`` (the first user turn, as it is),
  ``facts`` (what the user knows and gives when asked: a string or a list of strings; in a
  CSV cell, a string or a JSON list), ``expected_outcome`` (what the app should end up doing,
  for scoring; never shown to the simulated user), ``max_turns`` (user turns at most),
  ``lang`` (the user's language; default: detected from ``first_message``, then ``goal``,
  English when neither tells), ``system`` (a system prompt, the app's first message) and
  ``tools`` (OpenAI-style tool definitions offered to an agent target, as a conversation row's
  ``tools``; a JSON list in a CSV cell).

Other fields are kept and copied into the output row; the fields the simulation writes
(``messages``, ``stop_reason``, ...) are refused.

Example:
    >>> [s] = read_scenarios([{"goal": "Find out whether my order A1005 has shipped.",
    ...                        "facts": "My order number is A1005."}])
    >>> s.id, s.lang, s.facts, s.max_turns
    ('scenario-1', 'en', ('My order number is A1005.',), None)
    >>> read_scenarios([{"goal": ""}, {"goal": "Hi", "max_turns": 0, "lang": "e n"}])
    Traceback (most recent call last):
    ...
    assay.errors.DataError: <scenarios>: 3 problems found; nothing was simulated.
      - <scenarios> item 1, field 'goal': missing. Fix: say what the user wants from the app, e.g. "Find out whether order A1005 has shipped".
      - <scenarios> item 2, field 'max_turns': got 0. Fix: give a whole number of user turns, at least 1.
      - <scenarios> item 2, field 'lang': got 'e n'. Fix: give a language code such as 'en', 'zh' or 'pt-BR', or leave it out to detect it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..data import read_records, rows_from_records
from ..errors import DataError

__all__ = ["OUTPUT_FIELDS", "SCENARIO_FIELDS", "Scenario", "read_scenarios"]

#: The fields a scenario record may set (any other field is kept as it is).
SCENARIO_FIELDS = ("id", "goal", "persona", "first_message", "facts", "expected_outcome",
                   "max_turns", "lang", "system", "tools")
#: The fields the simulation writes into each output row: a scenario may not set them.
OUTPUT_FIELDS = ("messages", "stop_reason", "stop_detail", "simulation", "error")
_LANGUAGE_TAG = re.compile(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*")
#: The most user turns a scenario may ask for.
MAX_TURNS_CAP = 100
#: The language of a scenario whose ``lang`` is not given and cannot be detected.
FALLBACK_LANG = "en"


@dataclass(frozen=True)
class Scenario:
    """One simulated user's brief (see the module's docstring); ``max_turns`` ``None``: the
    run's; ``tools`` as OpenAI-style dicts; ``extra``: the record's other fields."""

    id: str
    goal: str
    persona: str | None = None
    first_message: str | None = None
    facts: tuple[str, ...] = ()
    expected_outcome: str | None = None
    max_turns: int | None = None
    lang: str = FALLBACK_LANG
    system: str | None = None
    tools: tuple[dict[str, Any], ...] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def fingerprint(self) -> str:
        """sha256 of the scenario as read (what a resumed run must find unchanged)."""
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True, ensure_ascii=False,
                                         default=str).encode()).hexdigest()


def read_scenarios(source: str | Path | Sequence[Mapping[str, Any]]) -> list[Scenario]:
    """The scenarios of a file (any format :func:`assay.data.read_records` reads) or of a list
    of dicts, in order.

    Raises:
        DataError: the file cannot be read, or records are not valid scenarios; every problem
            with its file, line, field and fix.
    """
    problems: list[str] = []
    if isinstance(source, (str, Path)):
        name, unit = str(source), "line"
        records = list(read_records(Path(source), problems))
    else:
        name, unit = "<scenarios>", "item"
        records = []
        for i, rec in enumerate(source, start=1):
            if isinstance(rec, Mapping):
                records.append((i, dict(rec)))
            else:
                problems.append(f"{name} item {i}: expected an object, got "
                                f"{type(rec).__name__}. Fix: give each scenario as a dict.")
    scenarios: list[Scenario] = []
    seen: dict[str, int] = {}
    for line, rec in records:
        where = f"{name} {unit} {line}"
        before = len(problems)
        scenario = _scenario(rec, line, where, problems)
        if scenario is None or len(problems) > before:
            continue
        if scenario.id in seen:
            problems.append(f"{where}, field 'id': {scenario.id!r} is already the id of {unit} "
                            f"{seen[scenario.id]}. Fix: give each scenario its own id.")
            continue
        seen[scenario.id] = line
        scenarios.append(scenario)
    if not records and not problems:
        problems.append(f"{name}: no scenarios. Fix: add at least one record with a 'goal'.")
    if problems:
        raise DataError(problems, source=name, outcome="nothing was simulated")
    return scenarios


def _scenario(rec: dict[str, Any], line: int, where: str,
              problems: list[str]) -> Scenario | None:
    """The scenario of one record, its problems added in field order (None without a goal)."""
    for key in OUTPUT_FIELDS:
        if key in rec:
            problems.append(f"{where}, field {key!r}: the simulation writes this field. Fix: "
                            "drop it (a scenario's first user turn is its 'first_message').")
    scenario_id = _id(rec.get("id"), line, where, problems)
    goal = _text(rec, "goal", where, problems)
    if goal is None and not _given(rec.get("goal")):
        problems.append(f"{where}, field 'goal': missing. Fix: say what the user wants from "
                        'the app, e.g. "Find out whether order A1005 has shipped".')
    persona, first = _text(rec, "persona", where, problems), _text(rec, "first_message", where,
                                                                    problems)
    facts = _facts(rec.get("facts"), where, problems)
    expected = _text(rec, "expected_outcome", where, problems)
    max_turns = _max_turns(rec.get("max_turns"), where, problems)
    lang = _lang(rec.get("lang"), where, problems)
    system = _text(rec, "system", where, problems)
    tools = _tools(rec.get("tools"), where, problems)
    if goal is None:
        return None
    return Scenario(id=scenario_id, goal=goal, persona=persona, first_message=first,
                    facts=facts, expected_outcome=expected, max_turns=max_turns,
                    lang=lang or _detected(first, goal), system=system, tools=tools,
                    extra={k: v for k, v in rec.items() if k not in SCENARIO_FIELDS})


def _given(value: Any) -> bool:
    return value is not None and not (isinstance(value, str) and not value.strip())


def _kind(value: Any) -> str:
    return "a list" if isinstance(value, list) else f"{type(value).__name__} {value!r:.40}"


def _text(rec: dict[str, Any], key: str, where: str, problems: list[str]) -> str | None:
    value = rec.get(key)
    if not _given(value):
        return None
    if not isinstance(value, str):
        problems.append(f"{where}, field {key!r}: expected text, got {_kind(value)}. Fix: "
                        "write it as a string.")
        return None
    return value.strip()


def _id(value: Any, line: int, where: str, problems: list[str]) -> str:
    if not _given(value):
        return f"scenario-{line}"
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        problems.append(f"{where}, field 'id': expected text or a number, got {_kind(value)}. "
                        "Fix: give a short name such as 'order-status'.")
        return f"scenario-{line}"
    return str(value).strip()


def _facts(value: Any, where: str, problems: list[str]) -> tuple[str, ...]:
    if not _given(value):
        return ()
    if isinstance(value, str) and value.strip().startswith("["):
        try:  # a CSV cell holding a JSON list
            value = json.loads(value)
        except ValueError:
            pass
    if isinstance(value, str):
        return (value.strip(),)
    bad = (not isinstance(value, list)
           or any(not isinstance(f, str) or not f.strip() for f in value))
    if bad:
        problems.append(f"{where}, field 'facts': expected text or a list of texts, got "
                        f"{_kind(value)}. Fix: write each fact as a non-empty string, e.g. "
                        '["My order number is A1005."].')
        return ()
    return tuple(f.strip() for f in value)


def _max_turns(value: Any, where: str, problems: list[str]) -> int | None:
    if not _given(value):
        return None
    number = value.strip() if isinstance(value, str) else value
    if isinstance(number, str) and number.isdigit():
        number = int(number)
    if isinstance(number, bool) or not isinstance(number, int) or not (
            1 <= number <= MAX_TURNS_CAP):
        problems.append(f"{where}, field 'max_turns': got {value!r}. Fix: give a whole number "
                        f"of user turns, at least 1" + (f" and at most {MAX_TURNS_CAP}"
                                                        if isinstance(number, int)
                                                        and number > MAX_TURNS_CAP else "")
                        + ".")
        return None
    return number


def _lang(value: Any, where: str, problems: list[str]) -> str | None:
    if not _given(value):
        return None
    if not isinstance(value, str) or not _LANGUAGE_TAG.fullmatch(value.strip()):
        problems.append(f"{where}, field 'lang': got {value!r}. Fix: give a language code such "
                        "as 'en', 'zh' or 'pt-BR', or leave it out to detect it.")
        return None
    primary, _, rest = value.strip().partition("-")
    return primary.lower() + (f"-{rest}" if rest else "")


def _detected(first_message: str | None, goal: str) -> str:
    """The language of the first message, else of the goal; English when neither tells (too
    short): give ``lang`` then."""
    from assay.injection import language_of

    for text in (first_message, goal, f"{first_message or ''}\n{goal}"):
        found = language_of(text) if text else None
        if found:
            return found
    return FALLBACK_LANG


def _tools(value: Any, where: str, problems: list[str]) -> tuple[dict[str, Any], ...] | None:
    """The tool definitions, checked as a conversation row's ``tools`` are."""
    if not _given(value):
        return None
    if isinstance(value, str):
        try:  # a CSV cell holding a JSON list
            value = json.loads(value)
        except ValueError as e:
            problems.append(f"{where}, field 'tools': not JSON ({e}). Fix: write the tools as "
                            "a JSON list of OpenAI function tools.")
            return None
    probe = {"id": "tools", "messages": [{"role": "user", "content": "-"}], "tools": value}
    try:
        [row] = rows_from_records([probe], source="<tools>")
    except DataError as e:
        problems.extend(p.replace("<tools> line 1", where, 1) for p in e.problems)
        return None
    return tuple(t.openai() for t in row.tools or [])
