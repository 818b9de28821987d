"""The ``generate`` and ``simulate`` rows of ``estimate_accuracy.py``: each command's
``--estimate`` (before its run, and again after it, the run's files in ``--out``) against what
the fake judge's log says the run sent (prompt and completion tokens as the fake counts them,
``ceil(chars / 4)``; dollars at gpt-4o-mini's price from genai-prices on both sides).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _fake_server import ROOT, FakeJudge

sys.path.insert(0, str(ROOT / "src"))
from assay.costs import PriceBook, Usage

MODEL = "gpt-4o-mini"
FIGURES = ("requests", "prompt_tokens", "completion_tokens", "usd")
Assay = Callable[[list[str], dict[str, str]], subprocess.CompletedProcess[str]]
Result = tuple[str, dict[str, Any], dict[str, Any], dict[str, float], int]


def _actual(records: list[dict[str, Any]]) -> dict[str, float]:
    """What the fake judge answered: requests, tokens, and their dollars."""
    chat = [r for r in records if r.get("kind") == "chat" and r.get("status") == 200]
    prompt = sum(int(r["prompt_tokens"]) for r in chat)
    completion = sum(int(r["completion_tokens"]) for r in chat)
    usd = PriceBook.load().cost(MODEL, Usage(prompt_tokens=prompt,
                                             completion_tokens=completion)).usd
    return {"requests": len(chat), "prompt_tokens": prompt, "completion_tokens": completion,
            "usd": usd or 0.0}


def _estimate(assay: Assay, args: list[str], env: dict[str, str]) -> dict[str, Any]:
    got = assay([*args, "--estimate", "--json", "-"], env)
    if got.returncode != 0:
        sys.exit(f"--estimate failed ({got.returncode}):\n{got.stderr}")
    return json.loads(got.stdout)  # type: ignore[no-any-return]


def bench_generate(data: Path, assay: Assay, n: int = 20) -> Result:
    """``assay generate`` from qa50's contexts (one document each), every kind."""
    rows = [json.loads(line) for line in data.read_text().splitlines() if line.strip()]
    contexts = list(dict.fromkeys(r["context"] for r in rows))
    with tempfile.TemporaryDirectory() as tmp, FakeJudge(log=Path(tmp) / "log.jsonl") as fake:
        docs = Path(tmp) / "docs.jsonl"
        docs.write_text("".join(json.dumps({"id": f"doc-{i}", "text": c}) + "\n"
                                for i, c in enumerate(contexts)))
        env = {**os.environ, "OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "sk-bench"}
        args = ["generate", str(docs), "--out", str(Path(tmp) / "gen" / "qa.jsonl"), "--n",
                str(n), "--judge", f"openai:{MODEL}", "--embeddings", "none", "--cache",
                str(Path(tmp) / "cache.sqlite"), "--no-store", "--no-progress"]
        before = _estimate(assay, args, env)
        sent = len(fake.records())
        real = assay(args, env)
        if real.returncode not in (0, 3):  # 3: nothing kept (said, not a failure here)
            sys.exit(f"generate failed ({real.returncode}):\n{real.stderr}")
        actual = _actual(fake.records())
        after = _estimate(assay, args, env)
        summary = json.loads((Path(tmp) / "gen" / "qa.summary.json").read_text())
    title = (f"assay generate: {len(contexts)} documents (qa50's contexts), --n {n}, every "
             f"kind, judge openai:{MODEL} (fake judge): {summary['generated']} candidates, "
             f"{summary['kept']} kept, rejected {summary['rejected_by_reason']}")
    return title, before, after, actual, sent


def bench_simulate(data: Path, assay: Assay, n: int = 20) -> Result:
    """``assay simulate --scenarios``: one scenario per qa50 question (3 user turns at most),
    the simulated user and the app both the fake judge."""
    rows = [json.loads(line) for line in data.read_text().splitlines() if line.strip()][:n]
    with tempfile.TemporaryDirectory() as tmp, FakeJudge(log=Path(tmp) / "log.jsonl") as fake:
        scenarios = Path(tmp) / "scenarios.jsonl"
        scenarios.write_text("".join(json.dumps({
            "id": f"q{i}", "goal": f"Find out: {r['question']}", "max_turns": 3}) + "\n"
            for i, r in enumerate(rows)))
        env = {**os.environ, "OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "sk-bench"}
        args = ["simulate", "--scenarios", str(scenarios), "--target", f"openai:{MODEL}",
                "--judge", f"openai:{MODEL}", "--out", str(Path(tmp) / "sim.jsonl"),
                "--cache", str(Path(tmp) / "cache.sqlite"), "--no-store"]
        before = _estimate(assay, args, env)
        sent = len(fake.records())
        real = assay(args, env)
        if real.returncode != 0:
            sys.exit(f"simulate failed ({real.returncode}):\n{real.stderr}")
        actual = _actual(fake.records())
        after = _estimate(assay, args, env)
        summary = json.loads((Path(tmp) / "sim.summary.json").read_text())
    title = (f"assay simulate --scenarios: {len(rows)} scenarios from qa50 (max_turns 3), "
             f"user model and app openai:{MODEL} (fake judge): stop reasons "
             f"{ {k: v for k, v in summary['stop_reasons'].items() if v} }")
    return title, before, after, actual, sent


def bench_jailbreak(data: Path, assay: Assay, n: int = 10) -> Result:
    """``assay jailbreak --strategy template``: ``n`` shipped seeds asked plain and injected,
    the app (``--target openai:gpt-4o-mini``) and the judge both the fake judge."""
    with tempfile.TemporaryDirectory() as tmp, FakeJudge(log=Path(tmp) / "log.jsonl") as fake:
        env = {**os.environ, "OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "sk-bench"}
        args = ["jailbreak", "--target", f"openai:{MODEL}", "--judge", f"openai:{MODEL}",
                "--n", str(n), "--out", str(Path(tmp) / "jb"), "--cache",
                str(Path(tmp) / "cache.sqlite"), "--no-store"]
        before = _estimate(assay, args, env)
        sent = len(fake.records())
        real = assay(args, env)
        if real.returncode not in (0, 3):  # 3: too many rows unscored (the fake's verdicts)
            sys.exit(f"jailbreak failed ({real.returncode}):\n{real.stderr}")
        actual = _actual(fake.records())
        after = _estimate(assay, args, env)
    title = (f"assay jailbreak --strategy template: {n} seeds plain and injected, app and "
             f"judge openai:{MODEL} (fake judge)")
    return title, before, after, actual, sent


def print_table(title: str, before: dict[str, Any], after: dict[str, Any],
                actual: dict[str, float], sent: int) -> None:
    """Estimate (low / expected / high) before the run, the expected figure after it, and
    the actual figure, with the errors of the expected ones."""
    print(title)
    print(f"requests sent by --estimate: {sent}")
    print(f"{'figure':<18}{'low':>11}{'expected':>11}{'high':>11}{'actual':>11}{'error':>9}"
          f"{'after run':>11}{'error':>9}")
    errors = {}
    for key in FIGURES:
        span = before[key] or {"low": float("nan"), "expected": float("nan"),
                               "high": float("nan")}
        fmt = "{:>11.4f}" if key == "usd" else "{:>11,.0f}"
        got = actual[key]
        first = (span["expected"] - got) / got if got else 0.0
        later = ((after[key] or {}).get("expected", float("nan")) - got) / got if got else 0.0
        errors[key] = later
        print(f"{key:<18}" + "".join(fmt.format(span[p]) for p in ("low", "expected", "high"))
              + fmt.format(got) + f"{first:>+9.1%}"
              + fmt.format((after[key] or {}).get("expected", float("nan")))
              + f"{later:>+9.1%}")
    for role, share in (before.get("by_role") or {}).items():
        print(f"  {role}: requests {share['requests']['low']:,} / "
              f"{share['requests']['expected']:,} / {share['requests']['high']:,}")
    ok = abs(errors["prompt_tokens"]) <= 0.02 and abs(errors["usd"]) <= 0.10 and sent == 0
    print(f"bars (the estimate after the run): prompt tokens +-2%, cost +-10%, nothing sent: "
          f"{'met' if ok else 'NOT met'}")
