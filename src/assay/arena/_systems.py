"""The systems of an arena: each a file of answers to the same test rows, matched by id.

A system's name is its file's name without the extension unless ``names`` gives one. Every
problem is told at once and before any judge is asked: fewer than two systems, a name used
twice, a file that does not read (its own problems, with file, line and field), no row that
two systems share. A row missing from some systems is named (:attr:`Field.missing`) and left
out of their pairs only.

Example:
    >>> import tempfile, pathlib, json
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for name, answers in {"v1": ["4", "Paris"], "v2": ["four", "Lyon"]}.items():
    ...     rows = [{"id": f"q{i}", "question": q, "answer": a}
    ...             for i, (q, a) in enumerate(zip(["2+2?", "Capital of France?"], answers))]
    ...     _ = (folder / f"{name}.jsonl").write_text("\\n".join(map(json.dumps, rows)))
    >>> field = read_systems([folder / "v1.jsonl", folder / "v2.jsonl"])
    >>> [s.name for s in field.systems], field.row_ids, field.missing
    (['v1', 'v2'], ['q0', 'q1'], {})
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..data import Row, read_dataset
from ..errors import ConfigError, DataError, option

__all__ = ["Field", "System", "read_systems"]


@dataclass(frozen=True)
class System:
    """One version of the app: its name, where its answers came from, its rows by id."""

    name: str
    source: str
    rows: dict[str, Row]


@dataclass(frozen=True)
class Field:
    """The systems of an arena, the row ids any two of them share (in the first system's
    order, then the others'), and per system the shared rows it lacks."""

    systems: list[System]
    row_ids: list[str]
    missing: dict[str, list[str]]


def _names(paths: Sequence[Path], names: Sequence[str] | None, problems: list[str]
           ) -> list[str]:
    if names and len(names) != len(paths):
        problems.append(f"{option('names')} gave {len(names)} name(s) for {len(paths)} systems: "
                        "give one name per system, in the same order, or none (the file "
                        "names).")
        names = None
    chosen = list(names) if names else [Path(p).name.split(".")[0] for p in paths]
    seen: dict[str, int] = {}
    for name in chosen:
        seen[name] = seen.get(name, 0) + 1
    twice = sorted(n for n, count in seen.items() if count > 1)
    odd = sorted(n for n in seen if " vs " in n or " | " in n or not n.strip())
    if odd:
        problems.append(f"the system name(s) {', '.join(map(repr, odd))} cannot be used: a name "
                        "must not be empty or hold ' vs ' or ' | ' (they name the arena's pairs). "
                        f"Give another with {option('names')}.")
    if twice:
        problems.append(f"the system name(s) {', '.join(map(repr, twice))} are used twice: give "
                        f"each system its own name with {option('names')} (one per system, in "
                        "order).")
    return chosen


def read_systems(paths: Sequence[str | Path], names: Sequence[str] | None = None) -> Field:
    """Read each system's answers (``.jsonl``, ``.json``, ``.csv`` as ``assay run`` reads
    them) and match their rows by id.

    Raises:
        ConfigError: fewer than two systems, a name used twice, no shared rows (every
            problem in one message).
        DataError: a file's own problems (all of them, with file, line and field).
    """
    files = [Path(p) for p in paths]
    problems: list[str] = []
    if len(files) < 2:
        problems.append(f"an arena needs at least two systems to rank; got {len(files)}. Name "
                        "two or more answer files: assay arena v1.jsonl v2.jsonl ...")
    chosen = _names(files, names, problems)
    systems, unreadable = [], []
    for name, path in zip(chosen, files):
        try:
            rows = read_dataset(path)
        except DataError as e:
            unreadable += [p if p.startswith(str(path)) else f"{path}: {p}" for p in e.problems]
            continue
        systems.append(System(name, str(path), {row.id: row for row in rows}))
    if unreadable:
        raise DataError(problems + unreadable, outcome="nothing was judged")
    counts: dict[str, int] = {}
    for system in systems:
        for row_id in system.rows:
            counts[row_id] = counts.get(row_id, 0) + 1
    shared = [row_id for row_id, count in counts.items() if count >= 2]
    if systems and len(systems) >= 2 and not shared:
        problems.append("no row id is in two systems' files: the systems must answer the same "
                        "test rows, each row with the same id (an 'id' field in every file).")
    if problems:
        raise ConfigError("\n".join(problems))
    missing = {s.name: [r for r in shared if r not in s.rows] for s in systems}
    return Field(systems, shared, {name: ids for name, ids in missing.items() if ids})
