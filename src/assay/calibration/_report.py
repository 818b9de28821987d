"""Calibration output: confusion-matrix and reliability-curve PNGs, a side-by-side table and
the files on disk.

matplotlib is imported inside :func:`confusion_png` and :func:`reliability_png` and used through its object API on the
Agg canvas, so importing assay never imports pyplot nor changes the process's backend.

Example:
    >>> import json, tempfile, pathlib
    >>> from assay.calibration import agreement_stats
    >>> stats = agreement_stats(["No", "Yes"], ["No", "No"], labels=["No", "Yes"], ordinal=False)
    >>> files = write_calibration(pathlib.Path(tempfile.mkdtemp()), {"openai:gpt-4o": stats},
    ...                           metric="toxicity")
    >>> files["openai:gpt-4o"].name
    'confusion-openai_gpt-4o.png'
    >>> json.loads(files["json"].read_text())["reports"]["openai:gpt-4o"]["tpr"]
    0.0
    >>> stats["reliability"] = {"domain": [0.0, 1.0], "bins": [{"judge_mean": 0.2,
    ...     "human_mean": 0.5, "n": 2}]}
    >>> files = write_calibration(pathlib.Path(tempfile.mkdtemp()), {"j": stats}, metric="m")
    >>> sorted(p.name for p in files.values())
    ['calibration.json', 'confusion-j.png', 'reliability-j.png']
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from .._files import atomic_path, atomic_write
from ._stats import jsonable

__all__ = ["RELIABILITY_KEY", "comparison_table", "confusion_png", "reliability_png", "safe_name",
           "write_calibration"]

#: The key of a report's reliability-curve PNG in what :func:`write_calibration` returns.
RELIABILITY_KEY = "reliability: {}"


def safe_name(name: str) -> str:
    """``name`` with every character outside ``[A-Za-z0-9._-]`` replaced by ``_``.

    Example:
        >>> safe_name("local:qwen 2.5/7b")
        'local_qwen_2.5_7b'
    """
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def confusion_png(stats: dict[str, Any], path: Path, *, title: str) -> Path:
    """Draw ``stats["confusion_matrix"]`` (rows: human, columns: judge) with counts to ``path``.

    Raises:
        ValueError: ``stats`` has no square confusion matrix matching its labels.

    Example:
        >>> import tempfile, pathlib
        >>> stats = {"labels": ["No", "Yes"], "confusion_matrix": [[3, 1], [0, 2]]}
        >>> png = confusion_png(stats, pathlib.Path(tempfile.mkdtemp()) / "cm.png", title="t")
        >>> png.read_bytes()[:4]
        b'\\x89PNG'
    """
    labels = [str(x) for x in stats.get("labels") or []]
    matrix = stats.get("confusion_matrix")
    if (not labels or not isinstance(matrix, list) or len(matrix) != len(labels)
            or any(len(row) != len(labels) for row in matrix)):
        raise ValueError(f"confusion_png needs 'labels' and a matching square "
                         f"'confusion_matrix'; got labels {labels!r} and matrix {matrix!r}.")
    k = len(labels)
    top = max((max(row) for row in matrix), default=0) or 1
    side = min(12.0, 2.5 + 0.7 * k)
    fig, ax = _figure(side + 1.0, side)
    image = ax.imshow(matrix, cmap="Blues", vmin=0, vmax=top)
    fig.colorbar(image, ax=ax, shrink=0.8)
    for r, row in enumerate(matrix):
        for c, count in enumerate(row):
            ax.text(c, r, str(count), ha="center", va="center",
                    color="white" if count > top / 2 else "black")
    ax.set_xticks(range(k), labels, rotation=30 if max(map(len, labels)) > 4 else 0,
                  ha="right" if max(map(len, labels)) > 4 else "center")
    ax.set_yticks(range(k), labels)
    ax.set_xlabel("judge")
    ax.set_ylabel("human")
    ax.set_title(title)
    return _save_png(fig, path, "the confusion matrix")


def reliability_png(stats: dict[str, Any], path: Path, *, title: str) -> Path:
    """Draw ``stats["reliability"]`` (see :func:`._reliability.reliability`) to ``path``:
    each bin's judge mean against its human mean, with its count, and the identity line.

    Raises:
        ValueError: ``stats`` has no reliability bins.

    Example:
        >>> import tempfile, pathlib
        >>> stats = {"reliability": {"domain": [1, 5], "x": "judge score", "y": "human mean",
        ...          "bins": [{"judge_mean": 2.0, "human_mean": 2.5, "n": 4}]}}
        >>> png = reliability_png(stats, pathlib.Path(tempfile.mkdtemp()) / "r.png", title="t")
        >>> png.read_bytes()[:4]
        b'\\x89PNG'
    """
    curve = stats.get("reliability")
    bins = curve.get("bins") if isinstance(curve, Mapping) else None
    if not isinstance(curve, Mapping) or not bins:
        raise ValueError(f"reliability_png needs 'reliability' with non-empty 'bins'; got "
                         f"{curve!r:.200}.")
    low, high = (float(x) for x in curve.get("domain") or (0.0, 1.0))
    pad = (high - low) * 0.05
    fig, ax = _figure(5.5, 5.0)
    ax.plot([low, high], [low, high], linestyle="--", color="#9ca3af", label="identity")
    xs = [b["judge_mean"] for b in bins]
    ys = [b["human_mean"] for b in bins]
    ax.plot(xs, ys, marker="o", color="#2563eb", label="judge")
    for b in bins:
        ax.annotate(f"n={b['n']}", (b["judge_mean"], b["human_mean"]),
                    textcoords="offset points", xytext=(6, -12), fontsize=8)
    ax.set_xlim(low - pad, high + pad)
    ax.set_ylim(low - pad, high + pad)
    ax.set_aspect("equal")
    levels = curve.get("levels")
    if isinstance(levels, list) and 1 < len(levels) <= 11:  # a tick per scale value
        ax.set_xticks(levels)
        ax.set_yticks(levels)
    ax.set_xlabel(str(curve.get("x") or "judge score"))
    ax.set_ylabel(str(curve.get("y") or "human mean"))
    ax.set_title(title)
    ax.legend(loc="upper left")
    return _save_png(fig, path, "the reliability curve")


def _figure(width: float, height: float) -> tuple[Any, Any]:
    """A figure of ``width`` x ``height`` inches on its own Agg canvas, and its one axes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def _save_png(fig: Any, path: Path, what: str) -> Path:
    """``fig`` written to ``path`` as a PNG, whole or not at all."""
    path = Path(path)
    with atomic_path(path, what=what) as tmp:
        fig.savefig(tmp, format="png")
    return path


def _num(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def _unscored(report: dict[str, Any]) -> str:
    if report.get("unscored") is None:
        return "-"
    share = report.get("unscored_share")
    return f"{report['unscored']} ({_num(share)})" if share is not None else str(report["unscored"])


def _kappa(report: dict[str, Any]) -> str:
    if report.get("cohen_kappa") is None:
        return "-"
    weights = report.get("kappa_weights")
    return f"{_num(report['cohen_kappa'])} ({weights})" if weights else _num(report["cohen_kappa"])


def _decided_by(report: dict[str, Any]) -> str:
    decided = report.get("decided_by")
    if not isinstance(decided, Mapping):
        return "-"
    return f"{decided.get('probabilities', 0)} / {decided.get('agreement', 0)}"


# (row title, key that must be present in some report for the row to show, cell formatter)
_ROWS: list[tuple[str, str, Callable[[dict[str, Any]], str]]] = [
    ("rows", "n_rows", lambda r: _num(r.get("n_rows"))),
    ("n compared", "n_compared", lambda r: _num(r.get("n_compared"))),
    ("unscored (count, share)", "unscored", _unscored),
    ("no human label", "no_human", lambda r: _num(r.get("no_human"))),
    ("balanced accuracy", "balanced_accuracy", lambda r: _num(r.get("balanced_accuracy"))),
    ("class-weighted F1", "class_weighted_f1", lambda r: _num(r.get("class_weighted_f1"))),
    ("accuracy (exact agreement)", "exact_agreement", lambda r: _num(r.get("exact_agreement"))),
    ("Cohen's kappa (weights)", "cohen_kappa", _kappa),
    ("Spearman", "spearman", lambda r: _num(r.get("spearman"))),
    ("Kendall tau", "kendall", lambda r: _num(r.get("kendall"))),
    ("within one", "within_one", lambda r: _num(r.get("within_one"))),
    ("positive label", "positive_label", lambda r: _num(r.get("positive_label"))),
    ("TPR", "tpr", lambda r: _num(r.get("tpr"))),
    ("TNR", "tnr", lambda r: _num(r.get("tnr"))),
    ("FPR", "fpr", lambda r: _num(r.get("fpr"))),
    ("FNR", "fnr", lambda r: _num(r.get("fnr"))),
    # pairwise metrics: how the judge treats the two positions (over every scored row)
    ("position consistency", "position_consistency",
     lambda r: _num(r.get("position_consistency"))),
    ("flips (orders disagree)", "flips", lambda r: _num(r.get("flips"))),
    ("answers naming the first-shown output", "first_shown_share",
     lambda r: _num(r.get("first_shown_share"))),
    ("decided by probabilities / agreement", "decided_by", _decided_by),
]


def comparison_table(reports: Mapping[str, dict[str, Any]], *, title: str) -> Table:
    """One row per figure, one column per report (e.g. per judge or prompt version).

    Figures show 3 decimals, ``-`` where a report lacks the figure or it is undefined; a row
    shows only when some report has its figure (e.g. Spearman only for ordinal scales).

    Example:
        >>> import io
        >>> from rich.console import Console
        >>> from assay.calibration import agreement_stats
        >>> a = agreement_stats([1, 2, 3], [1, 2, 2], labels=[1, 2, 3], ordinal=True)
        >>> console = Console(file=io.StringIO(), width=100)
        >>> console.print(comparison_table({"judge-a": a}, title="coherence vs humans"))
        >>> "0.667 (quadratic)" in console.file.getvalue()
        True
    """
    table = Table(title=title)
    table.add_column("figure")
    for name in reports:
        table.add_column(Text(name), justify="right")
    for row_title, key, cell in _ROWS:
        if any(key in report for report in reports.values()):
            table.add_row(Text(row_title), *(Text(cell(report)) for report in reports.values()))
    return table


def write_calibration(out_dir: Path, reports: Mapping[str, dict[str, Any]], *,
                      metric: str) -> dict[str, Path]:
    """Write ``calibration.json`` and, per report, ``confusion-<safe name>.png`` and (when it
    has reliability bins) ``reliability-<safe name>.png``.

    Returns ``{"json": path, report name: confusion png, "reliability: <report name>":
    reliability png, ...}``. Two names that sanitise alike get ``-2``, ``-3``, ... so no PNG
    overwrites another.

    Raises:
        ValueError: a report is named ``"json"`` (that key holds the JSON file's path).
    """
    if "json" in reports:
        raise ValueError("A report may not be named 'json' (write_calibration returns the JSON "
                         "file under that key); rename it.")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path = out_dir / "calibration.json"
    with atomic_write(json_path, what="the calibration report") as f:
        f.write(json.dumps({"metric": metric, "reports": jsonable(dict(reports))},
                           indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    files: dict[str, Path] = {"json": json_path}
    used: set[str] = set()
    for name, report in reports.items():
        stem = base = safe_name(name)
        n = 1
        while stem in used:
            n += 1
            stem = f"{base}-{n}"
        used.add(stem)
        files[name] = confusion_png(report, out_dir / f"confusion-{stem}.png",
                                    title=f"{metric} vs humans: {name}")
        curve = report.get("reliability")
        if isinstance(curve, Mapping) and curve.get("bins"):
            files[RELIABILITY_KEY.format(name)] = reliability_png(
                report, out_dir / f"reliability-{stem}.png",
                title=f"{metric}: reliability of {name}")
    return files
