"""A finished (or interrupted) run read back from its output directory.

Example:
    >>> import tempfile
    >>> from assay.run import RunOptions, evaluate
    >>> out = tempfile.mkdtemp()
    >>> _ = evaluate([{"id": "q1", "answer": "yes", "ground_truth": "yes"}], metrics="exact_match",
    ...              run=RunOptions(out=out))
    >>> run = load_run_dir(out)
    >>> run.records[0]["exact_match"]["value"], run.summary["rows_done"]
    (1.0, 1)
    >>> run.run_summary.metrics["exact_match"].mean
    1.0
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError, DataError, option
from ..store import Store
from ._manifest import read_manifest
from ._recording import open_run_store
from ._results import load_finished
from ._summary import RunSummary

__all__ = ["RunData", "load_run", "load_run_dir", "stored_run_ref"]


@dataclass
class RunData:
    """One run: an id, its summary (as in ``summary.json``), its per-row records (as in
    ``results.jsonl``, in file order) and free-form metadata (name, dataset, judge, ...)."""

    id: str
    summary: dict[str, Any]
    records: list[dict[str, Any]]
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def run_summary(self) -> RunSummary:
        """The summary as a typed :class:`RunSummary` (pydantic's ValidationError when it is
        not one, e.g. empty because the run folder had no summary.json)."""
        return RunSummary.model_validate(self.summary)


def _read_summary(folder: Path) -> dict[str, Any]:
    """The folder's ``summary.json`` as a dict; empty when it is missing, unreadable or not a
    JSON object."""
    try:
        summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return summary if isinstance(summary, dict) else {}


def _names_a_path(ref: str | Path) -> bool:
    """Whether ``ref`` is written as a path (run ids have no slashes)."""
    return "/" in str(ref) or "\\" in str(ref)


def load_run_dir(path: str | Path) -> RunData:
    """The run in an ``assay run --out`` directory; its id is the directory path.

    Raises:
        DataError: the directory has no ``results.jsonl`` (a missing or unreadable
            ``summary.json`` gives an empty summary: the rows are what matters).
    """
    path = Path(path)
    results = path / "results.jsonl"
    if not results.is_file():
        raise DataError([(f"{path}: no results.jsonl here. Fix: give the output folder of a "
                          f"run (its {option('out')}).")])
    summary = _read_summary(path)
    records = list(load_finished(results).values())
    meta = {"dataset": summary.get("dataset"), "judge": (summary.get("judge") or {}).get("id")}
    return RunData(id=str(path), summary=summary, records=records, meta=meta)


def stored_run_ref(ref: str | Path) -> str:
    """The run store reference for ``ref``: a run's output folder (its ``--out``) gives the id
    of the stored run it holds (from its ``run.json``, else its ``summary.json``); anything
    else is returned as given (a run id, a unique prefix of one, or ``latest``).

    Raises:
        ConfigError: ``ref`` is a path but no folder, or a run's folder that names no stored
            run (a run with ``--no-store``, or one killed before it ended).

    Example:
        >>> import json, tempfile
        >>> out = Path(tempfile.mkdtemp())
        >>> _ = (out / "summary.json").write_text(json.dumps({"run_id": "20261127-140504-7630"}))
        >>> stored_run_ref(out), stored_run_ref("latest")
        ('20261127-140504-7630', 'latest')
    """
    path = Path(ref)
    if not path.is_dir():
        if _names_a_path(ref):
            raise ConfigError(f"{path}: no such folder. Fix: give a run's output folder (its "
                              f"{option('out')}), or a stored run's id, a unique prefix of one, "
                              "or 'latest' (assay runs lists them).")
        return str(ref)
    manifest = read_manifest(path)
    if manifest is None and not (path / "summary.json").is_file() and not _names_a_path(ref):
        return str(ref)  # a folder that happens to share the name (say 'latest') holds no run
    run_id = manifest.run_id if manifest is not None else None
    run_id = run_id or _read_summary(path).get("run_id")
    if not isinstance(run_id, str) or not run_id:
        raise ConfigError(
            f"{path}: this folder names no stored run (its run used {option('store', False)}, "
            f"was killed before it ended, or this is not a run's {option('out')} folder). Fix: "
            "pass a stored run's id, a unique prefix of one, or 'latest' (assay runs lists "
            "them).")
    return run_id


def load_run(ref: str | Path, store: str | Path | Store | bool | None = True) -> RunData:
    """A run by reference: an ``assay run --out`` directory, or a stored run's id, unique id
    prefix or ``latest`` in ``store`` (``True``: ``ASSAY_STORE`` or the default store).

    Raises:
        ConfigError: not a directory and not a run in the store (the message lists candidates
            for an ambiguous prefix).
    """
    if Path(ref).exists() or _names_a_path(ref):
        return load_run_dir(ref)  # a path: a run directory or nothing
    opened = open_run_store(store if store is not None else True)
    if opened is None:
        raise DataError([(f"{ref}: not a run directory, and no run store to look it up in. "
                          f"Fix: give the output folder of a run (its {option('out')}), or drop "
                          f"{option('store', False)}.")])
    try:
        info = opened.get(str(ref))
        records = opened.rows(info.id)
    finally:
        if not isinstance(store, Store):
            opened.close()
    meta = {"name": info.name, "dataset": info.dataset, "judge": info.judge,
            "status": info.status, "created": info.created, "tags": list(info.tags),
            "kind": info.kind}
    return RunData(id=info.id, summary=dict(info.summary or {}), records=records, meta=meta)
