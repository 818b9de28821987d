"""A row's predicted trajectory against its reference calls: which calls match which, and a
description of every call that matches none.

The pairing is one to one and as large as possible (a maximum bipartite matching, found with
augmenting paths: exact, and trajectories are short). Calls left over are described against
the leftover reference calls: same name first (their argument mismatches), then in order
(a wrong name); the rest are extra or missing calls.

Example:
    >>> from assay.data import ReferenceCall, ToolCall
    >>> calls = [ToolCall(id="1", name="b"), ToolCall(id="2", name="a", arguments_text='{"x": 2}')]
    >>> refs = [ReferenceCall(name="a", arguments={"x": 1}), ReferenceCall(name="b")]
    >>> c = compare_calls(calls, refs)
    >>> c.pairs, c.in_order(), c.exact()
    ([(0, 1)], False, False)
    >>> [f["text"] for f in c.findings()]
    ["call 2 a: wrong value for 'x': 2, expected 1"]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ...data import ReferenceCall, Row, ToolCall
from ._match import Mismatch, match_call

__all__ = ["Comparison", "compare_calls", "compare_row", "max_matching"]


def max_matching(n_left: int, n_right: int,
                 fits: Callable[[int, int], bool]) -> list[tuple[int, int]]:
    """A largest one-to-one set of ``(left, right)`` pairs with ``fits(left, right)``, sorted.

    Example:
        >>> max_matching(2, 2, lambda i, j: (i, j) in {(0, 0), (0, 1), (1, 0)})
        [(0, 1), (1, 0)]
    """
    owner: dict[int, int] = {}  # right -> left

    def augment(i: int, seen: set[int]) -> bool:
        for j in range(n_right):
            if j in seen or not fits(i, j):
                continue
            seen.add(j)
            if j not in owner or augment(owner[j], seen):
                owner[j] = i
                return True
        return False

    for i in range(n_left):
        augment(i, set())
    return sorted((i, j) for j, i in owner.items())


@dataclass
class Comparison:
    """The predicted ``calls``, the ``references``, every pair's mismatches (``mismatches[i][j]``,
    empty when call ``i`` matches reference ``j``) and the largest one-to-one ``pairs``."""

    calls: Sequence[ToolCall]
    references: Sequence[ReferenceCall]
    mismatches: list[list[list[Mismatch]]]
    pairs: list[tuple[int, int]]

    def fits(self, i: int, j: int) -> bool:
        """Whether call ``i`` matches reference ``j``."""
        return not self.mismatches[i][j]

    @property
    def matched(self) -> int:
        """How many calls match a reference call, one to one."""
        return len(self.pairs)

    def exact(self) -> bool:
        """Same length, and each call matches the reference call at its position."""
        return len(self.calls) == len(self.references) and all(
            self.fits(i, i) for i in range(len(self.calls)))

    def in_order(self) -> bool:
        """Every reference call is matched by a call, in the reference's order (extra calls
        in between are allowed). Taking the earliest fitting call for each reference in turn
        finds such calls whenever they exist."""
        start = 0
        for j in range(len(self.references)):
            i = next((i for i in range(start, len(self.calls)) if self.fits(i, j)), None)
            if i is None:
                return False
            start = i + 1
        return True

    def any_order(self) -> bool:
        """Every reference call is matched by its own call, in any order (extra calls allowed)."""
        return self.matched == len(self.references)

    def findings(self) -> list[dict[str, Any]]:
        """One entry per mismatch of a leftover call, extra call and missing call: ``kind``,
        ``call`` / ``reference`` (1-based positions), ``name``, ``argument`` and ``text``."""
        left = [i for i in range(len(self.calls)) if i not in {p[0] for p in self.pairs}]
        right = [j for j in range(len(self.references)) if j not in {p[1] for p in self.pairs}]
        out: list[dict[str, Any]] = []
        described: list[tuple[int, int]] = []
        for j in list(right):  # same name first: their argument mismatches
            i = next((i for i in left if self.calls[i].name == self.references[j].name), None)
            if i is not None:
                left.remove(i)
                right.remove(j)
                described.append((i, j))
        described += list(zip(left, right))  # then in order: wrong names
        for i, j in sorted(described):
            call = self.calls[i]
            for m in self.mismatches[i][j]:
                out.append({"kind": m.kind, "call": i + 1, "reference": j + 1,
                            "name": call.name, "argument": m.argument,
                            "text": f"call {i + 1} {call.name}: {m.text()}"})
        for i in left[len(right):]:
            out.append({"kind": "extra_call", "call": i + 1, "name": self.calls[i].name,
                        "text": f"call {i + 1} {self.calls[i].name}: extra call"})
        for j in right[len(left):]:
            name = self.references[j].name
            out.append({"kind": "missing_call", "reference": j + 1, "name": name,
                        "text": f"reference call {j + 1} {name}: missing"})
        return out

    def details(self) -> dict[str, Any]:
        """What a result's ``details`` holds: the counts, the matched pairs (1-based) and the
        findings."""
        return {"predicted_calls": len(self.calls), "reference_calls": len(self.references),
                "matched": [[i + 1, j + 1] for i, j in self.pairs], "findings": self.findings()}


def compare_calls(calls: Sequence[ToolCall], references: Sequence[ReferenceCall],
                  schema_of: Callable[[str], dict[str, Any] | None] | None = None) -> Comparison:
    """Compare ``calls`` with ``references``; ``schema_of(name)`` gives a tool's parameter
    schema (None: no schema)."""
    mismatches = [[match_call(c, r, schema_of(r.name) if schema_of else None)
                   for r in references] for c in calls]
    pairs = max_matching(len(calls), len(references), lambda i, j: not mismatches[i][j])
    return Comparison(calls, references, mismatches, pairs)


def compare_row(row: Row) -> Comparison:
    """The row's predicted trajectory against its ``reference_tool_calls``, with the schemas of
    its ``tools``."""
    return compare_calls(row.tool_calls(), row.reference_tool_calls or [], row.tool_schema)
