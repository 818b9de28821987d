"""A run whose output is one file with side files beside it (``assay generate`` and ``assay
simulate --scenarios`` write ``FILE.jsonl``, ``FILE.run.json``, ``FILE.summary.json``): the
check before it starts, that it neither writes over an earlier run unasked nor resumes one made
with other inputs or settings (the manifest ``FILE.run.json`` says which).

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> words = ResumeWords("simulated conversations", "the conversations",
    ...                     "simulated with other scenarios or settings",
    ...                     "the same scenarios and options")
    >>> rows, manifest = folder / "sim.jsonl", folder / "sim.run.json"
    >>> check_resume_files([], rows=rows, manifest_path=manifest, manifest={"seed": 1},
    ...                    keys=("seed",), words=words, resume=False, overwrite=False)
    >>> _ = manifest.write_text('{"seed": 0}')
    >>> check_resume_files([manifest], rows=rows, manifest_path=manifest, manifest={"seed": 1},
    ...                    keys=("seed",), words=words, resume=True, overwrite=False)
    Traceback (most recent call last):
    assay.errors.ConfigError: Cannot resume ...sim.jsonl: it was simulated with other scenarios or settings (seed was 0, now 1). Fix: ...
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError, option

__all__ = ["ResumeWords", "check_resume_files", "plain_difference"]


@dataclass(frozen=True)
class ResumeWords:
    """How a command's refusals name its output: what the rows file ``holds``, ``contents``
    (what cannot be resumed), how a different run was ``made``, and what to keep ``same``."""

    holds: str
    contents: str
    made: str
    same: str


def plain_difference(key: str, was: Any, now: Any) -> str:
    """One setting that differs, as a refusal says it (the setting named as the caller's
    option: ``--seed`` on the command line).

    Example:
        >>> plain_difference("seed", 0, 1)
        'seed was 0, now 1'
    """
    return f"{option(key)} was {was!r}, now {now!r}"


def check_resume_files(existing: Sequence[Path], *, rows: Path, manifest_path: Path,
                       manifest: Mapping[str, Any], keys: Sequence[str], words: ResumeWords,
                       resume: bool, overwrite: bool,
                       difference: Callable[[str, Any, Any], str] = plain_difference) -> None:
    """Refuse ``resume`` with ``overwrite``; refuse to write over ``existing`` files of an
    earlier run without either; refuse to resume one whose manifest (``manifest_path``) is
    missing, unreadable or not a JSON object, or differs from ``manifest`` in one of ``keys``
    (each said by ``difference``).

    Raises:
        ConfigError: saying what is wrong and the fix.
    """
    if resume and overwrite:
        raise ConfigError(f"Give {option('resume', True)} or {option('overwrite', True)}, "
                          "not both.")
    if not existing or overwrite:
        return
    if not resume:
        raise ConfigError(f"{rows} already holds {words.holds} "
                          f"({', '.join(p.name for p in existing)}). assay does not overwrite "
                          f"it silently. Fix: {option('resume', True)} to continue it, "
                          f"{option('overwrite', True)} to replace it, or another output file.")
    try:
        earlier = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        earlier = None
    if not isinstance(earlier, dict):
        raise ConfigError(f"{manifest_path} is missing or unreadable, so {words.contents} in "
                          f"{rows} cannot be resumed safely. Fix: {option('overwrite', True)} "
                          "to start again.")
    differ = [key for key in keys if earlier.get(key) != manifest.get(key)]
    if differ:
        what = "; ".join(difference(key, earlier.get(key), manifest.get(key)) for key in differ)
        raise ConfigError(f"Cannot resume {rows}: it was {words.made} ({what}). Fix: run with "
                          f"{words.same}, or {option('overwrite', True)} to start again, or "
                          "another output file.")
