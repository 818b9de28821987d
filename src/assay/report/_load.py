"""What a report reads besides the run: the inputs of its rows (question, context, answer,
ground truth or conversation turns) from its dataset, and a judge's calibration files.

Example:
    >>> from assay.data import Row
    >>> inputs = inputs_from_rows([Row(id="q1", line=1, question="Who?", answer="Ada.")])
    >>> inputs["q1"]["question"], inputs["q1"]["answer"]
    ('Who?', 'Ada.')
    >>> load_inputs(None)
    (None, 'Inputs are not shown: the run names no dataset file.')
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..data import Row, read_dataset, row_inputs
from ..errors import AssayError, ConfigError, option
from ..records import RunData
from ..store import Store

__all__ = ["calibration_of", "find_dataset", "inputs_for_run", "inputs_from_rows",
           "load_calibration", "load_inputs"]


def inputs_from_rows(rows: Iterable[Row]) -> dict[str, dict[str, Any]]:
    """``{row id: {field: value}}`` with the fields a row has: ``question``, ``context``,
    ``contexts`` (the retrieved chunks, when given as a list), ``answer``, ``ground_truth``,
    ``messages`` (``[{"role", "content", "citations"}]``) and ``extra``: the shape the run
    store keeps (``assay.data.row_inputs``), so a dataset file and the store read alike."""
    return {str(row.id): row_inputs(row) for row in rows}


def find_dataset(dataset: str | Path | None, run_dir: str | Path | None = None) -> Path | None:
    """The dataset file a run names, as given (relative to the working directory) or else
    relative to the run directory and its parent; None when it is not found.

    Example:
        >>> find_dataset("/no/such/file.jsonl") is None
        True
    """
    if not dataset:
        return None
    path = Path(dataset)
    candidates = [path]
    if not path.is_absolute() and run_dir is not None:
        candidates += [Path(run_dir) / path, Path(run_dir).parent / path]
    return next((p for p in candidates if p.is_file()), None)


def load_inputs(dataset: str | Path | None, *, run_dir: str | Path | None = None,
                mapping: Mapping[str, str] | None = None
                ) -> tuple[dict[str, dict[str, Any]] | None, str | None]:
    """``(inputs, None)`` from the dataset file, or ``(None, why not)`` when it is missing or
    cannot be read: a report without inputs is still a report. A QA row without an answer is
    read too (the app under test answered it: its answer is in the row's record)."""
    if not dataset:
        return None, "Inputs are not shown: the run names no dataset file."
    path = find_dataset(dataset, run_dir)
    if path is None:
        return None, (f"Inputs are not shown: the dataset file {dataset} was not found. "
                      f"Fix: pass its current path with {option('dataset')}.")
    try:
        rows = read_dataset(path, mapping=mapping, answer_required=False)
    except AssayError as e:
        first = str(e).splitlines()[0]
        return None, (f"Inputs are not shown: the dataset file {path} could not be read "
                      f"({first}). Fix: pass the {option('mapping')} the run used, or the "
                      f"right file with {option('dataset')}.")
    return inputs_from_rows(rows), None


def inputs_for_run(run: RunData, *, store: Store | None = None,
                   dataset: str | Path | None = None, run_dir: str | Path | None = None,
                   mapping: Mapping[str, str] | None = None
                   ) -> tuple[dict[str, dict[str, Any]] | None, str | None]:
    """The inputs of ``run``'s rows, from wherever they are, as ``load_inputs`` returns them:

    1. ``dataset``, when given (the user named the file: it wins);
    2. else the inputs the run stored beside its rows in ``store`` (runs recorded by a current
       assay keep them), so a report needs no dataset file and works from any folder;
    3. else the dataset file the run recorded (older runs), found as ``find_dataset`` does.

    ``run.id`` (or ``run.summary["run_id"]`` for an ``--out`` directory) names the stored run.

    Example:
        >>> from assay.store import open_store
        >>> with open_store(":memory:") as store:
        ...     rid = store.create_run()
        ...     store.add_rows(rid, [{"id": "q1", "m": {"value": 1.0}}])
        ...     run = RunData(id=rid, summary={}, records=store.rows(rid))
        ...     inputs_for_run(run, store=store)
        (None, 'Inputs are not shown: the run names no dataset file.')
    """
    if dataset:
        return load_inputs(dataset, run_dir=run_dir, mapping=mapping)
    run_id = str(run.summary.get("run_id") or run.id)
    if store is not None and run.records:
        try:
            stored = store.inputs(run_id, [str(r.get("id")) for r in run.records])
        except AssayError:  # the run is not in this store
            stored = {}
        if stored:
            return {str(k): dict(v) for k, v in stored.items()}, None
    recorded = run.summary.get("dataset") or run.meta.get("dataset")
    return load_inputs(recorded, run_dir=run_dir, mapping=mapping)


def load_calibration(path: Path) -> dict[str, Any]:
    """``calibration.json`` (given directly or as its directory), as ``assay calibrate`` wrote
    it (its PNGs stay beside it: the report draws the matrix and the curve itself).

    Raises:
        ConfigError: no readable calibration.json there.
    """
    json_path = path / "calibration.json" if path.is_dir() else path
    try:
        calib = json.loads(json_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ConfigError(f"{json_path}: cannot read it as calibration JSON ({e}). Fix: give "
                          "the output directory of `assay calibrate` or its "
                          "calibration.json.") from None
    if not isinstance(calib, dict) or not isinstance(calib.get("reports"), dict):
        raise ConfigError(f"{json_path}: no 'reports' object in it. Fix: give the "
                          "calibration.json that `assay calibrate` wrote.")
    return calib


def calibration_of(summary: Mapping[str, Any]) -> dict[str, Any] | None:
    """The calibration figures a stored calibration run carries in its summary (under
    ``calibration``), shaped as ``calibration.json`` for the report; None when it has none.

    Example:
        >>> calibration_of({"calibration": {"judge": "local", "metric": "helpfulness",
        ...                                 "balanced_accuracy": 0.5}})["reports"]["local"]["metric"]
        'helpfulness'
        >>> calibration_of({"metrics": {}}) is None
        True
    """
    stats = summary.get("calibration")
    if not isinstance(stats, Mapping):
        return None
    name = str(stats.get("judge") or "judge")
    return {"metric": stats.get("metric"), "reports": {name: dict(stats)}}
