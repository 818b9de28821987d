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

from _agreement_sets import SETS
from injection_patterns import bootstrap
from safety_agreement import DATASETS as SAFETY_DATASETS

from assay.data import rows_from_records
from assay.injection import mask_row, scan_row


def datasets() -> dict[str, list[dict[str, Any]]]:
    """Every agreement dataset's rows, as the agreement benchmarks send them (all of each set,
    not the benchmark's sample)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for name, bench_set in SETS.items():
        rows = [item.row for item in bench_set.load()]
        if bench_set.pairwise:  # a few PandaLM responses are JSON true: assay reads text
            rows = [{k: v if isinstance(v, str) else json.dumps(v) for k, v in r.items()}
                    for r in rows]
        out[name] = rows
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
