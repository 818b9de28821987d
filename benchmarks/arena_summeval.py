"""Issue 48, "with people": does the arena rank SummEval's 16 summarisation systems as the
experts do?

SummEval (``../shared/data/summeval``) holds 16 systems' summaries of the same CNN/DM articles
with three experts' 1-5 ratings of coherence, consistency, fluency and relevance. This script
takes the first ``--articles`` articles that every system summarised (the shared rows), writes
one answer file per system (the article as the context, "Summarise the article." as the
question, the summary as the answer), runs ``assay arena`` on them with ``--judge`` (default:
the embedded judge) and ``--budget`` comparisons, and prints Kendall's tau between the arena's
ratings and the experts' mean rating of each system (the mean of the four dimensions over the
same articles), with a 95% interval from a bootstrap over the articles (the arena refitted on
the resampled articles' comparisons, the experts' means on the same articles).

Run: ``python benchmarks/arena_summeval.py [--articles 5] [--budget 120] [--judge local]``.
It keeps its output folder (``--out``), so a run stopped with Ctrl-C continues with the same
command.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy.stats import kendalltau

from assay.arena import Comparison, rate, split_pair_id

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "summeval" / \
    "summeval_shared.jsonl"
DIMENSIONS = ("coherence", "consistency", "fluency", "relevance")


def systems_of(articles: int, folder: Path) -> tuple[list[Path], dict[str, dict[str, float]]]:
    """One answer file per system over the first ``articles`` shared articles; each
    system's expert mean per article."""
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
    by_article: dict[str, dict[str, dict]] = defaultdict(dict)
    for row in rows:
        by_article[row["article_id"]][row["summary_id"]] = row
    systems = sorted({r["summary_id"] for r in rows}, key=lambda s: int(s[1:]))
    shared = [a for a, got in by_article.items() if len(got) == len(systems)][:articles]
    folder.mkdir(parents=True, exist_ok=True)
    paths, experts = [], {}
    for system in systems:
        lines = []
        experts[system] = {}
        for article in shared:
            row = by_article[article][system]
            lines.append(json.dumps({"id": article, "question": "Summarise the article.",
                                     "context": row["article"], "answer": row["summary"]}))
            experts[system][article] = float(np.mean([row[d] for d in DIMENSIONS]))
        path = folder / f"{system}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths, experts


def comparisons_of(out: Path) -> list[Comparison]:
    """The judged pairs of the arena's run folder."""
    found = []
    for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        row, a, b = split_pair_id(record["id"])
        value = (record.get("preference") or {}).get("value")
        found.append(Comparison(row, a, b, None if value is None else float(value)))
    return found


def tau_of(comparisons: list[Comparison], experts: dict[str, dict[str, float]],
           articles: list[str]) -> float:
    board = rate(comparisons, systems=sorted(experts), bootstrap=0)
    rated = [r for r in board.ratings if r.rating is not None]
    means = [np.mean([experts[r.system][a] for a in articles]) for r in rated]
    return float(kendalltau([r.rating for r in rated], means).statistic)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=5)
    parser.add_argument("--budget", type=int, default=120)
    parser.add_argument("--judge", default="local")
    parser.add_argument("--out", type=Path, default=Path("assay-out/arena-summeval"))
    args = parser.parse_args()

    paths, experts = systems_of(args.articles, args.out / "systems")
    arena_out = args.out / "arena"
    command = [sys.executable, "-m", "assay.cli", "arena", *map(str, paths), "--judge",
               args.judge, "--budget", str(args.budget), "--out", str(arena_out), "--no-store",
               "-q"]
    if (arena_out / "results.jsonl").exists():
        command.append("--resume")
    started = time.perf_counter()
    done = subprocess.run(command, check=False)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 3):
        sys.exit(done.returncode)
    comparisons = comparisons_of(arena_out)
    articles = sorted({c.row_id for c in comparisons})
    tau = tau_of(comparisons, experts, articles)
    rng = np.random.default_rng(0)
    taus = []
    for _ in range(500):  # bootstrap over articles
        picked = list(rng.choice(articles, size=len(articles), replace=True))
        resampled = [Comparison(f"{c.row_id}#{k}", c.a, c.b, c.outcome)
                     for k, a in enumerate(picked) for c in comparisons if c.row_id == a]
        taus.append(tau_of(resampled, experts, picked))
    low, high = np.percentile(taus, [2.5, 97.5])
    decided = sum(c.outcome is not None for c in comparisons)
    print(f"SummEval, {len(experts)} systems, {len(articles)} articles, judge {args.judge}: "
          f"{len(comparisons)} comparisons ({decided} decided, both orders each), "
          f"{seconds:.0f} s this session")
    print(f"Kendall tau (arena vs experts' mean of {', '.join(DIMENSIONS)}): {tau:.2f} "
          f"[95% bootstrap over articles: {low:.2f} to {high:.2f}]")


if __name__ == "__main__":
    main()
