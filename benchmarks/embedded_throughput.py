"""Throughput of the embedded judge on groundedness, and the limit the hardware sets.

Scores ``--rows`` rows of ``../shared/bench/qa50.jsonl`` with ``--metrics groundedness`` on
the embedded judge (no cache) and reads llama.cpp's own timings of every request: tokens taken
from the KV cache (the shared rubric prefix), tokens processed, tokens generated, and the
prompt-processing and generation speeds. The limit is the rows/minute the machine would reach
if every request only paid for its own tokens at the measured speeds::

    limit = 60 / (requests/row x (new prompt tokens / prompt speed + generated tokens / gen speed))

    .venv/bin/python benchmarks/embedded_throughput.py --rows 20
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import assay
from assay import JudgeOptions
from assay.judges._local import LocalJudge

QA50 = Path(__file__).resolve().parents[2] / "shared" / "bench" / "qa50.jsonl"


class TimedJudge(LocalJudge):
    """The embedded judge, keeping llama.cpp's ``timings`` of every request."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)  # LocalJudge's options, e.g. digits_given_text
        self.timings: list[dict[str, Any]] = []

    def _call(self, body: dict[str, Any]) -> dict[str, Any]:
        out = super()._call(body)
        if isinstance(out, dict) and isinstance(out.get("timings"), dict):
            self.timings.append(out["timings"])
        return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=20)
    args = ap.parse_args()
    rows = [json.loads(x) for x in QA50.read_text().splitlines() if x.strip()][:args.rows]
    judge = TimedJudge()
    judge._load()  # model load is not part of the rate
    started = time.monotonic()
    result = assay.evaluate(rows, metrics="groundedness", judge=judge,
                            judging=JudgeOptions(cache=False))
    wall = time.monotonic() - started
    t = judge.timings
    scored = result.summary["metrics"]["groundedness"]["scored"]
    per_row = len(t) / len(rows)
    cached = statistics.mean(x["cache_n"] for x in t)
    fresh = statistics.mean(x["prompt_n"] for x in t)
    generated = statistics.mean(x["predicted_n"] for x in t)
    pp = sum(x["prompt_n"] for x in t) / (sum(x["prompt_ms"] for x in t) / 1000)
    gen = sum(x["predicted_n"] for x in t) / (sum(x["predicted_ms"] for x in t) / 1000)
    limit = 60 / (per_row * (fresh / pp + generated / gen))
    achieved = len(rows) / wall * 60
    print(f"groundedness on {len(rows)} qa50 rows, {judge.id}, {judge._threads} threads")
    print(f"  scored {scored}/{len(rows)}; {per_row:.2f} requests/row")
    print(f"  per request: {cached:.0f} prompt tokens from the KV cache, {fresh:.0f} new, "
          f"{generated:.0f} generated")
    print(f"  speeds: prompt {pp:.0f} tokens/s, generation {gen:.1f} tokens/s")
    print(f"  achieved {achieved:.1f} rows/min ({wall:.1f} s); limit {limit:.1f} rows/min; "
          f"{achieved / limit:.0%} of the limit")


if __name__ == "__main__":
    main()
