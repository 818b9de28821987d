"""How good are the rows ``assay generate`` keeps? Per language and kind: kept / generated, the
seconds per kept row, and the share of kept rows a second judge pass rates as supported by their
evidence and as standalone questions (with n and a Wilson 95% interval).

The documents are ours (``benchmarks/generate_docs``: two short texts per language, written for
this benchmark; none comes from ``../shared/data``). Each language is generated apart, into
``OUT/<lang>/qa.jsonl`` (resumable: a run stopped half way goes on with ``--resume``).

The second pass asks two rubrics of our own that the generator never uses (a pointwise
"supported" rating of the ground truth against the quoted evidence, and a "standalone" rating of
the question alone) through :func:`assay.evaluate`, with the same judge by default
(``--check-judge`` for another one). Unanswerable rows have no evidence: they count for
"standalone" only.

Usage:
    .venv/bin/python benchmarks/generate_quality.py --langs en,zh,es,ja --n 6 --out runs/genq
    .venv/bin/python benchmarks/generate_quality.py --judge openai:MODEL --check-judge openai:M2
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _stats import wilson

from assay.generate import generate
from assay.metrics.custom import PointwiseMetric
from assay.run import JudgeOptions, RunOptions, evaluate

DOCS = Path(__file__).resolve().parent / "generate_docs"

SUPPORTED = PointwiseMetric(
    "gen_check_supported",
    "Evidence quoted from a document:\n{{ evidence }}\n\nStatement to check:\n{{ ground_truth }}",
    {"yes": "everything the statement says can be read in the evidence",
     "no": "the statement says something the evidence does not say, or contradicts it"},
    scale=["no", "yes"],
    instruction="Decide whether the statement is fully backed by the evidence alone.")
STANDALONE = PointwiseMetric(
    "gen_check_standalone",
    "Question:\n{{ question }}",
    {"yes": "a reader who has seen no document can tell exactly what is being asked",
     "no": "the question points at a text, passage, list or person the reader has not seen, "
           "or is too vague to answer"},
    scale=["no", "yes"],
    instruction="Decide whether the question can be understood on its own.")


def last_question(row: dict[str, Any]) -> str:
    """The question of a row (a conversation's last user turn)."""
    if row.get("question"):
        return str(row["question"])
    users = [m["content"] for m in row.get("messages", []) if m.get("role") == "user"]
    return str(users[-1]) if users else ""


def check_rows(rows: list[dict[str, Any]], judge: str, out: Path) -> dict[str, dict[str, Any]]:
    """The second pass: ``{row id: {"supported": bool | None, "standalone": bool | None}}``."""
    checks = []
    for row in rows:
        evidence = "\n".join(str(s.get("text", "")) for s in row.get("source") or [])
        checks.append({"id": row["id"], "question": last_question(row),
                       "ground_truth": str(row.get("ground_truth", "")),
                       "answer": str(row.get("ground_truth", "")),  # a row needs one; unread
                       **({"evidence": evidence} if evidence else {})})
    verdicts: dict[str, dict[str, Any]] = {}
    # rows with evidence get both rubrics; unanswerable ones (no evidence) "standalone" only
    for part, metrics in (("answerable", [SUPPORTED, STANDALONE]), ("unanswerable", [STANDALONE])):
        some = [c for c in checks if ("evidence" in c) == (part == "answerable")]
        if not some:
            continue
        where = out / part
        result = evaluate(some, metrics=metrics, judge=judge, judging=JudgeOptions(),
                          run=RunOptions(out=where, resume=where.exists()))
        for record in result.rows:
            got: dict[str, Any] = {"supported": None, "standalone": None}
            for name, key in ((SUPPORTED.name, "supported"), (STANDALONE.name, "standalone")):
                value = (record.get(name) or {}).get("value")  # each metric's result
                got[key] = None if value is None else value >= 1
            verdicts[str(record["id"])] = got
    return verdicts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--langs", default="en,zh,es,ja")
    ap.add_argument("--n", type=int, default=6, help="rows wanted per language")
    ap.add_argument("--judge", default="local")
    ap.add_argument("--check-judge", default=None, help="second-pass judge (default: --judge)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("runs/generate_quality"))
    ap.add_argument("--no-cache", action="store_true",
                    help="ask the judge for everything (for timings: the cache answers at once)")
    args = ap.parse_args()
    table: dict[tuple[str, str], dict[str, Any]] = defaultdict(
        lambda: {"generated": 0, "kept": 0, "supported": [0, 0], "standalone": [0, 0]})
    seconds: dict[str, float] = {}
    for lang in args.langs.split(","):
        paths = sorted(p for p in DOCS.iterdir() if p.name.startswith(f"{lang}_"))
        folder = args.out / lang
        folder.mkdir(parents=True, exist_ok=True)
        qa = folder / "qa.jsonl"
        # The seconds of every run on this folder, added up: a resumed run's summary counts
        # only its own part.
        timing = folder / "seconds.json"
        before = json.loads(timing.read_text())["seconds"] if timing.exists() else 0.0
        started = time.monotonic()
        try:
            result = generate(paths, out=qa, n=args.n, judge=args.judge, seed=args.seed,
                              resume=(folder / "qa.run.json").exists(), progress=True,
                              cache=not args.no_cache)
        finally:
            timing.write_text(json.dumps({"seconds": before + time.monotonic() - started}))
        seconds[lang] = before + time.monotonic() - started
        for kind, counts in result.summary["by_kind"].items():
            table[(lang, kind)]["generated"] += counts["generated"]
            table[(lang, kind)]["kept"] += counts["kept"]
        verdicts = check_rows(result.rows, args.check_judge or args.judge, folder / "check")
        for row in result.rows:
            cell = table[(lang, row["kind"])]
            for key in ("supported", "standalone"):
                verdict = verdicts.get(str(row["id"]), {}).get(key)
                if verdict is not None:
                    cell[key][0] += int(verdict)
                    cell[key][1] += 1
        kept = max(1, result.summary["kept"])
        print(f"{lang}: kept {result.summary['kept']} of {result.summary['generated']} "
              f"generated in {seconds[lang]:.0f} s ({seconds[lang] / kept:.0f} s per kept row)",
              file=sys.stderr)
    print(f"judge {args.judge}, second pass {args.check_judge or args.judge}, seed {args.seed}, "
          f"--n {args.n} per language\n")
    print("| lang | kind | kept / generated | supported (2nd pass) | standalone (2nd pass) |")
    print("|---|---|---|---|---|")
    totals = {"generated": 0, "kept": 0, "supported": [0, 0], "standalone": [0, 0]}
    for (lang, kind), cell in sorted(table.items()):
        cells = []
        for key in ("supported", "standalone"):
            k, n = cell[key]
            totals[key][0] += k
            totals[key][1] += n
            cells.append(f"{k}/{n}" if n else "-")
        totals["generated"] += cell["generated"]
        totals["kept"] += cell["kept"]
        print(f"| {lang} | {kind} | {cell['kept']} / {cell['generated']} | {cells[0]} | "
              f"{cells[1]} |")
    print()
    for key in ("supported", "standalone"):
        k, n = totals[key]
        low, high = wilson(k, n) if n else (0.0, 0.0)
        print(f"{key}: {k}/{n} = {k / max(1, n):.2f} [{low:.2f}, {high:.2f}] (Wilson 95%)")
    print(f"kept {totals['kept']} of {totals['generated']} generated; seconds per kept row: "
          + ", ".join(f"{lang} {seconds[lang] / max(1, sum(c['kept'] for (lg, _), c in table.items() if lg == lang)):.0f}"
                      for lang in seconds))
    (args.out / "table.json").write_text(json.dumps(
        {f"{lang}/{kind}": cell for (lang, kind), cell in table.items()}, indent=1))


if __name__ == "__main__":
    main()
