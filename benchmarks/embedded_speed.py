"""The embedded judge's speed with and without reasons on demand, and the guard on quality.

For each ``--reasons`` setting (``always``, today's behaviour before reasons on demand, and
``auto``, the default), scores a dataset on the embedded judge with no cache and prints wall
time, judge requests, generated tokens and prompt tokens processed (llama.cpp's own counts: the
tokens not served from the KV cache), then checks that every score is the same under both
settings (the score comes first in every answer, so reasons must not change it).

Then, per rubric prompt (a request is told apart by its prompt's first line; one prompt may
serve several metrics: ``statements`` and ``verify`` serve faithfulness, groundedness_claims,
answer_correctness and context_recall, ``safety`` serves the four harm metrics), the seconds,
requests, processed and generated tokens per row under each setting.

    .venv/bin/python benchmarks/embedded_speed.py                        # the demo rows, auto metrics
    .venv/bin/python benchmarks/embedded_speed.py --metrics groundedness --halueval 20

``--digits PAIRS`` instead times ``auto`` runs on warm rubric prefixes with digits-only
answers (a score, the four severities) decoded token by token against generated one digit at
a time after the text their schema fixes (``LocalJudge(digits_given_text=...)``), in PAIRS
interleaved pairs, and says how many scores are the same.

    .venv/bin/python benchmarks/embedded_speed.py --digits 2

``--halueval N`` scores N HaluEval QA items (right and hallucinated answer each: 2N rows) and
prints groundedness AUROC for both settings, with its 95% bootstrap interval.

Both settings start cold: each has a new, empty rubric-prefix directory (``ASSAY_PREFIX_CACHE``),
as on a first run. ``--warm`` then scores the rows once more under ``auto`` with the prefixes
the ``auto`` run saved, as any later run would find them, and prints the same line for it and
whether its scores equal the cold run's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _stats import auroc_ci
from embedded_throughput import TimedJudge

import assay
from assay import JudgeOptions, ScoringOptions

ROOT = Path(__file__).resolve().parents[1]
HALUEVAL = ROOT.parent / "shared" / "data" / "halueval" / "qa_shared.jsonl"
PROMPTS = ROOT / "src" / "assay" / "prompts"


def prompt_names() -> dict[str, str]:
    """The first line of every built-in rubric file -> its prompt name (``verify:verdict``)."""
    names = {}
    for path in sorted(PROMPTS.glob("*/v*/*.md")):
        variant = path.stem.rsplit("-", 1)[0] if "-" in path.stem else ""
        first = path.read_text(encoding="utf-8").splitlines()[0].strip()
        names.setdefault(first, path.parts[-3] + (f":{variant}" if variant else ""))
    return names


class PromptTimedJudge(TimedJudge):
    """Keeps, beside llama.cpp's timings, the wall seconds and rubric prompt of each request."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        #: (prompt name, seconds, llama.cpp timings) per request, appended as one item: with
        #: requests in parallel, two lists appended apart could pair one request's name with
        #: another's timings
        self.prompts: list[tuple[str, float, dict[str, Any]]] = []
        self._names = prompt_names()

    def _call(self, body: dict[str, Any]) -> dict[str, Any]:
        started = time.monotonic()
        out = super()._call(body)
        first = str(body["messages"][0]["content"]).splitlines()[0].strip()
        self.prompts.append((self._names.get(first, "other"), time.monotonic() - started,
                             out.get("timings") or {}))
        return out


def per_prompt(judge: PromptTimedJudge) -> dict[str, list[float]]:
    """prompt -> [requests, seconds, processed, generated] summed over the run's requests.
    With requests in parallel (``ASSAY_LOCAL_PARALLEL``), a request's seconds include the time
    it shared the batch with others, so the seconds add up to more than the wall time."""
    out: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0, 0])
    for name, seconds, t in judge.prompts:
        row = out[name]
        row[0] += 1
        row[1] += seconds
        row[2] += t.get("prompt_n", 0)
        row[3] += t.get("predicted_n", 0)
    return dict(out)


def halueval_rows(n: int) -> tuple[list[dict[str, Any]], list[int]]:
    """2n rows (each item's right answer, label 1, and hallucinated one, label 0)."""
    rows, labels = [], []
    for line in HALUEVAL.read_text().splitlines()[:n]:
        item = json.loads(line)
        for answer, label in ((item["right_answer"], 1),
                              (item["hallucinated_answer_one_turn"], 0)):
            rows.append({"id": f"{item['id']}-{label}", "question": item["question"],
                         "context": item["knowledge"], "answer": answer})
            labels.append(label)
    return rows, labels


def run(rows: list[dict[str, Any]], metrics: str, reasons: str, prefixes: Path,
        digits_given_text: bool = True) -> dict[str, Any]:
    os.environ["ASSAY_PREFIX_CACHE"] = str(prefixes)
    judge = PromptTimedJudge(digits_given_text=digits_given_text)
    judge._load()  # the model load is the same for both settings: not timed
    started = time.monotonic()
    result = assay.evaluate(rows, metrics=metrics, judge=judge,
                            scoring=ScoringOptions(reasons=reasons),
                            judging=JudgeOptions(cache=False))
    wall = time.monotonic() - started
    t = judge.timings
    return {"wall": wall, "requests": len(t), "generated": sum(x["predicted_n"] for x in t),
            "processed": sum(x["prompt_n"] for x in t), "rows": result.rows,
            "per_prompt": per_prompt(judge),
            "explained": sum(1 for r in result.rows for k, v in r.items()
                             if isinstance(v, dict) and v.get("reason"))}


def compare_digits(rows: list[dict[str, Any]], metrics: str, prefixes: Path, pairs: int) -> None:
    """``pairs`` interleaved pairs of ``auto`` runs, every token decoded (``off``) against
    digits-only answers generated after their given text (``on``), on warm rubric prefixes
    (one run first fills ``prefixes``); wall, generated and processed tokens per run, and how
    many values and probability-weighted values are the same."""
    run(rows, metrics, "auto", prefixes)  # fills the prefixes: every timed run is a later run
    runs: dict[str, list[dict[str, Any]]] = {"off": [], "on": []}
    for i in range(pairs):
        for mode in (("off", "on") if i % 2 == 0 else ("on", "off")):
            runs[mode].append(run(rows, metrics, "auto", prefixes, mode == "on"))
    print(f"{'digits':7} {'wall s (each run)':>24} {'generated':>10} {'processed':>10}")
    for mode, rs in runs.items():
        walls = ", ".join(f"{r['wall']:.1f}" for r in rs)
        print(f"{mode:7} {walls:>24} {rs[0]['generated']:10d} {rs[0]['processed']:10d}")
    off, on = runs["off"][0]["rows"], runs["on"][0]["rows"]
    values = [(va, rb[name]) for ra, rb in zip(off, on) for name, va in ra.items()
              if isinstance(va, dict) and "value" in va]
    weighted = [(a["weighted"], b.get("weighted")) for a, b in values
                if a.get("weighted") is not None]
    print(f"values the same: {sum(a['value'] == b['value'] for a, b in values)}/{len(values)}; "
          f"probability-weighted the same: {sum(a == b for a, b in weighted)}/{len(weighted)}, "
          f"largest difference {max((abs(a - (b or 0)) for a, b in weighted), default=0):.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(ROOT / "examples" / "qa.jsonl"))
    ap.add_argument("--metrics", default="auto")
    ap.add_argument("--halueval", type=int, default=0, help="HaluEval items (2 rows each)")
    ap.add_argument("--warm", action="store_true",
                    help="also run auto again with the rubric prefixes the first run saved")
    ap.add_argument("--digits", type=int, default=0, metavar="PAIRS",
                    help="only compare digits-only answers decoded token by token against "
                         "generated after their given text, in PAIRS interleaved pairs")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="assay-prefixes-"))
    labels: list[int] = []
    if args.halueval:
        rows, labels = halueval_rows(args.halueval)
        source = f"{len(rows)} HaluEval QA rows"
    else:
        rows = [json.loads(x) for x in Path(args.data).read_text().splitlines() if x.strip()]
        source = f"{len(rows)} rows of {args.data}"
    print(f"{source}, metrics {args.metrics}, embedded judge, no cache")
    if args.digits:
        compare_digits(rows, args.metrics, tmp / "digits", args.digits)
        return
    runs = {mode: run(rows, args.metrics, mode, tmp / mode) for mode in ("always", "auto")}
    if args.warm:
        runs["warm"] = run(rows, args.metrics, "auto", tmp / "auto")
    print(f"{'reasons':8} {'wall s':>8} {'requests':>9} {'generated':>10} {'processed':>10} "
          f"{'explained':>10}")
    for mode, r in runs.items():
        print(f"{mode:8} {r['wall']:8.1f} {r['requests']:9d} {r['generated']:10d} "
              f"{r['processed']:10d} {r['explained']:10d}")
    a, b = runs["always"], runs["auto"]
    print(f"generated tokens {a['generated'] / max(b['generated'], 1):.2f}x fewer, wall "
          f"{a['wall'] / b['wall']:.2f}x faster with auto")
    same = total = 0
    for ra, rb in zip(a["rows"], b["rows"]):
        for name, va in ra.items():
            if isinstance(va, dict) and "value" in va:
                total += 1
                same += va.get("value") == rb[name].get("value")
    print(f"scores identical under both settings: {same}/{total}")
    if args.warm:
        w = runs["warm"]
        same_warm = sum(va.get("value") == rw[name].get("value")
                        for rb, rw in zip(b["rows"], w["rows"]) for name, va in rb.items()
                        if isinstance(va, dict) and "value" in va)
        print(f"warm (auto, rubric prefixes restored): {w['processed']} processed tokens "
              f"against {b['processed']} cold, wall {w['wall']:.1f} s against {b['wall']:.1f} s; "
              f"scores equal to the cold run's: {same_warm}/{total}")
    n = len(rows)
    print(f"per row, by rubric prompt ({n} rows): seconds / requests / processed / generated")
    print(f"{'prompt':22} {'always':>30} {'auto':>30}")
    names = sorted(set(a["per_prompt"]) | set(b["per_prompt"]),
                   key=lambda k: -b["per_prompt"].get(k, [0, 0.0])[1])
    for name in names:
        cells = []
        for r in (a, b):
            q, sec, proc, gen = r["per_prompt"].get(name, [0, 0.0, 0, 0])
            cells.append(f"{sec / n:6.2f}s {q / n:5.2f} {proc / n:7.1f} {gen / n:6.1f}")
        print(f"{name:22} {cells[0]:>30} {cells[1]:>30}")
    if labels:
        for mode, r in runs.items():
            scores = [row["groundedness"].get("weighted") or row["groundedness"]["value"]
                      for row in r["rows"]]
            auc, lo, hi = auroc_ci(labels, scores)
            print(f"groundedness AUROC ({mode}): {auc:.3f} [95% CI {lo:.3f}-{hi:.3f}], "
                  f"n={len(labels)}")


if __name__ == "__main__":
    main()
