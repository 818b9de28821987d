"""Judge efficiency on the bench's 50 QA rows with the fake judge (300 ms latency).

Prints, per judge metric: requests/row, prompt and completion tokens/row (as the server counted
them), rows scored; the run's wall time; a second identical run's request count (cache); and
the 20,000-TPM run: 429 answers, wall time and the bound from the issue
(1.15 x 60 s x ceil(T / 20,000 - 1) + 10 s, T = all tokens the server admitted).

    .venv/bin/python benchmarks/judge_efficiency.py [--latency-ms 300] [--skip-tpm]
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from _fake_server import BENCH, FakeJudge

QA50 = BENCH / "qa50.jsonl"
METRIC_OF = {"grounded": "groundedness", "relevant to the question": "relevance",
             "coherence": "coherence", "fluency": "fluency", "ground-truth": "similarity",
             "split a text into short factual statements": "decomposition",
             "check numbered statements": "verification",
             "retrieved text chunks": "chunk usefulness",
             "list the intents": "retrieval intents",
             "retrieved documents cover": "intent support"}


def run_assay(base_url: str, out: Path, cache: Path, *extra: str) -> float:
    env = {**os.environ, "OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "sk-bench"}
    t0 = time.monotonic()
    subprocess.run([sys.executable, "-m", "assay.cli", "run", str(QA50), "--judge",
                    "openai:gpt-4o-mini", "--out", str(out), "--cache", str(cache),
                    "--no-progress", "--overwrite", *extra], check=True, env=env,
                   stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.monotonic() - t0


def per_metric(records: list[dict]) -> dict[str, dict[str, float]]:
    stats: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for r in records:
        if r.get("kind") != "chat":
            continue
        name = next((m for k, m in METRIC_OF.items() if k in (r.get("prompt_head") or "")), "?")
        s = stats[name]
        s["requests"] += 1
        if r["status"] == 200:
            s["prompt_tokens"] += r["prompt_tokens"]
            s["completion_tokens"] += r["completion_tokens"]
    return stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--latency-ms", default="300")
    ap.add_argument("--skip-tpm", action="store_true")
    ap.add_argument("--skip-rag", action="store_true")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="assay-bench-"))
    rows = sum(1 for line in QA50.read_text().splitlines() if line.strip())
    with FakeJudge("--latency-ms", args.latency_ms, log=tmp / "main.jsonl") as judge:
        wall = run_assay(judge.base_url, tmp / "o1", tmp / "c1.sqlite", "--concurrency", "16")
        first = judge.records()
        wall2 = run_assay(judge.base_url, tmp / "o2", tmp / "c1.sqlite")
        second = judge.records()[len(first):]
    print(f"qa50 ({rows} rows), fake judge at {args.latency_ms} ms, all auto metrics, "
          f"--concurrency 16")
    print(f"{'metric':<14}{'requests/row':>14}{'prompt tok/row':>16}{'compl. tok/row':>16}")
    for name, s in sorted(per_metric(first).items()):
        print(f"{name:<14}{s['requests'] / rows:>14.2f}{s['prompt_tokens'] / rows:>16.0f}"
              f"{s['completion_tokens'] / rows:>16.0f}")
    print(f"wall time: {wall:.1f} s (process, incl. start-up); requests: {len(first)}; "
          f"429s: {sum(r['status'] == 429 for r in first)}")
    print(f"identical second run: {len(second)} requests, {wall2:.1f} s")
    if not args.skip_rag:
        with FakeJudge("--latency-ms", args.latency_ms, log=tmp / "rag.jsonl") as judge:
            wall = run_assay(judge.base_url, tmp / "o4", tmp / "c4.sqlite", "--concurrency", "16",
                             "--metrics", "faithfulness,answer_correctness")
            recs = judge.records()
        print(f"\nfaithfulness + answer_correctness together on qa50: {len(recs)} requests, "
              f"{wall:.1f} s")
        for name, s_ in sorted(per_metric(recs).items()):
            print(f"  {name:<14}{s_['requests'] / rows:>6.2f} requests/row"
                  f"{s_['prompt_tokens'] / rows:>8.0f} prompt tok/row")
        print("  (decomposition: one request per row per text, answer and ground truth, shared "
              "by both metrics)")
    if args.skip_tpm:
        return
    with FakeJudge("--latency-ms", args.latency_ms, "--tpm", "20000",
                   log=tmp / "tpm.jsonl") as judge:
        wall = run_assay(judge.base_url, tmp / "o3", tmp / "c3.sqlite", "--metrics",
                         "groundedness,relevance", "--tpm", "20000")
        recs = judge.records()
    ok = [r for r in recs if r["status"] == 200]
    total = sum(r["prompt_tokens"] + r["completion_tokens"] for r in ok)
    bound = 1.15 * 60 * math.ceil(total / 20000 - 1) + 10
    scored = _scored(tmp / "o3" / "summary.json")
    print(f"\n--tpm 20000 (server limit 20,000 TPM), groundedness + relevance: {scored}")
    print(f"429 answers: {sum(r['status'] == 429 for r in recs)}; tokens admitted T = {total}; "
          f"wall {wall:.1f} s; bound 1.15 x 60 x ceil(T/20000 - 1) + 10 = {bound:.1f} s")


def _scored(path: Path) -> str:
    import json
    s = json.loads(path.read_text())
    return ", ".join(f"{k} {v['scored']}/{s['rows']}" for k, v in s["metrics"].items())


if __name__ == "__main__":
    main()
