"""``assay align`` on SF-Hotel naturalness ratings (``../shared/data/data2text_sf``).

Builds a rated file of ``--per-band`` rows for each of three bands of the mean human
naturalness rating (1-6: <= 3.0 -> 1, 3.5-4.5 -> 2, >= 5.0 -> 3; a balanced, seeded sample),
then runs ``assay align`` on it with ``examples/metrics/naturalness.md`` (a 1-3 rubric), and
prints the command it ran. Extra arguments go to ``assay align``.

    python benchmarks/align_naturalness.py --per-band 20 -- --judge local --shots 1

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-band", type=int, default=20)
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--work", type=Path, default=Path("assay-out/align-naturalness"))
    parser.add_argument("rest", nargs="*", help="arguments for assay align (after --)")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    data = args.work / "sfhot_naturalness.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rated_rows(args.per_band, args.seed)),
                    encoding="utf-8")
    command = [sys.executable, "-m", "assay.cli", "align", str(data), "--metric-file",
               str(ROOT / "examples" / "metrics" / "naturalness.md"), "--out",
               str(args.work / "out"), *args.rest]
    print("$ " + shlex.join(command), file=sys.stderr)
    raise SystemExit(subprocess.call(command))


if __name__ == "__main__":
    main()
