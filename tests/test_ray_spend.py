"""The spending limit (--max-cost / --max-tokens) shared by the workers of a Ray run.

The spend actor's logic is tested as plain Python (no Ray); one end-to-end test runs
``assay run --engine ray`` (two workers) against the bench's fake judge: it stops at half the
run's cost with exit 6 and ``--resume`` finishes at the uninterrupted run's total. Without ray
installed it is skipped, unless ``ASSAY_REQUIRE_RAY=1`` (CI), where it fails.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from assay.calls import BudgetReachedError, ManagedJudge, SpendLimit
from assay.calls._ray_spend import SpendActor, SpendClient
from assay.judges import FakeJudge, JudgeRequest
from conftest import QA50
from test_budget import _run as run_budgeted

#: gpt-4o-mini's list price, US dollars per prompt / completion token.
PRICE_IN, PRICE_OUT = 0.15e-6, 0.6e-6


class _Ref:
    """What ``actor.method.remote(...)`` returns, for an actor called in this process: awaitable,
    and a ``future()`` as Ray's object refs have."""

    def __init__(self, coro: Any) -> None:
        self.task = asyncio.ensure_future(coro)

    def __await__(self) -> Any:
        return self.task.__await__()

    def future(self) -> Any:
        import concurrent.futures

        done: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.task.add_done_callback(lambda t: done.set_result(t.result()))
        return done


class LocalHandle:
    """A Ray actor handle's shape over a plain :class:`SpendActor` (``handle.m.remote()``)."""

    def __init__(self, actor: SpendActor) -> None:
        self._actor = actor

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._actor, name)

        class _Remote:
            @staticmethod
            def remote(*args: Any) -> _Ref:
                return _Ref(method(*args))

        return _Remote


def _request(i: int) -> JudgeRequest:
    return JudgeRequest(messages=[{"role": "user", "content": f"row {i} " + "x" * 390}],
                        schema_name="rating", max_tokens=20)


def _priced(prompt: int, completion: int) -> float:
    return prompt * PRICE_IN + completion * PRICE_OUT


def test_two_workers_share_one_limit_and_both_stop_before_it() -> None:
    """Two workers' judges, each with its own client of one actor: together they never pass
    the limit, what was in flight finished, and both refuse after it."""
    one = _priced(_request(0).estimate_prompt_tokens(), 20)
    actor = SpendActor(max_cost=one * 5.5)
    answer = '{"score": 5, "reason": "ok"}'

    async def run() -> tuple[list[Any], list[SpendClient]]:
        handle = LocalHandle(actor)
        clients = [SpendClient(handle, max_cost=actor.limit.max_cost, max_tokens=None)
                   for _ in range(2)]
        judges = [ManagedJudge(FakeJudge(answer, latency_s=0.02), concurrency=3,
                               spend=client, price=lambda u: _priced(u.prompt_tokens,
                                                                      u.completion_tokens))
                  for client in clients]  # type: ignore[arg-type]
        outcomes = await asyncio.gather(*(judges[i % 2].complete(_request(i)) for i in range(12)),
                                        return_exceptions=True)
        for client in clients:
            await client.flush()
        return outcomes, clients

    outcomes, clients = asyncio.run(run())
    answered = [o for o in outcomes if not isinstance(o, BaseException)]
    refused = [o for o in outcomes if isinstance(o, BudgetReachedError)]
    assert len(answered) + len(refused) == 12 and refused and answered
    spent = sum(_priced(a.prompt_tokens, a.completion_tokens) for a in answered)
    assert actor.limit.spent_usd == pytest.approx(spent)  # every settle reached the actor
    assert spent <= actor.limit.max_cost
    assert actor.limit.reached and all(c.reached for c in clients)
    assert "of --max-cost $" in str(refused[0])


def test_the_actor_refuses_every_request_after_the_limit_and_says_what_was_spent() -> None:
    actor = SpendActor(max_tokens=1000)

    async def run() -> list[Any]:
        first = await actor.reserve(600, 0.0)
        refused = await asyncio.wait_for(actor.reserve(600, 0.0), 1)  # waits for the first
        return [first, refused]

    async def settle_soon() -> list[Any]:
        task = asyncio.ensure_future(run())
        await asyncio.sleep(0.01)
        await actor.settle(1, 550, 0.0)  # 550 + 600 > 1000 on what is spent: reached
        got = await task
        return [*got, await actor.reserve(10, 0.0), await actor.spent()]

    first, refused, later, spent = asyncio.run(settle_soon())
    assert first == (1, None)
    assert refused == (None, "550 of --max-tokens 1,000 tokens")
    assert later == (None, "550 of --max-tokens 1,000 tokens")  # reached stays reached
    assert spent == (0.0, 550)


def test_a_settle_for_an_unknown_reservation_is_ignored() -> None:
    actor = SpendActor(max_cost=1.0)
    asyncio.run(actor.settle(42, 10, 0.5))
    assert actor.limit.spent_usd == 0.0


def test_the_client_has_the_spend_limit_interface() -> None:
    client = SpendClient(None, max_cost=None, max_tokens=5)
    assert client.active and not client.reached
    assert all(callable(getattr(client, name)) for name in dir(SpendLimit)
               if name in {"reserve", "settle", "describe", "stop"})
    assert isinstance(client.stop(), BudgetReachedError)


def test_a_worker_stopped_by_the_limit_returns_its_finished_rows_and_what_was_spent() -> None:
    """Two workers (the actor class itself, no Ray) with one token limit: each batch comes
    back with the records of the rows that finished and, when the limit stopped the rest,
    what was spent; no row is lost, none is invented, and no request passes the limit."""
    from assay.calls import JudgeCallOptions
    from assay.data import rows_from_records
    from assay.judges import JudgeCapabilities
    from assay.metrics import get_metric
    from assay.run._ray_worker import ScoreWorker
    from assay.run._score import ScoreSettings

    judge = FakeJudge('{"score": 4, "reason": "ok"}', latency_s=0.02,
                      capabilities=JudgeCapabilities())  # no price: tokens need none
    actor = SpendActor(max_tokens=4000)
    settings = ScoreSettings(calls=JudgeCallOptions(cache=None, concurrency=2,
                                                    max_tokens=4000))
    rows = rows_from_records([{"id": f"r{i}", "answer": f"Item {i} is red."}
                              for i in range(24)])

    async def run() -> list[Any]:
        handle = LocalHandle(actor)
        workers = [ScoreWorker([get_metric("fluency")], judge, None, settings, None, handle)
                   for _ in range(2)]
        try:
            return await asyncio.gather(*(workers[i % 2].score_batch(
                [(row, {}) for row in rows[i * 6:(i + 1) * 6]]) for i in range(4)))
        finally:
            for worker in workers:
                await worker.close()

    results = asyncio.run(run())
    records = [r for batch in results for r in batch[0]]
    stopped = [batch[3] for batch in results if batch[3] is not None]
    assert stopped and 0 < len(records) < 24
    assert all(r["fluency"]["value"] == 4.0 for r in records)  # finished rows, as scored
    assert actor.limit.reached and actor.limit.spent_tokens <= 4000
    assert len(judge.requests) == len(records)  # each sent request finished its row
    assert all(s.endswith("of --max-tokens 4,000 tokens") for s in stopped)


# -- end to end: assay run --engine ray against the bench's fake judge (real HTTP, subprocess)

def _needs_ray() -> None:
    try:
        import ray  # noqa: F401
    except ImportError:
        if os.environ.get("ASSAY_REQUIRE_RAY"):
            pytest.fail("ASSAY_REQUIRE_RAY is set but ray is not installed")
        pytest.skip("ray is not installed (pip install 'assay[ray]')")


def _run(tmp: Path, server: Any, data: Path, out: str, *extra: str,
         judge: str = "openai:gpt-4o-mini") -> subprocess.CompletedProcess[str]:
    return run_budgeted(tmp, server, data, out, *extra, judge=judge, timeout=240)  # Ray starts


def test_max_cost_on_ray_stops_the_whole_run_with_exit_6_and_resume_finishes_it(
        tmp_path: Path, fake_judge_server: Any) -> None:
    _needs_ray()
    lines = [x for x in QA50.read_text(encoding="utf-8").split("\n") if x.strip()][:24]
    data = tmp_path / "qa.jsonl"
    data.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    ray_flags = ("--engine", "ray", "--ray-workers", "2", "--concurrency", "4")

    whole = fake_judge_server("--latency-ms", "20")  # the uninterrupted run (local: same requests)
    assert _run(tmp_path, whole, data, "whole", "--cache", str(tmp_path / "a.sqlite")
                ).returncode == 0
    uninterrupted = whole.records()
    cost = sum(_priced(r["prompt_tokens"], r["completion_tokens"]) for r in uninterrupted)
    most = max(_priced(r["prompt_tokens"], r["completion_tokens"]) for r in uninterrupted)

    server = fake_judge_server("--latency-ms", "20")
    cache = ("--cache", str(tmp_path / "b.sqlite"))
    stopped = _run(tmp_path, server, data, "half", *cache, *ray_flags, "--max-cost",
                   str(cost / 2))
    assert stopped.returncode == 6, stopped.stderr
    first = server.records()
    spent = sum(_priced(r["prompt_tokens"], r["completion_tokens"]) for r in first)
    assert 0 < len(first) < len(uninterrupted)
    assert cost / 2 - 2 * most < spent <= cost / 2 + most  # the run's budget, not one per worker
    said = " ".join(stopped.stderr.split())
    told = re.search(r"budget reached: spent \$([0-9.e-]+) of --max-cost \$([0-9.e-]+)", said)
    assert told is not None, said  # what every worker spent (the actor's count), not one's
    assert float(told[1]) == pytest.approx(spent, rel=1e-3)
    assert float(told[2]) == pytest.approx(cost / 2, rel=1e-3)
    assert "--resume" in said
    summary = json.loads((tmp_path / "half" / "summary.json").read_text())
    assert summary["complete"] is False
    kept = [json.loads(x) for x in (tmp_path / "half" / "results.jsonl").read_text().splitlines()]
    assert kept and all(r["fluency"]["value"] is not None for r in kept)  # no invented score

    resumed = _run(tmp_path, server, data, "half", *cache, *ray_flags, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert abs(len(server.records()) - len(uninterrupted)) <= 1
    summary = json.loads((tmp_path / "half" / "summary.json").read_text())
    assert summary["complete"] is True and summary["metrics"]["fluency"]["scored"] == 24
    whole_usd = json.loads((tmp_path / "whole" / "summary.json").read_text())["cost"]["usd"]
    # the whole run's, both parts, but for the known gap (docs/budget.md): a request answered
    # at the stop for a row that was not kept is read from the cache on --resume and counted
    # in neither part (at most the requests in flight: --concurrency 4)
    assert abs(whole_usd - summary["cost"]["usd"]) <= 4 * most


def test_an_unknown_price_on_ray_is_refused_in_flags_before_ray_starts(
        tmp_path: Path, fake_judge_server: Any) -> None:
    _needs_ray()
    server = fake_judge_server()
    data = tmp_path / "qa.jsonl"
    data.write_text(QA50.read_text(encoding="utf-8").split("\n")[0] + "\n", encoding="utf-8")
    proc = _run(tmp_path, server, data, "out", "--engine", "ray", "--no-cache", "--max-cost",
                "1", judge="openai:my-vllm")
    assert proc.returncode == 2, proc.stderr
    assert ("no price for openai:my-vllm; add it with --prices FILE or use --max-tokens"
            in " ".join(proc.stderr.split()))
    assert "Ray instance" not in proc.stderr and server.records() == []


def test_errors_that_stop_a_run_survive_pickling() -> None:
    """What a Ray worker raises reaches the driver as the same error, with its fields."""
    import pickle

    from assay.calls import BudgetReachedError
    from assay.errors import JudgeStoppedError, JudgeUnavailableError

    cause = JudgeUnavailableError("HTTP 401: bad key", kind="auth", status=401,
                                  endpoint="http://127.0.0.1:9/v1", fix="check the key")
    back = pickle.loads(pickle.dumps(JudgeStoppedError(cause, 3)))
    assert (type(back), back.failures, back.cause.kind, back.cause.status,
            back.cause.endpoint, back.cause.fix) == (JudgeStoppedError, 3, "auth", 401,
                                                      "http://127.0.0.1:9/v1", "check the key")
    budget = pickle.loads(pickle.dumps(BudgetReachedError("spent $1 of --max-cost $1")))
    assert type(budget) is BudgetReachedError and str(budget).startswith("budget reached: spent $1")


def test_a_judge_that_refuses_the_key_on_ray_exits_3_with_the_fix(
        tmp_path: Path, fake_judge_server: Any) -> None:
    _needs_ray()
    server = fake_judge_server("--fail-rate", "1", "--fail-status", "401")
    data = tmp_path / "qa.jsonl"
    data.write_text("".join(x + "\n" for x in QA50.read_text(encoding="utf-8").split("\n")[:6]),
                    encoding="utf-8")
    proc = _run(tmp_path, server, data, "out", "--no-cache", "--engine", "ray",
                "--ray-workers", "2")
    assert proc.returncode == 3, proc.stderr
    said = " ".join(proc.stderr.split())
    assert "HTTP status: 401" in said and "likely fix" in said and "--resume" in said
