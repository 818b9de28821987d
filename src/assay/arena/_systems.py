"""The systems of an arena: each a file of answers, a run folder or a stored run, answering the
same test rows, matched by id.

A system's name is its file's (or run's) name without the extension unless ``names`` gives
one. Every
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

from ..data import Row, read_dataset, rows_from_records
from ..errors import ConfigError, DataError, option
from ..records import load_run_dir, open_run_store

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


def _names(defaults: list[str], names: Sequence[str] | None, problems: list[str],
           systems: int) -> list[str]:
    """The systems' names: ``names`` when one is given per system, else ``defaults`` (the
    file names, the runs' names); a name used twice or unusable is a problem."""
    if names and len(names) != systems:
        problems.append(f"{option('names')} gave {len(names)} name(s) for {systems} systems: "
                        "give one name per system, in the same order, or none (the file "
                        "names).")
        names = None
    chosen = list(names)[:len(defaults)] if names else defaults
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


def _stored_rows(ref: str, store: object) -> tuple[str, str, list[Row]]:
    """A stored run's answers (its rows' stored inputs): its name (or id), where, its rows."""
    opened = open_run_store(store if store is not None else True)  # type: ignore[arg-type]
    if opened is None:
        raise ConfigError(f"{ref}: not an answers file or a run folder, and no run store to "
                          f"look it up in (drop {option('store', False)}).")
    try:
        info = opened.get(ref)
        ids = [str(r["id"]) for r in opened.rows(info.id)]
        inputs = opened.inputs(info.id, ids)
    finally:
        opened.close()
    if not inputs:
        raise ConfigError(f"stored run {info.id} ({ref}) kept no answers (its rows' inputs "
                          "were not stored): give its dataset file instead.")
    records = [{"id": row_id, **{k: v for k, v in fields.items() if k != "extra"},
                **(fields.get("extra") or {})} for row_id, fields in inputs.items()]
    rows = rows_from_records(records, source=f"stored run {info.id}")
    return info.name or info.id[:8], f"stored run {info.id}", rows


def _system_rows(ref: str | Path, store: object) -> tuple[str, str, list[Row]]:
    """``(default name, source, rows)`` of one system: an answers file, an ``assay run``
    output folder (the dataset it scored), or a stored run's id, id prefix or ``latest``."""
    path = Path(ref)
    if path.is_file() or (not path.exists() and (path.suffix or "/" in str(ref))):
        return path.name.split(".")[0], str(path), read_dataset(path)  # missing: said so
    if path.is_dir():
        dataset = load_run_dir(path).summary.get("dataset")
        if not dataset or not Path(dataset).is_file():
            raise ConfigError(f"{path}: a run folder whose dataset file ({dataset or 'none'}) "
                              "cannot be read: give the answers file itself.")
        return path.name, str(dataset), read_dataset(dataset)
    return _stored_rows(str(ref), store)


def read_systems(paths: Sequence[str | Path], names: Sequence[str] | None = None, *,
                 store: object = None) -> Field:
    """Read each system's answers and match their rows by id. A system is an answers file
    (``.jsonl``, ``.json``, ``.csv`` as ``assay run`` reads them), the output folder of an
    ``assay run`` (the dataset it scored), or a stored run (id, unique id prefix or
    ``latest`` in ``store``: ``None``, the default store) whose rows' inputs were kept.

    Raises:
        ConfigError: fewer than two systems, a name used twice, a run that cannot be found,
            no shared rows (every problem in one message).
        DataError: a file's own problems (all of them, with file, line and field).
    """
    problems: list[str] = []
    if len(paths) < 2:
        problems.append(f"an arena needs at least two systems to rank; got {len(paths)}. Name "
                        "two or more answer files or runs: assay arena v1.jsonl v2.jsonl ...")
    found, unreadable = [], []
    for ref in paths:
        try:
            found.append(_system_rows(ref, store))
        except DataError as e:
            unreadable += [p if p.startswith(str(ref)) else f"{ref}: {p}" for p in e.problems]
        except ConfigError as e:
            problems.append(str(e))
    chosen = _names([name for name, _, _ in found], names, problems, len(paths))
    if unreadable:
        raise DataError(problems + unreadable, outcome="nothing was judged")
    systems = [System(name, source, {row.id: row for row in rows})
               for name, (_, source, rows) in zip(chosen, found)]
    counts: dict[str, int] = {}
    for system in systems:
        for row_id in system.rows:
            counts[row_id] = counts.get(row_id, 0) + 1
    shared = [row_id for row_id, count in counts.items() if count >= 2]
    if len(systems) >= 2 and not shared:
        problems.append("no row id is in two systems' answers: the systems must answer the "
                        "same test rows, each row with the same id (an 'id' field in every "
                        "file).")
    if problems:
        raise ConfigError("\n".join(problems))
    missing = {s.name: [r for r in shared if r not in s.rows] for s in systems}
    return Field(systems, shared, {name: ids for name, ids in missing.items() if ids})
