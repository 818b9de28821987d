"""The typed summary: ``summary.json`` is written through ``RunSummary``, carries
``schema_version``, validates against the committed JSON Schema (``docs/summary.schema.json``,
which must match the models), and family sections survive as extra keys.

``ASSAY_WRITE_SCHEMA=1 pytest tests/test_summary_schema.py`` writes the schema file again."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import assay
from assay import JudgeOptions, RunOptions
from assay.judges import FakeJudge
from assay.records import MetricSummary, RunSummary, load_run
from assay.records._summary import SCHEMA_VERSION, summary_json_schema, typed_summary

SCHEMA_FILE = Path(__file__).resolve().parents[1] / "docs" / "summary.schema.json"

ROWS = [{"id": "paris", "question": "Capital of France?", "answer": "Paris.",
         "ground_truth": "Paris", "context": "Paris is the capital of France."},
        {"id": "lyon", "question": "Capital of France?", "answer": "Lyon.",
         "ground_truth": "Paris", "context": "Paris is the capital of France."},
        {"id": "tent", "question": "Best tent?", "answer": "The Alpine Explorer tent.",
         "ground_truth": "The Alpine Explorer", "context": "The Alpine Explorer is waterproof."}]


def _jsonschema() -> Any:
    return pytest.importorskip(
        "jsonschema", reason="validating summary.json needs jsonschema (the dev extra)")


def _validator() -> Any:
    jsonschema = _jsonschema()
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def test_committed_schema_matches_the_models() -> None:
    current = json.dumps(summary_json_schema(), indent=2) + "\n"
    if os.environ.get("ASSAY_WRITE_SCHEMA") == "1":
        SCHEMA_FILE.write_text(current, encoding="utf-8")
    assert SCHEMA_FILE.read_text(encoding="utf-8") == current, (
        "docs/summary.schema.json is stale: run "
        "ASSAY_WRITE_SCHEMA=1 pytest tests/test_summary_schema.py and commit it")


def test_a_real_runs_summary_json_validates(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = assay.evaluate(ROWS, metrics="f1_score,fluency,violence,groundedness",
                            judge=FakeJudge(), judging=JudgeOptions(cache=None),
                            run=RunOptions(out=out, store=tmp_path / "s.db"))
    written = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    _validator().validate(written)
    assert written == result.summary
    assert written["schema_version"] == SCHEMA_VERSION == 1
    # the safety family's sections are kept as extra keys
    assert "defects" in written["metrics"]["violence"] and written["safety"]["mode"]
    f1 = written["metrics"]["f1_score"]
    assert set(f1) >= {"mean", "se", "ci95", "scored", "unscored"} and len(f1["ci95"]) == 2
    # the stored run's summary is the same checked mapping
    stored = load_run(written["run_id"], store=tmp_path / "s.db").summary
    assert stored["schema_version"] == 1 and stored["metrics"]["f1_score"] == f1


def test_eval_result_exposes_the_typed_summary() -> None:
    result = assay.evaluate(ROWS, metrics="f1_score,exact_match")
    typed = result.run_summary
    assert isinstance(typed, RunSummary) and isinstance(typed.metrics["f1_score"], MetricSummary)
    assert typed.metrics["exact_match"].mean == result.summary["metrics"]["exact_match"]["mean"]
    assert typed.metrics["exact_match"].scored == 3
    assert typed.as_json() == result.summary
    assert result.summary["metrics"]["f1_score"]["mean"] is not None  # the mapping still works


def test_a_summary_with_a_malformed_interval_is_refused_by_schema_and_model() -> None:
    good = assay.evaluate(ROWS, metrics="exact_match").summary
    bad = json.loads(json.dumps(good))
    bad["metrics"]["exact_match"]["ci95"] = [0.1, 0.2, 0.3]
    jsonschema = _jsonschema()
    with pytest.raises(jsonschema.ValidationError):
        _validator().validate(bad)
    with pytest.raises(ValueError, match="ci95"):
        RunSummary.model_validate(bad)
    missing = {k: v for k, v in good.items() if k != "metrics"}
    with pytest.raises(jsonschema.ValidationError, match="'metrics' is a required property"):
        _validator().validate(missing)


def test_a_summary_written_before_versions_reads_as_version_0() -> None:
    old = {"rows": 1, "rows_done": 1, "complete": True, "dataset": "<rows>", "lang": "en",
           "metrics": {"f1_score": {"mean": 1.0, "scored": 1, "unscored": 0}}}
    typed = RunSummary.model_validate(old)
    assert typed.schema_version == 0 and typed.metrics["f1_score"].se is None
    assert typed.as_json() == old  # nothing invented on the way through


def test_a_summary_that_does_not_fit_is_kept_with_a_warning(
        caplog: pytest.LogCaptureFixture) -> None:
    odd = {"rows": 1, "rows_done": 1, "complete": True, "dataset": "<rows>", "lang": "en",
           "metrics": {"plugin_metric": {"mean": "n/a", "scored": 1, "unscored": 0}}}
    with caplog.at_level("WARNING", logger="assay"):
        kept = typed_summary(odd)
    assert kept == {"schema_version": SCHEMA_VERSION, **odd}
    assert "metrics.plugin_metric.mean" in caplog.text and "written as it is" in caplog.text
