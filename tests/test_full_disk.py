"""Full disks and odd files: a write the disk refuses (the run's folder, the run store, an
export, a report, a labels export) is one line and exit 3, never a traceback or exit 1 (a failed
gate); no half-written file is left; a run whose rows were not all written is not complete, and
``--resume`` with space back completes it with every row once. A dataset that can be read only
once (``-``, ``/dev/stdin``, a FIFO, a process substitution) is read once, never hung on.

The full disk is a small tmpfs where this process may mount one (root, as in CI; skipped with
the reason otherwise), and an injected ``OSError(ENOSPC)`` where it may not.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Self

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from assay.cli.main import app
from assay.store import Store, open_store

ROOT = Path(__file__).resolve().parents[1]
WAIT_S = 60  # a subprocess that reads a pipe twice would wait forever: bounded here


def _rows(n: int, pad: int = 0) -> list[dict[str, str]]:
    return [{"id": f"r{i}", "question": f"What is {i}? {'x' * pad}",
             "answer": f"It is {i}. {'y' * pad}", "ground_truth": f"It is {i}."}
            for i in range(n)]


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _run(data: Path | str, out: Path, store: Path, *extra: str) -> Any:
    return CliRunner().invoke(app, ["run", str(data), "--metrics", "f1_score,fluency",
                                    "--judge", "fake", "--no-cache", "-q", "--out", str(out),
                                    "--store", str(store), *extra])


def _one_line_error(output: str, *needles: str) -> None:
    """The failure is said on one ``error:`` line holding each needle, with no traceback."""
    assert "Traceback" not in output and "OSError" not in output, output
    lines = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, output
    for needle in needles:
        assert needle in lines[0], output


def _ids(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines()]


def _stored(store: Path) -> Any:
    with open_store(store) as opened:
        (info,) = opened.runs()
        return info


def _mount(folder: Path, size: str) -> str | None:
    """Mount a tmpfs of ``size`` on ``folder`` (or resize the one there); why not, if not."""
    if shutil.which("mount") is None or os.geteuid() != 0:
        return "mounting a tmpfs needs root and mount(8)"
    remount = ["-o", f"remount,size={size}"] if os.path.ismount(folder) else [
        "-t", "tmpfs", "-o", f"size={size}", "tmpfs"]
    done = subprocess.run(["mount", *remount, str(folder)], capture_output=True, text=True,
                          check=False)
    return None if done.returncode == 0 else f"cannot mount a tmpfs here: {done.stderr.strip()}"


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs (grow it with ``_mount(folder, "4m")``)."""
    folder = tmp_path / "disk"
    folder.mkdir()
    why = _mount(folder, "64k")
    if why:
        pytest.skip(f"{why} (the injected-ENOSPC tests cover the same paths)")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], check=False)


# -- the run's output folder ---------------------------------------------------------------


def test_a_full_output_folder_stops_the_run_in_one_line_and_resume_completes_it(
        tiny_disk: Path, tmp_path: Path) -> None:
    data = _write(tmp_path / "big.jsonl", _rows(300, pad=100))  # ~90 KB of results
    out, store = tiny_disk / "out", tmp_path / "runs.sqlite"
    full = _run(data, out, store)
    assert full.exit_code == 3, full.output
    _one_line_error(full.output, str(out / "results.jsonl"), "no space left on device",
                    "--resume")
    assert json.loads((out / "run.json").read_text())["status"] != "complete"
    assert _stored(store).status != "complete"
    assert not list(out.glob("*.tmp")) and not list(out.glob(".*.tmp"))

    assert _mount(tiny_disk, "4m") is None  # space back
    again = _run(data, out, store, "--resume")
    assert again.exit_code == 0, again.output
    assert sorted(_ids(out / "results.jsonl")) == sorted(f"r{i}" for i in range(300))
    assert json.loads((out / "run.json").read_text())["status"] == "complete"
    info = _stored(store)
    assert (info.status, info.rows) == ("complete", 300)


def test_an_output_folder_on_a_disk_already_full_is_one_line_and_left_as_found(
        tiny_disk: Path, tmp_path: Path) -> None:
    with (tiny_disk / "filler").open("wb", buffering=0) as f, pytest.raises(OSError):
        while True:  # fill the disk
            f.write(b"\0" * 4096)
    data = _write(tmp_path / "d.jsonl", _rows(3))
    full = _run(data, tiny_disk / "out", tmp_path / "runs.sqlite")
    assert full.exit_code == 3, full.output
    _one_line_error(full.output, "out/.assay.lock", "no space left on device")
    assert [p.name for p in tiny_disk.iterdir()] == ["filler"]


class _FillsUp:
    """A results file on a disk that takes ``room`` lines, then refuses every write."""

    def __init__(self, f: Any, room: int) -> None:
        self._f, self._room = f, room

    def write(self, text: str) -> int:
        if self._room <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self._room -= 1
        return self._f.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._f, name)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self._f.close()


def test_an_injected_enospc_on_results_leaves_the_run_interrupted_for_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _write(tmp_path / "d.jsonl", _rows(12))
    out, store = tmp_path / "out", tmp_path / "runs.sqlite"
    real_open = Path.open

    def fills_up(self: Path, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        f = real_open(self, mode, *args, **kwargs)
        return _FillsUp(f, room=5) if self.name == "results.jsonl" and "r" not in mode else f

    with monkeypatch.context() as patch:
        patch.setattr(Path, "open", fills_up)
        full = _run(data, out, store)
    assert full.exit_code == 3, full.output
    _one_line_error(full.output, "results.jsonl", "no space left on device", "--resume")
    assert json.loads((out / "run.json").read_text())["status"] == "interrupted"
    assert _stored(store).status != "complete"

    again = _run(data, out, store, "--resume")
    assert again.exit_code == 0, again.output
    assert _ids(out / "results.jsonl") == [f"r{i}" for i in range(12)]  # each once, in order
    info = _stored(store)
    assert (info.status, info.rows) == ("complete", 12)


class _NoRoomForTheSummary:
    """``json`` as a run's modules see it, except that writing the summary finds the disk
    full."""

    def __getattr__(self, name: str) -> Any:
        return getattr(json, name)

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if isinstance(obj, dict) and "rows_done" in obj and kwargs.get("indent"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return json.dumps(obj, **kwargs)


def test_a_summary_the_disk_refuses_leaves_a_run_that_resume_completes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _write(tmp_path / "d.jsonl", _rows(4))
    out, store = tmp_path / "out", tmp_path / "runs.sqlite"
    with monkeypatch.context() as patch:
        for module in ("assay.records._results", "assay.run._evaluate"):
            patch.setattr(f"{module}.json", _NoRoomForTheSummary(), raising=False)
        full = _run(data, out, store)
    assert full.exit_code == 3, full.output
    _one_line_error(full.output, "summary.json", "no space left on device", "--resume")
    assert not (out / "summary.json").exists()
    assert _stored(store).status == "interrupted"  # not complete: resume may finish it

    again = _run(data, out, store, "--resume")
    assert again.exit_code == 0, again.output
    assert json.loads((out / "summary.json").read_text())["complete"] is True
    info = _stored(store)
    assert (info.status, info.rows) == ("complete", 4)


# -- the run store -------------------------------------------------------------------------


def test_a_full_run_store_never_marks_the_run_complete_with_rows_missing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from assay.store._engine import store_error

    data = _write(tmp_path / "d.jsonl", _rows(5))
    out, store = tmp_path / "out", tmp_path / "runs.sqlite"
    disk_full = sqlite3.OperationalError("database or disk is full")

    def refuses(self: Store, *args: Any, **kwargs: Any) -> None:
        raise store_error(sa.exc.OperationalError("INSERT", {}, disk_full),
                          sa.make_url(f"sqlite:///{store}"))

    with monkeypatch.context() as patch:  # the rows wait in a batch until the run's end
        patch.setattr(Store, "add_rows", refuses)
        full = _run(data, out, store)
    assert full.exit_code == 3, full.output
    _one_line_error(full.output, "disk is full", "--resume")
    info = _stored(store)
    assert (info.status, info.rows) == ("interrupted", 0)  # was: complete, with 0 rows
    assert json.loads((out / "run.json").read_text())["status"] == "interrupted"

    again = _run(data, out, store, "--resume")
    assert again.exit_code == 0, again.output
    info = _stored(store)
    assert (info.status, info.rows) == ("complete", 5)


# -- export, report, labels export: whole or nothing ------------------------------------------


@pytest.fixture
def stored_run(tmp_path: Path) -> tuple[Path, Path, str]:
    """A complete stored run of 300 padded rows (its exports outgrow 64 KiB), with labels."""
    data = _write(tmp_path / "big.jsonl", _rows(300, pad=100))
    store, out = tmp_path / "runs.sqlite", tmp_path / "run"
    assert _run(data, out, store).exit_code == 0
    run_id = json.loads((out / "run.json").read_text())["run_id"]
    with open_store(store) as opened:
        for i in range(300):
            opened.save_label(run_id, f"r{i}", "fluency", rater="ann", value=4,
                              comment="z" * 200)
    return store, out, run_id


@pytest.mark.parametrize("command", [
    pytest.param(["export", "RUN", "--format", "jsonl", "-o", "DISK/e.jsonl"], id="export-jsonl"),
    pytest.param(["export", "RUN", "--format", "csv", "-o", "DISK/e.csv"], id="export-csv"),
    pytest.param(["report", "FOLDER", "-o", "DISK/r.html"], id="report"),
    pytest.param(["labels", "export", "RUN", "--out", "DISK/rated.jsonl"], id="labels-export"),
])
def test_a_full_disk_leaves_no_half_written_file(command: list[str], tiny_disk: Path,
                                                  stored_run: tuple[Path, Path, str]) -> None:
    store, folder, run_id = stored_run
    argv = [a.replace("RUN", run_id).replace("FOLDER", str(folder))
            .replace("DISK", str(tiny_disk)) for a in command]
    done = CliRunner().invoke(app, [*argv, "--store", str(store)])
    assert done.exit_code == 3, done.output
    target = argv[argv.index("-o") + 1] if "-o" in argv else argv[argv.index("--out") + 1]
    _one_line_error(done.output, target, "no space left on device")
    assert list(tiny_disk.iterdir()) == []  # neither the file nor a temporary one

    assert _mount(tiny_disk, "4m") is None
    again = CliRunner().invoke(app, [*argv, "--store", str(store)])
    assert again.exit_code == 0, again.output
    assert [p.name for p in tiny_disk.iterdir()] == [Path(target).name]


def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temporary_one(
        tmp_path: Path) -> None:
    from assay._files import atomic_write
    from assay.errors import OutputError

    path = tmp_path / "report.html"
    path.write_text("the old report")
    with (pytest.raises(OutputError, match=r"the report .*report.html: no space left on device"),
          atomic_write(path, what="the report") as f):
        f.write("half of the new")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]
    assert path.read_text() == "the old report"


def test_any_command_says_a_full_disk_in_one_line_with_exit_3() -> None:
    import typer

    from assay.cli._errors import exit_on_errors

    with pytest.raises(typer.Exit) as stopped, exit_on_errors("interrupted"):
        raise OSError(errno.EDQUOT, os.strerror(errno.EDQUOT), "/q/out.json")
    assert stopped.value.exit_code == 3


# -- a dataset that can be read only once ------------------------------------------------------


def _cli(args: list[str], cwd: Path, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "assay.cli", *args], cwd=cwd,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
                          capture_output=True, text=True, timeout=WAIT_S, check=False,
                          **kwargs)


RUN_ARGS = ["--metrics", "f1_score", "--judge", "fake", "--no-cache", "-q", "--no-store"]


def test_rows_piped_to_dash_are_read_once_and_resume_wants_the_same_rows(
        tmp_path: Path) -> None:
    data = _write(tmp_path / "d.jsonl", _rows(7))
    text = data.read_text()
    done = _cli(["run", "-", *RUN_ARGS, "--out", "o"], tmp_path, input=text)
    assert done.returncode == 0, done.stderr
    assert _ids(tmp_path / "o" / "results.jsonl") == [f"r{i}" for i in range(7)]
    manifest = json.loads((tmp_path / "o" / "run.json").read_text())
    assert manifest["dataset"] == "-"
    assert manifest["dataset_sha256"] == __import__("hashlib").sha256(text.encode()).hexdigest()

    same = _cli(["run", "-", *RUN_ARGS, "--out", "o", "--resume"], tmp_path, input=text)
    assert same.returncode == 0, same.stderr
    other = _cli(["run", "-", *RUN_ARGS, "--out", "o", "--resume"], tmp_path,
                 input="".join(text.splitlines(keepends=True)[:3]))
    assert other.returncode == 2 and "dataset:" in other.stderr, other.stderr

    bad = _cli(["run", "-", *RUN_ARGS, "--out", "o2"], tmp_path, input=text + "{oops\n")
    assert bad.returncode == 2
    assert "<stdin> line 8: invalid JSON" in bad.stderr and "assay-data-" not in bad.stderr


@pytest.mark.parametrize("how", ["dev-stdin", "fifo", "process-substitution"])
def test_a_pipe_as_data_is_read_once_never_hung_on(how: str, tmp_path: Path) -> None:
    data = _write(tmp_path / "d.jsonl", _rows(5))
    if how == "dev-stdin":
        with data.open() as rows:
            proc = subprocess.run(
                f"cat | {sys.executable} -m assay.cli run /dev/stdin "
                + " ".join(RUN_ARGS) + " --out o", shell=True, stdin=rows, cwd=tmp_path,
                env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, capture_output=True,
                text=True, timeout=WAIT_S, check=False)
    elif how == "fifo":
        fifo = tmp_path / "rows.jsonl"
        os.mkfifo(fifo)

        def feed() -> None:  # blocks until assay opens the FIFO, then writes the rows once
            with fifo.open("w") as f:
                f.write(data.read_text())

        threading.Thread(target=feed, daemon=True).start()
        proc = _cli(["run", str(fifo), *RUN_ARGS, "--out", "o"], tmp_path)
    else:
        if shutil.which("bash") is None:
            pytest.skip("a process substitution needs bash")
        proc = subprocess.run(
            ["bash", "-c", f"{sys.executable} -m assay.cli run <(cat {data}) "
             + " ".join(RUN_ARGS) + " --out o"], cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, capture_output=True,
            text=True, timeout=WAIT_S, check=False)
    assert proc.returncode == 0, proc.stderr
    assert _ids(tmp_path / "o" / "results.jsonl") == [f"r{i}" for i in range(5)]


def test_dash_with_nothing_piped_in_is_refused_before_reading(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from assay.data import DatasetStream
    from assay.errors import DataError

    class Terminal:
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Terminal())
    with pytest.raises(DataError, match="nothing is piped in.*Fix: pipe the rows in"):
        DatasetStream("-")


def test_a_read_only_folder_is_one_line_naming_the_file_not_a_temporary_one(
        tmp_path: Path) -> None:
    """On a read-only file system even removing the (never made) temporary file fails: the
    message still names the file asked for."""
    from assay._files import atomic_write
    from assay.errors import OutputError

    folder = tmp_path / "ro"
    folder.mkdir()
    why = _mount(folder, "64k")
    if why:
        pytest.skip(why)
    try:
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
        with (pytest.raises(OutputError, match=r"^Cannot write the report \S+/ro/r\.html: "
                            "read-only file system"),
              atomic_write(folder / "r.html", what="the report") as f):
            f.write("never")
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)
