"""A run owns its output folder: an exclusive lock for the whole run, and a manifest
(``run.json``) that says which run the folder holds, so ``--resume`` continues only that run.

* The lock is ``DIR/.assay.lock``, held with ``fcntl.flock`` while the run lives. The kernel
  drops it when the process dies (crash, ``kill -9``, Ctrl-C), so a dead owner never blocks a
  resume. The file holds the owner's PID, host and start time, so a second run on the same
  folder can say who holds it.
* The manifest records the dataset (path and sha256), the metrics (name -> version), the judge
  and the run's status (``running``, ``complete`` or ``interrupted``). A resume whose dataset,
  metrics or judge differ is refused, naming each difference.
* A folder that already holds a run is never overwritten silently: a new run there needs
  ``resume`` (continue it) or ``overwrite`` (replace it).
* The commands that make data (``assay generate``, ``simulate``, ``jailbreak``) hold their
  output with the same lock for as long as they write it (:func:`hold_output`): a folder by its
  ``.assay.lock``, a file ``FILE.jsonl`` by ``.FILE.jsonl.lock`` beside it.

Example:
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp()) / "out"
    >>> manifest = RunManifest(dataset="qa.jsonl", dataset_sha256="ab", metrics={"f1_score": "1"},
    ...                        judge=None)
    >>> with claim_output(folder, manifest, resume=False, overwrite=False) as claim:
    ...     claim.finish(status="complete", run_id=None)
    >>> read_manifest(folder).status
    'complete'
    >>> try:
    ...     claim_output(folder, manifest, resume=False, overwrite=False)
    ... except ConfigError as e:
    ...     "resume=True" in str(e) and "overwrite=True" in str(e)
    True
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Self

from .._files import DISK_FULL, atomic_write, write_error
from ..errors import ConfigError, option
from ._manifest import MANIFEST_NAME, RunManifest, read_manifest

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, the manifest still guards
    fcntl = None  # type: ignore[assignment]

__all__ = ["LOCK_NAME", "OutputClaim", "claim_output", "hold_output", "lock_file", "lock_output"]

LOCK_NAME = ".assay.lock"
#: Files a run writes into its folder: any of them means the folder holds a run.
RUN_FILES = ("results.jsonl", "summary.json", MANIFEST_NAME)


class OutputClaim:
    """A locked output folder: the lock stays until :meth:`release` (or the context's end).

    Made by :func:`lock_output` before the dataset is read (so a second run on the folder
    fails at once, however large the dataset); :meth:`begin` then checks that this run may
    write there and writes its manifest.
    """

    def __init__(self, folder: Path, lock_file: IO[str] | None, *, created: bool) -> None:
        self.folder = folder
        self.previous = read_manifest(folder)
        self.manifest: RunManifest | None = None
        self._lock_file = lock_file
        self._created = created

    def begin(self, manifest: RunManifest, *, resume: bool, overwrite: bool) -> None:
        """Check that this run may write here (see :func:`claim_output`), then record it."""
        _check_may_write(self.folder, manifest, self.previous, resume=resume,
                         overwrite=overwrite)
        if resume and self.previous is not None:
            manifest.run_id = self.previous.run_id
            manifest.created = self.previous.created
        manifest.status = "running"
        manifest.owner = _owner()
        self.manifest = manifest
        if overwrite and not resume:
            for name in RUN_FILES:
                (self.folder / name).unlink(missing_ok=True)
        self.write_manifest()

    def write_manifest(self) -> None:
        """Write ``run.json`` atomically (a crash or a full disk leaves the old one or the new
        one, and no temporary file).

        Raises:
            OutputError: the disk refused it (full, read-only), with the fix.
        """
        if self.manifest is None:
            return
        with atomic_write(self.folder / MANIFEST_NAME, what="the run's manifest",
                          then=f"rerun with {option('resume', True)}") as f:
            f.write(json.dumps(asdict(self.manifest), indent=2, ensure_ascii=False))

    def finish(self, *, status: str, run_id: str | None) -> None:
        """Record how the run ended (``complete`` or ``interrupted``) and its stored id."""
        if self.manifest is None:
            return
        self.manifest.status = status
        self.manifest.run_id = run_id or self.manifest.run_id
        self.write_manifest()

    def abandon(self) -> None:
        """The run failed before scoring anything (say, its store would not open): forget
        it here. A folder that held no run before is left as it was found; then release."""
        if self.manifest is not None and self.previous is None:
            (self.folder / MANIFEST_NAME).unlink(missing_ok=True)
            self.manifest = None
        self.release()

    def release(self) -> None:
        """Drop the lock; a folder this claim created and that holds nothing else goes too
        (a run refused for bad input leaves no empty folder behind)."""
        if self._lock_file is None:
            return
        self._lock_file.close()  # closing the descriptor drops the flock
        self._lock_file = None
        if self._created and self.manifest is None:
            try:
                if [p.name for p in self.folder.iterdir()] == [LOCK_NAME]:
                    (self.folder / LOCK_NAME).unlink()
                    self.folder.rmdir()
            except OSError:
                pass

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()


def lock_output(folder: str | Path) -> OutputClaim:
    """Create and lock ``folder`` without waiting.

    Raises:
        ConfigError: another live process holds it (its PID, host and start are named), or
            the folder cannot be created or written.
        OutputError: its disk is full.
    """
    folder = Path(folder)
    created = not folder.exists()
    return OutputClaim(folder, _take(folder, folder / LOCK_NAME, created=created, held=folder),
                       created=created)


@contextmanager
def hold_output(out: str | Path, *, folder: bool = False) -> Iterator[Path]:
    """Hold a command's output for the ``with`` block, without waiting: the lock of
    :func:`lock_output` (a folder's ``.assay.lock``), or for a file ``FILE.jsonl`` (and the
    side files beside it) ``.FILE.jsonl.lock`` in its folder. Yields the lock file's path.
    A lock file of a file output that was never written is removed at the end.

    Example:
        >>> import tempfile, pathlib
        >>> out = pathlib.Path(tempfile.mkdtemp()) / "sim.jsonl"
        >>> with hold_output(out) as lock:
        ...     try:
        ...         with hold_output(out):
        ...             pass
        ...     except ConfigError as e:
        ...         print(lock.name, "named:", lock.name in str(e))
        .sim.jsonl.lock named: True

    Raises:
        ConfigError: another live process holds it (its PID, host and start are named, with
            the fix), or it cannot be created or written. The CLI exits 2 on it.
        OutputError: its disk is full.
    """
    if folder:
        claim = lock_output(out)
        try:
            yield Path(out) / LOCK_NAME
        finally:
            claim.release()
        return
    out = Path(out)
    lock_path = out.with_name(f".{out.name}.lock")
    created = not out.parent.exists()
    lock_file = _take(out.parent, lock_path, created=created, held=out, noun="file")
    try:
        yield lock_path
    finally:
        if lock_file is not None:
            if not out.is_file():  # nothing written: leave no lock file (or folder) behind
                with suppress(OSError):
                    lock_path.unlink()
                    if created:
                        out.parent.rmdir()
            lock_file.close()  # closing the descriptor drops the flock


def _take(folder: Path, lock_path: Path, *, created: bool, held: Path, noun: str = "folder"
          ) -> IO[str] | None:
    """Create ``folder`` and take the lock ``lock_path`` in it of the output ``held`` (a
    ``noun``)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        return _lock(lock_path, held=held, noun=noun)
    except PermissionError as e:
        raise ConfigError(f"Cannot write to the output folder {folder}: {e.strerror}. "
                          f"Fix: choose a writable {option('out')} folder.") from None
    except OSError as e:
        if created:  # leave no empty folder behind
            with suppress(OSError):
                lock_path.unlink(missing_ok=True)
                folder.rmdir()
        if e.errno in DISK_FULL:
            raise write_error(e, f"the output {noun}'s lock file", lock_path) from None
        raise ConfigError(f"Cannot use the output folder {folder}: {e}. "
                          f"Fix: choose another {option('out')} folder.") from None


def claim_output(folder: str | Path, manifest: RunManifest, *, resume: bool,
                 overwrite: bool) -> OutputClaim:
    """Lock ``folder`` for a run and check that the run may write there
    (:func:`lock_output`, then :meth:`OutputClaim.begin`).

    Raises:
        ConfigError: another live process holds the folder (its PID and host are named); the
            folder holds an earlier run and neither ``resume`` nor ``overwrite`` was given;
            or ``resume`` was given for a folder whose run scored another dataset, other
            metrics or another judge (each difference is named). The CLI exits 2 on it.
    """
    claim = lock_output(folder)
    try:
        claim.begin(manifest, resume=resume, overwrite=overwrite)
    except BaseException:
        claim.release()
        raise
    return claim


def _check_may_write(folder: Path, manifest: RunManifest, previous: RunManifest | None, *,
                     resume: bool, overwrite: bool) -> None:
    has_run = any((folder / name).exists() for name in RUN_FILES)
    if resume:
        if previous is None:
            if (folder / "results.jsonl").exists():
                raise ConfigError(
                    f"{option('resume', True)}: {folder} holds results.jsonl but no "
                    f"{MANIFEST_NAME}, so assay cannot tell which dataset, metrics and judge it "
                    "belongs to (it was written by an older assay or by hand). Fix: "
                    f"{option('overwrite', True)} to score everything again there, or "
                    f"{option('out', 'NEW_DIR')}.")
            return  # nothing to resume: a fresh run
        diffs = previous.differences(manifest)
        if diffs:
            raise ConfigError(
                f"{option('resume', True)}: the run in {folder} does not match this one, so it "
                "cannot be continued:\n" + "\n".join(f"  - {d}" for d in diffs) +
                "\nFix: run with the same dataset, "
                + ", ".join(option(k) for k in ("metrics", "judge", "fence", "on_injection"))
                + f" as before, or {option('out', 'NEW_DIR')} for a new run (or "
                f"{option('overwrite', True)} to replace the old one).")
        return
    if has_run and not overwrite:
        what = (f"a {previous.status} run of {previous.dataset} (started {previous.created})"
                if previous else "an earlier run's files")
        raise ConfigError(
            f"{folder} already holds {what}. assay does not overwrite it silently. Fix: "
            f"{option('resume', True)} to continue it, {option('overwrite', True)} to replace "
            f"it, or {option('out', 'NEW_DIR')}.")


def _owner() -> dict[str, Any]:
    return {"pid": os.getpid(), "host": socket.gethostname(),
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}


def lock_file(path: Path, *, held: Path, noun: str, fix: str) -> IO[str] | None:
    """Take the lock file ``path`` of ``held`` (a ``noun``: an ``assay watch`` spool) without
    waiting, the one lock every output uses: held until the returned file is closed or the
    process ends. A ConfigError names its holder and ``fix``."""
    return _lock(path, held=held, noun=noun, fix=fix)


def _lock(path: Path, *, held: Path, noun: str, fix: str | None = None) -> IO[str] | None:
    """Take the lock file ``path`` of the output ``held`` (a folder or a file) without
    waiting; a ConfigError names its holder."""
    if fcntl is None:  # pragma: no cover
        return None
    f = path.open("a+", encoding="utf-8")
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        holder = f.read().strip()
        f.close()
        try:
            who = json.loads(holder)
            owner = f"PID {who.get('pid')} on host {who.get('host')}, since {who.get('started')}"
        except ValueError:
            owner = "another process"
        raise ConfigError(
            f"{held} is in use by another assay run ({owner}; lock file {path}). Two runs "
            f"writing one {noun} would mix their rows. Fix: "
            + (fix or "wait for it to finish, or use "
               f"{option('out', 'NEW_DIR' if noun == 'folder' else 'NEW_FILE')}") + ".") from None
    f.seek(0)
    f.truncate()
    f.write(json.dumps(_owner()))
    f.flush()
    return f
