"""Quality bars as a compact markdown comment for a pull request or a job summary: the verdict
line, one table row per bar (its value or difference with the interval, and its verdict),
the defect rates, and the rows that weigh most against each bar that did not pass.

It stays under GitHub's 65,536-character limit for a comment: reasons are clipped, and when
the bars or rows would not fit, the rest are left out with a line that says how many. Every
text from the data (ids, reasons) is masked for credentials and escaped, so a reason can
neither format the comment nor mention (``@user``) anyone (an ``@`` is followed by a
zero-width space).

Example:
    >>> from assay.gate import BarOutcome
    >>> print(markdown_summary([BarOutcome(name="f1_score", kind="fail_under", bar=0.5,
    ...                         verdict="pass", value=0.9, message="ok")], title="assay run qa"))
    ### assay run qa: PASS
    <BLANKLINE>
    All 1 bar passed.
    <BLANKLINE>
    | bar | value | verdict |
    |:--|:--|:--|
    | f1\\_score >= 0.5 | 0.9 | PASS |
    <BLANKLINE>
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ._bar_text import VERDICT_MARK, bar_label, figure, shown_text
from ._outcome import BarOutcome, worst_verdict

__all__ = ["COMMENT_LIMIT", "markdown_summary", "summary_defects"]

#: GitHub's limit on a comment's characters; the summary keeps well under it.
COMMENT_LIMIT = 65_536
_BUDGET = COMMENT_LIMIT - 4_096  # room for the closing lines and a caller's own line
#: The longest reason quoted per row.
REASON_CHARS = 160
_SPECIAL = re.compile(r"([\\`*_\[\]<|~])")  # what formats inline text in a table cell


def summary_defects(summary: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """A run summary's defect rates, ``{category: defects}``, for :func:`markdown_summary`.

    Example:
        >>> summary_defects({"metrics": {"f1_score": {"mean": 1.0}, "violence": {"mean": 0.2,
        ...                  "defects": {"threshold": "medium", "defect_rate": 0.0}}}})
        {'violence': {'threshold': 'medium', 'defect_rate': 0.0}}
    """
    return {name: m["defects"] for name, m in (summary.get("metrics") or {}).items()
            if isinstance(m, Mapping) and isinstance(m.get("defects"), Mapping)}


def markdown_summary(outcomes: Sequence[BarOutcome], *, title: str,
                     defects: Mapping[str, Mapping[str, Any]] | None = None) -> str:
    """The markdown comment of ``outcomes``.

    Args:
        outcomes: the bars, in the order to show.
        title: the heading (e.g. ``assay run qa``); the verdict is added to it.
        defects: defect rates per category: a run's (``{"threshold", "defect_rate"}``, see
            :func:`summary_defects`) or a comparison's (``{"threshold", "rate_a", "rate_b",
            "diff"}``).

    Example:
        >>> from assay.gate import BarOutcome, RowNote
        >>> fail = BarOutcome(name="groundedness", kind="max_drop", bar=0.2, verdict="fail",
        ...                   value=-0.4, interval=(-0.6, -0.2), message="dropped 0.4",
        ...                   worst=(RowNote(id="q|7", shown="5 -> 1", reason="@bob said <b>"),))
        >>> print(markdown_summary([fail], title="assay compare", defects={"violence": {
        ...     "threshold": "medium", "rate_a": 0.0, "rate_b": 0.1, "diff": 0.1}}))
        ### assay compare: FAIL
        <BLANKLINE>
        1 of 1 bar failed.
        <BLANKLINE>
        | bar | difference [CI] | verdict |
        |:--|:--|:--|
        | groundedness max drop 0.2 | -0.4 [-0.6, -0.2] | FAIL |
        <BLANKLINE>
        - **groundedness max drop 0.2**: dropped 0.4
        <BLANKLINE>
        **Defect rates**
        <BLANKLINE>
        | category | threshold | baseline | candidate | diff |
        |:--|:--|--:|--:|--:|
        | violence | medium | 0.0% | 10.0% | +10.0% |
        <BLANKLINE>
        **Rows that weigh most**
        <BLANKLINE>
        | bar | row | score | reason |
        |:--|:--|:--|:--|
        | groundedness max drop 0.2 | q\\|7 | 5 -> 1 | @\u200bbob said \\<b> |
        <BLANKLINE>
    """
    verdict = worst_verdict(outcomes)
    lines = [f"### {_cell(title)}: {VERDICT_MARK[verdict]}", "", _verdict_line(outcomes), ""]
    budget = _Budget(_BUDGET - sum(len(line) + 1 for line in lines))
    if outcomes:
        column = ("difference" if all(o.kind == "max_drop" for o in outcomes) else "value"
                  if all(o.kind != "max_drop" for o in outcomes) else "value or difference")
        column += " [CI]" if any(o.interval for o in outcomes) else ""
        lines += budget.table(f"| bar | {column} | verdict |", "|:--|:--|:--|",
                              [f"| {_cell(bar_label(o))} | {figure(o)} | "
                               f"{VERDICT_MARK[o.verdict]} |" for o in outcomes], "bars")
        notes = [f"- **{_cell(bar_label(o))}**: {_cell(o.message)}"
                 + (f" To decide: {_cell(o.decide)}" if o.decide else "")
                 for o in outcomes if not o.passed]
        lines += budget.block(notes, "bars")
    if defects:
        lines += ["**Defect rates**", ""] + budget.table(*_defect_table(defects), "categories")
    worst = [f"| {_cell(bar_label(o))} | {_cell(row.id)} | {_cell(row.shown)} | "
             f"{_cell(row.reason, REASON_CHARS) if row.reason else '-'} |"
             for o in outcomes if not o.passed for row in o.worst]
    if worst:
        lines += ["**Rows that weigh most**", ""] + budget.table(
            "| bar | row | score | reason |", "|:--|:--|:--|:--|", worst, "rows")
    return "\n".join(lines)


def _verdict_line(outcomes: Sequence[BarOutcome]) -> str:
    n = len(outcomes)
    bars = f"{n} bar{'s' if n != 1 else ''}"
    if not outcomes:
        return "No quality bars were set (--fail-under, --fail-over, --max-drop)."
    failed = sum(o.verdict == "fail" for o in outcomes)
    open_ = sum(o.verdict == "inconclusive" for o in outcomes)
    if not failed and not open_:
        return f"All {bars} passed."
    parts = [f"{failed} of {bars} failed" if failed else "",
             f"{open_} {'of ' + bars + ' ' if not failed else ''}inconclusive" if open_ else ""]
    return "; ".join(p for p in parts if p) + "."


def _defect_table(defects: Mapping[str, Mapping[str, Any]]) -> tuple[str, str, list[str]]:
    """Head, alignment and rows of the defect rates: one run's, or a comparison's."""
    if any("rate_a" in d for d in defects.values()):
        return ("| category | threshold | baseline | candidate | diff |",
                "|:--|:--|--:|--:|--:|",
                [f"| {_cell(c)} | {_cell(d.get('threshold', '-'))} | {_pct(d.get('rate_a'))} | "
                 f"{_pct(d.get('rate_b'))} | {_pct(d.get('diff'), '+')} |"
                 for c, d in defects.items()])
    return ("| category | threshold | defect rate |", "|:--|:--|--:|",
            [f"| {_cell(c)} | {_cell(d.get('threshold', '-'))} | {_pct(d.get('defect_rate'))} |"
             for c, d in defects.items()])


def _pct(x: object, sign: str = "") -> str:
    return f"{x:{sign}.1%}" if isinstance(x, (int, float)) else "-"


def _cell(text: object, chars: int | None = None) -> str:
    """A text from the data as one table cell: masked, one line, clipped, markdown and HTML
    escaped, and an ``@`` that cannot mention anyone."""
    return _SPECIAL.sub(r"\\\1", shown_text(text, chars)).replace("@", "@\u200b")


class _Budget:
    """The characters left for the comment: a table or list takes what fits and says how many
    of its items it left out."""

    def __init__(self, chars: int) -> None:
        self.left = chars

    def block(self, items: list[str], noun: str, head: Sequence[str] = ()) -> list[str]:
        if not items:
            return []
        taken = list(head)
        self.left -= sum(len(line) + 1 for line in head)
        for item in items:
            if len(item) + 1 > self.left:
                break
            taken.append(item)
            self.left -= len(item) + 1
        shown = len(taken) - len(head)
        if not shown:  # not one fits: no empty table
            taken = []
        if shown < len(items):
            taken.append(f"\n... {len(items) - shown} more {noun} left out to keep this under "
                         f"{COMMENT_LIMIT:,} characters (see the run's files).")
        return [*taken, ""]

    def table(self, head: str, align: str, rows: list[str], noun: str) -> list[str]:
        return self.block(rows, noun, head=(head, align))
