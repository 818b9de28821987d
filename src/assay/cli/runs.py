"""``assay runs``, ``assay show``, ``assay export`` and ``assay rm``: the run store from the
terminal.

Example:
    >>> _mean({"mean": 4.25}), _mean({"mean": None}), _mean({})
    ('4.25', '-', '-')
"""

from __future__ import annotations

import json
from pathlib import Path, PurePath
from typing import Annotated, Any

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..costs import usd_text
from ..errors import AssayError
from ..records import stored_run_ref
from ..report import arena_headline, job_headline, job_summary, skipped_traces
from ..store import FORMATS, KINDS, RunInfo, Store, open_store
from ._arena_board import print_board
from ._errors import exit_on_errors
from ._options import StoreOption
from ._runjson import run_detail, run_listing
from .run import print_summary

__all__ = ["export_cmd", "rm_cmd", "runs_cmd", "runs_table", "show_cmd"]

err = Console(stderr=True)

RunArgument = Annotated[str, typer.Argument(
    help="A stored run's id, a unique prefix of one, or 'latest'; or the run's output folder "
         "(its --out).")]
JsonOption = Annotated[bool, typer.Option(
    "--json", help="Print JSON (stable keys, no secrets) instead of a table.")]


def _mean(agg: dict[str, Any]) -> str:
    value = agg.get("mean")
    return "-" if value is None else f"{value:.4g}"


def _open(store: str | None) -> Store:
    return open_store(store)


def runs_cmd(
    tag: Annotated[str | None, typer.Option(help="Only runs with this tag.")] = None,
    name: Annotated[str | None, typer.Option(help="Only runs with this name.")] = None,
    dataset: Annotated[str | None, typer.Option(
        help="Only runs on this dataset (part of its path, or a sha256 prefix).")] = None,
    kind: Annotated[str | None, typer.Option(
        help=f"Only runs of this kind: {', '.join(KINDS)}.")] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="At most N runs.")] = 20,
    json_: JsonOption = False,
    store: StoreOption = None,
) -> None:
    """List stored runs, newest first: evaluations and every other job (generate, simulate,
    attack, robustness, watch, calibration), each with its kind."""
    with exit_on_errors("interrupted"):
        if kind is not None and kind not in KINDS:
            raise AssayError(f"Got --kind {kind!r}. Must be one of: {', '.join(KINDS)}.")
        with _open(store) as opened:
            found = opened.runs(tag=tag, name=name, dataset=dataset, kind=kind, limit=limit)
            url = opened.url
    if json_:
        typer.echo(json.dumps([run_listing(info) for info in found], indent=2,
                              ensure_ascii=False))
    else:
        Console().print(runs_table(found, title=f"runs in {url}"))
    if not found:
        err.print("no runs match." if (tag or name or dataset or kind) else
                  "no runs yet: `assay run DATA` records one.", highlight=False)


#: Width of the id column: a run id (``20261121-203638-d436``); its name and dataset below it
#: are cut to this width with an ellipsis (``assay show`` prints them whole).
ID_WIDTH = 20


def _cut(text: str, width: int = ID_WIDTH) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def _cost_lines(info: RunInfo) -> list[str]:
    """The run's cost for the listing (``cost unknown`` where a price is), none for a run
    recorded before costs were.

    Example:
        >>> from assay.store import RunInfo
        >>> info = RunInfo(id="r", name=None, kind="run", tags=[], created="", status="complete",
        ...     dataset=None, dataset_sha256=None, metrics={}, prompt_sha256={}, judge=None,
        ...     settings={}, tokens={}, timings={}, assay_version="0", rows=1,
        ...     summary={"cost": {"usd": 0.0123}})
        >>> _cost_lines(info)
        ['cost $0.0123']
    """
    cost = (info.summary or {}).get("cost")
    return [f"cost {usd_text(cost.get('usd'))}"] if isinstance(cost, dict) else []


def runs_table(found: list[RunInfo], *, title: str | None = None) -> Table:
    """The runs as a table that reads at 80 columns: four columns of stacked facts, and the id
    never broken (it starts with the UTC time the run was created).

    Example:
        >>> import io
        >>> from rich.console import Console
        >>> from assay.store import RunInfo
        >>> means = {m: {"mean": 0.5} for m in ("f1_score", "exact_match", "bleu_score",
        ...                                      "rouge_l", "semantic_similarity")}
        >>> info = RunInfo(id="20261121-203638-d436", name="nightly baseline", kind="run",
        ...     tags=["ci"], created="2026-11-21T20:36:38Z", status="interrupted",
        ...     dataset="/data/evals/qa.jsonl", dataset_sha256=None, metrics={},
        ...     prompt_sha256={}, judge="openai:gpt-4o-mini", settings={}, tokens={},
        ...     timings={}, assay_version="0.1.0", summary={"metrics": means}, rows=120)
        >>> console = Console(width=80, record=True, file=io.StringIO())
        >>> console.print(runs_table([info]))
        >>> for line in console.export_text().splitlines():
        ...     print(line.rstrip())
         id / name / dataset    status / rows   judge / tags         metrics (mean)
        ──────────────────────────────────────────────────────────────────────────────
         20261121-203638-d436   interrupted     openai:gpt-4o-mini   f1_score 0.5
         nightly baseline       120 rows        ci                   exact_match 0.5
         qa.jsonl                                                    bleu_score 0.5
                                                                     rouge_l 0.5
                                                                     +1 more
    """
    table = Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, title_justify="left",
                  leading=1)
    table.add_column("id / name / dataset", no_wrap=True, width=ID_WIDTH)
    table.add_column("status / rows", no_wrap=True)
    table.add_column("judge / tags", overflow="fold", min_width=10)
    table.add_column("metrics (mean)", overflow="fold", min_width=16)
    for info in found:
        run = [info.id, _cut(info.name or "-"),
               _cut(PurePath(info.dataset).name if info.dataset else "-")]
        status = [info.status, f"{info.rows} rows",
                  *([info.kind] if info.kind != "run" else []), *_cost_lines(info)]
        judge = [info.judge or "-", *([", ".join(info.tags)] if info.tags else [])]
        metrics = (info.summary or {}).get("metrics") or {}
        means = [f"{m} {_mean(a)}" for m, a in list(metrics.items())[:4]]
        if len(metrics) > 4:
            means.append(f"+{len(metrics) - 4} more")
        means += job_headline(info.kind, info.summary)  # what a generate/simulate/attack gave
        means += arena_headline(info.summary)  # an arena's top system
        table.add_row(*(Text("\n".join(lines)) for lines in (run, status, judge, means or ["-"])))
    return table


def show_cmd(run: RunArgument, json_: JsonOption = False, store: StoreOption = None) -> None:
    """Print one stored run: its settings and its summary table."""
    with exit_on_errors("interrupted"), _open(store) as opened:
        info = opened.get(stored_run_ref(run))
    if json_:
        typer.echo(json.dumps(run_detail(info), indent=2, ensure_ascii=False))
        return
    console = Console()
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold", no_wrap=True)
    facts.add_column(overflow="fold")
    for key, value in (("id", info.id), ("name", info.name), ("kind", info.kind),
                       ("status", info.status), ("created", info.created),
                       ("finished", info.finished), ("dataset", info.dataset),
                       ("dataset sha256", info.dataset_sha256), ("judge", info.judge),
                       ("rows stored", info.rows), ("tags", ", ".join(info.tags)),
                       ("metrics", ", ".join(f"{k} v{v}" for k, v in info.metrics.items())),
                       ("settings", ", ".join(f"{k}={v}" for k, v in info.settings.items()
                                              if v not in (None, {}, []))),
                       ("tokens", ", ".join(f"{k} {v}" for k, v in info.tokens.items())),
                       ("assay", info.assay_version)):
        facts.add_row(key, Text("" if value is None else str(value)))
    console.print(facts)
    job = job_summary(info.kind, info.summary)
    board = (info.summary or {}).get("arena")
    if job is not None:
        _print_job(console, job)
    elif isinstance(board, dict):  # an arena run: its leaderboard, not its pairwise metric's
        print_board(board, info.judge or "the judge")
    elif info.summary and info.summary.get("metrics"):
        print_summary(info.summary)
    _print_skipped(info)
    if info.status != "complete":
        err.print(f"[yellow]this run is {escape(info.status)}[/yellow]: {_unfinished(info)}",
                  highlight=False)


def _print_job(console: Console, job: dict[str, Any]) -> None:
    """A generate, simulate or attack run's own summary (``assay.report.job_summary``)."""
    facts = Table.grid(padding=(0, 2), pad_edge=False)
    facts.add_column(style="bold", no_wrap=True)
    facts.add_column(overflow="fold")
    for label, text in job["facts"]:
        facts.add_row(label, Text(text))
    console.print(Text(job["title"], style="bold underline"), facts)
    for t in job["tables"]:
        table = Table(title=t["title"], box=box.SIMPLE_HEAD, show_edge=False,
                      title_justify="left")
        for i, col in enumerate(t["columns"]):
            table.add_column(col, overflow="fold", no_wrap=i == 0)
        for row in t["rows"]:
            table.add_row(*(Text(cell) for cell in row))
        console.print(table)


def _print_skipped(info: RunInfo) -> None:
    """A watch run's skipped traces: how many, and each reason (with its fix) and count."""
    found = skipped_traces(info.summary)
    if found is None:
        return
    err.print(f"[yellow]{found.total} trace{'s' if found.total != 1 else ''} skipped[/yellow] "
              "by the watch (no row: not scored, not among the rows stored):", highlight=False)
    for r in found.reasons:
        latest = f" (latest {', '.join(r.latest[:3])})" if r.latest else ""
        err.print(f"  skipped {r.count}{escape(latest)}: {escape(r.reason)}", highlight=False)
    if found.unlisted:
        err.print(f"  skipped {found.unlisted}: other reasons", highlight=False)


def _unfinished(info: RunInfo) -> str:
    """What a run that is not complete is, and how to finish it.

    Example:
        >>> from dataclasses import replace
        >>> from assay.store import RunInfo
        >>> info = RunInfo(id="r1", name=None, kind="watch", tags=[], created="",
        ...     status="running",
        ...     dataset=None, dataset_sha256=None, metrics={}, prompt_sha256={}, judge=None,
        ...     settings={}, tokens={}, timings={}, assay_version="", summary=None, rows=0,
        ...     owner="host:42", heartbeat="2026-12-07T17:00:00Z")
        >>> _unfinished(info).split(";")[0]
        'live: `assay watch` (process host:42, last write 2026-12-07T17:00:00Z) scores traces into it as they arrive'
        >>> _unfinished(replace(info, status="interrupted"))[:44]
        'its `assay watch` stopped (or died) with tra'
    """
    who = f"process {info.owner or 'unknown'}, last write {info.heartbeat or 'unknown'}"
    if info.kind == "watch" and info.status == "running":
        return (f"live: `assay watch` ({who}) scores traces into it as they arrive; "
                f"`assay serve` shows it live (/runs/{info.id}/live). Stop the watch "
                "(Ctrl-C) to finish it.")
    if info.kind == "watch":
        return ("its `assay watch` stopped (or died) with traces left in its spool: run the "
                "same `assay watch` command again (same --spool, --store, metrics and judge) "
                "to score them into this run.")
    if info.status == "running":
        return f"still being written ({who}): wait for it to finish, then show it again."
    command = {"generate": "generate", "simulate": "simulate", "attack": "jailbreak",
               "robustness": "robustness", "arena": "arena"}.get(info.kind, "run")
    return f"rerun its `assay {command}` with --resume (same --out) to finish it."


def export_cmd(
    run: RunArgument,
    format_: Annotated[str, typer.Option("--format", help=f"One of: {', '.join(FORMATS)}.")]
        = "jsonl",
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", "--out",
        help="File to write. Default: <run id>.<format>.")] = None,
    store: StoreOption = None,
) -> None:
    """Write a stored run's per-row results to JSON Lines, CSV or Parquet."""
    with exit_on_errors("interrupted"):
        if format_ not in FORMATS:
            raise AssayError(f"Got --format {format_!r}. Must be one of: {', '.join(FORMATS)}.")
        with _open(store) as opened:
            info = opened.get(stored_run_ref(run))
            path = output or Path(f"{info.id}.{format_}")
            n = opened.export(info.id, path, format_)
    err.print(f"{n} rows of run {info.id} written to {escape(str(path))}", highlight=False)


def rm_cmd(
    run: RunArgument,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False,
    force: Annotated[bool, typer.Option(
        "--force", help="Delete a run that is still running (its process is alive).")] = False,
    store: StoreOption = None,
) -> None:
    """Delete a stored run with its rows. A run still being written is refused without
    --force (one whose process is gone reads as interrupted and can be deleted)."""
    with exit_on_errors("interrupted"), _open(store) as opened:
        info = opened.get(stored_run_ref(run))
        if info.status == "running" and not force:
            raise AssayError(
                f"Run {info.id} is still running: process {info.owner or 'unknown'} is writing "
                f"it (last write {info.heartbeat or 'unknown'}). Fix: wait for it to finish, or "
                "stop it (Ctrl-C; it then reads as interrupted), or delete it anyway with "
                "--force.")
        if not yes and not typer.confirm(
                f"Delete run {info.id} ({info.name or 'unnamed'}, {info.rows} rows)?"):
            raise typer.Exit(1)
        opened.delete(info.id)
    err.print(f"deleted run {info.id}", highlight=False)
