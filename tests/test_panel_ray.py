"""A panel of judges on the Ray engine: the same records and panel figures as the local
engine (each worker builds the panel; the usage per judge is summed over the workers)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest

import support
from assay import FakeJudge, JudgeOptions, RunOptions, evaluate
from assay.judges import JudgeCapabilities, JudgeRequest

ROWS = [{"id": f"r{i}", "question": f"What colour is item {i}?",
         "answer": f"Item {i} is {['red', 'green', 'blue'][i % 3]}.",
         "context": f"Item {i} is red.", "ground_truth": "red"} for i in range(12)]
PRICED = JudgeCapabilities(input_price=1e-6, output_price=4e-6)


def strict(request: JudgeRequest) -> str:
    text = request.messages[-1]["content"]
    return f'{{"score": {1 + sum(map(ord, text)) % 5}, "reason": "strict"}}'


def lenient(request: JudgeRequest) -> str:
    text = request.messages[-1]["content"]
    return f'{{"score": {min(5, 2 + sum(map(ord, text)) % 4)}, "reason": "lenient"}}'


def panel() -> list[FakeJudge]:
    return [FakeJudge(strict, id="strict", capabilities=PRICED),
            FakeJudge(lenient, id="lenient")]


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[Any]:
    """One local Ray for the module; this module's scripts go to the workers by value."""
    yield from support.local_ray(sys.modules[__name__])


def test_a_panel_on_ray_gives_the_local_records_and_figures(ray_instance: Any) -> None:
    def run(engine: str) -> Any:
        return evaluate(ROWS, metrics="f1_score,fluency,relevance", judge=panel(),
                        judging=JudgeOptions(cache=None, concurrency=4),
                        run=RunOptions(store=False, engine=engine))

    local, on_ray = run("local"), run("ray")
    assert support.timeless(on_ray.rows) == support.timeless(local.rows) and len(local.rows) == 12
    assert set(local.rows[0]["fluency"]["details"]["panel"]) == {"strict", "lenient"}
    assert on_ray.summary["metrics"] == local.summary["metrics"]
    assert on_ray.summary["panel"]["agreement"] == local.summary["panel"]["agreement"]
    usage = on_ray.summary["panel"]["usage"]
    assert {j: u["requests"] for j, u in usage.items()} == {"strict": 24, "lenient": 24}
    assert usage["strict"]["cost_usd"] == local.summary["panel"]["usage"]["strict"]["cost_usd"]
    assert usage["lenient"]["cost_usd"] is None
    assert on_ray.summary["judge"]["id"] == "panel(strict, lenient)"
    assert on_ray.summary["judge"]["requests"] == 48
    assert not any("\t" in key for key in on_ray.summary["judge"])
