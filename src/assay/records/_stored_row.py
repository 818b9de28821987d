"""One row of a finished run, as ``explain`` needs it: where the run lives (its output folder,
its entry in the run store, or both), how it was judged, the row's record and its input
fields; and writing reasons back into the folder's ``results.jsonl``.

Example:
    >>> import tempfile
    >>> from assay.run import RunOptions, evaluate
    >>> out = tempfile.mkdtemp()
    >>> _ = evaluate([{"id": "q1", "answer": "yes", "ground_truth": "yes"}], metrics="exact_match",
    ...              run=RunOptions(out=out))
    >>> row = StoredRow.find(out, "q1", store=False)
    >>> row.record["exact_match"]["value"], row.metrics
    (1.0, {'exact_match': '2'})
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..data import read_dataset, row_inputs
from ..errors import ConfigError, DataError, option
from ..store import Store, fill_reasons
from ._manifest import read_manifest
from ._outdir import lock_output
from ._recording import file_sha256, open_run_store
from ._results import iter_jsonl_lines, load_finished

__all__ = ["StoredRow", "judge_spec_of", "write_reasons"]

#: How many row ids an "unknown row" error lists.
SHOWN_IDS = 5


@dataclass
class StoredRow:
    """A run's row: its record (as in ``results.jsonl``) and what re-scoring it needs.

    ``folder`` is the run's output folder (None when only the store has it); ``store`` and
    ``run_id`` its entry in the run store (None when it has none); ``settings`` how it was
    scored (the store's record of the run, else what ``run.json`` and ``summary.json`` say).
    """

    row_id: str
    record: dict[str, Any]
    judge: str | None
    metrics: dict[str, str]
    settings: dict[str, Any]
    folder: Path | None = None
    store: Store | None = None
    run_id: str | None = None
    dataset: str | None = None
    dataset_sha256: str | None = None
    inputs: dict[str, Any] | None = field(default=None, repr=False)

    @classmethod
    def find(cls, run: str | Path, row_id: str, *,
             store: str | Path | Store | bool | None = True) -> StoredRow:
        """The row ``row_id`` of ``run``: an output folder, or a stored run's id, unique id
        prefix or ``latest`` in ``store`` (``True``: ``ASSAY_STORE`` or the default store).
        The caller closes ``.store`` when it opened it (see :meth:`close`).

        Raises:
            ConfigError: no such run, or no such row (a few of the run's ids are named).
        """
        if Path(run).exists() or "/" in str(run) or "\\" in str(run):
            return cls._from_folder(Path(run), str(row_id), store)
        opened = open_run_store(store if store is not None else True)
        if opened is None:
            raise ConfigError(f"{run}: not a run folder, and no run store to look it up in. "
                              f"Fix: give the output folder of a run (its {option('out')}).")
        try:
            info = opened.get(str(run))
            found = opened.row_at(info.id, str(row_id))
            if found is None:
                ids = [str(r["id"]) for r in opened.rows_page(info.id, limit=SHOWN_IDS)]
                raise _unknown_row(str(row_id), f"run {info.id}", ids)
            settings = dict(info.settings or {})
            folder = _own_folder(settings.get("out"), info.id)
            inputs = opened.inputs(info.id, [str(row_id)]).get(str(row_id))
        except BaseException:
            if not isinstance(store, Store):
                opened.close()
            raise
        record = found[1]
        if folder is not None:  # the folder's line is what `assay report` on it reads
            record = load_finished(folder / "results.jsonl").get(str(row_id), record)
        return cls(str(row_id), record, judge=settings.get("judge") or info.judge,
                   metrics=dict(info.metrics), settings=settings, folder=folder, store=opened,
                   run_id=info.id, dataset=info.dataset, dataset_sha256=info.dataset_sha256,
                   inputs=inputs)

    @classmethod
    def _from_folder(cls, folder: Path, row_id: str,
                     store: str | Path | Store | bool | None) -> StoredRow:
        results = folder / "results.jsonl"
        if not results.is_file():
            raise ConfigError(f"{folder}: no results.jsonl here. Fix: give the output folder "
                              f"of a run (its {option('out')}), or a stored run's id.")
        records = load_finished(results)
        if row_id not in records:
            raise _unknown_row(row_id, str(folder), list(records)[:SHOWN_IDS])
        manifest = read_manifest(folder)
        summary = _read_json(folder / "summary.json")
        run_id = (manifest.run_id if manifest else None) or summary.get("run_id")
        settings: dict[str, Any] = {"lang": summary.get("lang", "en"),
                                    **(summary.get("safety") and {
                                        "safety_threshold": summary["safety"].get("threshold"),
                                        "safety_mode": summary["safety"].get("mode")} or {}),
                                    **((manifest.judging or {}) if manifest else {})}
        row = cls(row_id, records[row_id],
                  judge=(manifest.judge if manifest else None)
                  or (summary.get("judge") or {}).get("id"),
                  metrics=dict(manifest.metrics if manifest else
                               summary.get("metric_versions") or {}),
                  settings=settings, folder=folder,
                  dataset=(manifest.dataset if manifest else None) or summary.get("dataset"),
                  dataset_sha256=(manifest.dataset_sha256 if manifest else None)
                  or summary.get("dataset_sha256"))
        if run_id and store is not None and store is not False:
            row._join_store(str(run_id), store)
        return row

    def _join_store(self, run_id: str, store: str | Path | Store | bool) -> None:
        """Take the stored run's settings and the row's stored inputs, when the store holds
        this run (a folder whose store is gone, or another, is read on its own)."""
        try:
            opened = open_run_store(store)
        except ConfigError:
            return
        if opened is None:
            return
        try:
            info = opened.get(run_id)
            if info.id != run_id or opened.row_at(run_id, self.row_id) is None:
                raise ConfigError("not this run")
            self.inputs = opened.inputs(run_id, [self.row_id]).get(self.row_id)
        except ConfigError:
            if not isinstance(store, Store):
                opened.close()
            return
        self.settings = {**self.settings, **(info.settings or {})}
        self.store, self.run_id = opened, run_id

    def close(self) -> None:
        """Close the run store this row opened (one passed in is left open)."""
        if self.store is not None:
            self.store.close()

    def row_data(self) -> dict[str, Any]:
        """The row's input fields, as ``evaluate`` reads them: from the dataset file when it
        is still the one the run scored (the exact texts), else as the store kept them.

        Raises:
            ConfigError: neither is there.
        """
        path = Path(self.dataset) if self.dataset else None
        if path is not None and path.is_file() and (
                self.dataset_sha256 is None or file_sha256(path) == self.dataset_sha256):
            try:
                rows = read_dataset(path, mapping=self.settings.get("mapping") or None)
            except DataError:
                rows = []
            for row in rows:
                if row.id == self.row_id:
                    return _flat(row_inputs(row), self.row_id)
        if self.inputs is not None:
            return _flat(self.inputs, self.row_id)
        where = (f"the dataset {self.dataset} is gone, changed, or not readable without "
                 "the run's settings" if path is not None and self.dataset_sha256
                 else "the run scored rows in memory")
        raise ConfigError(f"Row {self.row_id!r}: its input fields are not stored and {where}, "
                          "so the judge cannot be asked again. Fix: run the evaluation with "
                          "the run store on (it keeps each row's inputs).")


def judge_spec_of(judge_id: str | None) -> str | None:
    """The judge spec that rebuilds a run's judge from its recorded id: ``openai:MODEL`` and
    ``azure:DEPLOYMENT`` as they are; ``local:NAME`` (the embedded model's file name) is
    ``local``, unless NAME is a path.

    Example:
        >>> judge_spec_of("local:qwen2.5-coder-1.5b-instruct-q4_k_m"), judge_spec_of("fake")
        ('local', 'fake')
    """
    if judge_id is None:
        return None
    kind, _, arg = judge_id.partition(":")
    if kind == "local" and arg and not Path(arg).is_file():
        return "local"
    return judge_id


def write_reasons(folder: Path, row_id: str, records: Mapping[str, dict[str, Any]]) -> None:
    """Replace the metric results ``records`` (``{metric: result}``) in the row's line of
    ``folder/results.jsonl``, atomically (a temporary file, then ``os.replace``), holding the
    folder's lock (a run still writing there is refused)."""
    path = folder / "results.jsonl"
    try:
        claim = lock_output(folder)
    except ConfigError as e:
        raise ConfigError(f"{folder}: a run is writing there now, so its rows cannot be "
                          f"changed ({str(e).split('(', 1)[-1].split(';')[0]}). Fix: wait "
                          "for it to finish.") from None
    with claim:
        lines = []
        for line in iter_jsonl_lines(path.read_text(encoding="utf-8")):
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                lines.append(line)
                continue
            if isinstance(rec, dict) and str(rec.get("id")) == row_id:
                rec.update(records)
                line = json.dumps(rec, ensure_ascii=False)
            lines.append(line)
        tmp = path.with_suffix(".jsonl.explain.tmp")
        tmp.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        os.replace(tmp, path)


def store_reasons(row: StoredRow, reasons: Mapping[str, str],
                  notes: Mapping[str, Mapping[str, Any]]) -> None:
    """The reasons written into the run store's record of the row, when the store has it."""
    if row.store is not None and row.run_id is not None and reasons:
        fill_reasons(row.store, row.run_id, row.row_id, reasons, notes=notes)


def _flat(inputs: Mapping[str, Any], row_id: str) -> dict[str, Any]:
    """``row_inputs``' shape (extra fields under ``extra``) as a dataset line.

    Example:
        >>> _flat({"question": "Q?", "extra": {"topic": "x"}}, "a")
        {'topic': 'x', 'question': 'Q?', 'id': 'a'}
    """
    found = inputs.get("extra")
    extra: dict[str, Any] = found if isinstance(found, dict) else {}
    return {**extra, **{k: v for k, v in inputs.items() if k != "extra"}, "id": row_id}


def _own_folder(out: object, run_id: str) -> Path | None:
    """The run's output folder, when it still holds this run."""
    if not isinstance(out, str) or not out:
        return None
    folder = Path(out)
    manifest = read_manifest(folder)
    if manifest is None or manifest.run_id != run_id or not (folder / "results.jsonl").is_file():
        return None
    return folder


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _unknown_row(row_id: str, where: str, ids: list[str]) -> ConfigError:
    some = ", ".join(ids) if ids else "none"
    return ConfigError(f"{where} has no row {row_id!r}. Its first row ids: {some}. Fix: give "
                       "one of the run's row ids (the 'id' of results.jsonl).")
