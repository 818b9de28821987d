"""People's labels in the run store (SQLite and PostgreSQL), the v3 -> v4 migration, and
``assay labels export`` feeding ``assay calibrate`` (FakeJudge, offline)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient
from typer.testing import CliRunner

import assay
from assay import JudgeOptions, RunOptions
from assay.cli.main import app
from assay.errors import ConfigError
from assay.judges import FakeJudge, JudgeRequest
from assay.serve import create_app
from assay.store import Store, open_store, rated_rows, resolve_url
from assay.store._engine import make_engine, transaction
from assay.store._migrations import migrate
from test_store import (  # noqa: F401 - fixtures on both engines
    PgCluster,
    _reset_pg,
    insert_old_run,
    pg_cluster,
    store,
    store_url,
)

# -- the store, on both engines ----------------------------------------------------------------


def _run_with_rows(opened: Store, n: int = 3, *, complete: bool = True) -> str:
    rid = opened.create_run(name="labelled")
    opened.add_rows(rid, [{"id": f"q{i}", "coherence": {"value": float(i + 1)}} for i in range(n)],
                    inputs={f"q{i}": {"question": f"Q{i}?", "answer": f"A{i}."} for i in range(n)})
    if complete:
        opened.finish_run(rid, summary={"metrics": {}}, complete=True)
    return rid


def test_save_replace_read_and_delete_labels(store: Store) -> None:  # noqa: F811
    rid = _run_with_rows(store)
    first = store.save_label(rid, "q2", "coherence", rater="ann", value=2, comment=" too short ")
    assert (first.value, first.comment) == (2, "too short") and first.labelled.endswith("Z")
    store.save_label(rid, "q0", "pref", rater="ann", value="TIE")
    store.save_label(rid, "q2", "coherence", rater="bob", value="5")  # a digit text is a rating
    again = store.save_label(rid, "q2", "coherence", rater="ann", value=4,
                             comment="key sk-proj-a1b2c3d4e5f6")
    got = store.labels(rid)
    assert [(x.row_id, x.metric, x.rater, x.value) for x in got] == [
        ("q0", "pref", "ann", "TIE"), ("q2", "coherence", "ann", 4), ("q2", "coherence", "bob", 5)]
    assert got[1] == again and got[1].comment == "key ***"  # replaced, comment masked
    assert [x.rater for x in store.labels(rid, rater="bob")] == ["bob"]
    assert [x.metric for x in store.labels(rid, row_id="q0")] == ["pref"]
    assert store.delete_label(rid, "q2", "coherence", rater="bob") is True
    assert store.delete_label(rid, "q2", "coherence", rater="bob") is False
    assert len(store.labels(rid)) == 2


def test_labels_refuse_unknown_rows_runs_and_bad_values(store: Store) -> None:  # noqa: F811
    rid = _run_with_rows(store, complete=False)
    with pytest.raises(ConfigError, match="has no row 'zz'"):
        store.save_label(rid, "zz", "coherence", rater="ann", value=3)
    with pytest.raises(ConfigError, match="No run with id"):
        store.save_label("nope", "q0", "coherence", rater="ann", value=3)
    with pytest.raises(ConfigError, match="No run with id"):
        store.labels("nope")
    for bad in (None, True, 2.5, "", "x" * 201, [1]):
        with pytest.raises(ConfigError, match="Got value="):
            store.save_label(rid, "q0", "coherence", rater="ann", value=bad)
    with pytest.raises(ConfigError, match="Got rater="):
        store.save_label(rid, "q0", "coherence", rater="  ", value=3)
    assert store.labels(rid) == []


def test_a_nul_in_a_label_is_stored_without_it_or_refused_alike_on_both_engines(
        store: Store) -> None:  # noqa: F811
    rid = _run_with_rows(store)
    saved = store.save_label(rid, "q1", "coherence", rater="ann", value=4,
                             comment=" too\x00 long\ud800 ")  # NUL: PostgreSQL text refuses it
    assert saved.comment == "too long\ufffd"
    assert [(x.value, x.comment) for x in store.labels(rid)] == [(4, "too long\ufffd")]
    for field, value in (("rater", "a\x00n"), ("metric", "co\x00"), ("value", "TIE\x00"),
                         ("rater", "a\ud800")):
        args: dict[str, Any] = {"metric": "coherence", "rater": "ann", "value": 3, field: value}
        with pytest.raises(ConfigError) as e:
            store.save_label(rid, "q1", args.pop("metric"), **args)
        assert str(e.value).startswith(f"Got {field}=")
        assert "without control characters (such as NUL)" in str(e.value)
    with pytest.raises(ConfigError, match=r"has no row 'q\\x001'"):
        store.save_label(rid, "q\x001", "coherence", rater="ann", value=3)
    assert store.labels(rid, rater="a\x00n") == store.labels(rid, row_id="q\x00") == []
    assert store.delete_label(rid, "q\x001", "coherence", rater="ann") is False
    assert store.row_at(rid, "q\x001") is None and store.inputs(rid, ["q\x001"]) == {}
    assert store.runs(name="a\x00") == [] and store.runs(tag="\x00", dataset="\x00") == []
    with pytest.raises(ConfigError, match=r"No run '\\x00'"):
        store.get("\x00")
    assert [(x.value, x.comment) for x in store.labels(rid)] == [(4, "too long\ufffd")]


def test_the_review_queue_saves_a_nul_comment_and_refuses_a_nul_name_with_a_400(
        store: Store) -> None:  # noqa: F811
    rid = _run_with_rows(store)
    client = TestClient(create_app(store))
    page = client.get(f"/runs/{rid}/review")
    token = re.search(r'name="token" value="([^"]+)"', page.text)
    assert token is not None

    def post(**fields: str) -> Any:
        return client.post(f"/runs/{rid}/review", follow_redirects=False, data={
            "token": token.group(1), "order": "run", "row": "q1", "rater": "ann",
            "value:coherence": "4", **fields})

    assert post(**{"comment:coherence": "fine\x00 by me"}).status_code == 303
    assert [(x.value, x.comment) for x in store.labels(rid)] == [(4, "fine by me")]
    bad_rater = post(rater="a\x00n")
    assert bad_rater.status_code == 400 and "without control characters" in bad_rater.text
    assert post(row="q\x001").status_code == 404
    for url in (f"/runs/{rid}/review?row=q%00", "/runs/a%00/review", "/?name=a%00"):
        got = client.get(url)
        assert got.status_code in (200, 404), (url, got.text)
        assert "Cannot reach" not in got.text
    assert [(x.rater, x.comment) for x in store.labels(rid)] == [("ann", "fine by me")]


def test_a_nul_postgresql_cannot_hold_is_named_never_cannot_reach(
        pg_cluster: PgCluster) -> None:  # noqa: F811
    _reset_pg(pg_cluster.url)
    with open_store(pg_cluster.url) as opened:  # SQLite holds NUL: only PostgreSQL refuses it
        rid = opened.create_run(name="nul")
        with pytest.raises(ConfigError) as e:
            opened.add_rows(rid, [{"id": "a\x00b"}])
    assert "Cannot reach" not in str(e.value) and "holds a NUL character" in str(e.value)
    assert "Fix: remove the NUL" in str(e.value)


def test_deleting_a_run_deletes_its_labels(store: Store, store_url: str) -> None:  # noqa: F811
    rid = _run_with_rows(store)
    store.save_label(rid, "q1", "coherence", rater="ann", value=3)
    store.delete(rid)
    engine = make_engine(resolve_url(store_url))
    with transaction(engine, write=False) as conn:
        left = conn.exec_driver_sql("SELECT count(*) FROM run_labels").scalar()
    engine.dispose()
    assert left == 0


def test_v3_store_gets_the_labels_table_and_keeps_its_runs(store_url: str) -> None:  # noqa: F811
    engine = make_engine(resolve_url(store_url))
    assert migrate(engine, target=3) == [1, 2, 3]  # a store as assay with schema v3 left it
    with transaction(engine, write=True) as conn:
        insert_old_run(conn, inputs='{"question": "Q?"}')
        assert not sa.inspect(conn).has_table("run_labels")
    engine.dispose()
    with open_store(store_url) as opened:
        old = opened.get("20250101")
        assert (old.name, old.status, old.rows) == ("old", "complete", 1)
        assert opened.inputs(old.id, ["q1"]) == {"q1": {"question": "Q?"}}
        opened.save_label(old.id, "q1", "coherence", rater="ann", value=5)
        assert rated_rows(opened, old.id).rows == [
            {"question": "Q?", "id": "q1", "coherence/human_rating": 5}]


# -- export, then calibrate ------------------------------------------------------------------

RATED = [("ok", 1), ("fine answer", 2), ("a longer answer here", 4), ("x", 1),
         ("a good and complete answer", 5), ("medium text!", 3)]


def _by_length(req: JudgeRequest) -> str:
    answer = req.messages[-1]["content"].split("<answer>")[1].split("</answer>")[0].strip()
    return json.dumps({"score": min(5, 1 + len(answer) // 6), "reason": f"{len(answer)} chars"})


@pytest.fixture
def judged(tmp_path: Path) -> tuple[Path, str]:
    """A store with one coherence run by the length judge over ``RATED``'s answers."""
    data = tmp_path / "qa.jsonl"
    data.write_text("".join(json.dumps({"id": f"r{i}", "question": "Q?", "answer": a,
                                        "topic": "tents"}) + "\n"
                            for i, (a, _) in enumerate(RATED)))
    path = tmp_path / "runs.sqlite"
    result = assay.evaluate(data, metrics="coherence", judge=FakeJudge(_by_length, id="len"),
                            judging=JudgeOptions(cache=False),
                            run=RunOptions(store=path, out=tmp_path / "run"))
    return path, str(result.summary["run_id"])


def test_exported_labels_go_straight_into_calibrate(judged: tuple[Path, str],
                                                     tmp_path: Path) -> None:
    path, rid = judged
    with open_store(path) as opened:
        for i, (_, human) in enumerate(RATED):
            opened.save_label(rid, f"r{i}", "coherence", rater="ann", value=human,
                              comment="short" if i == 0 else None)
    out = tmp_path / "rated.jsonl"
    run_folder = tmp_path / "run"  # its --out: the folder stands for the stored run
    done = CliRunner().invoke(app, ["labels", "export", str(run_folder), "--out", str(out),
                                    "--store", str(path)])
    assert done.exit_code == 0, done.output
    assert f"wrote 6 rated rows of run {rid}" in done.output
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines[0] == {"topic": "tents", "question": "Q?", "answer": "ok", "id": "r0",
                        "coherence/human_rating": 1, "coherence/human_comment": "short"}
    got = assay.calibrate(out, metric="coherence", judges=[FakeJudge(_by_length, id="len")],
                          out=tmp_path / "cal", cache=None)
    report = got.reports["len"]
    assert report["n_compared"] == 6 and report["no_human"] == 0
    assert report["spearman"] == pytest.approx(1.0)
    judged_scores = [min(5, 1 + len(a) // 6) for a, _ in RATED]
    assert report["exact_agreement"] == pytest.approx(
        sum(j == h for j, (_, h) in zip(judged_scores, RATED)) / 6)


def test_pairwise_labels_export_as_choices_for_calibrate(tmp_path: Path) -> None:
    template = tmp_path / "pref.md"
    template.write_text("---\nname: pref\nkind: pairwise\n---\n"
                        "A: {{ response_a }}\nB: {{ response_b }}\n")
    pairs = [("good", "bad", "CANDIDATE"), ("bad", "good", "BASELINE"), ("good", "good", "TIE")]
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps({"id": f"p{i}", "answer": a,
                                        "baseline_model_response": b}) + "\n"
                            for i, (a, b, _) in enumerate(pairs)))

    def prefers_good(req: JudgeRequest) -> str:
        a, b = req.messages[-1]["content"].split("\nB: ")
        choice = "TIE" if ("good" in a) == ("good" in b) else (
            "model_A" if "good" in a else "model_B")
        return json.dumps({"choice": choice, "reason": "good beats bad"})

    metric = assay.load_metric_file(template)
    store_path = tmp_path / "runs.sqlite"
    result = assay.evaluate(data, metrics=[metric], judge=FakeJudge(prefers_good, id="j"),
                            judging=JudgeOptions(cache=False),
                            run=RunOptions(store=store_path, out=tmp_path / "run"))
    rid = str(result.summary["run_id"])
    with open_store(store_path) as opened:
        for i, (_, _, human) in enumerate(pairs):
            opened.save_label(rid, f"p{i}", "pref", rater="ann", value=human.lower())
    out = tmp_path / "rated.jsonl"
    done = CliRunner().invoke(app, ["labels", "export", rid, "--out", str(out),
                                    "--store", str(store_path)])
    assert done.exit_code == 0, done.output
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["pref/human_pairwise_choice"] for x in lines] == [p[2] for p in pairs]
    assert lines[0]["baseline_model_response"] == "bad"
    got = assay.calibrate(out, metric=metric, judges=[FakeJudge(prefers_good, id="j")],
                          out=tmp_path / "cal", cache=None)
    assert got.reports["j"]["confusion_matrix"] == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]


def test_several_raters_combined_or_one_picked(judged: tuple[Path, str], tmp_path: Path) -> None:
    path, rid = judged
    with open_store(path) as opened:
        for rater, value in (("ann", 2), ("bob", 5)):
            opened.save_label(rid, "r0", "coherence", rater=rater, value=value)
        opened.save_label(rid, "r1", "pref", rater="ann", value="BASELINE")
        opened.save_label(rid, "r1", "pref", rater="bob", value="CANDIDATE")
    out = tmp_path / "rated.jsonl"
    done = CliRunner().invoke(app, ["labels", "export", rid, "--out", str(out),
                                    "--store", str(path)])
    assert done.exit_code == 0, done.output
    assert "2 row-metric labels came from several raters" in done.output
    assert "1 left out" in done.output and "r1/pref" in done.output
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(x["id"], x["coherence/human_rating"]) for x in lines] == [("r0", 2)]  # lower median
    assert "coherence/human_comment" not in lines[0]
    bob = CliRunner().invoke(app, ["labels", "export", rid, "--out", str(out), "--rater", "bob",
                                   "--store", str(path)])
    assert bob.exit_code == 0, bob.output
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(x["id"], x.get("coherence/human_rating"), x.get("pref/human_pairwise_choice"))
            for x in lines] == [("r0", 5, None), ("r1", None, "CANDIDATE")]


def test_export_errors_name_the_run_and_the_fix(judged: tuple[Path, str],
                                                tmp_path: Path) -> None:
    path, rid = judged
    out = tmp_path / "rated.jsonl"
    unknown = CliRunner().invoke(app, ["labels", "export", "nope", "--out", str(out),
                                       "--store", str(path)])
    assert unknown.exit_code == 2 and "No run 'nope'" in unknown.output
    empty = CliRunner().invoke(app, ["labels", "export", rid, "--out", str(out),
                                     "--store", str(path)])
    assert empty.exit_code == 2 and f"Run {rid} has no labelled rows" in empty.output
    assert f"/runs/{rid}/review" in empty.output and not out.exists()
    with open_store(path) as opened:
        opened.save_label(rid, "r0", "coherence", rater="ann", value=3)
    nobody = CliRunner().invoke(app, ["labels", "export", rid, "--out", str(out), "--rater",
                                      "zed", "--store", str(path)])
    assert nobody.exit_code == 2 and "by rater 'zed'" in nobody.output


# -- export, then align ----------------------------------------------------------------------


def test_exported_labels_go_straight_into_align(tmp_path: Path) -> None:
    """Labels given on a run of a custom metric and exported with the CLI are what ``align``
    reads: both files written, and the aligned metric file runs with ``assay run`` (named in
    ``--metrics`` too: run once, from the file)."""
    from assay.align import align
    from assay.metrics.custom import load_metric_file

    metric_file = Path(__file__).parents[1] / "examples" / "metrics" / "helpfulness.md"
    humans = [1, 2, 3] * 6
    data = tmp_path / "qa.jsonl"
    data.write_text("".join(json.dumps({"id": f"r{i}", "question": f"Question {i}?",
                                        "answer": f"answer {i} level {h}"}) + "\n"
                            for i, h in enumerate(humans)))

    def two_high(req: JudgeRequest) -> str:  # ranks like the people, two points too high
        level = int(req.messages[-1]["content"].rsplit("level ", 1)[1][0])
        return json.dumps({"score": min(5, level + 2), "reason": "scripted"})

    path = tmp_path / "runs.sqlite"
    run = assay.evaluate(data, metrics=[load_metric_file(metric_file)],
                         judge=FakeJudge(two_high, id="high"), judging=JudgeOptions(cache=False),
                         run=RunOptions(store=path, out=tmp_path / "run"))
    rid = str(run.summary["run_id"])
    with open_store(path) as opened:
        for i, human in enumerate(humans):
            opened.save_label(rid, f"r{i}", "helpfulness", rater="ann", value=human)
    rated = tmp_path / "rated.jsonl"
    done = CliRunner().invoke(app, ["labels", "export", rid, "--out", str(rated),
                                    "--store", str(path)])
    assert done.exit_code == 0, done.output

    align(rated, metric=load_metric_file(metric_file), judge=FakeJudge(two_high),
          out=tmp_path / "aligned", cache=None, shots=(1,))
    report = json.loads((tmp_path / "aligned" / "alignment.json").read_text())
    assert report["train"] + report["heldout"] == len(humans)
    before, after = (report[k]["balanced_accuracy"]["value"] for k in ("before", "after"))
    assert before < 0.5 < after  # two points too high, then mapped back
    done = CliRunner().invoke(app, ["run", str(data), "--metric-file",
                                    str(tmp_path / "aligned" / "helpfulness-aligned.md"),
                                    "--metrics", "helpfulness", "--judge", "fake", "--no-cache",
                                    "--no-store", "--out", str(tmp_path / "again")])
    assert done.exit_code == 0, done.output
    rows = [json.loads(x) for x in (tmp_path / "again" / "results.jsonl").read_text().splitlines()]
    assert len(rows) == len(humans) and all(r["helpfulness"]["value"] is not None for r in rows)
