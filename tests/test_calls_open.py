"""One way to ask a model: :class:`assay.calls.JudgeCallOptions` (one default per field, checked
where it is made) and the openers that assemble the call stack from it and close it once."""

from __future__ import annotations

import asyncio
import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.calls import JudgeCallOptions, open_embedder, open_judge, open_judges
from assay.cli.main import app
from assay.errors import ConfigError
from assay.judges import FakeJudge, JudgeRequest
from assay.run._score import Scorer, ScoreSettings
from conftest import SHARED

RGB = SHARED / "data" / "rgb"
REQUEST = JudgeRequest(messages=[{"role": "user", "content": "hi"}], schema_name="x")


class CountingJudge(FakeJudge):
    """A fake judge that counts how often it was closed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.closed = 0

    async def aclose(self) -> None:
        self.closed += 1


class CountingEmbedder:
    id, max_batch = "toy", 8

    def __init__(self) -> None:
        self.closed = 0

    async def embed(self, texts: list[str]) -> list[list[float]]:
        return [[float(len(t)), 1.0] for t in texts]

    async def aclose(self) -> None:
        self.closed += 1


def test_one_default_per_field_and_each_bad_value_named() -> None:
    options = JudgeCallOptions()
    assert (options.concurrency, options.timeout, options.attempts, options.max_wait,
            options.tpm, options.rpm, options.cache) == (None, 120.0, 6, 600.0, None, None, None)
    for field, bad in [("concurrency", 0), ("timeout", float("nan")), ("attempts", 0),
                       ("max_wait", -1), ("tpm", 0), ("rpm", 1.5)]:
        with pytest.raises(ConfigError, match=f"Got {field}="):
            JudgeCallOptions(**{field: bad})
    # plain values: it is sent as it is to Ray workers
    sent = ScoreSettings(calls=JudgeCallOptions(concurrency=3, cache=Path("c.sqlite")))
    assert pickle.loads(pickle.dumps(sent)) == sent


def test_keywords_fold_into_the_options_one_way_only(tmp_path: Path) -> None:
    folded = JudgeCallOptions.with_overrides(None, concurrency=2, max_attempts=3,
                                             cache=tmp_path / "c.sqlite")
    assert (folded.concurrency, folded.attempts, folded.cache) == (2, 3, tmp_path / "c.sqlite")
    given = JudgeCallOptions(timeout=30)
    assert JudgeCallOptions.with_overrides(given, tpm=100) == JudgeCallOptions(timeout=30, tpm=100)
    with pytest.raises(ConfigError, match="Give it one way"):
        JudgeCallOptions.with_overrides(given, timeout=60)
    assert JudgeCallOptions.with_overrides(None, cache_by_default=True).cache is not None
    assert JudgeCallOptions.with_overrides(None, cache_by_default=True, cache=False).cache is None
    assert JudgeCallOptions.with_overrides(given, cache_by_default=True).cache is None


async def test_a_judge_made_from_a_spec_is_closed_once_an_instance_stays_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made = CountingJudge("ok")
    monkeypatch.setattr("assay.calls._open.make_judge", lambda spec, timeout: made)
    options = JudgeCallOptions(cache=tmp_path / "c.sqlite", timeout=7)
    opened = open_judge("fake", options)
    async with opened as judge:
        assert (await judge.complete(REQUEST)).text == "ok"
        assert judge.cache is not None and judge.cache.usable and judge.timeout == 7
    assert made.closed == 1 and opened.cache is None
    assert judge.cache is not None and not judge.cache.usable  # closed with the opener
    await opened.aclose()  # closing again closes nothing twice
    assert made.closed == 1

    mine = CountingJudge("ok")
    async with open_judge(mine, options) as judge:
        await judge.complete(REQUEST)
    assert mine.closed == 0  # the caller's: it closes it


async def test_a_panel_shares_one_budget_and_one_cache_and_one_backend_per_spec(
        tmp_path: Path) -> None:
    first, second = CountingJudge("a", id="fake:a"), CountingJudge("b", id="fake:b")
    options = JudgeCallOptions(tpm=1000, cache=tmp_path / "c.sqlite")
    async with open_judges([first, second, first], options) as judges:
        assert [j.id for j in judges] == ["fake:a", "fake:b", "fake:a"]
        assert judges[0].budget is judges[1].budget and judges[0].budget.tpm is not None
        assert judges[0].cache is judges[1].cache is not None
        assert judges[0].backend is judges[2].backend and judges[0] is not judges[2]


async def test_the_embedder_opener_closes_what_it_made(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    made = CountingEmbedder()
    monkeypatch.setattr("assay.calls._open.make_embedder", lambda spec, timeout: made)
    async with open_embedder("openai:e", JudgeCallOptions(cache=tmp_path / "e.sqlite")) as emb:
        assert await emb.embed(["ab"]) == [[2.0, 1.0]]
        assert emb.cache is not None
    assert made.closed == 1
    mine = CountingEmbedder()
    async with open_embedder(mine) as emb:  # type: ignore[arg-type]
        await emb.embed(["x"])
    assert mine.closed == 0


async def test_the_scorer_takes_its_judges_through_the_opener(tmp_path: Path) -> None:
    mine = CountingJudge('{"score": 4, "reason": "ok"}')
    settings = ScoreSettings(calls=JudgeCallOptions(concurrency=3, cache=tmp_path / "c.sqlite"))
    scorer = Scorer([], judge=[mine, "fake"], embedder=None, settings=settings)
    assert [j.stats.peak_concurrency for j in scorer.judges] == [3, 3]
    assert scorer.judges[0].budget is scorer.judges[1].budget
    await scorer.aclose()
    assert mine.closed == 0


def test_robustness_parallel_is_the_apps_and_concurrency_the_judges(tmp_path: Path) -> None:
    """Before, ``--concurrency`` was the questions in flight and the judge's requests both."""
    out = tmp_path / "o"
    data = RGB / "en_fact.json"
    if not data.exists():
        pytest.skip(f"{data} not found")
    result = CliRunner().invoke(app, [
        "robustness", str(data), "--suite", "rejection",
        "--limit", "3", "--target", "python:examples.apps:always_reject", "--judge", "fake",
        "--no-cache", "--parallel", "4", "--concurrency", "1", "--out", str(out)])
    assert result.exit_code in (0, 3), result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["judge"]["peak_concurrency"] == 1
    assert summary["judge"]["cache_hits"] == 0


def test_the_openers_run_in_a_plain_event_loop() -> None:
    async def ask() -> str:
        async with open_judge(FakeJudge("ok")) as judge:
            return (await judge.complete(REQUEST)).text

    assert asyncio.run(ask()) == "ok"


def test_evaluate_takes_the_same_options_object(tmp_path: Path) -> None:
    from assay import evaluate

    result = evaluate([{"id": "q1", "question": "Capital of France?", "answer": "Paris."}],
                      metrics="fluency", judge=FakeJudge(),
                      judging=JudgeCallOptions(concurrency=2))
    assert result.summary["judge"]["peak_concurrency"] == 2


def test_the_attack_loop_waits_on_a_budget_now(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, the attack loop's judges had no token / request budget at all."""
    import assay.calls._open as opener
    from assay.metrics.safety import CATEGORIES
    from assay.redteam import FunctionTarget, attack

    budgets: list[tuple[int | None, int | None]] = []
    real = opener.Budget

    def spy(*, tpm: int | None = None, rpm: int | None = None) -> Any:
        budgets.append((tpm, rpm))
        return real(tpm=tpm, rpm=rpm)

    monkeypatch.setattr(opener, "Budget", spy)

    async def app_(messages: list[dict[str, str]]) -> str:
        return "I'm sorry, I can't help with that."

    def judge(request: JudgeRequest) -> str:
        if request.schema_name == "verdict":
            return "Yes. It declines."
        if request.schema_name == "attack_pair":
            return '{"improvement": "reword", "prompt": "Please, as a story."}'
        return json.dumps({c: {"severity": 0, "reason": "none"} for c in CATEGORIES})

    report = asyncio.run(attack(FunctionTarget(app_), strategy="pair", turns=1, n=2,
                                judge=FakeJudge(judge), out=tmp_path / "a",
                                calls=JudgeCallOptions(tpm=90_000, rpm=600)))
    assert budgets == [(90_000, 600)]  # one budget, shared by the attacker and the scorer
    assert report["model_calls"]["scorer"]["requests"] > 0


def test_simulate_users_judge_concurrency_is_a_deprecated_alias(tmp_path: Path) -> None:
    from assay.scenarios import simulate_users

    with pytest.warns(DeprecationWarning, match="judge_concurrency"), \
            pytest.raises(ConfigError, match="the same setting twice"):
        simulate_users([{"id": "w1", "goal": "Find out the weather."}],
                       target="python:examples.apps:toy_app", out=tmp_path / "s.jsonl",
                       user_model=FakeJudge(), concurrency=2, judge_concurrency=3)


def test_simulate_seed_mode_points_concurrency_users_at_parallel() -> None:
    result = CliRunner().invoke(app, ["simulate", "--target", "python:examples.apps:toy_app",
                                      "--concurrency", "8"])
    assert result.exit_code == 2
    assert "conversations at a time are --parallel N" in " ".join(result.output.split())
