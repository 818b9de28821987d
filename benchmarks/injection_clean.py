"""Does the injection defence change what the judge reads on clean data? Every row of every
agreement dataset, scanned as a run scans it.

Issue 16 asks that the clean-data agreement figures (``agreement.py``, ``safety_agreement.py``)
do not drop. With the default fence (``tags``) the judge's prompt changes only for a row that
``assay.injection.scan_row`` flags: ``--on-injection mask`` (the default) withholds its flagged
sentences. A row that is not flagged is sent byte for byte as before, so the judge (greedy,
temperature 0, and the same cache key) answers it as before. This script counts, for every
row of each dataset (not only the benchmarks' samples), the rows whose judge prompt the
default run would change, with a bootstrap 95% CI of the rate, and names them.

    .venv/bin/python benchmarks/injection_clean.py          # about a minute, no judge
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parent))

from agreement import DATA, DATASETS, PAIRWISE, pairwise_rows
from injection_patterns import bootstrap
from safety_agreement import DATASETS as SAFETY_DATASETS

from assay.data import rows_from_records
from assay.injection import mask_row, scan_row


def summeval_rows() -> list[dict[str, Any]]:
    """Every SummEval row as ``agreement.py --dataset summeval`` builds it."""
    out = []
    for line in (DATA / "summeval" / "summeval_shared.jsonl").read_text().splitlines():
        r = json.loads(line)
        out.append({"id": f"{r['article_id']}-{r['summary_id']}",
                    "question": "Summarize the news article.", "context": r["article"],
                    "answer": r["summary"]})
    return out


def datasets() -> dict[str, list[dict[str, Any]]]:
    """Every agreement dataset's rows, as the agreement benchmarks send them."""
    out: dict[str, list[dict[str, Any]]] = {}
    for name, items in DATASETS.items():
        out[name] = [item[0] for item in items()]
    for name in PAIRWISE:  # a few PandaLM responses are JSON true: assay reads text
        out[name] = [{k: v if isinstance(v, str) else json.dumps(v) for k, v in r.items()}
                     for r in pairwise_rows(name, 10**9)]
    out["summeval"] = summeval_rows()
    for name, (loader, _metrics) in SAFETY_DATASETS.items():
        out[name] = [item.row for item in loader()]
    return out


def changed(records: Iterable[Mapping[str, Any]]) -> tuple[int, list[str]]:
    """(rows, ids of the rows whose judge-facing texts the default run would change)."""
    rows = rows_from_records(list(records))
    ids = [row.id for row in rows if scan_row(row) and mask_row(row) != row]
    return len(rows), ids


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", dest="json_out", default=None, help="write the figures here")
    args = ap.parse_args(argv)
    out: dict[str, Any] = {}
    total, total_changed = 0, 0
    print(f"{'dataset':20s} {'rows':>7s} {'changed':>8s}  rate [95% CI]")
    for name, records in datasets().items():
        n, ids = changed(records)
        total, total_changed = total + n, total_changed + len(ids)
        lo, hi = bootstrap([1.0] * len(ids) + [0.0] * (n - len(ids)), seed=16)
        out[name] = {"rows": n, "changed": ids}
        print(f"{name:20s} {n:7d} {len(ids):8d}  {len(ids) / n:.4f} [{lo:.4f}, {hi:.4f}]"
              + (f"  {', '.join(ids[:5])}" if ids else ""))
    print(f"{'all':20s} {total:7d} {total_changed:8d}  {total_changed / total:.4f}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(out, indent=1), encoding="utf-8")
    return out


if __name__ == "__main__":
    main()
