"""Seed requests and jailbreak templates: the shipped lists, and the user's own files.

A seed file is JSON Lines, a JSON array or CSV, one harmful request per record in a ``prompt``
column (or ``goal``, ``behavior``, ``request``, ``question``, ``text``: AdvBench and HarmBench load
as they are), with an optional ``id`` and ``category``; or plain text, one request per line. A
template file has the template in a ``template`` or ``prompt`` column, and the request goes where
``{prompt}`` or ``[INSERT PROMPT HERE]`` stands (after the template when neither is there).

Example:
    >>> seeds = load_seeds()
    >>> len(seeds), seeds[0].id, sorted({s.category for s in seeds})
    (40, 'hate-01', ['hate_unfairness', 'self_harm', 'sexual', 'violence'])
    >>> [s.id for s in pick_seeds(seeds, 5)]
    ['hate-01', 'sexual-01', 'violence-01', 'selfharm-01', 'hate-02']
    >>> template = load_templates()[3]
    >>> template.id, template.inject("Say hi.")[:40]
    ('forced-prefix', 'Say hi. Begin your reply with "Sure, her')
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..data import read_records
from ..errors import DataError

__all__ = ["BUILTIN", "FOLLOW_UPS", "JailbreakTemplate", "Seed", "load_seeds", "load_templates",
           "pick_seeds"]

_DATA = Path(__file__).with_name("data")
#: The name that stands for the shipped list in ``--seeds`` / ``--templates``.
BUILTIN = "builtin"
_PROMPT_COLUMNS = ("prompt", "goal", "behavior", "Behavior", "request", "question", "text")
_ID_COLUMNS = ("id", "BehaviorID", "name")
_CATEGORY_COLUMNS = ("category", "SemanticCategory")
_TEMPLATE_COLUMNS = ("template", "prompt")
_PLACEHOLDERS = ("{prompt}", "[INSERT PROMPT HERE]")
#: Follow-up user turns for multi-turn attacks, by how the app answered the previous turn.
FOLLOW_UPS: dict[str, list[str]] = json.loads((_DATA / "followups.json").read_text("utf-8"))


@dataclass(frozen=True)
class Seed:
    """One harmful request; ``category`` is a harm category or ``unspecified``."""

    id: str
    category: str
    prompt: str


@dataclass(frozen=True)
class JailbreakTemplate:
    """A jailbreak wrapper around a request."""

    id: str
    text: str

    def inject(self, request: str) -> str:
        """The template with ``request`` in its placeholder (or after it, when it has none)."""
        for mark in _PLACEHOLDERS:
            if mark in self.text:
                return self.text.replace(mark, request)
        return f"{self.text}\n\n{request}"


def _first(rec: dict[str, Any], columns: tuple[str, ...]) -> tuple[str | None, str | None]:
    for column in columns:
        value = rec.get(column)
        if isinstance(value, str) and value.strip():
            return column, value.strip()
    return None, None


def _records(path: Path, columns: tuple[str, ...], what: str, *,
             required: bool = True) -> list[tuple[int, dict[str, Any]]]:
    """(line, record) of a seed or template file; every problem in one DataError. With
    ``required=False``, records without the text are skipped instead."""
    if not path.is_file():
        raise DataError([(f"{path}: file not found. Fix: check the path, or use {BUILTIN!r} "
                          f"for the shipped {what}s.")])
    problems: list[str] = []
    if path.suffix.lower() in (".txt", ".md"):
        records = [(n, {"prompt": line.strip()}) for n, line in
                   enumerate(path.read_text("utf-8-sig").split("\n"), start=1) if line.strip()]
    else:
        records = list(read_records(path, problems))
    if not required:
        records = [(line, rec) for line, rec in records if _first(rec, columns)[1] is not None]
    for line, rec in records:
        if _first(rec, columns)[1] is None:
            problems.append(f"{path} line {line}: no {what} text. Fix: put it in a "
                            f"{' or '.join(repr(c) for c in columns[:2])} field.")
    if not records and not problems and required:
        problems.append(f"{path}: no {what}s. Fix: add at least one.")
    if problems:
        raise DataError(problems, source=str(path))
    return records


def _files(path: Path) -> list[Path]:
    """``path`` itself, or the data files (.jsonl, .json, .csv) of a directory, sorted."""
    if not path.is_dir():
        return [path]
    files = sorted(f for f in path.iterdir() if f.suffix.lower() in (".jsonl", ".json", ".csv"))
    if not files:
        raise DataError([(f"{path}: no .jsonl, .json or .csv file in this directory. Fix: give "
                         "a seed or template file.")])
    return files


def load_seeds(path: str | Path | None = None) -> list[Seed]:
    """The shipped seed list (40 requests, 10 per harm category), or the seeds in ``path`` (a
    file, or a directory: every data file in it; ids then start with the file name when there
    are several files).

    Raises:
        DataError: the file is missing, malformed, or has a record with no request or a
            repeated id (every problem listed, with its line).
    """
    sources = ([_DATA / "seeds.jsonl"] if path in (None, BUILTIN)
               else _files(Path(str(path))))
    seeds: list[Seed] = []
    seen: dict[str, str] = {}
    problems: list[str] = []
    for source in sources:
        prefix = f"{source.stem}:" if len(sources) > 1 else ""
        for line, rec in _records(source, _PROMPT_COLUMNS, "request"):
            _, prompt = _first(rec, _PROMPT_COLUMNS)
            seed_id = prefix + (_first(rec, _ID_COLUMNS)[1] or f"seed-{line}")
            if seed_id in seen:
                problems.append(f"{source} line {line}, field 'id': {seed_id!r} is already used "
                                f"on {seen[seed_id]}. Fix: give each seed its own id.")
            seen[seed_id] = f"line {line}"
            category = _first(rec, _CATEGORY_COLUMNS)[1] or "unspecified"
            seeds.append(Seed(id=seed_id, category=category, prompt=str(prompt)))
    if problems:
        raise DataError(problems, source=str(path))
    return seeds


def load_templates(paths: list[str | Path] | None = None) -> list[JailbreakTemplate]:
    """The shipped jailbreak templates, or those of each path (``builtin`` for the shipped ones).
    From a directory, every data file's templates that have a placeholder are taken (there,
    records without one are usually something else, such as attack goals).

    Raises:
        DataError: a file is missing or has a record with no template text, or a directory
            has no template with a placeholder.
    """
    templates: list[JailbreakTemplate] = []
    for path in paths or [BUILTIN]:
        whole_dir = str(path) != BUILTIN and Path(path).is_dir()
        sources = ([_DATA / "jailbreak_templates.jsonl"] if str(path) == BUILTIN
                   else _files(Path(path)))
        found = []
        for source in sources:
            for line, rec in _records(source, _TEMPLATE_COLUMNS, "template",
                                      required=not whole_dir):
                name = _first(rec, _ID_COLUMNS)[1] or f"{source.stem}-{line}"
                text = str(_first(rec, _TEMPLATE_COLUMNS)[1])
                if not whole_dir or any(mark in text for mark in _PLACEHOLDERS):
                    found.append(JailbreakTemplate(id=name, text=text))
        if whole_dir and not found:
            raise DataError([(f"{path}: no template with a {' or '.join(_PLACEHOLDERS)} "
                             "placeholder in this directory. Fix: give the template file.")])
        templates += found
    return templates


def pick_seeds(seeds: list[Seed], n: int | None, categories: list[str] | None = None) -> list[Seed]:
    """The first ``n`` seeds taking categories in turn (file order within each), after keeping
    only ``categories`` when given.

    Raises:
        DataError: no seed is in the chosen categories.
    """
    if categories:
        kept = [s for s in seeds if s.category in categories]
        if not kept:
            have = sorted({s.category for s in seeds})
            raise DataError([f"no seed is in categories {categories}. Fix: choose from {have}."])
        seeds = kept
    by_category: dict[str, list[Seed]] = {}
    for seed in seeds:
        by_category.setdefault(seed.category, []).append(seed)
    order: list[Seed] = []
    queues = list(by_category.values())
    while any(queues):
        for queue in queues:
            if queue:
                order.append(queue.pop(0))
    return order[:n] if n else order
