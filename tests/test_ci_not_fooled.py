"""CI is not fooled (issue 32, item 5): a run store named by ``ASSAY_STORE`` that cannot be
reached stops every command that uses the store with exit 2, before any judge call, instead of a
warning and an unrecorded run that exits 0; ``--engine ray`` without a reachable cluster says so
in one line (exit 2) instead of waiting on it; ``--resume`` of a complete run adds nothing to the
store; ``assay rm`` refuses a run that is still running unless told ``--force``."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli.main import app
from assay.records import RunRecorder
from assay.records._recording import start_recording
from assay.store import open_store

ROWS = [{"id": f"q{i}", "question": f"Question {i}?", "answer": f"answer {i}",
         "ground_truth": f"answer {i}"} for i in range(3)]
#: A PostgreSQL store nothing listens on (port 1 refuses at once), with a password to mask.
UNREACHABLE = "postgresql://bob:s3cret@127.0.0.1:1/evals"


@pytest.fixture(autouse=True)
def _plain_console(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "300")
    monkeypatch.setenv("NO_COLOR", "1")


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "qa.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return path


def _invoke(*args: str | Path) -> Any:
    return CliRunner().invoke(app, [str(a) for a in args])


def _assert_store_refused(result: Any) -> None:
    """Exit 2 with one error naming the masked URL, where it comes from, and the fix."""
    flat = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    if importlib.util.find_spec("psycopg") is not None:
        assert ("error: Cannot reach the run store postgresql+psycopg://bob:***@127.0.0.1:1/evals"
                in flat)
    else:  # a core install (no 'assay[postgres]'): refused as early, for the missing driver
        assert "error: A PostgreSQL store needs the psycopg driver" in flat
    assert "Fix:" in flat and "ASSAY_STORE" in flat
    assert "s3cret" not in result.output


# --- an unreachable ASSAY_STORE ----------------------------------------------------------------

def test_run_with_an_unreachable_assay_store_exits_2_before_any_judge_call(
        data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        judge_calls: list[object]) -> None:
    monkeypatch.setenv("ASSAY_STORE", UNREACHABLE)
    out = tmp_path / "out"
    result = _invoke("run", data, "--metrics", "f1_score,fluency", "--judge", "fake",
                     "--no-cache", "--no-progress", "--out", out)
    _assert_store_refused(result)
    assert not judge_calls
    assert not (out / "results.jsonl").exists()
    # --no-store still runs without it
    kept = _invoke("run", data, "--metrics", "f1_score", "--judge", "fake", "--no-cache",
                   "--no-progress", "--no-store", "--out", out)
    assert kept.exit_code == 0, kept.output


@pytest.mark.parametrize("args", [
    ("runs",), ("show", "latest"), ("export", "latest"), ("rm", "latest"),
    ("compare", "--baseline", "a", "b"), ("report", "latest"),
    ("labels", "export", "latest", "--out", "labels.csv"), ("explain", "latest", "q0"),
    ("serve", "--port", "1"),
], ids=lambda a: a[0] if a[0] != "labels" else "labels-export")
def test_every_store_command_refuses_an_unreachable_assay_store(
        args: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSAY_STORE", UNREACHABLE)
    monkeypatch.chdir(tmp_path)
    _assert_store_refused(_invoke(*args))


def test_robustness_with_an_unreachable_assay_store_exits_2_before_asking_the_app(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, judge_calls: list[object]) -> None:
    from examples import apps

    asked: list[object] = []
    real = apps.always_reject

    def counted(*args: Any, **kwargs: Any) -> Any:
        asked.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(apps, "always_reject", counted)
    monkeypatch.setenv("ASSAY_STORE", UNREACHABLE)
    rgb = Path(__file__).resolve().parents[2] / "shared" / "data" / "rgb" / "en_fact.json"
    result = _invoke("robustness", rgb, "--suite", "rejection", "--limit", "2", "--target",
                     "python:examples.apps:always_reject", "--judge", "fake", "--cache", tmp_path / "c.sqlite",
                     "--out", tmp_path / "rob")
    _assert_store_refused(result)
    assert not asked and not judge_calls


# --- --engine ray without a cluster ------------------------------------------------------------

@pytest.fixture
def ray_module() -> Any:
    """The ray module, not initialised in this process (its address handling is what runs)."""
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'assay[ray]')")
    if ray.is_initialized():
        pytest.skip("Ray is already initialised in this process: the engine would reuse it")
    return ray


@pytest.mark.parametrize("address", ["127.0.0.1:1", "ray://127.0.0.1:1"])
def test_ray_engine_with_no_cluster_at_the_address_is_one_line_and_exit_2(
        address: str, ray_module: Any, data: Path, tmp_path: Path,
        judge_calls: list[object]) -> None:
    """Port 1 refuses at once: the run stops there (before, Ray retried for minutes)."""
    out = tmp_path / "out"
    result = _invoke("run", data, "--metrics", "f1_score,fluency", "--judge", "fake",
                     "--no-cache", "--no-store", "--no-progress", "--out", out,
                     "--engine", "ray", "--ray-address", address)
    flat = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert (f"error: Cannot reach the Ray cluster at --ray-address {address} (127.0.0.1:1: "
            "Connection refused). Fix: start it (ray start --head)") in flat
    assert "--engine local" in flat
    assert not judge_calls and not (out / "results.jsonl").exists()
    assert not ray_module.is_initialized()


def test_ray_engine_auto_with_no_cluster_running_is_one_line_and_exit_2(
        ray_module: Any, data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        judge_calls: list[object]) -> None:
    from ray._private import services

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    # no Ray running on this machine, whatever other tests (or helpers) have started
    monkeypatch.setattr(services, "find_gcs_addresses", list)
    monkeypatch.setattr(services, "find_bootstrap_address", lambda temp_dir=None: None)
    result = _invoke("run", data, "--metrics", "f1_score", "--judge", "fake", "--no-cache",
                     "--no-store", "--no-progress", "--out", tmp_path / "out",
                     "--engine", "ray", "--ray-address", "auto")
    flat = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert ("error: Cannot reach the Ray cluster at --ray-address auto (no running Ray cluster "
            "was found on this machine, and RAY_ADDRESS is not set)") in flat
    assert not judge_calls


# --- --resume of a complete run ----------------------------------------------------------------

def _stored_runs(store: Path) -> list[tuple[str, str, int]]:
    with open_store(store) as opened:
        return [(r.id, r.status, r.rows) for r in opened.runs()]


def test_resume_of_a_complete_run_adds_nothing_to_the_store(
        data: Path, tmp_path: Path, judge_calls: list[object]) -> None:
    store, out = tmp_path / "runs.sqlite", tmp_path / "out"
    args = ("run", data, "--metrics", "f1_score,fluency", "--judge", "fake", "--no-cache",
            "--no-progress", "--store", store, "--out", out)
    assert _invoke(*args).exit_code == 0
    before = _stored_runs(store)
    (run_id, status, rows), = before
    assert status == "complete" and rows == len(ROWS)
    calls = len(judge_calls)
    listed = _invoke("runs", "--store", store).output

    again = _invoke(*args, "--resume")
    assert again.exit_code == 0, again.output
    assert _stored_runs(store) == before  # no second run, no row twice
    assert _invoke("runs", "--store", store).output == listed
    assert f"stored run: {run_id}" in again.output
    assert json.loads((out / "summary.json").read_text())["run_id"] == run_id
    assert len(judge_calls) == calls  # nothing was asked again
    with open_store(store) as opened:
        assert len(opened.rows(run_id)) == len(ROWS)


def test_resume_records_a_changed_complete_run_anew_and_continues_an_unfinished_one() -> None:
    store = open_store(":memory:")
    run = {"kind": "run", "name": None, "tags": [], "dataset": None, "metrics": {},
           "judge": None, "settings": {}}
    done = RunRecorder.start(store, **run)
    done.finish({}, complete=True)
    recorder, stored = start_recording(store, previous_id=done.run_id, unchanged=False, **run)
    assert stored is None and recorder is not None and recorder.run_id != done.run_id
    recorder.close()  # left unfinished: a resume continues it, whether or not it has work
    again, stored = start_recording(store, previous_id=recorder.run_id, unchanged=True, **run)
    assert stored is None and again is not None and again.run_id == recorder.run_id
    again.finish({}, complete=True)
    assert [r.status for r in store.runs()] == ["complete", "complete"]


# --- assay rm of a run still running -----------------------------------------------------------

_RUN = {"kind": "run", "name": "live", "tags": [], "dataset": None, "metrics": {},
        "judge": None, "settings": {}}


def test_rm_refuses_a_run_still_running_unless_forced_and_deletes_one_whose_process_is_gone(
        tmp_path: Path) -> None:
    import subprocess
    import sys

    store = tmp_path / "runs.sqlite"
    subprocess.run([sys.executable, "-c", (
        "import sys; from assay.store import open_store; from assay.records import RunRecorder\n"
        f"s = open_store(sys.argv[1]); RunRecorder.start(s, **{_RUN!r})"), str(store)],
        check=True, timeout=60)  # a run left 'running' by a process that is gone
    (gone, status, _), = _stored_runs(store)
    assert status == "interrupted"
    with open_store(store) as opened:
        live = RunRecorder.start(opened, **_RUN)  # written by this process, which is alive
        try:
            refused = _invoke("rm", live.run_id, "--yes", "--store", store)
            flat = " ".join(refused.output.split())
            assert refused.exit_code == 2, refused.output
            assert f"error: Run {live.run_id} is still running: process " in flat
            assert "Fix: wait for it to finish" in flat and "--force" in flat
            assert {r[0] for r in _stored_runs(store)} == {gone, live.run_id}  # still there
            removed = _invoke("rm", gone, "--yes", "--store", store)  # interrupted: no --force
            assert removed.exit_code == 0, removed.output
            forced = _invoke("rm", live.run_id, "--yes", "--force", "--store", store)
            assert forced.exit_code == 0, forced.output
            assert _stored_runs(store) == []
        finally:
            live.close()  # nothing pending: only stops the heartbeat
