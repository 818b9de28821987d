"""Template variables of custom metrics, read from a row's fields and extra columns.

A custom template may use the evaluable fields (``question``, ``answer``, ``context``,
``ground_truth``), their common aliases (``response``, ``prompt``/``query``, ``reference``,
``contexts``) and any other column of the data file, e.g. ``{{ product_name }}``.

Example:
    >>> from assay.data import Row
    >>> row = Row(id="1", line=3, question="Q?", answer="A.", extra={"tone": "formal"})
    >>> value_of(row, "response"), value_of(row, "tone"), value_of(row, "context")
    ('A.', 'formal', None)
    >>> missing_field_problems([row], {"tone", "context"}, metric="m", source="data.jsonl")
    ["data.jsonl line 3: metric 'm' uses field 'context', which the row lacks. Fix: add a 'context' column, or map one with mapping={'context': 'COLUMN'}."]
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from ...data import Row
from ...errors import option
from .._common import FieldMetric

__all__ = ["FIELD_ALIASES", "TemplateFieldsMetric", "field_name", "missing_field_problems",
           "value_of"]

#: Template names accepted for each evaluable field.
FIELD_ALIASES = {"response": "answer", "prompt": "question", "query": "question",
                 "reference": "ground_truth", "contexts": "context"}
_FIELDS = ("question", "answer", "context", "ground_truth")


def field_name(variable: str) -> str:
    """The row field a template variable reads (aliases resolved)."""
    return FIELD_ALIASES.get(variable, variable)


def value_of(row: Row, variable: str) -> str | None:
    """The text of ``variable`` for this row, or ``None`` when the row lacks it."""
    name = field_name(variable)
    if name in _FIELDS:
        value = getattr(row, name)
        return value if value else None
    raw = row.extra.get(name, row.extra.get(variable))
    if raw is None or raw == "":
        return None
    return raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)


def missing_field_problems(rows: Sequence[Row], variables: Iterable[str], *, metric: str,
                           source: str = "data") -> list[str]:
    """One line per template variable that some rows lack, naming those rows' lines."""
    problems = []
    for var in sorted(variables):
        lines = [row.line for row in rows if value_of(row, var) is None]
        if not lines:
            continue
        name = field_name(var)
        fix = (f"add a {name!r} column, or map one with {option('mapping', {name: 'COLUMN'})}"
               if name in _FIELDS else f"add a {name!r} column to every row")
        shown = ", ".join(map(str, lines[:10])) + (f" and {len(lines) - 10} more"
                                                   if len(lines) > 10 else "")
        where = f"line {shown}" if len(lines) == 1 else f"lines {shown}"
        problems.append(f"{source} {where}: metric {metric!r} uses field {var!r}, which "
                        f"{'the row lacks' if len(lines) == 1 else 'these rows lack'}. "
                        f"Fix: {fix}.")
    return problems


class TemplateFieldsMetric(FieldMetric):
    """Base of the custom metrics: a QA row applies when it has every field in ``variables``
    (the template's names), and ``check_rows`` lists the rows that lack one."""

    uses_judge = True
    conversation = False
    variables: frozenset[str] = frozenset()

    def applies(self, row: Row) -> str | None:
        if row.kind == "conversation":
            return "custom metrics score QA rows only, not conversations"
        missing = sorted(v for v in self.variables if value_of(row, v) is None)
        return f"row has no {' or '.join(missing)}" if missing else None

    def check_rows(self, rows: Sequence[Row], source: str = "data") -> list[str]:
        """Every row that lacks a field the template uses (checked before any judge call)."""
        return missing_field_problems(rows, self.variables, metric=self.name, source=source)
