"""A jailbreak output folder: what may be written there, and what a resume keeps.

A ``template`` jailbreak holds, per side, the conversations (``<side>.jsonl``) and their
ratings (an ``assay run`` output folder ``<side>/``), then ``jailbreak.json``. A multi-turn
attack (``crescendo``, ``pair``) holds its settings (``attack.run.json``, written first), the
plain side (``plain.jsonl``), the attack's transcripts (``<strategy>.jsonl``) and
``attack.json``. A folder that already holds either is never overwritten silently: a new run
there needs ``resume`` or ``overwrite``; ``resume`` continues only a run of the same strategy
(and, the attack's job checks, the same settings), and ``overwrite`` removes the files of both
kinds.

On a template resume, the conversations asked again (their app call had failed, or they were
never asked) lose their old ratings, and the rating run accepts the side's new conversations
file: every row that changed in it is one it will rate again.

Example:
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> check_folder(folder, resume=False, overwrite=False)
    >>> _ = (folder / "plain.jsonl").write_text("{}\\n")
    >>> try:
    ...     check_folder(folder, resume=False, overwrite=False)
    ... except ConfigError as e:
    ...     print(str(e).split("Fix: ")[1])
    resume=True to continue it, overwrite=True to replace it, or out='NEW_DIR'.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict
from pathlib import Path

from .._files import atomic_write
from ..errors import ConfigError, option
from ..records import MANIFEST_NAME, file_sha256, load_finished, read_manifest, rewrite_in_order

__all__ = ["ATTACK_SETTINGS", "SIDES", "accept_new_conversations", "answered", "check_folder",
           "forget"]

#: The two datasets of a jailbreak run, in the order they are built.
SIDES = ("plain", "injected")
#: The settings of a multi-turn attack, written before anything else.
ATTACK_SETTINGS = "attack.run.json"
_TEMPLATE_ONLY = ("injected.jsonl", *SIDES, "jailbreak.json")
_ATTACK_ONLY = (ATTACK_SETTINGS, "crescendo.jsonl", "pair.jsonl", "attack.json")
_FILES = ("plain.jsonl", *_TEMPLATE_ONLY, *_ATTACK_ONLY)


def _held(out: Path) -> str | None:
    """The strategy of the run the folder holds (``None``: no run, or one of unknown kind)."""
    settings = out / ATTACK_SETTINGS
    if settings.is_file():
        try:
            return str(json.loads(settings.read_text(encoding="utf-8"))["strategy"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
    if any((out / name).exists() for name in ("plain.jsonl", *_TEMPLATE_ONLY)):
        return "template"
    return None


def check_folder(out: Path, *, resume: bool, overwrite: bool, strategy: str = "template") -> None:
    """Refuse a folder that holds a jailbreak or an attack unless ``resume`` (of a run of the
    same ``strategy``) or ``overwrite``; with ``overwrite`` (and no ``resume``), remove that
    run's files.

    Raises:
        ConfigError: the folder holds a run and neither option was given, or ``resume`` is
            given and the run there is of another strategy.
    """
    present = [name for name in _FILES if (out / name).exists()]
    if not present:
        return
    if resume:
        held = _held(out)
        if held != strategy:
            what = f"a {held} run" if held else "a run assay cannot read"
            raise ConfigError(
                f"{out} holds {what} ({', '.join(present)}); {option('resume', True)} "
                f"continues a run of the same strategy, not {option('strategy', strategy)}. "
                f"Fix: {option('strategy', held or '...')} to continue it, "
                f"{option('overwrite', True)} without {option('resume', True)} to replace it, "
                f"or {option('out', 'NEW_DIR')}.")
        return
    if not overwrite:
        raise ConfigError(
            f"{out} already holds a jailbreak run ({', '.join(present)}). assay does not "
            f"overwrite it silently. Fix: {option('resume', True)} to continue it, "
            f"{option('overwrite', True)} to replace it, or {option('out', 'NEW_DIR')}.")
    for name in present:
        path = out / name
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()


def answered(path: Path) -> set[str]:
    """Ids of the conversations in ``path`` that got their replies (no app error)."""
    return {i for i, row in load_finished(path).items() if not row.get("error")}


def forget(results: Path, ids: set[str]) -> None:
    """Drop the rated rows ``ids`` from a results file, so a resumed run rates them again."""
    if not ids or not results.is_file():
        return
    kept = [r for i, r in load_finished(results).items() if i not in ids]
    rewrite_in_order(results, kept)


def accept_new_conversations(side_dir: Path, dataset: Path) -> None:
    """Let the rating run in ``side_dir`` resume on ``dataset`` as it is now.

    A resumed jailbreak asks some conversations again, so the side's conversations file
    changes; :func:`forget` has dropped those rows' ratings, so the rest of the earlier
    ratings still hold. The run's manifest is told the file's new sha256 (the rating run
    refuses to resume on a dataset that changed behind its back).
    """
    manifest = read_manifest(side_dir)
    digest = file_sha256(dataset)
    if manifest is None or manifest.dataset_sha256 == digest:
        return
    manifest.dataset_sha256 = digest
    with atomic_write(side_dir / MANIFEST_NAME, what="the run's manifest") as f:
        f.write(json.dumps(asdict(manifest), indent=2, ensure_ascii=False))
