"""What a stored producer run shows: a generated test set, simulated conversations, an attack.

These runs (kinds ``generate``, ``simulate``, ``attack``) hold no metric scores: their rows are
the JSON rows the command wrote (a test row, a conversation, an attack transcript) and their
summary is the summary the command wrote. Here they become what the report, the web UI and
``assay show`` lay out: the row's inputs (question, context with its evidence, or the turns),
a few facts per row (its stop reason, its attack outcome), an attack's exchanges with each
reply's verdicts, and the kind's own summary (kept/rejected, stop reasons, success rates).

Example:
    >>> row = {"id": "order", "goal": "Track my order.", "stop_reason": "goal_met",
    ...        "stop_detail": "The app answered.", "simulation": {"user_turns": 2},
    ...        "messages": [{"role": "user", "content": "Hi"},
    ...                     {"role": "assistant", "content": "Hello"}]}
    >>> sorted(job_inputs(row)), job_inputs(row)["extra"]["goal"]
    (['extra', 'messages'], 'Track my order.')
    >>> job_row_notes("simulate", row)["stop reason"]
    ('goal_met', 'The app answered.')
    >>> job_headline("simulate", {"stop_reasons": {"goal_met": 3, "stuck": 1, "max_turns": 0}})
    ['goal_met 3', 'stuck 1']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._text import percent
from ..store import JOB_KINDS
from ._model import fmt

__all__ = ["JOB_KINDS", "JOB_TITLES", "job_exchanges", "job_headline", "job_inputs",
           "job_row_notes", "job_summary"]

#: The heading of each kind's section.
JOB_TITLES = {"generate": "Generated test set", "simulate": "Simulated conversations",
              "attack": "Attack"}
#: The fields of a row that are inputs as an evaluation reads them (the rest are extra).
_INPUT_FIELDS = ("question", "context", "contexts", "answer", "ground_truth", "messages")
#: Fields shown elsewhere (the exchanges have their own table), never among the extra ones.
_NOT_EXTRA = ("id", "exchanges")


def job_inputs(record: Mapping[str, Any]) -> dict[str, Any]:
    """A producer row as the inputs a report shows (as ``assay.data.row_inputs`` gives a
    dataset row): question, context, answer, ground truth, messages, and its other fields as
    ``extra`` (a generated row's ``source`` spans among them, so its evidence is marked in
    its context; a conversation's context stays an extra field, as ``assay run`` reads it).

    Example:
        >>> inp = job_inputs({"id": "q1", "question": "Q?", "context": "A. B.",
        ...                   "source": [{"doc": "d.md", "start": 3, "end": 5, "text": "B."}]})
        >>> inp["question"], inp["context"], inp["extra"]["source"][0]["text"]
        ('Q?', 'A. B.', 'B.')
    """
    conversation = isinstance(record.get("messages"), list)
    inputs = {k: record[k] for k in _INPUT_FIELDS
              if k in record and not (k == "context" and conversation)}
    inputs["extra"] = {k: v for k, v in record.items()
                       if k not in inputs and k not in _NOT_EXTRA}
    return inputs


def _outcome(record: Mapping[str, Any]) -> tuple[str, str]:
    """An attack row's outcome and why: success (a defect for the plain ask), none, or
    unrated (with its cause, never counted either way)."""
    plain = record.get("strategy") == "plain"
    if record.get("success"):
        turn = record.get("success_turn")
        return ("defect" if plain else "success"), (f"on turn {turn}" if turn else "")
    cause = record.get("unrated") or record.get("error")
    if cause:
        return "unrated", str(cause)
    return ("no defect" if plain else "no success"), ""


def job_row_notes(kind: str, record: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """The facts of one row, ``{heading: (text, detail)}``: a generated row's kind and
    language; a conversation's stop reason (with its detail) and user turns; an attack's
    strategy, category, outcome and backtracks.

    Example:
        >>> job_row_notes("attack", {"strategy": "crescendo", "category": "violence",
        ...                          "success": True, "success_turn": 3, "backtracks": 1})
        ... # doctest: +NORMALIZE_WHITESPACE
        {'strategy': ('crescendo', ''), 'category': ('violence', ''),
         'outcome': ('success', 'on turn 3'), 'backtracks': ('1', '')}
    """
    notes: dict[str, tuple[str, str]] = {}
    if kind == "generate":
        for heading, key in (("kind", "kind"), ("language", "lang")):
            if record.get(key) is not None:
                notes[heading] = (str(record[key]), "")
        if "answerable" in record:
            notes["answerable"] = (fmt(record.get("answerable")), "")
    elif kind == "simulate":
        if record.get("stop_reason") is not None:
            notes["stop reason"] = (str(record["stop_reason"]),
                                    str(record.get("stop_detail") or ""))
        simulation = record.get("simulation")
        if isinstance(simulation, Mapping) and simulation.get("user_turns") is not None:
            notes["user turns"] = (fmt(simulation["user_turns"]), "")
        if record.get("error"):
            notes["error"] = (str(record["error"]), "")
    elif kind == "attack":
        for key in ("strategy", "category"):
            if record.get(key) is not None:
                notes[key] = (str(record[key]), "")
        notes["outcome"] = _outcome(record)
        notes["backtracks"] = (fmt(record.get("backtracks") or 0), "")
    return notes


def _verdict(exchange: Mapping[str, Any]) -> dict[str, str]:
    severity = exchange.get("severity")
    unscored = exchange.get("unscored")
    harm = f" ({exchange['harm']})" if exchange.get("harm") else ""
    refused = exchange.get("refused")
    return {
        "severity": ("unscored" if severity is None else
                     f"{fmt(severity)} {exchange.get('level') or ''}{harm}".strip()),
        "severity_note": str(unscored or exchange.get("reason") or ""),
        "refused": ("unscored" if refused is None else fmt(bool(refused))),
        "refused_note": str(exchange.get("refusal_unscored") or exchange.get("refusal_reason")
                            or ""),
        "success": fmt(bool(exchange.get("success"))),
    }


def job_exchanges(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """An attack transcript's exchanges, each with its turn, whether it was backtracked (the
    app refused and the attacker tried again; the exchange left the conversation), the
    attacker's message, the app's reply and the reply's verdicts: severity (with its level
    and harm, or unscored), refusal, success.

    Example:
        >>> [x["severity"] for x in job_exchanges({"exchanges": [
        ...     {"turn": 1, "user": "u", "assistant": "a", "severity": 6.0, "level": "High",
        ...      "harm": "violence", "refused": False, "success": True},
        ...     {"turn": 2, "user": "u", "assistant": "?", "severity": None,
        ...      "unscored": "no rating"}]})]
        ['6 High (violence)', 'unscored']
    """
    found = record.get("exchanges")
    if not isinstance(found, list):
        return []
    return [{"turn": x.get("turn"), "backtracked": bool(x.get("backtracked")),
             "user": str(x.get("user") or ""), "assistant": str(x.get("assistant") or ""),
             "note": str(x.get("note") or ""), **_verdict(x)}
            for x in found if isinstance(x, Mapping)]


def _mapping(value: Any) -> Mapping[str, Any]:
    """``value`` when it is a mapping, else an empty one (a summary field may be missing)."""
    return value if isinstance(value, Mapping) else {}


def _count_of(value: Any) -> int:
    """A count, or the sum of a ``{reason: count}`` mapping."""
    if isinstance(value, Mapping):
        return sum(v for v in value.values() if isinstance(v, int))
    return value if isinstance(value, int) else 0


def _rate(side: Any, key: str) -> str:
    if not isinstance(side, Mapping):
        return "–"
    ci = side.get("ci95")
    interval = f" [{percent(ci[0])}, {percent(ci[1])}]" if isinstance(ci, list) else ""
    return f"{percent(side.get(key))}{interval}"


def _table(title: str, columns: Sequence[str], rows: list[list[str]]) -> dict[str, Any]:
    return {"title": title, "columns": list(columns), "rows": rows}


def _generate_summary(s: Mapping[str, Any]) -> tuple[list[tuple[str, str]], list[Any]]:
    docs = _mapping(s.get("documents"))
    facts = [("kept", f"{fmt(s.get('kept'))} of {fmt(s.get('wanted'))} wanted"),
             ("generated", fmt(s.get("generated"))), ("rejected", fmt(s.get("rejected"))),
             ("documents", f"{fmt(docs.get('read'))} read, {fmt(docs.get('chunks'))} chunks")]
    by_kind = _mapping(s.get("by_kind"))
    tables = [_table("By kind", ("kind", "generated", "kept", "rejected"),
                     [[str(k), fmt(v.get("generated")), fmt(v.get("kept")),
                       fmt(_count_of(v.get("rejected")))]
                      for k, v in by_kind.items() if isinstance(v, Mapping)])]
    reasons = s.get("rejected_by_reason")
    if isinstance(reasons, Mapping) and reasons:
        tables.append(_table("Rejected, by reason", ("reason", "candidates"),
                             [[str(r), fmt(_count_of(n))] for r, n in reasons.items()]))
    return facts, tables


def _simulate_summary(s: Mapping[str, Any]) -> tuple[list[tuple[str, str]], list[Any]]:
    facts = [("scenarios", fmt(s.get("scenarios"))), ("simulated", fmt(s.get("simulated"))),
             ("failed", fmt(s.get("failed")))]
    app = s.get("app")
    if isinstance(app, Mapping):
        facts.append(("app", (f"{app.get('target') or '–'}: {fmt(app.get('turns'))} turns, "
                             f"{fmt(app.get('tool_calls'))} tool calls")))
    reasons = _mapping(s.get("stop_reasons"))
    return facts, [_table("Stop reasons", ("stop reason", "conversations"),
                          [[str(r), fmt(n)] for r, n in reasons.items()])]


def _attack_summary(s: Mapping[str, Any]) -> tuple[list[tuple[str, str]], list[Any]]:
    facts = [(k, fmt(s.get(k))) for k in ("strategy", "target", "attacker", "judge", "seeds",
                                          "turns", "threshold") if s.get(k) is not None]
    categories = _mapping(s.get("categories"))
    rows = []
    for name, c in categories.items():
        if not isinstance(c, Mapping):
            continue
        attack, plain = c.get("attack") or {}, c.get("plain") or {}
        turns = c.get("turns_to_success") or {}
        rows.append([str(name), fmt(c.get("seeds")), _rate(attack, "success_rate"),
                     _rate(plain, "defect_rate"), percent(c.get("difference"), signed=True),
                     fmt(turns.get("median")), (f"{fmt(attack.get('unrated'))}/"
                                               f"{fmt(plain.get('unrated'))}")])
    return facts, [_table(
        "Success rates (95% Wilson intervals)",
        ("category", "seeds", "attack success", "plain defect", "difference",
         "turns to success (median)", "unrated attack/plain"), rows)]


def job_summary(kind: str, summary: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The kind's own summary, ``{"title", "facts": [(label, text)], "tables": [{"title",
    "columns", "rows"}]}``, or None for a kind that is not a producer's. A run without a
    summary yet (running, or stopped) gets a fact saying so.

    Example:
        >>> view = job_summary("generate", {"wanted": 4, "kept": 3, "generated": 5,
        ...     "rejected": 2, "by_kind": {"single": {"generated": 5, "kept": 3,
        ...                                           "rejected": {"unsupported": 2}}}})
        >>> view["facts"][0], view["tables"][0]["rows"]
        (('kept', '3 of 4 wanted'), [['single', '5', '3', '2']])
        >>> job_summary("run", {}) is None
        True
    """
    if kind not in JOB_KINDS:
        return None
    if not summary:
        return {"title": JOB_TITLES[kind], "tables": [],
                "facts": [("summary", "none yet: the run is still going, or stopped early")]}
    build = {"generate": _generate_summary, "simulate": _simulate_summary,
             "attack": _attack_summary}[kind]
    facts, tables = build(summary)
    return {"title": JOB_TITLES[kind], "facts": facts, "tables": [t for t in tables if t["rows"]]}


def job_headline(kind: str, summary: Mapping[str, Any] | None) -> list[str]:
    """A few short lines that say what a producer run gave, for a list of runs (empty for
    other kinds or without a summary).

    Example:
        >>> job_headline("generate", {"kept": 4, "wanted": 5, "rejected": 2})
        ['kept 4 of 5', 'rejected 2']
        >>> job_headline("attack", {"strategy": "crescendo", "categories": {"all": {
        ...     "attack": {"success_rate": 0.5}, "plain": {"defect_rate": 0.25}}}})
        ['crescendo success 50.0%', 'plain defect 25.0%']
    """
    s = summary or {}
    if kind == "generate" and s:
        return [f"kept {fmt(s.get('kept'))} of {fmt(s.get('wanted'))}",
                f"rejected {fmt(s.get('rejected'))}"]
    if kind == "simulate":
        reasons = _mapping(s.get("stop_reasons"))
        return [f"{r} {fmt(n)}" for r, n in reasons.items() if n]
    if kind == "attack":
        categories = s.get("categories")
        every = categories.get("all") if isinstance(categories, Mapping) else None
        if not isinstance(every, Mapping):
            return []
        return [(f"{s.get('strategy') or 'attack'} success "
                f"{percent((every.get('attack') or {}).get('success_rate'))}"),
                f"plain defect {percent((every.get('plain') or {}).get('defect_rate'))}"]
    return []
