"""A jailbreak output folder: what may be written there, and what a resume keeps.

The folder holds, per side, the conversations (``<side>.jsonl``) and their ratings (an
``assay run`` output folder ``<side>/``), then ``jailbreak.json``. A folder that already holds
a jailbreak is never overwritten silently: a new one there needs ``resume`` or ``overwrite``.
On resume, the conversations asked again (their app call had failed, or they were never
asked) lose their old ratings, and the rating run accepts the side's new conversations file:
every row that changed in it is one it will rate again.

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

__all__ = ["SIDES", "accept_new_conversations", "answered", "check_folder", "forget"]

#: The two datasets of a jailbreak run, in the order they are built.
SIDES = ("plain", "injected")
_FILES = (*(f"{s}.jsonl" for s in SIDES), *SIDES, "jailbreak.json")


def check_folder(out: Path, *, resume: bool, overwrite: bool) -> None:
    """Refuse a folder that holds a jailbreak unless ``resume`` or ``overwrite``; with
    ``overwrite`` (and no ``resume``), remove that jailbreak's files.

    Raises:
        ConfigError: the folder holds a jailbreak and neither option was given.
    """
    present = [name for name in _FILES if (out / name).exists()]
    if not present or resume:
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
