"""The files ``assay align`` writes: ``<metric>-aligned.md`` and ``alignment.json``.

Example:
    >>> import tempfile, pathlib
    >>> from assay.metrics.custom import PointwiseMetric
    >>> m = PointwiseMetric("tone", "<a>{{ response }}</a>", scale="1-3")
    >>> files = write_alignment(pathlib.Path(tempfile.mkdtemp()), m, {"metric": "tone"})
    >>> sorted(files), files["metric_file"].name
    (['alignment', 'metric_file'], 'tone-aligned.md')
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .._files import atomic_write
from ..metrics.custom import PointwiseMetric
from ._candidates import write_metric_file

__all__ = ["write_alignment"]


def _comment(report: dict[str, Any]) -> str:
    chosen = report.get("chosen") or {}
    if not chosen:
        return "Written by assay align."
    return (f"Written by assay align from {report.get('data')} with judge {report.get('judge')}:"
            f"\n{chosen.get('prompt')}{' + score map' if chosen.get('mapping') else ''}, chosen "
            f"on {report.get('train')} train rows; see alignment.json for the held-out figures.")


def write_alignment(out: Path, aligned: PointwiseMetric, report: dict[str, Any]
                    ) -> dict[str, Path]:
    """Write both files into ``out``; ``report`` gets their paths under ``files``."""
    out.mkdir(parents=True, exist_ok=True)
    files = {"metric_file": out / f"{aligned.name}-aligned.md",
             "alignment": out / "alignment.json"}
    write_metric_file(aligned, files["metric_file"], comment=_comment(report))
    report["files"] = {k: str(v) for k, v in files.items()}
    with atomic_write(files["alignment"], what="the alignment report") as f:
        f.write(json.dumps(report, indent=2, ensure_ascii=False, default=str) + "\n")
    return files
