"""Reading datasets at size: rows/s of ``DatasetStream.check`` (every row parsed, checked and
validated, as ``assay run`` does before any judge call) on JSONL and CSV files of qa50's rows.

    .venv/bin/python benchmarks/data_read.py              # 100,000 rows
    .venv/bin/python benchmarks/data_read.py --rows 20000
"""

from __future__ import annotations

import argparse
import csv
import json
import tempfile
import time
from pathlib import Path

from assay.data import DatasetStream

ROOT = Path(__file__).resolve().parents[1]
QA50 = ROOT.parent / "shared" / "bench" / "qa50.jsonl"


def rows(n: int) -> list[dict[str, str]]:
    """``n`` rows: qa50's, repeated, each with a unique id."""
    base = [json.loads(x) for x in QA50.read_text().splitlines() if x.strip()]
    return [{**base[i % len(base)], "id": f"r{i}"} for i in range(n)]


def write(folder: Path, n: int) -> list[Path]:
    """The same ``n`` rows as ``d.jsonl`` and ``d.csv``."""
    data = rows(n)
    jsonl = folder / "d.jsonl"
    jsonl.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in data),
                     encoding="utf-8")
    path = folder / "d.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(data[0]))
        w.writeheader()
        w.writerows(data)
    return [jsonl, path]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for path in write(Path(tmp), args.rows):
            started = time.perf_counter()
            count = DatasetStream(path).check()
            wall = time.perf_counter() - started
            mib = path.stat().st_size / 2**20
            print(f"{path.suffix:7} {count:>9,} rows  {mib:7.1f} MiB  {wall:6.2f} s  "
                  f"{count / wall:>9,.0f} rows/s")


if __name__ == "__main__":
    main()
