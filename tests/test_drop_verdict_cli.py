"""``assay compare --max-drop`` and ``assay run --baseline RUN --max-drop`` through the real
CLI: the verdict table, exit codes 0 (pass), 1 (fail), 3 (inconclusive; ``--inconclusive``
turns it into 0 or 1) and 2 (bad bars, a baseline over other rows), the ``--json``
verdict keys, and a run decided against its baseline with a scripted judge."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli.main import app
from assay.judges import FakeJudge, JudgeResponse


@pytest.fixture(autouse=True)
def _plain_console(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")


def _invoke(*args: Any) -> Any:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output
    return result


def _flat(text: str) -> str:
    return " ".join(text.split())


def _write(path: Path, values: list[float | None], *, reasons: list[str | None] | None = None,
           ids: list[str] | None = None) -> Path:
    path.mkdir(parents=True)
    ids = ids or [f"r{i}" for i in range(len(values))]
    reasons = reasons or [None] * len(values)
    records = [{"id": i, "groundedness": {"value": v, "reason": r, "error": None,
                                          "details": {}}}
               for i, v, r in zip(ids, values, reasons, strict=True)]
    (path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (path / "summary.json").write_text(json.dumps({"rows": len(values), "metrics": {}}))
    return path


@pytest.fixture
def noisy(tmp_path: Path) -> tuple[Path, Path]:
    """40 rows: the candidate's mean is 0.25 under the baseline's, with a spread that cannot
    tell a drop of 0.2 from none (95% CI of the difference about [-0.46, -0.04])."""
    base = _write(tmp_path / "base", [4.0] * 40)
    cand = _write(tmp_path / "cand", [3.0] * 15 + [5.0] * 5 + [4.0] * 20,
                  reasons=["misses the second claim"] * 15 + [None] * 25)
    return base, cand


def test_a_drop_inside_the_noise_is_inconclusive_not_a_failure(noisy: tuple[Path, Path]) -> None:
    """The mean-based gate exited 1 here (the means differ by 0.25 > 0.2)."""
    r = _invoke("compare", *noisy, "--max-drop", "groundedness=0.2")
    assert r.exit_code == 5, r.output
    text = _flat(r.stderr)
    assert re.search(r"groundedness -0.2 -0.250 \[-0.4\d\d, -0.0\d\d\] inconclusive", text)
    assert "inconclusive: groundedness: cannot tell whether it is worse than -0.2" in text
    assert "would decide it: about" in text and "more shared rows" in text
    assert "r0: 4 -> 3 (candidate: misses the second claim)" in text
    assert _invoke("compare", *noisy, "--max-drop", "groundedness=0.2",
                   "--inconclusive", "pass").exit_code == 0
    assert _invoke("compare", *noisy, "--max-drop", "groundedness=0.2",
                   "--inconclusive", "fail").exit_code == 1


def test_pass_and_fail_exit_0_and_1(noisy: tuple[Path, Path], tmp_path: Path) -> None:
    ok = _invoke("compare", *noisy, "--max-drop", "groundedness=0.6")
    assert ok.exit_code == 0, ok.output
    assert re.search(r"groundedness -0.6 -0.250 \S+ \S+ pass", _flat(ok.stderr))
    worse = _write(tmp_path / "worse", [3.0] * 30 + [4.0] * 10,
                   reasons=["contradicts the source"] * 40)
    bad = _invoke("compare", noisy[0], worse, "--max-drop", "groundedness=0.2")
    assert bad.exit_code == 1, bad.output
    text = _flat(bad.stderr)
    assert "fail: groundedness: worse than -0.2 (diff -0.750, 95% CI [" in text
    assert text.count("-> 3 (candidate: contradicts the source)") == 3
    # --confidence: a looser interval decides the noisy drop
    loose = _invoke("compare", *noisy, "--max-drop", "groundedness=0.45", "--confidence", "0.6")
    assert loose.exit_code == 0 and "60% CI" in loose.stderr


def test_json_carries_the_verdicts(noisy: tuple[Path, Path]) -> None:
    r = _invoke("compare", *noisy, "--max-drop", "groundedness=0.2", "--json", "-")
    assert r.exit_code == 5
    out = json.loads(r.stdout)
    assert out["verdict"] == "inconclusive"
    assert out["metrics"]["groundedness"]["verdict"] == "inconclusive"
    bar = out["bars"]["groundedness"]
    assert bar["verdict"] == "inconclusive" and bar["difference"] == -0.25 and bar["bar"] == 0.2
    assert len(bar["interval"]) == 2 and bar["decide"].startswith("about ")
    assert "shared_rows" in out and "changed" in out  # beside the comparison's own keys
    plain = json.loads(_invoke("compare", *noisy, "--json", "-").stdout)
    assert "verdict" not in plain and "bars" not in plain  # no bar, no verdict


@pytest.mark.parametrize(("bar", "message"), [
    ("groundednes=0.2", ("--max-drop groundednes=0.2: no metric 'groundednes' to compare "
                        "(did you mean groundedness?)")),
    ("groundedness=lots", "Got --max-drop groundedness=lots: 'lots' is not a number"),
    ("groundedness=-0.2", ("--max-drop groundedness=-0.2: a margin is how much worse the "
                          "candidate may be, so it cannot be negative")),
])
def test_bad_bars_exit_2(noisy: tuple[Path, Path], bar: str, message: str) -> None:
    r = _invoke("compare", *noisy, "--max-drop", bar)
    assert r.exit_code == 2, r.output
    assert message in _flat(r.stderr)


def test_bad_verdict_options_exit_2(noisy: tuple[Path, Path]) -> None:
    r = _invoke("compare", *noisy, "--max-drop", "groundedness=0.2", "--inconclusive", "skip")
    assert r.exit_code == 2 and "Must be one of: exit, pass, fail" in _flat(r.output)
    r = _invoke("compare", *noisy, "--max-drop", "groundedness=0.2", "--confidence", "1.5")
    assert r.exit_code == 2 and "--confidence 1.5: must be over 0.5 and under 1" in _flat(r.stderr)


def test_a_baseline_over_other_rows_exit_2_with_the_counts(tmp_path: Path) -> None:
    base = _write(tmp_path / "base", [4.0] * 10)
    other = _write(tmp_path / "other", [4.0] * 10, ids=[f"x{i}" for i in range(7)]
                   + ["r0", "r1", "r2"])
    r = _invoke("compare", base, other, "--max-drop", "groundedness=0.2")
    assert r.exit_code == 2
    assert "shares 3 of the candidate's 10 rows" in _flat(r.stderr)


# --- assay run --baseline -----------------------------------------------------------------------

ROWS = [{"id": f"q{i}", "question": f"What is item {i}?", "answer": f"Item {i} is a tent.",
         "context": f"Item {i} is a tent for two."}
        for i in range(30)]


def _data(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``--judge fake`` rates an answer that says "sorry" 1, others 5; the requests are kept."""
    seen: list[str] = []

    async def complete(self: FakeJudge, request: Any, **_: Any) -> JudgeResponse:
        text = json.dumps(request.messages)
        seen.append(text)
        score, reason = (1, "does not answer") if "sorry" in text.lower() else (5, "answers")
        return JudgeResponse(text=json.dumps({"score": score, "reason": reason}),
                             prompt_tokens=10, completion_tokens=5, model="fake")

    monkeypatch.setattr(FakeJudge, "complete", complete)
    return seen


def _run(data: Path, out: Path, *extra: Any) -> Any:
    return _invoke("run", data, "--metrics", "relevance", "--judge", "fake", "--no-store",
                   "--no-cache", "--quiet", "--out", out, *extra)


def test_run_decides_against_its_baseline(tmp_path: Path, scripted: list[str]) -> None:
    data = _data(tmp_path / "qa.jsonl", ROWS)
    assert _run(data, tmp_path / "base").exit_code == 0
    same = _run(data, tmp_path / "same", "--baseline", tmp_path / "base",
                "--max-drop", "relevance=0.2")
    assert same.exit_code == 0, same.output
    assert re.search(r"relevance -0.2 \+0.000 \[\+0.000, \+0.000\] pass", _flat(same.stderr))
    worse_rows = [dict(r, answer="Sorry, I cannot help.") if i % 2 else r
                  for i, r in enumerate(ROWS)]
    worse = _run(_data(tmp_path / "worse.jsonl", worse_rows), tmp_path / "worse",
                 "--baseline", tmp_path / "base", "--max-drop", "relevance=0.2")
    assert worse.exit_code == 1, worse.output
    text = _flat(worse.stderr)
    assert "fail: relevance: worse than -0.2 (diff -2.000" in text
    assert "q1: 5 -> 1 (baseline: answers; candidate: does not answer)" in text


def test_run_refuses_bad_drop_bars_before_any_judge_call(tmp_path: Path,
                                                         scripted: list[str]) -> None:
    data = _data(tmp_path / "qa.jsonl", ROWS[:4])
    assert _run(data, tmp_path / "base").exit_code == 0
    asked = len(scripted)
    alone = _run(data, tmp_path / "a", "--max-drop", "relevance=0.2")
    assert alone.exit_code == 2
    assert ("Got --max-drop relevance=0.2 without --baseline: a drop is measured from a "
            "baseline run. Fix: add --baseline RUN") in _flat(alone.stderr)
    typo = _run(data, tmp_path / "b", "--baseline", tmp_path / "base",
                "--max-drop", "relevence=0.2")
    assert typo.exit_code == 2
    assert ("--max-drop relevence=0.2: no metric 'relevence' (did you mean relevance"
            in _flat(typo.stderr))
    other = _run(data, tmp_path / "c", "--metrics", "relevance,coherence",
                 "--baseline", tmp_path / "base", "--max-drop", "coherence=0.2")
    assert other.exit_code == 2
    assert (f"the baseline run {tmp_path / 'base'} has no coherence to compare with"
            in _flat(other.stderr))
    missing = _run(data, tmp_path / "d", "--baseline", tmp_path / "nope",
                   "--max-drop", "relevance=0.2")
    assert missing.exit_code == 2
    others = [dict(r, id=f"new{i}") for i, r in enumerate(ROWS[:4])]  # no row in the baseline
    elsewhere = _run(_data(tmp_path / "other.jsonl", [*ROWS[:1], *others]), tmp_path / "e",
                     "--baseline", tmp_path / "base", "--max-drop", "relevance=0.2")
    assert elsewhere.exit_code == 2
    assert "shares 1 of the candidate's 5 rows" in _flat(elsewhere.stderr)
    assert not (tmp_path / "e" / "results.jsonl").exists()
    assert len(scripted) == asked  # nothing was judged
