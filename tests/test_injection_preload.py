"""A run's one-off loads of the injection defence stay off its first judge request: the learned
detector's weights and the language model load in a thread as the scorer is made (while the
judge opens), and a row's language is looked at once its judge metrics were asked."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from assay.data import rows_from_records
from assay.injection._once import loaded_once
from assay.judges import FakeJudge, JudgeRequest
from assay.metrics import get_metric
from assay.run._score import Scorer

SRC = Path(__file__).resolve().parents[1] / "src"
ITALIAN = "La capitale della Francia è Parigi, sulla Senna, da molti secoli ormai."


def test_a_row_is_sent_to_the_judge_before_its_language_is_looked_at(
        monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []
    import assay.run._score as score

    real = score.unknown_languages

    def looked_at(row: Any) -> Any:
        events.append("language")
        return real(row)

    def answer(request: JudgeRequest) -> str:
        events.append("judge")
        return '{"score": 4, "reason": "supported"}'

    monkeypatch.setattr(score, "unknown_languages", looked_at)
    row = rows_from_records([{"question": "Capitale?", "context": ITALIAN, "answer": ITALIAN}])[0]

    async def go() -> dict[str, Any]:
        scorer = Scorer([get_metric("groundedness")], judge=FakeJudge(answer), embedder=None)
        try:
            return await scorer.score(row)
        finally:
            await scorer.aclose()

    record = asyncio.run(go())
    assert events == ["judge", "language"]
    assert record["injection_language"] == {"answer": "it"}  # still said, as before
    assert record["groundedness"]["value"] is not None


def _after_scorer(metric: str) -> dict[str, Any]:
    """What a fresh interpreter has loaded once a Scorer of ``metric`` was made and its
    preload thread (if any) finished, without any row scored."""
    probe = (
        "import json, sys, threading\n"
        "from assay.judges import FakeJudge\nfrom assay.metrics import get_metric\n"
        "from assay.run._score import Scorer\n"
        f"Scorer([get_metric({metric!r})], judge=FakeJudge(), embedder=None).close_caches()\n"
        "threads = [t for t in threading.enumerate() if t.name == 'assay-injection-preload']\n"
        "[t.join(60) for t in threads]\n"
        "print(json.dumps({'threads': len(threads), 'langid': 'py3langid.langid' in sys.modules}))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(SRC)}, timeout=120, check=True)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def test_a_scorer_with_a_judge_metric_loads_the_detectors_in_a_thread() -> None:
    assert _after_scorer("groundedness") == {"threads": 1, "langid": True}


def test_a_scorer_without_a_judge_metric_loads_nothing() -> None:
    assert _after_scorer("f1_score") == {"threads": 0, "langid": False}


def test_a_model_asked_for_while_it_loads_is_loaded_once() -> None:
    started, release, calls = threading.Event(), threading.Event(), []

    def load() -> int:
        calls.append(1)
        started.set()
        release.wait(10)
        return 42

    get = loaded_once(load)
    first = threading.Thread(target=get)
    first.start()
    started.wait(10)
    second: list[int] = []
    waiter = threading.Thread(target=lambda: second.append(get()))
    waiter.start()
    release.set()
    first.join(10)
    waiter.join(10)
    assert second == [42] and calls == [1]


def test_a_failed_load_is_raised_to_each_caller() -> None:
    def load() -> int:
        raise ImportError("py3langid is not installed")

    get = loaded_once(load)
    for _ in range(2):
        with pytest.raises(ImportError, match="py3langid"):
            get()


def test_a_process_starts_one_preload_thread_whatever_the_number_of_scorers() -> None:
    probe = (
        "import json, threading\nfrom assay.injection import preload_detectors\n"
        "seen = set()\nfor _ in range(5):\n    preload_detectors()\n"
        "    seen |= {t.ident for t in threading.enumerate() if t.name == 'assay-injection-preload'}\n"
        "print(json.dumps(len(seen)))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(SRC)}, timeout=120, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) <= 1
