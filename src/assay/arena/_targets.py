"""``assay arena --targets T1 T2 ... --data TESTSET``: ask each app every test row first, then
rank the answers.

Each target is made as ``assay run --target`` makes it (``python:module:function``,
``openai:MODEL``, ``http:URL``, ``local``); every one is made, and every problem told, before
any app is asked. Each app's answers go to ``OUT/answers/NAME.jsonl`` as they come (one line
per row: its id, question, context and the answer), so ``--resume`` asks only the rows an
app has not answered yet. A ``python:`` target is called as ``fn(question, passages)`` with
the row's contexts (a RAG app, as ``assay robustness`` calls one). A row an app failed on is
not written (the next ``--resume`` asks it again); the failures' causes are given back per
app, counted; an app that answered no row stops the arena with its cause.

Example:
    >>> import asyncio, json, pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "test.jsonl").write_text(json.dumps(
    ...     {"id": "q1", "question": "Where is Paris?", "contexts": ["Paris is in France."]}))
    >>> asked = asyncio.run(answer_with_targets(
    ...     ["python:examples.apps:echo_first_passage", "python:examples.apps:always_reject"],
    ...     folder / "test.jsonl", folder / "out"))
    >>> [(p.name, sum(failed.values())) for p, failed in asked]
    [('echo_first_passage.jsonl', 0), ('always_reject.jsonl', 0)]
    >>> json.loads(asked[0][0].read_text())["answer"]
    'Paris is in France.'
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._secrets import mask_secrets
from ..data import Row, read_dataset
from ..errors import AssayError, ConfigError, DataError, option
from ..records import load_finished
from ..targets import AppTarget, close_target, make_target

__all__ = ["ANSWERS_FOLDER", "answer_with_targets", "target_names"]

#: The folder under the arena's output that holds each app's answers.
ANSWERS_FOLDER = "answers"


def target_names(specs: Sequence[str]) -> list[str]:
    """Each target's default name: its id's last part (``python:pkg.mod:fn`` -> ``fn``,
    ``openai:gpt-4o-mini`` -> ``gpt-4o-mini``), file-safe (no dots: a name is its answers
    file's name without the extension).

    Example:
        >>> target_names(["python:examples.apps:echo_first_passage", "openai:gpt-4o-mini",
        ...               "http://localhost:8000/ask"])
        ['echo_first_passage', 'gpt-4o-mini', 'localhost_8000_ask']
    """
    names = []
    for spec in specs:
        tail = spec.split("://", 1)[1] if "://" in spec else spec.rsplit(":", 1)[-1]
        names.append("".join(c if c.isalnum() or c in "-_" else "_" for c in tail) or "app")
    return names


def _made(specs: Sequence[str], names: list[str], timeout: float | None,
          problems: list[str]) -> list[AppTarget]:
    """Every target made, or one ConfigError telling each that cannot be and ``problems``
    (the test set's: nothing asked)."""
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        problems.append(f"the app name(s) {', '.join(map(repr, twice))} are used twice: give "
                        f"each target its own name with {option('names')} (one per target, "
                        "in order).")
    if len(specs) < 2:
        problems.append(f"an arena needs at least two apps to rank; {option('targets')} gave "
                        f"{len(specs)}. Give two or more: --targets python:app:v1 "
                        "python:app:v2 ...")
    made: list[AppTarget] = []
    for spec in specs:
        try:
            made.append(make_target(spec) if timeout is None else make_target(spec,
                                                                              timeout=timeout))
        except AssayError as e:
            problems.append(f"target {spec!r}: {e}")
    if problems:
        raise _Unmade("\n".join(problems), made)
    return made


class _Unmade(ConfigError):
    """A ConfigError that carries the targets made before it, to close them."""

    def __init__(self, message: str, made: list[AppTarget]) -> None:
        super().__init__(message)
        self.made = made


async def _ask_one(target: AppTarget, rows: list[Row], path: Path, resume: bool,
                   concurrency: int) -> Counter[str]:
    """Ask ``target`` every row ``path`` lacks (all of them without ``resume``), writing
    each answer as it comes; the failed rows' causes (masked of secrets), counted."""
    kept = load_finished(path) if resume else {}
    path.parent.mkdir(parents=True, exist_ok=True)
    failed: Counter[str] = Counter()
    gate = asyncio.Semaphore(concurrency)
    with path.open("a" if resume else "w", encoding="utf-8") as out:

        async def ask(row: Row) -> None:
            passages = row.contexts or ([row.context] if row.context else [])
            async with gate:
                try:
                    answer = await target.answer(row.question or "", passages, "en")
                except Exception as e:  # noqa: BLE001 - a failed app call: that row is left out
                    failed[mask_secrets(f"{type(e).__name__}: {e}")[:300]] += 1
                    return
            line: dict[str, Any] = {"id": row.id, "question": row.question, "answer": answer}
            if passages:
                line["contexts"] = passages
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
            out.flush()

        await asyncio.gather(*(ask(row) for row in rows if row.id not in kept))
    return failed


async def answer_with_targets(specs: Sequence[str], data: str | Path, out: Path, *,
                              names: Sequence[str] | None = None, resume: bool = False,
                              overwrite: bool = False, timeout: float | None = None, concurrency: int = 4
                              ) -> list[tuple[Path, Counter[str]]]:
    """Each app's answers file (``OUT/answers/NAME.jsonl``) and its failed rows' causes, in
    the order of ``specs``, after asking every app every test row of ``data`` it has not
    answered.

    Raises:
        ConfigError: fewer than two targets, a target that cannot be made (every one told,
            nothing asked).
        AssayError: an app answered no row (its failures' most common cause).
        DataError: the test set's problems (all of them, before any app is asked).
    """
    if names and len(names) != len(specs):
        raise ConfigError(f"{option('names')} gave {len(names)} name(s) for {len(specs)} "
                          "targets: give one name per target, in the same order, or none.")
    chosen = list(names) if names else target_names(specs)
    earlier = [out / ANSWERS_FOLDER / f"{name}.jsonl" for name in chosen]
    if not (resume or overwrite) and any(p.exists() for p in earlier):
        raise ConfigError(f"{out / ANSWERS_FOLDER} holds the apps' answers of an earlier "
                          f"arena: add {option('resume')} to keep them (only the rows not "
                          f"answered are asked) or {option('overwrite')} to ask again.")
    problems: list[str] = []
    rows: list[Row] = []
    try:
        rows = [row for row in read_dataset(data, answer_required=False) if row.question]
    except DataError as e:
        problems += [f"{e}"] if not e.problems else list(e.problems)
    try:
        targets = _made(specs, chosen, timeout, problems)
    except _Unmade as e:
        for target in e.made:
            await close_target(target)
        raise ConfigError(str(e)) from None
    try:
        paths = [out / ANSWERS_FOLDER / f"{name}.jsonl" for name in chosen]
        failed = []
        for target, path in zip(targets, paths):
            failed.append(await _ask_one(target, rows, path, resume, concurrency))
    finally:
        for target in targets:
            await close_target(target)
    silent = [f"{spec} answered no row: {sum(causes.values())} failed, e.g. "
              f"{causes.most_common(1)[0][0]}" for spec, path, causes in zip(specs, paths, failed)
              if causes and not path.stat().st_size]
    if silent:  # nothing of that app to rank: the cause, not an empty file's complaint
        how = ("A python: target is called as fn(question, passages) with the test row's "
               f"contexts (as assay robustness calls one); fix the app, then "
               f"{option('resume')}.")
        raise AssayError("\n".join([*silent, how]))
    return list(zip(paths, failed))
