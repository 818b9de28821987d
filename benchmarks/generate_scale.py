"""How ``assay generate`` scales: the wall time of a run asking for ``--n`` rows from many
documents (the near-duplicate check, the rounds), and the wall time and peak memory of reading,
chunking, indexing and generating 20 rows from one large document (with the longest time
nothing was said on stderr; a progress bar also runs during the indexing).

Both run ``generate`` with the scripted generation judge of the tests
(``tests/generation_judge.py``: in process, no model) and character n-grams for near-duplicates (``embeddings=None``: the
slowest check, the one every non-English question takes). The documents are made up here from
a seeded vocabulary (every sentence different), so nothing is downloaded. Each measurement runs
in its own process, so its peak memory (``ru_maxrss``) is its own.

Usage:
    .venv/bin/python benchmarks/generate_scale.py --n 2000 --doc-mb 50
    .venv/bin/python benchmarks/generate_scale.py --n 300 --doc-mb 5    # a quick look
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _words(rng: random.Random, count: int) -> list[str]:
    syllables = ["ka", "lo", "mi", "ren", "tu", "sol", "ve", "dra", "qui", "pon", "el", "zar",
                 "mo", "ti", "bel", "cor", "nu", "ga", "fer", "lin"]
    return ["".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))
            for _ in range(count)]


def make_text(chars: int, seed: int = 0) -> str:
    """About ``chars`` characters of English-like prose in paragraphs, every sentence
    different."""
    rng = random.Random(seed)
    vocab = _words(rng, 5000)
    parts: list[str] = []
    size = 0
    while size < chars:
        sentences = [" ".join(rng.choice(vocab) for _ in range(rng.randint(8, 14))).capitalize()
                     + "." for _ in range(rng.randint(4, 8))]
        paragraph = " ".join(sentences)
        parts.append(paragraph)
        size += len(paragraph) + 2
    return "\n\n".join(parts) + "\n"


def _child_generate(n: int, folder: Path) -> dict[str, object]:
    sys.path.insert(0, str(ROOT / "tests"))
    from assay.generate import generate
    from generation_judge import generation_judge

    started = time.perf_counter()
    result = generate([folder / "docs"], out=folder / "qa.jsonl", n=n,
                      judge=generation_judge(), embeddings=None, cache=False, overwrite=True)
    return {"n": n, "kept": result.summary["kept"], "generated": result.summary["generated"],
            "seconds": round(time.perf_counter() - started, 1)}


def _child_read(folder: Path) -> dict[str, object]:
    sys.path.insert(0, str(ROOT / "tests"))
    from assay.generate import generate
    from generation_judge import generation_judge

    said: list[tuple[float, str]] = []
    started = time.perf_counter()
    result = generate([folder / "big.txt"], out=folder / "big.jsonl", n=20,
                      judge=generation_judge(), embeddings=None, cache=False, overwrite=True,
                      on_stage=lambda line: said.append((time.perf_counter(), line)))
    ended = time.perf_counter()
    marks = [started, *(t for t, _ in said), ended]
    return {"chunks": result.summary["documents"]["chunks"], "kept": result.summary["kept"],
            "seconds": round(ended - started, 1),
            "longest_silence_s": round(max(b - a for a, b in pairwise(marks)), 1),
            "said": [line for _, line in said]}


def _child(args: argparse.Namespace) -> None:
    folder = Path(args.folder)
    result = (_child_generate(args.n, folder) if args.child == "generate"
              else _child_read(folder))
    result["peak_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    print(json.dumps(result))


def _measure(kind: str, folder: Path, n: int) -> dict[str, object]:
    done = subprocess.run([sys.executable, __file__, "--child", kind, "--folder", str(folder),
                           "--n", str(n)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return {"failed": done.stderr.strip().splitlines()[-1:]}
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="rows wanted (0: skip)")
    parser.add_argument("--doc-mb", type=float, default=50.0,
                        help="size of the large document in MB (0: skip)")
    parser.add_argument("--child", choices=["generate", "read"], help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.n:
            docs = folder / "docs"
            docs.mkdir()
            per_doc = 400_000  # about 330 chunks each; 3 chunks a kept row is plenty
            for k in range(max(1, args.n * 3 * 1200 // per_doc)):
                (docs / f"doc{k:03d}.txt").write_text(make_text(per_doc, seed=k))
            print(f"generate --n {args.n}: {_measure('generate', folder, args.n)}", flush=True)
        if args.doc_mb:
            (folder / "big.txt").write_text(make_text(int(args.doc_mb * 1_000_000)))
            print(f"generate --n 20 from a {args.doc_mb:g} MB document: "
                  f"{_measure('read', folder, 0)}", flush=True)


if __name__ == "__main__":
    main()
