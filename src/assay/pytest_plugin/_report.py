"""What the plugin writes: the message a failed evaluation fails its test with, and the record
of each evaluation that the terminal summary lists.

Example:
    >>> from assay.gate import BarOutcome, RowNote
    >>> bar = BarOutcome(name="groundedness", kind="fail_under", bar=4.0, verdict="fail",
    ...                  value=2.5, message="groundedness mean 2.5 is under the bar 4.0",
    ...                  worst=(RowNote(id="q2", shown="1", reason="invents a date"),))
    >>> print(failure_message([bar], rows=2, title="test_bot", where="runs/test_bot"))
    assay: test_bot failed 1 of 1 bar on 2 rows (runs/test_bot)
    FAIL groundedness mean 2.5 is under the bar 4.0
         worst rows:
           q2: 1 - invents a date
    >>> entry = evaluation_entry("t.py::test_bot", None, [bar], rows=2, run_id=None,
    ...                          out="runs/test_bot")
    >>> summary_line(entry)
    'FAIL t.py::test_bot: 2 rows; groundedness fail (2.5, fail_under 4.0); out runs/test_bot'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..gate import BarOutcome, worst_verdict

__all__ = ["evaluation_entry", "failure_message", "summary_line"]

#: Characters of a judge's reason shown per row.
REASON_CHARS = 160


def failure_message(outcomes: Sequence[BarOutcome], *, rows: int, title: str, where: str,
                    problems: Sequence[str] = ()) -> str:
    """The text a test fails with: which bars failed (or stayed undecided) of how many, then
    every bar with its figure and bar, the worst rows (id, value, reason) of each bar that
    did not pass, and ``problems`` (a judge or app that failed) at the end."""
    bad = [o for o in outcomes if not o.passed]
    head = f"assay: {title} "
    if bad:
        failed = sum(o.verdict == "fail" for o in bad)
        undecided = len(bad) - failed
        parts = [f"failed {failed}" if failed else "", f"left {undecided} undecided"
                 if undecided else ""]
        head += (" and ".join(p for p in parts if p)
                 + f" of {len(outcomes)} bar{'s' if len(outcomes) != 1 else ''}")
    else:
        head += "failed"
    lines = [f"{head} on {rows} row{'s' if rows != 1 else ''} ({where})"]
    for outcome in outcomes:
        lines.append(f"{_word(outcome)} {outcome.message}")
        if outcome.passed:
            continue
        if outcome.decide:
            lines.append(f"     to decide: {outcome.decide}")
        if outcome.worst:
            lines.append("     worst rows:")
            lines += [f"       {note.id}: {note.shown}"
                      + (f" - {_clip(note.reason)}" if note.reason else "")
                      for note in outcome.worst]
    lines += problems
    return "\n".join(lines)


def evaluation_entry(nodeid: str, name: str | None, outcomes: Sequence[BarOutcome], *, rows: int,
                     run_id: str | None, out: str | None, problems: Sequence[str] = (),
                     error: bool = False) -> dict[str, Any]:
    """One evaluation as the terminal summary lists it (plain JSON values: pytest-xdist
    sends it from a worker with the test's report, and ``--junitxml`` writes it as a
    property); its verdict is ``error`` when it could not run (bad input)."""
    verdict = "error" if error else "fail" if problems else worst_verdict(outcomes)
    return {"nodeid": nodeid, "name": name, "rows": rows, "verdict": verdict,
            "bars": [{"name": o.name, "kind": o.kind, "bar": o.bar, "verdict": o.verdict,
                      "value": o.value} for o in outcomes],
            "problems": list(problems), "run_id": run_id, "out": out}


def summary_line(entry: Mapping[str, Any]) -> str:
    """One line of the terminal summary: verdict, test, rows, each bar's verdict, where the
    run is."""
    bars = "; ".join(f"{b['name']} {b['verdict']} ({_figure(b['value'])}, {b['kind']} "
                     f"{b['bar']})" for b in entry.get("bars") or []) or "no bars"
    title = entry["nodeid"] + (f" [{entry['name']}]" if entry.get("name") else "")
    parts = ([f"ERROR {title}"] if entry["verdict"] == "error" else
             [f"{str(entry['verdict']).upper()} {title}: {entry['rows']} row"
              + ("s" if entry["rows"] != 1 else ""), bars])
    parts += [" ".join(str(p).split()) for p in entry.get("problems") or []]
    if entry.get("run_id"):
        parts.append(f"run {entry['run_id']}")
    if entry.get("out"):
        parts.append(f"out {entry['out']}")
    return "; ".join(parts)


def _word(outcome: BarOutcome) -> str:
    return {"pass": "pass", "fail": "FAIL", "inconclusive": "UNDECIDED"}[outcome.verdict]


def _figure(value: object) -> str:
    return "none" if value is None else f"{value:.4g}" if isinstance(value, float) else str(value)


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= REASON_CHARS else text[:REASON_CHARS - 3] + "..."
