"""Rubric prefixes kept across runs: one KV-cache slot per system prompt, saved to disk.

Every request of a metric starts with the same system prompt (its rubric). Within a run,
llama.cpp reuses it from the slot that last held it; a new process has to process it again,
about 200 tokens, near 3 s per metric on 2 cores. :class:`PrefixSlots` pins each system
prompt to a slot of its own (least recently used first) and, once a system prompt has served
two requests (so it is a rubric, not one row's text), stores the slot holding *that system
prompt alone* in a file named by its hash. A later process restores the file into the slot
before the first request, and processes only the row's own tokens.

Where no file is restored, the slot is first filled with the system prompt alone (a request of
it, one token long), so that the first row of a rubric is computed on top of the same cached
system prompt as every later row, and as in a run that restored it: scores do not depend on
whether the prefix came from a file (on the demo rows, without this step the first row of a
rubric could decode differently, e.g. one statement instead of two).

What reaches the disk is the KV cache of a system prompt that at least two requests shared:
the slot is cut back to the system prompt (a request of it alone, whose prefix is already
cached) before it is saved, so no row's text is stored. The files live in
``<user cache>/assay/kv-prefixes/<model>/`` (about 28 KB a token on the embedded model, so
5-10 MB a rubric), at most :data:`MAX_FILES` of them, the least recently used removed first.
A file that fails to restore is deleted and the prefix processed as before: the cache can
make a run faster, never change or fail it. ``ASSAY_PREFIX_CACHE=off`` turns it off.

Example:
    >>> slots = PrefixSlots(n_slots=2, directory=None)
    >>> a = [{"role": "system", "content": "Rate coherence."}, {"role": "user", "content": "x"}]
    >>> b = [{"role": "system", "content": "Rate fluency."}, {"role": "user", "content": "y"}]
    >>> [slots.plan(m).slot for m in (a, b, a, b)]
    [0, 1, 0, 1]
    >>> slots.plan(b).key == slots.plan(b).key  # the system prompt's hash
    True
    >>> c = [{"role": "system", "content": "Rate relevance."}, {"role": "user", "content": "z"}]
    >>> slots.plan(c).slot  # the least recently used slot (coherence's) is taken over
    0
"""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

__all__ = ["MAX_FILES", "PrefixPlan", "PrefixSlots", "prefix_cache_dir"]

#: Prefix files kept per model; the least recently used beyond it are removed.
MAX_FILES = 48
_SAVE_AFTER = 2  # requests sharing a system prompt before it is saved


def prefix_cache_dir(model_key: str) -> Path | None:
    """Where the prefixes of ``model_key`` are kept, or ``None`` when
    ``ASSAY_PREFIX_CACHE`` is ``off`` (``0``, ``no``, ``false``). Any other value of it is the
    base directory.

    Example:
        >>> os.environ["ASSAY_PREFIX_CACHE"] = "off"
        >>> prefix_cache_dir("m") is None
        True
        >>> os.environ["ASSAY_PREFIX_CACHE"] = "/tmp/kv"
        >>> str(prefix_cache_dir("m"))
        '/tmp/kv/m'
        >>> del os.environ["ASSAY_PREFIX_CACHE"]
    """
    setting = os.environ.get("ASSAY_PREFIX_CACHE", "").strip()
    if setting.lower() in ("off", "0", "no", "false"):
        return None
    base = Path(setting) if setting else Path(platformdirs.user_cache_dir("assay")) / "kv-prefixes"
    return base / model_key


@dataclass(frozen=True)
class PrefixPlan:
    """What to do around one request: send it to ``slot``. Where the slot does not hold the
    system prompt ``key`` yet, first restore the file ``restore`` into it, or else fill it
    with ``system`` (the system prompt alone). Afterwards fill it with ``system`` again and
    save that as the file ``save``. The caller knows what each slot holds: with requests in
    parallel, a slot planned for one prompt may have been taken over before its turn."""

    slot: int | None
    key: str | None = None
    system: tuple[dict[str, Any], ...] = ()
    restore: str | None = None
    save: str | None = None


class PrefixSlots:
    """Assigns system prompts to KV-cache slots and decides what to restore and save.

    ``directory`` is where the prefix files are (``None``: no files, slots only). The caller
    (the embedded judge) does the restoring and saving, and reports a restore that failed
    with :meth:`forget`. Not thread-safe: plan under a lock.
    """

    def __init__(self, n_slots: int, directory: Path | None) -> None:
        self.n_slots = n_slots
        self.directory = directory
        self._slot_of: OrderedDict[str, int] = OrderedDict()
        self._uses: dict[str, int] = {}
        self._saved: set[str] = set()

    def plan(self, messages: list[dict[str, Any]]) -> PrefixPlan:
        """The plan for a request of ``messages`` (no slot when it has no system prompt)."""
        if not messages or messages[0].get("role") != "system":
            return PrefixPlan(slot=None)
        system = str(messages[0].get("content") or "")
        key = hashlib.sha256(system.encode()).hexdigest()[:40]
        self._uses[key] = self._uses.get(key, 0) + 1
        restore = None
        if key in self._slot_of:
            self._slot_of.move_to_end(key)
            slot = self._slot_of[key]
        else:
            slot = self._free_slot()
            self._slot_of[key] = slot
        if self._on_disk(key):
            restore = self._file_of(key)
            self._saved.add(key)
        save = None
        if (self.directory is not None and key not in self._saved
                and self._uses[key] >= _SAVE_AFTER):
            save = self._file_of(key)
            self._saved.add(key)
        return PrefixPlan(slot=slot, key=key, system=(messages[0],), restore=restore, save=save)

    def forget(self, filename: str) -> None:
        """A prefix file that could not be restored: remove it."""
        if self.directory is not None:
            (self.directory / filename).unlink(missing_ok=True)

    def saved(self, filename: str) -> None:
        """A prefix file was written: keep at most :data:`MAX_FILES`, newest first."""
        if self.directory is None:
            return
        files = sorted(self.directory.glob("*.bin"), key=lambda p: p.stat().st_mtime,
                       reverse=True)
        for old in files[MAX_FILES:]:
            if old.name != filename:
                old.unlink(missing_ok=True)

    def _free_slot(self) -> int:
        used = set(self._slot_of.values())
        free = next((s for s in range(self.n_slots) if s not in used), None)
        if free is not None:
            return free
        _key, slot = self._slot_of.popitem(last=False)
        return slot

    def _on_disk(self, key: str) -> bool:
        if self.directory is None:
            return False
        path = self.directory / self._file_of(key)
        if not path.is_file():
            return False
        os.utime(path)  # recently used: kept by saved()'s pruning
        return True

    @staticmethod
    def _file_of(key: str) -> str:
        return f"{key}.bin"
