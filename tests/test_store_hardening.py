"""The run store under the paths real users walk (issue 15): batched writes, dead runs read as
interrupted, complete runs never changed, row inputs kept, corrupt / read-only / unreachable
stores and corrupt caches reported in one line. Offline and fast; SQLite only (the shared
store tests in test_store.py run on PostgreSQL too)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from assay import JudgeOptions, RunOptions, evaluate
from assay.cli.main import app
from assay.data import Row, Turn, row_inputs
from assay.embeddings import EmbeddingCache
from assay.errors import ConfigError
from assay.judges import FakeJudge, JudgeCache, JudgeResponse
from assay.metrics import get_metric
from assay.records import ResultSink
from assay.records._recording import RunRecorder
from assay.run._tally import RunTally
from assay.store import STALE_AFTER_S, Store, open_store
from assay.store import _engine as engine_module
from assay.store._engine import make_engine, transaction
from assay.store._meta import now_iso
from assay.store._migrations import migrate
from test_store import insert_old_run

KEY = "sk-proj-" + "A1b2C3d4E5f6G7h8" * 3


def _start(store: Store, **kw: object) -> RunRecorder:
    return RunRecorder.start(store, kind="run", name="t", tags=[], dataset=None, metrics={},
                             judge=None, settings={}, **kw)  # type: ignore[arg-type]


def _set(path: Path, run_id: str, **values: object) -> None:
    """Change a run's row behind the store's back (what another process would have left)."""
    engine = make_engine(sa.make_url(f"sqlite:///{path}"))
    with transaction(engine, write=True) as conn:
        sets = ", ".join(f"{k} = :{k}" for k in values)
        conn.execute(sa.text(f"UPDATE runs SET {sets} WHERE id = :id"), {**values, "id": run_id})
    engine.dispose()


def _cli(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


# -- batched writes ----------------------------------------------------------------------------


def test_recorder_writes_in_batches_by_count_by_age_and_on_finish(tmp_path: Path) -> None:
    with open_store(tmp_path / "runs.sqlite") as store:
        rec = _start(store, batch_rows=3, batch_seconds=3600)
        rec.add({"id": "a"})
        rec.add({"id": "b"})
        assert store.row_count(rec.run_id) == 0  # pending
        rec.add({"id": "c"})
        assert store.row_count(rec.run_id) == 3  # a batch of 3, one transaction
        rec.add({"id": "d"})
        rec.finish({"metrics": {}}, complete=True)
        assert [r["id"] for r in store.rows(rec.run_id)] == ["a", "b", "c", "d"]

        aged = _start(store, batch_rows=1000, batch_seconds=0.1)
        aged.add({"id": "late"})  # no further add: the background thread writes it
        deadline = time.monotonic() + 5
        while store.row_count(aged.run_id) == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert store.row_count(aged.run_id) == 1
        aged.close()


def test_a_failed_batch_is_kept_and_raised_not_lost(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    with open_store(tmp_path / "runs.sqlite") as store:
        rec = _start(store, batch_rows=2, batch_seconds=3600)
        real = store.add_rows
        monkeypatch.setattr(store, "add_rows", lambda *a, **k: (_ for _ in ()).throw(
            ConfigError("disk full")))
        rec.add({"id": "a"})
        with pytest.raises(ConfigError, match="disk full"):
            rec.add({"id": "b"})
        monkeypatch.setattr(store, "add_rows", real)
        rec.finish({"metrics": {}}, complete=True)  # the kept rows are written now
        assert [r["id"] for r in store.rows(rec.run_id)] == ["a", "b"]


def test_a_cancelled_evaluation_stores_every_row_it_wrote(tmp_path: Path) -> None:
    rows = [{"id": f"q{i}", "answer": "a", "ground_truth": "a"} for i in range(50)]
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    calls = 0

    def stops(_req: object) -> str:
        nonlocal calls
        calls += 1
        if calls > 20:
            raise KeyboardInterrupt
        return '{"score": 4, "reason": "ok"}'

    with pytest.raises(KeyboardInterrupt):
        evaluate(data, metrics="f1_score,fluency", judge=FakeJudge(stops),
                 judging=JudgeOptions(cache=None, concurrency=1),
                 run=RunOptions(out=tmp_path / "out", store=tmp_path / "runs.sqlite"))
    written = (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    with open_store(tmp_path / "runs.sqlite") as store:
        (info,) = store.runs()
        assert info.status == "interrupted" and info.rows == len(written) > 0


# -- dead runs ---------------------------------------------------------------------------------


def test_a_killed_recorder_reads_as_interrupted_and_resume_takes_it_over(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    script = textwrap.dedent(f"""
        import os
        from assay.store import open_store
        from assay.records._recording import RunRecorder
        store = open_store({str(path)!r})
        rec = RunRecorder.start(store, kind="run", name="killed", tags=[], dataset=None,
                                metrics={{}}, judge=None, settings={{}}, batch_rows=2)
        for i in range(5):
            rec.add({{"id": f"q{{i}}"}})
        print(rec.run_id, flush=True)
        os._exit(9)  # like kill -9: the fifth row was never written
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 9, done.stderr
    run_id = done.stdout.strip()
    with open_store(path) as store:
        info = store.get(run_id)
        assert (info.status, info.rows) == ("interrupted", 4)
        assert info.owner and info.owner.endswith(":" + str(info.owner).split(":")[-1])
        rec = _start(store, resume_id=run_id)
        assert store.get(run_id).status == "running"  # this process owns it now
        rec.add({"id": "q4"})
        rec.finish({"metrics": {}}, complete=True)
        info = store.get(run_id)
        assert (info.status, info.rows) == ("complete", 5)


def test_status_follows_the_owner_and_the_heartbeat(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    with open_store(path) as store:
        run_id = store.create_run()
        assert store.get(run_id).status == "running"  # this live process
        old = now_iso(datetime_ago(STALE_AFTER_S + 60))
        _set(path, run_id, owner_host="another-host", owner_pid=1, heartbeat=now_iso())
        assert store.get(run_id).status == "running"  # another host, beating
        _set(path, run_id, heartbeat=old)
        assert store.get(run_id).status == "interrupted"  # another host, silent
        me = store.get(run_id)
        _set(path, run_id, owner_host=os.uname().nodename, owner_pid=os.getpid(),
             owner_start="12345", heartbeat=now_iso())
        assert store.get(run_id).status == (  # a reused PID: another process's start time
            "interrupted" if Path("/proc/self/stat").exists() else "running")
        _set(path, run_id, owner_host=None, owner_pid=None, owner_start=None, heartbeat=None,
             created=old)  # a run from before owners were recorded, created long ago
        assert store.get(run_id).status == "interrupted"
        assert me.heartbeat is not None


def datetime_ago(seconds: float) -> datetime:
    return datetime.now(UTC) - timedelta(seconds=seconds)


def test_a_run_another_live_process_writes_cannot_be_claimed(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with open_store(path) as store:
            run_id = store.create_run()
            from assay.store._owner import _start_token
            _set(path, run_id, owner_pid=sleeper.pid, owner_start=_start_token(sleeper.pid))
            assert store.get(run_id).status == "running"
            with pytest.raises(ConfigError, match=f"being written by process .*:{sleeper.pid}"):
                _start(store, resume_id=run_id)
    finally:
        sleeper.kill()
        sleeper.wait()
    with open_store(path) as store:
        assert store.get(run_id).status == "interrupted"
        _start(store, resume_id=run_id).close()  # now it can


def test_a_complete_run_is_never_changed(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    with open_store(path) as store:
        rec = _start(store)
        rec.add({"id": "a", "m": {"value": 1.0}})
        rec.finish({"rows": 1, "metrics": {"m": {"mean": 1.0}}}, complete=True)
        _set(path, rec.run_id, owner_pid=1)  # as seen from any other process
        for attempt in (lambda: store.add_rows(rec.run_id, [{"id": "b"}]),
                        lambda: store.finish_run(rec.run_id, summary={}, complete=False),
                        lambda: store.finish_run(rec.run_id, summary={}, complete=True),
                        lambda: store.claim_run(rec.run_id),
                        lambda: _start(store, resume_id=rec.run_id)):
            with pytest.raises(ConfigError, match="is complete: a complete run is never changed"):
                attempt()
        info = store.get(rec.run_id)
        assert (info.status, info.rows, info.summary) == ("complete", 1, {"rows": 1, "metrics":
                                                                             {"m": {"mean": 1.0}}})
        store.update_summary(rec.run_id, {"calibration": {"kappa": 0.5}})  # figures added later
        assert store.get(rec.run_id).summary["calibration"] == {"kappa": 0.5}


# -- inputs in the store -----------------------------------------------------------------------


def test_row_inputs_shape_matches_the_report_loader() -> None:
    from assay.report._load import inputs_from_rows

    rows = [Row(id="q1", line=1, question="Q?", context="c1\n\nc2", contexts=["c1", "c2"],
                answer="A", ground_truth="G", extra={"topic": "t"}),
            Row(id="c1", line=2, messages=[Turn(role="user", content="hi"),
                                           Turn(role="assistant", content="yo")])]
    assert {r.id: row_inputs(r) for r in rows} == inputs_from_rows(rows)
    json.dumps([row_inputs(r) for r in rows])  # JSON-ready


def test_sink_hands_inputs_to_the_store_masked_and_pages_read_them(tmp_path: Path) -> None:
    with open_store(tmp_path / "runs.sqlite") as store:
        rec = _start(store, batch_rows=4)
        sink = ResultSink(RunTally([get_metric("exact_match")]), recorder=rec)
        rows = [Row(id=f"q{i}", line=i, question=f"key {KEY}?" if i == 3 else f"Q{i}?",
                    answer="a") for i in range(10)]
        for row in rows:
            sink.expect(row.id, inputs=row_inputs(row))
        for row in reversed(rows):  # finished out of order
            sink.add({"id": row.id, "exact_match": {"value": 1.0}})
        sink.close()
        rec.finish({"metrics": {}}, complete=True)
        run_id = rec.run_id
        assert store.row_count(run_id) == 10
        assert [r["id"] for r in store.rows_page(run_id, offset=8, limit=5)] == ["q8", "q9"]
        assert store.row_at(run_id, "q9") == (9, {"id": "q9", "exact_match": {"value": 1.0}})
        got = store.inputs(run_id, ["q3", "q1", "nope"])
        assert list(got) == ["q3", "q1"] and got["q1"] == {"question": "Q1?", "answer": "a"}
        assert got["q3"]["question"] == "key ***?"
        for bad in ({"offset": -1}, {"limit": 0}, {"limit": 10_001}, {"offset": "1"}):
            with pytest.raises(ConfigError, match="Got (offset|limit)="):
                store.rows_page(run_id, **bad)  # type: ignore[arg-type]
    blob = b"".join(p.read_bytes() for p in tmp_path.glob("runs.sqlite*"))
    assert KEY.encode() not in blob


def test_re_added_rows_keep_place_and_inputs(tmp_path: Path) -> None:
    with open_store(tmp_path / "runs.sqlite") as store:
        run_id = store.create_run()
        store.add_rows(run_id, [{"id": "a", "v": 1}, {"id": "b", "v": 1}],
                       inputs={"a": {"answer": "x"}})
        store.add_rows(run_id, [{"id": "a", "v": 2}, {"id": "c"}])  # a resume re-adds a
        assert store.rows(run_id) == [{"id": "a", "v": 2}, {"id": "b", "v": 1}, {"id": "c"}]
        assert store.inputs(run_id, ["a"]) == {"a": {"answer": "x"}}
        with pytest.raises(ValueError, match="not among the records"):
            store.add_rows(run_id, [{"id": "d"}], inputs={"zz": {}})


def test_tags_are_masked(tmp_path: Path) -> None:
    with open_store(tmp_path / "runs.sqlite") as store:
        run_id = store.create_run(tags=[f"key={KEY}", "ci"])
        assert store.get(run_id).tags == ["ci", "key=***"]
        assert [r.id for r in store.runs(tag="key=***")] == [run_id]
    blob = b"".join(p.read_bytes() for p in tmp_path.glob("runs.sqlite*"))
    assert KEY.encode() not in blob


# -- store and cache errors --------------------------------------------------------------------


def _one_line(e: BaseException) -> str:
    text = str(e)
    assert "\n" not in text and "Traceback" not in text, text
    return text


def test_a_corrupt_or_truncated_store_is_one_line_with_the_fix(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database\n" * 200)
    with pytest.raises(ConfigError) as err:
        open_store(garbage)
    assert str(garbage) in _one_line(err.value) and "move it aside" in str(err.value)

    truncated = tmp_path / "truncated.sqlite"
    with open_store(truncated) as store:
        run_id = store.create_run()
        store.add_rows(run_id, [{"id": f"q{i}", "pad": "x" * 500} for i in range(2000)])
    data = truncated.read_bytes()
    truncated.write_bytes(data[: len(data) // 3])
    with pytest.raises(ConfigError) as err, open_store(truncated) as store:
        store.rows(store.get("latest").id)
    assert str(truncated) in _one_line(err.value) and "Fix:" in str(err.value)

    code, out = _cli("runs", "--store", garbage)
    assert code == 2 and str(garbage) in out and "Traceback" not in out


def test_a_read_only_store_lists_and_reads_but_refuses_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "ro" / "runs.sqlite"
    with open_store(path) as store:
        run_id = store.create_run(name="kept")
        store.add_rows(run_id, [{"id": "q1"}])
        store.finish_run(run_id, summary={"metrics": {}}, complete=True)
    # chmod 0444 file, 0555 folder; as root permissions are not enforced, so the store sees
    # them through os.access, and SQLite really opens the file read-only (mode=ro, immutable)
    monkeypatch.setattr(engine_module.os, "access",
                        lambda p, mode: not (mode & os.W_OK and str(p).startswith(str(path.parent))))
    for url in (path, f"sqlite:///file:{path}?mode=ro&uri=true"):
        with open_store(url) as store:
            assert store.read_only
            assert [r.name for r in store.runs()] == ["kept"] and store.rows(run_id) == [
                {"id": "q1"}]
            with pytest.raises(ConfigError, match="read-only") as err:
                store.create_run()
            assert str(path) in _one_line(err.value)
    code, out = _cli("runs", "--store", path)
    assert code == 0 and "kept" in out
    code, out = _cli("show", run_id, "--store", path)
    assert code == 0 and run_id in out


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_real_permissions(tmp_path: Path) -> None:  # pragma: no cover - non-root CI only
    path = tmp_path / "ro" / "runs.sqlite"
    with open_store(path) as store:
        store.create_run(name="kept")
    path.chmod(0o444)
    path.parent.chmod(0o555)
    try:
        with open_store(path) as store:
            assert store.read_only and [r.name for r in store.runs()] == ["kept"]
            with pytest.raises(ConfigError, match="read-only"):
                store.create_run()
        with pytest.raises(ConfigError, match="Cannot create the run store's folder"):
            open_store(path.parent / "sub" / "runs.sqlite")
    finally:
        path.parent.chmod(0o755)


def test_a_sqlite_write_refused_by_the_database_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    open_store(path).close()
    with open_store(f"sqlite:///file:{path}?mode=ro&uri=true") as store:
        store.read_only = False  # as if the file were writable: SQLite itself refuses
        with pytest.raises(ConfigError, match="read-only here") as err:
            store.create_run()
        assert str(path) in _one_line(err.value)


def test_an_unreachable_postgres_is_one_line_with_the_password_masked() -> None:
    pytest.importorskip("psycopg", reason="needs the 'postgres' extra: pip install 'assay[postgres]'")
    started = time.monotonic()
    with pytest.raises(ConfigError) as err:
        open_store("postgresql://bob:hunter2pw@127.0.0.1:1/runs")
    text = _one_line(err.value)
    assert "hunter2pw" not in text and "bob:***@127.0.0.1:1/runs" in text
    assert "PostgreSQL server is up" in text and time.monotonic() - started < 20


@pytest.mark.parametrize("content", [b"not a database" * 100, b""])
def test_corrupt_caches_warn_once_and_the_run_goes_on(
        tmp_path: Path, content: bytes, caplog: pytest.LogCaptureFixture) -> None:
    cache = tmp_path / "cache.sqlite"
    if content:
        cache.write_bytes(content)
    else:  # a real cache, then truncated mid-file
        good = JudgeCache(cache)
        for i in range(3000):
            good.put(f"k{i}", "j", JudgeResponse(text="x" * 200))
        good.close()
        cache.write_bytes(cache.read_bytes()[:20_000])
    with caplog.at_level(logging.WARNING):
        res = evaluate([{"question": "Q?", "answer": "A.", "ground_truth": "A."}] * 3,
                       metrics="fluency", judge=FakeJudge('{"score": 4, "reason": "ok"}'),
                       judging=JudgeOptions(cache=cache))
    assert res.summary["metrics"]["fluency"]["mean"] == 4.0
    warnings = [r.getMessage() for r in caplog.records if "judge cache" in r.getMessage()]
    assert len(warnings) <= 1
    if content:
        assert len(warnings) == 1 and str(cache) in warnings[0]
        assert "goes on without it" in warnings[0] and "mv " in warnings[0]
        assert cache.read_bytes() == content  # left as it is
    emb = EmbeddingCache(cache)
    assert emb.get("k") is None


def test_an_unwritable_cache_is_still_read(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    cache = JudgeCache(tmp_path / "c.sqlite")
    cache.put("k", "j", JudgeResponse(text="kept"))

    class ReadOnly:
        def __init__(self, db: object) -> None:
            self.db = db

        def execute(self, sql: str, *args: object) -> object:
            if sql.startswith("INSERT"):
                import sqlite3
                raise sqlite3.OperationalError("attempt to write a readonly database")
            return self.db.execute(sql, *args)  # type: ignore[attr-defined]

        def close(self) -> None:
            self.db.close()  # type: ignore[attr-defined]

    monkeypatch.setattr(cache, "_db", ReadOnly(cache._db))
    with caplog.at_level(logging.WARNING):
        cache.put("k2", "j", JudgeResponse(text="new"))
        cache.put("k3", "j", JudgeResponse(text="new"))
    assert cache.get("k").text == "kept" and cache.get("k2") is None
    assert len([r for r in caplog.records if "cannot be written" in r.getMessage()]) == 1
    cache.close()


def test_v2_store_gets_v3_columns_and_keeps_its_runs(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    engine = make_engine(sa.make_url(f"sqlite:///{path}"))
    assert migrate(engine, target=2) == [1, 2]
    with transaction(engine, write=True) as conn:
        insert_old_run(conn, status="running")
    engine.dispose()
    with open_store(path) as store:
        old = store.get("20250101")
        assert (old.status, old.rows, old.owner) == ("interrupted", 1, None)  # left long ago
        assert store.inputs(old.id, ["q1"]) == {}
        assert store.row_at(old.id, "q1") == (0, {"id": "q1"})
