"""The one job skeleton (assay.records.Job) that simulate, jailbreak and robustness run on:
its output held by the real lock (a second writer refused while the first runs), one resume
rule, rows written as they finish and rewritten in item order, Ctrl-C keeping what is
written, and the run recorded in the store with its kind."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from assay.errors import ConfigError
from assay.records import Job, ResumeWords
from assay.store import open_store

WORDS = ResumeWords("numbers", "the numbers", "made of other numbers", "the same numbers")


async def _square(n: int) -> dict[str, Any]:
    await asyncio.sleep(0.005 * (5 - n))  # later items finish first
    return {"id": str(n), "square": n * n}


def _ids(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text().splitlines()]


async def test_rows_are_rewritten_in_item_order_and_recorded_with_the_kind(tmp_path: Path
                                                                           ) -> None:
    store = open_store(tmp_path / "runs.sqlite")
    out = tmp_path / "sq.jsonl"
    with Job(out, kind="simulate", store=store, name="squares") as job:
        job.begin({"n": 5}, keys=("n",), words=WORDS)
        done = await job.run(range(1, 6), _square, key=str, parallel=5)
        run_id = job.finish({"rows": 5}, summary_path=tmp_path / "sq.summary.json")
    assert _ids(out) == ["1", "2", "3", "4", "5"] and done.worked == 5
    manifest = json.loads((tmp_path / "sq.run.json").read_text())
    assert manifest["status"] == "complete" and manifest["run_id"] == run_id
    info = store.get(str(run_id))
    assert (info.kind, info.status, info.rows, info.name) == ("simulate", "complete", 5,
                                                              "squares")
    assert sorted(r["id"] for r in store.rows(str(run_id))) == ["1", "2", "3", "4", "5"]


async def test_a_second_writer_is_refused_while_the_first_holds_the_output(tmp_path: Path
                                                                           ) -> None:
    """Two claims in one process use two descriptors: flock refuses the second, as it would
    a second process."""
    out = tmp_path / "sq.jsonl"
    with Job(out, kind="generate") as first:
        first.begin({"n": 1}, keys=("n",), words=WORDS)
        with pytest.raises(ConfigError, match="is in use by another assay run") as e, \
                Job(out, kind="generate"):
            pass
        assert "Fix: wait for it to finish, or use" in str(e.value)
        await first.run([1], _square, key=str)
        first.finish({})
    with Job(out, kind="generate"):  # released: the next one takes it
        pass


async def test_an_earlier_run_is_refused_without_resume_or_overwrite_and_a_changed_resume_names_it(
        tmp_path: Path) -> None:
    out = tmp_path / "sq.jsonl"
    with Job(out, kind="generate") as job:
        job.begin({"n": 2}, keys=("n",), words=WORDS)
        await job.run([1, 2], _square, key=str)
        job.finish({})
    with Job(out, kind="generate") as job, pytest.raises(ConfigError) as e:
        job.begin({"n": 2}, keys=("n",), words=WORDS)
    assert "already holds numbers" in str(e.value) and "resume=True" in str(e.value)
    with Job(out, kind="generate") as job, pytest.raises(ConfigError) as e:
        job.begin({"n": 3}, keys=("n",), words=WORDS, resume=True)
    assert "made of other numbers (n was 2, now 3)" in str(e.value)
    assert _ids(out) == ["1", "2"]  # refused: nothing touched
    assert json.loads((tmp_path / "sq.run.json").read_text())["status"] == "complete"


async def test_a_resume_keeps_finished_rows_works_the_rest_and_stores_them_all(tmp_path: Path
                                                                               ) -> None:
    store = open_store(tmp_path / "runs.sqlite")
    out = tmp_path / "sq.jsonl"
    out.write_text('{"id": "1", "square": 1}\n{"id": "2", "error": "app down"}\n')
    (tmp_path / "sq.run.json").write_text('{"n": 3}')
    worked: list[int] = []

    async def square(n: int) -> dict[str, Any]:
        worked.append(n)
        return await _square(n)

    with Job(out, kind="attack", store=store) as job:
        job.begin({"n": 3}, keys=("n",), words=WORDS, resume=True)
        done = await job.run([1, 2, 3], square, key=str, resume=True,
                             keep=lambda row: not row.get("error"))
        run_id = job.finish({})
    assert sorted(worked) == [2, 3] and done.worked == 2
    assert [r.get("square") for r in done.rows] == [1, 4, 9] and _ids(out) == ["1", "2", "3"]
    assert store.get(str(run_id)).rows == 3


async def test_a_cancelled_job_keeps_what_it_wrote_and_says_interrupted(tmp_path: Path
                                                                        ) -> None:
    """Ctrl-C reaches a job as the cancellation of its task (asyncio.run cancels the main
    task, then raises KeyboardInterrupt): the CLI side is in test_simulated_users."""
    store = open_store(tmp_path / "runs.sqlite")
    out = tmp_path / "sq.jsonl"
    job = Job(out, kind="simulate", store=store)

    async def square(n: int) -> dict[str, Any]:
        if n == 3:
            await asyncio.sleep(30)  # cancelled long before
        return {"id": str(n), "square": n * n}

    async def work() -> None:
        with job:
            job.begin({"n": 3}, keys=("n",), words=WORDS)
            await job.run([1, 2, 3], square, key=str, parallel=3)

    task = asyncio.create_task(work())
    while not out.exists() or len(out.read_text().splitlines()) < 2:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert sorted(_ids(out)) == ["1", "2"]
    assert json.loads((tmp_path / "sq.run.json").read_text())["status"] == "interrupted"
    info = store.get(str(job.run_id))
    assert (info.status, info.rows) == ("interrupted", 2)
    with Job(out, kind="simulate") as again:  # the lock went with the first
        again.begin({"n": 3}, keys=("n",), words=WORDS, resume=True)


async def test_a_resume_continues_the_interrupted_stored_run_and_a_complete_one_stays_as_it_was(
        tmp_path: Path) -> None:
    """The manifest names the stored run: a resume of an interrupted job adds to that run (one
    run in `assay runs`, not one per attempt); a complete run is never changed."""
    store = open_store(tmp_path / "runs.sqlite")
    out = tmp_path / "sq.jsonl"

    async def fails_on_three(n: int) -> dict[str, Any]:
        if n == 3:
            raise RuntimeError("judge down")
        return await _square(n)

    with pytest.raises(RuntimeError), Job(out, kind="simulate", store=store) as job:
        job.begin({"n": 3}, keys=("n",), words=WORDS, judge="openai:judge-model")
        await job.run([1, 2, 3], fails_on_three, key=str, parallel=1)
    first = str(job.run_id)
    assert store.get(first).status == "interrupted"
    with Job(out, kind="simulate", store=store) as again:
        again.begin({"n": 3}, keys=("n",), words=WORDS, resume=True, judge="openai:judge-model")
        await again.run([1, 2, 3], _square, key=str, resume=True)
        again.finish({"rows": 3})
    assert again.run_id == first and len(store.runs()) == 1
    info = store.get(first)
    assert (info.status, info.rows, info.judge) == ("complete", 3, "openai:judge-model")
    with Job(out, kind="simulate", store=store) as third:
        third.begin({"n": 3}, keys=("n",), words=WORDS, resume=True)
        await third.run([1, 2, 3], _square, key=str, resume=True)
        third.finish({"rows": 3})
    assert third.run_id != first and store.get(first).status == "complete"
    assert len(store.runs()) == 2


def test_a_refused_job_records_nothing(tmp_path: Path) -> None:
    store = open_store(tmp_path / "runs.sqlite")
    out = tmp_path / "sq.jsonl"
    out.write_text('{"id": "1"}\n')
    with Job(out, kind="generate", store=store) as job, pytest.raises(ConfigError):
        job.begin({"n": 1}, keys=("n",), words=WORDS)
    assert store.runs() == []


async def _refusing_app(messages: list[dict[str, str]]) -> str:
    return "I'm sorry, I can't help with that."


class _Answers:
    id = "answers"

    async def answer(self, question: str, passages: list[str], lang: str) -> str:
        return "Paris."


@pytest.mark.parametrize("producer", ["generate", "simulate_users", "simulate", "jailbreak",
                                      "attack", "run_suite"])
async def test_every_producers_python_api_is_refused_on_an_output_another_writer_holds(
        tmp_path: Path, producer: str) -> None:
    """The lock is the commands' (hold_output); this test holds it on its own descriptor, as
    a second process would. Before: the Python APIs took no lock and wrote over it."""
    from assay.generate import generate_async
    from assay.records._outdir import hold_output
    from assay.redteam import FunctionTarget, attack, jailbreak, load_seeds, plain_attacks, simulate
    from assay.robustness import Instance, run_suite
    from assay.scenarios import simulate_users_async

    folder = producer in ("jailbreak", "attack", "run_suite")
    out = tmp_path / ("out" if folder else "out.jsonl")
    app = FunctionTarget(_refusing_app)
    runs = {
        "generate": lambda: generate_async([tmp_path / "doc.md"], out=out, judge="fake", n=1,
                                           cache=False, embeddings=None),
        "simulate_users": lambda: simulate_users_async(
            [{"id": "s1", "goal": "g"}], target="python:examples.agent_app:agent", out=out,
            user_model="fake", cache=False),
        "simulate": lambda: simulate(plain_attacks(load_seeds()[:1]), app, out),
        "jailbreak": lambda: jailbreak(app, out=out, n=1, judge="fake", cache=False),
        "attack": lambda: attack(app, strategy="pair", out=out, n=1, judge="fake",
                                 cache=False),
        "run_suite": lambda: run_suite([Instance(id="i", query="q", answer=[["Paris"]],
                                                 positive=["Paris."], negative=["x"])],
                                       "noise", _Answers(), out=out),  # type: ignore[arg-type]
    }
    (tmp_path / "doc.md").write_text("# Doc\n\nParis is the capital of France.\n")
    with hold_output(out, folder=folder) as lock:
        with pytest.raises(ConfigError, match="is in use by another assay run") as e:
            await runs[producer]()
        assert str(lock) in str(e.value)
    assert not (out / "results.jsonl").exists() if folder else not out.exists()


async def test_parallel_below_one_is_refused_not_a_hang(tmp_path: Path) -> None:
    """Before: a Semaphore(0) in each loop waited for ever."""
    with Job(tmp_path / "sq.jsonl", kind="generate") as job:
        job.begin({"n": 1}, keys=("n",), words=WORDS)
        with pytest.raises(ConfigError, match="parallel=0. Must be a whole number"):
            await job.run([1], _square, key=str, parallel=0)


async def test_a_robustness_folder_is_never_written_over_unasked(tmp_path: Path) -> None:
    """Before: a second run without --resume truncated the first's answers silently."""
    from assay.robustness import Instance, run_suite

    items = [Instance(id="i", query="q", answer=[["Paris"]], positive=["Paris."],
                      negative=["x"])]
    out = tmp_path / "r"
    await run_suite(items, "noise", _Answers(), out=out, ratios=(0,))  # type: ignore[arg-type]
    before = (out / "results.jsonl").read_bytes()
    with pytest.raises(ConfigError, match="already holds a robustness run.*resume=True"):
        await run_suite(items, "noise", _Answers(), out=out, ratios=(0,))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"other instances or settings \(noise_ratios was "
                                          r"\[0\], now \[0, 0.5\]\)"):
        await run_suite(items, "noise", _Answers(), out=out, ratios=(0, 0.5),  # type: ignore[arg-type]
                        resume=True)
    assert (out / "results.jsonl").read_bytes() == before
    again = await run_suite(items, "noise", _Answers(), out=out,  # type: ignore[arg-type]
                            ratios=(0, 0.5), overwrite=True)
    assert len(again) == 2


def test_a_watch_spool_is_held_by_the_same_lock_naming_its_holder(tmp_path: Path) -> None:
    """Before: the spool had a lock of its own that named no holder."""
    import os

    from assay.watch._spool import Spool

    first = Spool(tmp_path / "spool")
    try:
        with pytest.raises(ConfigError) as e:
            Spool(tmp_path / "spool")
        text = str(e.value)
        assert f"PID {os.getpid()}" in text and str(tmp_path / "spool" / "spool.lock") in text
        assert "Fix: stop it, or give this one another" in text
    finally:
        first.close()
    Spool(tmp_path / "spool").close()  # released with the first


async def test_after_an_error_no_item_starts_and_the_error_is_raised(tmp_path: Path) -> None:
    """Work that never yields to the loop: without the stop, the items let in by the freed
    slot would all run before the cancellation lands."""
    started: list[int] = []

    async def work(n: int) -> dict[str, Any]:
        started.append(n)
        if n == 2:
            raise RuntimeError("the judge stopped")
        return {"id": str(n)}

    with Job(tmp_path / "sq.jsonl", kind="generate") as job:
        job.begin({"n": 5}, keys=("n",), words=WORDS)
        with pytest.raises(RuntimeError, match="the judge stopped"):
            await job.run([1, 2, 3, 4, 5], work, key=str, parallel=1)
    assert started == [1, 2] and _ids(tmp_path / "sq.jsonl") == ["1"]


async def test_each_reads_an_async_source_only_as_workers_free_up(tmp_path: Path) -> None:
    """evaluate streams its dataset through the jobs' one loop: a large file is never held.
    Before: Job.each took only a list (a TypeError on an async iterable)."""
    taken: list[int] = []
    most_ahead = 0
    finished: list[int] = []

    async def source():  # type: ignore[no-untyped-def]
        for n in range(1, 41):
            taken.append(n)
            yield n

    async def work(n: int) -> int:
        nonlocal most_ahead
        most_ahead = max(most_ahead, len(taken) - len(finished))
        await asyncio.sleep(0.001 * (n % 3))
        return n * n

    with Job(tmp_path / "sq.jsonl", kind="generate") as job:
        job.begin({"n": 40}, keys=("n",), words=WORDS)
        await job.each(source(), work, lambda n, sq: finished.append(n), parallel=4,
                       total=40)
    assert sorted(finished) == list(range(1, 41))
    assert most_ahead <= 4  # at most `parallel` items out at once


async def test_ctrl_c_inside_an_item_reaches_the_caller_as_itself(tmp_path: Path) -> None:
    """evaluate's engine now runs on Job.each: a KeyboardInterrupt raised in an item must
    come out of the loop as KeyboardInterrupt, so the caller's clean-up (summary, manifest
    ``interrupted``) runs. Before: it stopped the event loop and the caller saw a
    CancelledError instead."""
    out = tmp_path / "sq.jsonl"

    async def work(n: int) -> dict[str, Any]:
        if n == 3:
            raise KeyboardInterrupt
        return {"id": str(n)}

    async def main() -> str:
        with Job(out, kind="generate") as job:
            job.begin({"n": 5}, keys=("n",), words=WORDS)
            try:
                await job.run([1, 2, 3, 4, 5], work, key=str, parallel=1)
            except KeyboardInterrupt:
                return "interrupted, cleaned up"
        return "finished"

    # in a thread's own loop: the old behaviour stops that loop, not the test's
    assert await asyncio.to_thread(asyncio.run, main()) == "interrupted, cleaned up"
    assert _ids(out) == ["1", "2"]
    assert json.loads(out.with_name("sq.run.json").read_text())["status"] == "interrupted"


def test_evaluates_run_folder_is_claimed_by_the_job_with_its_manifest_rule(tmp_path: Path
                                                                           ) -> None:
    """evaluate claims its folder through Job: one lock, and run.json's rule (a resume names
    each difference of dataset, metrics, judge). Before: Job.begin took only a flat dict, and
    evaluate kept a claim of its own."""
    from assay.records import RunManifest, read_manifest

    out = tmp_path / "run"

    def manifest(metrics: dict[str, str]) -> RunManifest:
        return RunManifest(dataset="qa.jsonl", dataset_sha256="ab", metrics=metrics,
                           judge=None)

    with Job(out, kind="eval", folder=True) as job:
        job.begin(manifest({"f1_score": "1"}))
        job.run_id = "r1"
        job.finish({})
    assert (read_manifest(out).status, read_manifest(out).run_id) == ("complete", "r1")
    with Job(out, kind="eval", folder=True) as job:
        with pytest.raises(ConfigError, match="already holds a complete run of qa.jsonl"):
            job.begin(manifest({"f1_score": "1"}))
        with pytest.raises(ConfigError, match="metrics: this run adds bleu_score"):
            job.begin(manifest({"f1_score": "1", "bleu_score": "1"}), resume=True)
        job.begin(manifest({"f1_score": "1"}), resume=True)
        with pytest.raises(ConfigError, match="is in use by another assay run"):
            Job(out, kind="generate", folder=True).__enter__()
    assert read_manifest(out).status == "interrupted"  # left without finish
    assert read_manifest(out).run_id == "r1"  # the resumed run's id kept


async def test_rows_reach_the_file_and_the_store_in_item_order_as_they_finish(tmp_path: Path
                                                                              ) -> None:
    """Job.run writes through evaluate's ordered writer. Before: rows went to the file and the
    store in the order they finished (5, 4, 3, 2, 1 here), the file fixed only at the end."""
    store = open_store(tmp_path / "runs.sqlite")
    out = tmp_path / "sq.jsonl"
    seen: list[list[str]] = []

    async def square(n: int) -> dict[str, Any]:
        seen.append(_ids(out) if out.exists() else [])  # the file as each item starts
        return await _square(n)

    with Job(out, kind="simulate", store=store) as job:
        job.begin({"n": 5}, keys=("n",), words=WORDS)
        await job.run(range(1, 6), square, key=str, parallel=3)
        run_id = job.finish({})
    assert [r["id"] for r in store.rows(str(run_id))] == ["1", "2", "3", "4", "5"]
    assert all(ids == ["1", "2", "3", "4", "5"][:len(ids)] for ids in seen)
