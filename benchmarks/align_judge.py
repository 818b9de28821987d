"""``assay align`` on a shared labelled set: SF-Hotel naturalness ratings
(``../shared/data/data2text_sf``) or TruthfulQA's human truth labels (``../shared/data/truthfulqa``).

``--set naturalness``: ``--per-band`` rows for each of three bands of the mean human naturalness
rating (1-6: <= 3.0 -> 1, 3.5-4.5 -> 2, >= 5.0 -> 3), aligned with
``examples/metrics/naturalness.md`` (a 1-3 rubric). ``--set truthful``: ``--per-band`` truthful
and as many untruthful answers (one per question, the question's best answer as the reference),
aligned with ``examples/metrics/truthful.md`` (a 0-1 rubric). Both samples are balanced and
seeded. It writes the rated file, runs ``assay align`` on it and prints the command; extra
arguments go to ``assay align``.

    python benchmarks/align_judge.py --per-band 20 -- --judge local --shots 1

Example:
    >>> band(3.0), band(3.5), band(5.0)
    (1, 2, 3)
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT.parent / "shared" / "data" / "data2text_sf" / "sfhot.jsonl"
TRUTHFULQA = ROOT.parent / "shared" / "data" / "truthfulqa"


def band(mean_rating: float) -> int:
    """The 1-3 band of a mean 1-6 naturalness rating."""
    return 1 if mean_rating <= 3.0 else 2 if mean_rating <= 4.5 else 3


def rated_rows(per_band: int, seed: int) -> list[dict[str, object]]:
    """``per_band`` rows of each band, drawn with ``seed``, shuffled."""
    rows = [json.loads(line) for line in SOURCE.read_text(encoding="utf-8").splitlines()]
    rng = random.Random(seed)
    out: list[dict[str, object]] = []
    for b in (1, 2, 3):
        pool = [r for r in rows if band(r["scores"]["naturalness"]) == b]
        out += [{"id": f"sfhot-{r['doc_id']}", "dialogue_act": r["source"],
                 "response": r["system_output"], "naturalness/human_rating": b}
                for r in rng.sample(pool, per_band)]
    rng.shuffle(out)
    return out


def truthful_rows(per_label: int, seed: int) -> list[dict[str, object]]:
    """``per_label`` truthful and untruthful answers, each to a different question."""
    import csv

    with (TRUTHFULQA / "TruthfulQA_shared.csv").open(encoding="utf-8") as f:
        best = {int(r["question_id"]): r["Best Answer"] for r in csv.DictReader(f)}
    rows = [json.loads(line) for line in
            (TRUTHFULQA / "judged_answers_shared.jsonl").read_text(encoding="utf-8").splitlines()]
    rng = random.Random(seed)
    rng.shuffle(rows)
    out: list[dict[str, object]] = []
    used: set[int] = set()
    for truthful in (True, False):
        picked = 0
        for r in rows:
            if (picked < per_label and r["truthful"] is truthful and r["question_id"] in best
                    and r["question_id"] not in used):
                used.add(r["question_id"])
                picked += 1
                out.append({"id": f"tqa-{r['question_id']}", "question": r["question"],
                            "reference": best[r["question_id"]], "response": r["answer"],
                            "truthful/human_rating": int(truthful)})
    rng.shuffle(out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=("naturalness", "truthful"), default="naturalness")
    parser.add_argument("--per-band", type=int, default=20)
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--work", type=Path, default=Path("assay-out/align-naturalness"))
    parser.add_argument("rest", nargs="*", help="arguments for assay align (after --)")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    data = args.work / f"{args.set}.jsonl"
    build = rated_rows if args.set == "naturalness" else truthful_rows
    data.write_text("".join(json.dumps(r) + "\n" for r in build(args.per_band, args.seed)),
                    encoding="utf-8")
    command = [sys.executable, "-m", "assay.cli", "align", str(data), "--metric-file",
               str(ROOT / "examples" / "metrics" / f"{args.set}.md"), "--out",
               str(args.work / "out"), *args.rest]
    print("$ " + shlex.join(command), file=sys.stderr)
    raise SystemExit(subprocess.call(command))


if __name__ == "__main__":
    main()
