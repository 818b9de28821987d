"""The run store (assay.store) on SQLite and on a real, throwaway PostgreSQL cluster.

The PostgreSQL tests start their own cluster (initdb + pg_ctl, as the ``postgres`` user when
run as root) listening on 127.0.0.1 at a free port. Without the server binaries they are
skipped, unless ASSAY_REQUIRE_POSTGRES=1 makes that a failure.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import pwd
import secrets
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest
import sqlalchemy as sa

import assay
from assay.errors import ConfigError
from assay.store import (
    SCHEMA_VERSION,
    RunInfo,
    Store,
    mask_secrets,
    open_store,
    resolve_url,
    sanitize,
)
from assay.store._engine import make_engine, transaction
from assay.store._migrations import migrate
from assay.store._schema import metadata

# -- a throwaway PostgreSQL cluster ---------------------------------------------------------


@dataclass
class PgCluster:
    url: str
    data: Path


def _pg_bindir() -> Path | None:
    """The directory holding initdb, pg_ctl and createdb: from PATH, else the newest
    /usr/lib/postgresql/<version>/bin (Debian keeps them off PATH)."""
    candidates = []
    if found := shutil.which("pg_ctl"):
        candidates.append(Path(found).resolve().parent)

    def version(p: Path) -> tuple[int, ...]:
        return tuple(int(x) for x in p.parent.name.split(".") if x.isdigit())

    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=version, reverse=True)
    for d in candidates:
        if all((d / tool).is_file() for tool in ("initdb", "pg_ctl", "createdb")):
            return d
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _no_postgres(why: str, fix: str = "install Debian's postgresql package "
                                      "(apt-get install -y postgresql)") -> NoReturn:
    if os.environ.get("ASSAY_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"{why} and ASSAY_REQUIRE_POSTGRES=1. Fix: {fix}, or unset "
                    "ASSAY_REQUIRE_POSTGRES.")
    pytest.skip(f"{why}; {fix} to run the PostgreSQL tests")


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """A fresh PostgreSQL cluster for this test session; stopped and removed afterwards."""
    if importlib.util.find_spec("psycopg") is None:
        _no_postgres("needs the 'postgres' extra (psycopg is not installed)",
                     fix="pip install 'assay[postgres]'")
    bindir = _pg_bindir()
    if bindir is None:
        _no_postgres("PostgreSQL server binaries (initdb, pg_ctl) not found")
    as_root = os.geteuid() == 0
    owner = None
    if as_root:  # PostgreSQL refuses to run as root: run it as the postgres system user
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            _no_postgres("running as root and there is no 'postgres' system user")

    def cmd(*args: str) -> list[str]:
        return ["runuser", "-u", "postgres", "--", *args] if as_root else list(args)

    tmp = Path(tempfile.mkdtemp(prefix="assay-pg-"))
    if owner is not None:
        os.chown(tmp, owner.pw_uid, owner.pw_gid)
    data, log, port = tmp / "data", tmp / "server.log", _free_port()
    env = {**os.environ, "LC_ALL": "C", "LANG": "C"}

    def run(*args: str) -> None:
        done = subprocess.run(cmd(*args), cwd=tmp, env=env, capture_output=True, text=True,
                              timeout=120, check=False)
        if done.returncode != 0:
            tail = log.read_text()[-2000:] if log.exists() else ""
            pytest.fail(f"{' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n"
                        f"{done.stderr}\n{tail}")

    options = (f"-c listen_addresses=127.0.0.1 -p {port} -k {tmp} -c fsync=off "
               "-c synchronous_commit=off -c full_page_writes=off")
    started = False
    try:
        run(str(bindir / "initdb"), "-D", str(data), "-U", "assay", "-A", "trust", "-E", "UTF8",
            "--no-locale", "-N")
        run(str(bindir / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", options, "-w",
            "-t", "60", "start")
        started = True
        run(str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "assay",
            "assay_test")
        yield PgCluster(url=f"postgresql://assay@127.0.0.1:{port}/assay_test", data=data)
    finally:
        if started:
            stop = cmd(str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop")
            subprocess.run(stop, cwd=tmp, env=env, capture_output=True, timeout=60, check=False)
        shutil.rmtree(tmp, ignore_errors=True)


def _reset_pg(url: str) -> None:
    """Empty the test database, so each test starts from a store that does not exist yet."""
    engine = sa.create_engine(resolve_url(url), isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.exec_driver_sql("DROP SCHEMA public CASCADE")
        conn.exec_driver_sql("CREATE SCHEMA public")
    engine.dispose()


# -- fixtures -------------------------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store location that does not exist yet, on each backend."""
    if request.param == "sqlite":
        return str(tmp_path / "store" / "runs.sqlite")
    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    _reset_pg(cluster.url)
    return cluster.url


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    with open_store(store_url) as s:
        yield s


def metric(value: float | None, reason: str | None = "ok", error: str | None = None) -> dict:
    return {"value": value, "weighted": None, "reason": reason, "error": error, "details": {}}


def record(row_id: str, f1: float | None, groundedness: float | None = 4.0, **kw: str) -> dict:
    rec = {"id": row_id,
           "f1_score": metric(f1) if f1 is not None else metric(None, None, "no ground truth"),
           "groundedness": metric(groundedness, reason="cites the context")}
    rec.update(kw)
    return rec


def raw_count(url: str, table: str, run_id: str) -> int:
    engine = make_engine(resolve_url(url))
    with transaction(engine, write=False) as conn:
        n = conn.exec_driver_sql(f"SELECT count(*) FROM {table} WHERE run_id = '{run_id}'")
        count = int(n.scalar() or 0)
    engine.dispose()
    return count


# -- round trip, order, resume ----------------------------------------------------------------


def test_round_trip_of_metadata_rows_and_summary(store: Store) -> None:
    run_id = store.create_run(
        kind="run", name="nightly", tags=["ci", "rag", "ci"], dataset="data/qa50.jsonl",
        dataset_sha256="ab" * 32, metrics={"f1_score": "1", "groundedness": "2"},
        prompt_sha256={"groundedness/v2/en": "cd" * 32}, judge="local:qwen2.5-1.5b",
        settings={"concurrency": 4, "lang": "en", "threshold": 0.5})
    assert len(run_id) == len("20261121-201500-3fa2") and run_id[8] == "-" and run_id[15] == "-"
    info = store.get(run_id)
    assert info.status == "running" and info.rows == 0 and info.summary is None
    assert info.finished is None
    assert info.tags == ["ci", "rag"] and info.name == "nightly" and info.kind == "run"
    assert info.metrics == {"f1_score": "1", "groundedness": "2"}
    assert info.prompt_sha256 == {"groundedness/v2/en": "cd" * 32}
    assert info.settings == {"concurrency": 4, "lang": "en", "threshold": 0.5}
    assert info.assay_version == assay.__version__
    assert info.created.endswith("Z") and info.created[:10].replace("-", "") == run_id[:8]

    records = [record("q1", 1.0), record("q2", None), record("q3", 0.25, details="naïve, \"x\"")]
    store.add_rows(run_id, records)
    summary = {"rows": 3, "rows_done": 3, "complete": True,
               "metrics": {"f1_score": {"mean": 0.625, "n": 2, "unscored": 1},
                           "groundedness": {"mean": 4.0, "n": 3}},
               "judge": {"id": "local:qwen2.5-1.5b", "calls": 3}}
    store.finish_run(run_id, summary=summary, complete=True,
                     tokens={"prompt": 1200, "completion": 30}, timings={"total_s": 12.5})

    info = store.get(run_id)
    assert info.status == "complete" and info.rows == 3 and info.finished is not None
    assert info.summary == summary
    assert info.tokens == {"prompt": 1200, "completion": 30}
    assert info.timings == {"total_s": 12.5}
    assert store.rows(run_id) == records
    assert store.aggregates(run_id) == summary["metrics"]


def test_rows_keep_first_insert_order_and_resume_upserts(store: Store) -> None:
    run_id = store.create_run()
    store.add_rows(run_id, [record("b", 0.1), record("a", 0.2)])
    store.add_rows(run_id, iter([record("c", 0.3)]))  # any iterable
    store.add_rows(run_id, [record("a", 0.9), record("d", 0.4)])  # a resumed run re-adds "a"
    rows = store.rows(run_id)
    assert [r["id"] for r in rows] == ["b", "a", "c", "d"]
    assert rows[1]["f1_score"]["value"] == 0.9  # replaced in place
    assert store.get(run_id).rows == 4
    store.add_rows(run_id, [record("e", 0.5), record("e", 0.6)])  # a repeat within one call
    assert [(r["id"], r["f1_score"]["value"]) for r in store.rows(run_id)][-1] == ("e", 0.6)
    store.add_rows(run_id, [])
    assert store.get(run_id).rows == 5


def test_add_rows_rejects_records_without_id_and_unknown_runs(store: Store) -> None:
    run_id = store.create_run()
    with pytest.raises(ValueError, match="no 'id'"):
        store.add_rows(run_id, [{"f1_score": metric(1.0)}])
    with pytest.raises(ConfigError, match="No run with id 'nope'"):
        store.add_rows("nope", [record("q1", 1.0)])
    assert store.rows(run_id) == []


def test_interrupted_status(store: Store) -> None:
    crashed = store.create_run(name="crashed")
    store.add_rows(crashed, [record("q1", 1.0)])
    store.mark_interrupted(crashed)
    assert store.get(crashed).status == "interrupted"
    store.add_rows(crashed, [record("q2", 1.0)])  # resumed: running again
    assert store.get(crashed).status == "running"

    stopped = store.create_run(name="ctrl-c")
    store.finish_run(stopped, summary={"rows": 10, "rows_done": 1, "metrics": {}},
                     complete=False)
    assert store.get(stopped).status == "interrupted"
    assert store.aggregates(stopped) == {}

    done = store.create_run()
    store.finish_run(done, summary={"metrics": {}}, complete=True)
    store.mark_interrupted(done)  # a complete run stays complete
    assert store.get(done).status == "complete"


def test_ctrl_c_while_reading_records_keeps_earlier_rows(store: Store) -> None:
    run_id = store.create_run()
    store.add_rows(run_id, [record("q1", 1.0), record("q2", 0.5)])

    def interrupted() -> Iterator[dict]:
        yield record("q3", 0.1)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        store.add_rows(run_id, interrupted())
    assert [r["id"] for r in store.rows(run_id)] == ["q1", "q2"]
    info = store.get(run_id)
    assert info.status == "running" and info.rows == 2
    store.add_rows(run_id, [record("q3", 0.1)])  # the store is still usable
    assert store.get(run_id).rows == 3


def test_a_killed_process_loses_no_added_rows(store_url: str) -> None:
    script = textwrap.dedent(f"""
        import os, sys
        from assay.store import open_store
        store = open_store({store_url!r})
        run_id = store.create_run(name="killed")
        store.add_rows(run_id, [{{"id": "q1", "m": {{"value": 1.0}}}}])
        store.add_rows(run_id, [{{"id": "q2", "m": {{"value": 0.0}}}}])
        print(run_id, flush=True)
        os._exit(9)  # no close, no finish: like a crash or kill -9
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 9, done.stderr
    run_id = done.stdout.strip()
    with open_store(store_url) as store:
        info = store.get(run_id)  # its process is gone: read as interrupted, nothing written
        assert info.status == "interrupted" and info.rows == 2
        assert [r["id"] for r in store.rows(run_id)] == ["q1", "q2"]
        assert [r.status for r in store.runs()] == ["interrupted"]
        store.mark_interrupted(run_id)  # recorded for good
        assert store.get(run_id).status == "interrupted"


def test_concurrent_writers_of_one_run_lose_nothing(store_url: str) -> None:
    with open_store(store_url) as store:
        run_id = store.create_run()
        errors: list[Exception] = []

        def writer(w: int) -> None:
            try:
                for i in range(15):
                    store.add_rows(run_id, [record(f"w{w}-{i}", 1.0)])
            except Exception as e:  # noqa: BLE001 - reported by the assert below
                errors.append(e)

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        ids = [r["id"] for r in store.rows(run_id)]
        assert len(ids) == len(set(ids)) == 60
        for w in range(4):  # each writer's rows keep its own order
            mine = [i for i in ids if i.startswith(f"w{w}-")]
            assert mine == [f"w{w}-{i}" for i in range(15)]


# -- listing and lookup ------------------------------------------------------------------------


def test_runs_lists_newest_first_with_filters(store: Store) -> None:
    a = store.create_run(name="base", tags=["ci"], dataset="/data/qa50.jsonl",
                         dataset_sha256="aa11" + "0" * 60)
    b = store.create_run(name="base", tags=["ci", "nightly"], dataset="/data/chat.jsonl",
                         dataset_sha256="bb22" + "0" * 60)
    c = store.create_run(kind="robustness", name="rgb", tags=["nightly"])
    assert [r.id for r in store.runs()] == [c, b, a]
    assert all(isinstance(r, RunInfo) for r in store.runs())
    assert [r.id for r in store.runs(tag="ci")] == [b, a]
    assert [r.id for r in store.runs(tag="nightly")] == [c, b]
    assert store.runs(tag="missing") == []
    assert [r.id for r in store.runs(name="base")] == [b, a]
    assert [r.id for r in store.runs(dataset="qa50")] == [a]  # path substring
    assert [r.id for r in store.runs(dataset="QA50.JSONL")] == [a]  # case-insensitive
    assert [r.id for r in store.runs(dataset="bb22")] == [b]  # sha256 prefix
    assert [r.id for r in store.runs(dataset="bb22" + "0" * 60)] == [b]  # full sha256
    assert [r.id for r in store.runs(dataset="/data/")] == [b, a]
    assert [r.id for r in store.runs(dataset="%")] == []  # LIKE wildcards are literal
    assert [r.id for r in store.runs(limit=2)] == [c, b]
    assert [r.id for r in store.runs(tag="ci", name="base", limit=1)] == [b]
    assert store.get(c).kind == "robustness"
    with pytest.raises(ConfigError, match="limit=0"):
        store.runs(limit=0)


def test_get_by_id_prefix_and_latest(store: Store) -> None:
    with pytest.raises(ConfigError, match="no runs yet"):
        store.get("latest")
    ids = [store.create_run(name=f"r{i}") for i in range(3)]
    assert store.get("latest").id == ids[-1]
    for run_id in ids:
        assert store.get(run_id).id == run_id
        others = [o for o in ids if o != run_id]
        k = next(k for k in range(1, len(run_id) + 1)
                 if not any(o.startswith(run_id[:k]) for o in others))
        assert store.get(run_id[:k]).id == run_id  # shortest unique prefix

    shared = os.path.commonprefix(ids)
    with pytest.raises(ConfigError, match="ambiguous") as err:
        store.get(shared)
    assert all(run_id in str(err.value) for run_id in ids)
    assert "more characters" in str(err.value)

    with pytest.raises(ConfigError, match="No run 'zzz'") as err:
        store.get("zzz")
    assert ids[-1] in str(err.value)  # recent runs are listed
    with pytest.raises(ConfigError, match="kind='eval'"):
        store.create_run(kind="eval")


def test_delete_removes_run_rows_tags_and_aggregates(store: Store, store_url: str) -> None:
    keep = store.create_run(tags=["x"])
    gone = store.create_run(tags=["x", "y"])
    for run_id in (keep, gone):
        store.add_rows(run_id, [record("q1", 1.0), record("q2", 0.0)])
        store.finish_run(run_id, summary={"metrics": {"f1_score": {"mean": 0.5}}},
                         complete=True)
    store.delete(gone)
    with pytest.raises(ConfigError):
        store.get(gone)
    with pytest.raises(ConfigError, match="No run with id"):
        store.rows(gone)
    with pytest.raises(ConfigError, match="No run with id"):
        store.delete(gone)
    for table in ("run_rows", "run_aggregates", "run_tags"):
        assert raw_count(store_url, table, gone) == 0
    assert [r.id for r in store.runs()] == [keep]
    assert store.get(keep).rows == 2 and store.aggregates(keep) == {"f1_score": {"mean": 0.5}}
    assert store.get(keep).tags == ["x"]


# -- export ------------------------------------------------------------------------------------


@pytest.fixture
def exported_run(store: Store) -> tuple[Store, str, list[dict]]:
    records = [record("q1", 1.0), record("q2", None),
               record("q3", 0.5, groundedness=None, note="comma, \"quote\"\nnewline")]
    records[0]["diagnosis"] = {"stage": "none"}
    run_id = store.create_run()
    store.add_rows(run_id, records)
    return store, run_id, records


def test_export_jsonl(exported_run: tuple[Store, str, list[dict]], tmp_path: Path) -> None:
    store, run_id, records = exported_run
    out = tmp_path / "out" / "rows.jsonl"
    assert store.export(run_id, out, "jsonl") == 3
    assert [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] == records


def test_export_csv(exported_run: tuple[Store, str, list[dict]], tmp_path: Path) -> None:
    store, run_id, _ = exported_run
    out = tmp_path / "rows.csv"
    assert store.export(run_id, out, "csv") == 3
    with out.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        table = list(reader)
    assert reader.fieldnames == ["id", "f1_score", "f1_score/reason", "f1_score/error",
                                 "groundedness", "groundedness/reason", "groundedness/error",
                                 "diagnosis", "note"]
    assert [r["id"] for r in table] == ["q1", "q2", "q3"]
    assert float(table[0]["f1_score"]) == 1.0 and table[0]["f1_score/reason"] == "ok"
    assert table[1]["f1_score"] == "" and table[1]["f1_score/error"] == "no ground truth"
    assert table[2]["groundedness"] == "" and table[2]["note"] == "comma, \"quote\"\nnewline"
    assert json.loads(table[0]["diagnosis"]) == {"stage": "none"}


def test_export_parquet(exported_run: tuple[Store, str, list[dict]], tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet",
                             reason="needs the 'parquet' extra: pip install 'assay[parquet]'")
    store, run_id, _ = exported_run
    out = tmp_path / "rows.parquet"
    assert store.export(run_id, out, "parquet") == 3
    table = pq.read_table(out)
    assert table.num_rows == 3
    assert str(table.schema.field("f1_score").type) == "double"
    cols = table.to_pydict()
    assert cols["id"] == ["q1", "q2", "q3"]
    assert cols["f1_score"] == [1.0, None, 0.5]
    assert cols["f1_score/error"] == [None, "no ground truth", None]
    assert cols["groundedness/reason"] == ["cites the context"] * 3


def test_export_errors(exported_run: tuple[Store, str, list[dict]], tmp_path: Path,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    store, run_id, _ = exported_run
    with pytest.raises(ConfigError, match="Must be one of jsonl, csv, parquet"):
        store.export(run_id, tmp_path / "x.xml", "xml")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(ConfigError, match=r"pip install 'assay\[parquet\]'"):
        store.export(run_id, tmp_path / "x.parquet", "parquet")
    assert not (tmp_path / "x.parquet").exists()


# -- secrets ------------------------------------------------------------------------------------


def _db_bytes(store_url: str, pg: PgCluster | None) -> bytes:
    """Every byte the database keeps on disk (SQLite file, WAL and shm; the cluster's files)."""
    if pg is None:
        root = Path(store_url).parent
    else:
        engine = sa.create_engine(resolve_url(pg.url), isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.exec_driver_sql("CHECKPOINT")
        engine.dispose()
        root = pg.data
    return b"".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())


def test_secrets_never_reach_the_database(store_url: str, request: pytest.FixtureRequest) -> None:
    key = "sk-proj-" + secrets.token_urlsafe(36)
    azure_like = secrets.token_hex(16)
    password = "pw-" + secrets.token_hex(8)
    settings = {
        "OPENAI_API_KEY": key,
        "model": "gpt-4o-mini",
        "max_tokens": 512,
        "judge": {"api_key": key, "base_url": f"https://bob:{password}@llm.example/v1",
                  "headers": {"Authorization": f"Bearer {key}"}, "temperature": 0.0},
        "argv": ["assay", "run", "--judge-key", key],
        "note": f"started with {key} in the environment",
        "deployment_credential": azure_like,
        "endpoint": f"https://x.example/v1?api-key={azure_like}&deployment=gpt",
    }
    with open_store(store_url) as store:
        run_id = store.create_run(settings=settings, judge=f"openai:gpt-4o-mini ({key})",
                                  name=f"run {key}")
        store.finish_run(run_id, summary={"metrics": {}, "judge": {"id": f"x {key}"}},
                         complete=True)
        kept = store.get(run_id).settings
    assert kept["model"] == "gpt-4o-mini" and kept["max_tokens"] == 512
    assert kept["judge"]["base_url"] == "https://bob:***@llm.example/v1"
    assert kept["judge"]["temperature"] == 0.0 and "api_key" not in kept["judge"]
    assert "OPENAI_API_KEY" not in kept and kept["judge"]["headers"] == {}
    # dropped by its name: a hex key has no shape that tells it from a trace id or a digest
    assert "deployment_credential" not in kept

    pg = request.getfixturevalue("pg_cluster") if "postgresql" in store_url else None
    blob = _db_bytes(store_url, pg)
    assert b"gpt-4o-mini" in blob  # we are looking at the right bytes
    for secret in (key, key[len("sk-proj-"):], azure_like, password):
        assert secret.encode() not in blob, f"{secret[:12]}... was written to the database"


def test_sanitizer_drops_secret_names_and_masks_secret_values() -> None:
    assert sanitize({"Api-Key": "x", "client_secret": "x", "PASSWORD": "x", "auth": "x",
                     "access_token": "x", "max_tokens": 10, "tpm_tokens": 2.5,
                     "token_budget": 1000, "keep": 1}) == \
        {"max_tokens": 10, "token_budget": 1000, "keep": 1}
    assert sanitize([{"secret_key": 1}, ("sk-ant-abcdefgh1234",)]) == [{}, ["***"]]
    assert sanitize({"path": Path("/data/qa.jsonl")}) == {"path": "/data/qa.jsonl"}
    for plain in ("gpt-4o-mini-2024-07-18", "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf",
                  "/home/user/datasets/customer_support_questions_2024.jsonl",
                  "text-embedding-3-large", "https://api.openai.com/v1", "groundedness/v2/en",
                  "a sentence with several ordinary words in it",
                  "judge call failed: token limitation reached"):
        assert mask_secrets(plain) == plain
    for secret, masked in (("ghp_" + "a1" * 18, "***"),
                           ("AKIAIOSFODNN7EXAMPLE", "***"),
                           ("hf_" + "Ab3" * 10, "***"),
                           ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "***"),
                           ("redis://:hunter2@cache:6379/0", "redis://:***@cache:6379/0"),
                           ("Token abcdef0123456789", "Token ***")):
        assert mask_secrets(secret) == masked


# -- store location -----------------------------------------------------------------------------


def test_store_location_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASSAY_STORE", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert resolve_url(None).database == str(tmp_path / "xdg" / "assay" / "runs.sqlite")
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "env.sqlite"))
    assert resolve_url(None).database == str(tmp_path / "env.sqlite")
    assert resolve_url(tmp_path / "arg.sqlite").database == str(tmp_path / "arg.sqlite")
    assert resolve_url(f"sqlite:///{tmp_path}/u.sqlite").database == f"{tmp_path}/u.sqlite"
    with open_store() as store:  # the env var, created on first use
        assert store.url == f"sqlite:///{tmp_path}/env.sqlite"
    assert (tmp_path / "env.sqlite").exists()
    for scheme in ("postgresql", "postgres", "postgresql+psycopg"):
        url = resolve_url(f"{scheme}://u:pw@h:5433/runs")
        assert url.drivername == "postgresql+psycopg" and url.port == 5433


def test_open_errors_say_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="Cannot open the run store"):
        open_store(tmp_path)  # a directory, not a file
    with pytest.raises(ConfigError, match="Must be a file path"):
        open_store("mongodb://db/runs")
    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(ConfigError, match=r"pip install 'assay\[postgres\]'"):
        open_store("postgresql://u@127.0.0.1:1/db")


def test_postgres_url_password_is_masked(pg_cluster: PgCluster) -> None:
    _reset_pg(pg_cluster.url)
    with_password = pg_cluster.url.replace("assay@", "assay:hunter2@")  # trust auth ignores it
    with open_store(with_password) as store:
        assert "hunter2" not in store.url and "***" in store.url
        assert store.url.startswith("postgresql+psycopg://assay:***@127.0.0.1:")
        assert "hunter2" not in repr(store)


# -- schema versions and migrations -----------------------------------------------------------


def _reflect(url: str) -> tuple[dict[str, list[str]], set[str], list[int]]:
    """Columns per table, index names and applied schema versions, as the database has them."""
    engine = make_engine(resolve_url(url))
    with transaction(engine, write=False) as conn:
        insp = sa.inspect(conn)
        tables = {t: [c["name"] for c in insp.get_columns(t)] for t in insp.get_table_names()}
        indexes = {str(i["name"]) for t in tables for i in insp.get_indexes(t)}
        versions = list(conn.exec_driver_sql(
            "SELECT version FROM schema_version ORDER BY version").scalars())
    engine.dispose()
    return tables, indexes, versions


def test_fresh_store_matches_the_schema_module(store_url: str) -> None:
    open_store(store_url).close()
    tables, indexes, versions = _reflect(store_url)
    assert tables == {t.name: [c.name for c in t.columns] for t in metadata.sorted_tables}
    assert indexes == {i.name for t in metadata.sorted_tables for i in t.indexes}
    assert versions == list(range(1, SCHEMA_VERSION + 1))



OLD_RUN = "20250101-000000-abcd"


def insert_old_run(conn: sa.Connection, *, status: str = "complete", inputs: str | None = None) -> None:
    """One run named ``old`` with one row ``q1``, written with the columns every schema
    version has (and the row's ``inputs`` JSON where given: schema v2 and later), as an older
    assay left them."""
    conn.exec_driver_sql(
        "INSERT INTO runs (id, name, kind, created, status, metrics, prompt_sha256, "
        "settings, tokens, timings, assay_version) VALUES "
        f"('{OLD_RUN}', 'old', 'run', '2025-01-01T00:00:00.000000Z', '{status}', '{{}}', "
        "'{}', '{}', '{}', '{}', '0.0.1')")
    if inputs is None:
        conn.exec_driver_sql("INSERT INTO run_rows (run_id, row_id, position, record) VALUES "
                             f"('{OLD_RUN}', 'q1', 0, '{{\"id\": \"q1\"}}')")
    else:
        conn.exec_driver_sql(
            "INSERT INTO run_rows (run_id, row_id, position, record, inputs) VALUES "
            f"('{OLD_RUN}', 'q1', 0, '{{\"id\": \"q1\"}}', '{inputs}')")


def test_v1_store_is_migrated_keeping_its_runs(store_url: str) -> None:
    engine = make_engine(resolve_url(store_url))
    assert migrate(engine, target=1) == [1]  # a store as assay with schema v1 left it
    with transaction(engine, write=True) as conn:
        insert_old_run(conn)
    engine.dispose()
    tables, indexes, versions = _reflect(store_url)
    assert "finished" not in tables["runs"] and "ix_runs_created" not in indexes
    assert versions == [1]

    with open_store(store_url) as store:
        old = store.get("20250101")
        assert (old.name, old.status, old.rows, old.finished) == ("old", "complete", 1, None)
        assert store.rows(old.id) == [{"id": "q1"}]
        new = store.create_run()
        store.finish_run(new, summary={"metrics": {}}, complete=True)
        assert store.get(new).finished is not None
    tables, indexes, versions = _reflect(store_url)
    assert versions == list(range(1, SCHEMA_VERSION + 1))
    assert tables == {t.name: [c.name for c in t.columns] for t in metadata.sorted_tables}
    assert "ix_runs_created" in indexes


def test_empty_v0_sqlite_file_is_initialised(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite"
    sqlite3.connect(path).close()  # an existing, empty database file
    with open_store(path) as store:
        assert store.runs() == []
    assert _reflect(str(path))[2] == list(range(1, SCHEMA_VERSION + 1))


def test_a_failing_migration_leaves_the_store_as_it_was(
        store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from assay.store import _migrations

    engine = make_engine(resolve_url(store_url))
    migrate(engine, target=1)
    engine.dispose()

    def broken(conn: sa.Connection) -> None:
        conn.exec_driver_sql("ALTER TABLE runs ADD COLUMN finished VARCHAR(32)")
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(_migrations, "MIGRATIONS", [_migrations.MIGRATIONS[0], broken])
    with pytest.raises(RuntimeError, match="disk on fire"):
        open_store(store_url)
    tables, _, versions = _reflect(store_url)
    assert versions == [1] and "finished" not in tables["runs"]  # rolled back as a whole
    monkeypatch.undo()
    with open_store(store_url) as store:
        assert store.runs() == []
    assert _reflect(store_url)[2] == list(range(1, SCHEMA_VERSION + 1))


def test_a_store_from_a_newer_assay_is_refused(store_url: str) -> None:
    open_store(store_url).close()
    engine = make_engine(resolve_url(store_url))
    with transaction(engine, write=True) as conn:
        conn.exec_driver_sql(
            "INSERT INTO schema_version (version, applied, assay_version) "
            f"VALUES ({SCHEMA_VERSION + 1}, '2030-01-01T00:00:00.000000Z', '9.0')")
    engine.dispose()
    with pytest.raises(ConfigError, match="created by a newer assay") as err:
        open_store(store_url)
    assert "upgrade assay" in str(err.value)


def test_a_foreign_database_is_not_written_to(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE runs (x INTEGER)")
    with pytest.raises(ConfigError, match="not an assay run store"):
        open_store(path)


# -- owners, complete runs and row inputs, on both backends ------------------------------------


def test_inputs_pages_owner_and_complete_runs(store: Store) -> None:
    run_id = store.create_run(tags=["key=sk-proj-a1b2c3d4e5f6"])
    assert store.get(run_id).tags == ["key=***"]
    store.add_rows(run_id, [record(f"q{i}", 1.0) for i in range(5)],
                   inputs={"q1": {"question": "Q1?", "extra": {"n": 1}},
                           "q2": {"answer": "token sk-proj-a1b2c3d4e5f6"}})
    store.add_rows(run_id, [record("q1", 0.5), record("q5", 0.5)])  # q1 keeps its inputs
    assert store.row_count(run_id) == 6
    assert [r["id"] for r in store.rows_page(run_id, offset=4, limit=3)] == ["q4", "q5"]
    position, rec = store.row_at(run_id, "q1") or (None, {})
    assert position == 1 and rec["f1_score"]["value"] == 0.5
    assert store.inputs(run_id, ["q2", "q1", "q3"]) == {
        "q2": {"answer": "token ***"}, "q1": {"question": "Q1?", "extra": {"n": 1}}}
    info = store.get(run_id)
    assert info.status == "running" and info.owner == f"{socket.gethostname()}:{os.getpid()}"
    assert info.heartbeat is not None
    store.heartbeat(run_id)
    store.claim_run(run_id)  # this process already owns it: fine
    store.finish_run(run_id, summary={"metrics": {}}, complete=True)
    with pytest.raises(ConfigError, match="is complete"):
        store.add_rows(run_id, [record("q9", 1.0)])
    with pytest.raises(ConfigError, match="is complete"):
        store.claim_run(run_id)
    store.update_summary(run_id, {"calibration": {"n": 3}})
    assert store.get(run_id).summary == {"metrics": {}, "calibration": {"n": 3}}
    assert store.row_count(run_id) == 6


def test_recorder_batches_and_claims_on_both_backends(store: Store) -> None:
    from assay.records._recording import RunRecorder

    def start(**kw: object) -> RunRecorder:
        return RunRecorder.start(store, kind="run", name="r", tags=[], dataset=None,
                                 metrics={}, judge=None, settings={}, batch_rows=2,
                                 heartbeat_s=0.05, **kw)  # type: ignore[arg-type]

    rec = start()
    for i in range(3):
        rec.add(record(f"q{i}", 1.0), {"question": f"Q{i}?"})
    assert store.row_count(rec.run_id) == 2  # one batch written, one row pending
    rec.close()  # written, run left running (as a crash would, minus the lost rows)
    assert store.row_count(rec.run_id) == 3
    store.mark_interrupted(rec.run_id)
    again = start(resume_id=rec.run_id)
    assert again.run_id == rec.run_id and store.get(rec.run_id).status == "running"
    again.add(record("q3", 1.0))
    again.finish({"metrics": {}}, complete=True)
    assert (store.get(rec.run_id).status, store.row_count(rec.run_id)) == ("complete", 4)
    assert store.inputs(rec.run_id, ["q0", "q3"]) == {"q0": {"question": "Q0?"}}
