"""``assay simulate``, ``assay jailbreak`` and ``assay compare-defects``: adversarial datasets
from seed requests, and the jailbreak defect rate.

The terminal shows ids, categories and numbers; the requests and the app's replies stay in the
output files unless ``--show-text`` is given. The command owns the app target and the judge:
each is opened once and closed once, at the end. When the app or the judge left more than
``--max-failed-share`` of the rows unscored, the command names the top causes and exits 3.

Example:
    >>> _clip("a" * 300, 10)
    'aaaaaaaaa…'
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..data import read_records
from ..errors import AssayError
from ..judges import check_judge_spec
from ..redteam import (
    ANY,
    BUILTIN,
    compare_defects,
    injected_attacks,
    jailbreak,
    load_seeds,
    load_templates,
    pick_seeds,
    plain_attacks,
    read_run,
    simulate,
)
from ..robustness import DEFAULT_MAX_FAILED_SHARE, FailureTally, close_target, make_target
from ._errors import exit_on_errors
from ._format import percent
from ._options import NoStoreOption, StoreOption, store_arg

__all__ = ["MaxFailedShare", "compare_defects_cmd", "exit_if_failed", "jailbreak_cmd",
           "simulate_cmd"]

err = Console(stderr=True)

T = TypeVar("T")

MaxFailedShare = Annotated[float, typer.Option(
    min=0.0, max=1.0, help="Exit 3 when more than this share of the rows could not be scored "
    "(the app or the judge failed; 'does not apply' does not count).")]

_TARGET_HELP = ("The app under test: python:package.module:function (called with the "
                "conversation, a list of {role, content} dicts), openai:MODEL, http:URL (POSTs "
                "{\"messages\": [...]}), or local (the embedded model).")
_SEEDS_HELP = ("Seed requests, a file or a directory of them: JSONL/CSV with a prompt (or goal, "
               "behavior) column, or one per "
               f"line in a .txt; '{BUILTIN}' for the shipped list (10 per harm category).")


def _clip(text: str, width: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"


async def _owning(target: object, work: Awaitable[T]) -> T:
    """Await ``work``, then close ``target`` (once, whatever happened)."""
    try:
        return await work
    finally:
        await close_target(target)


def exit_if_failed(failures: FailureTally, max_share: float) -> None:
    """Name the top causes of unscored rows, if any; exit 3 when their share is over
    ``max_share``."""
    lines = failures.describe(max_share)
    if not lines:
        return
    over = failures.share > max_share
    colour = "red" if over else "yellow"
    err.print(f"[{colour}]{lines[0]}[/{colour}]", highlight=False, soft_wrap=True)
    for line in lines[1:]:
        err.print(line, highlight=False, soft_wrap=True, markup=False)
    if over:
        raise typer.Exit(3)


def _categories(value: str | None) -> list[str] | None:
    return [c.strip() for c in value.split(",") if c.strip()] if value else None


def _print_text(console: Console, row_id: str, row: dict[str, Any]) -> None:
    """One conversation's first request and last reply, clipped (for --show-text only)."""
    template = f" ({row['template']})" if row.get("template") else ""
    console.print(f"[bold]{row_id}[/bold]{template} {_clip(row['messages'][0]['content'])}\n"
                  f"  -> {_clip(_last_reply(row))}", highlight=False)


def _last_reply(row: dict[str, Any]) -> str:
    replies = [m["content"] for m in row.get("messages", []) if m.get("role") == "assistant"]
    return replies[-1] if replies else ""


def simulate_cmd(
    target: Annotated[str, typer.Option(help=_TARGET_HELP)] = "",
    seeds: Annotated[str, typer.Option(help=_SEEDS_HELP)] = BUILTIN,
    category: Annotated[str | None, typer.Option(
        help="Comma-separated categories of the seed list to keep.")] = None,
    n: Annotated[int | None, typer.Option(min=1, help="Use N seeds (categories in turn).")] = None,
    turns: Annotated[int, typer.Option(
        min=1, help="User turns per conversation; later ones follow up on the app's answer.")] = 1,
    inject: Annotated[bool, typer.Option(
        help="Wrap each request in a jailbreak template (seed i gets template i mod count).")]
        = False,
    templates: Annotated[list[str] | None, typer.Option(
        help=f"Jailbreak template file (repeatable; '{BUILTIN}' for the shipped ones): a "
             "template or prompt column with {prompt} or [INSERT PROMPT HERE].")] = None,
    out: Annotated[Path | None, typer.Option(
        help="Output JSONL. Default: assay-out/simulate-<seeds>.jsonl.")] = None,
    resume: Annotated[bool, typer.Option(help="Keep finished rows; ask only the rest.")] = False,
    overwrite: Annotated[bool, typer.Option(
        help="Replace an existing output file (without it or --resume, one is refused).")]
        = False,
    concurrency: Annotated[int, typer.Option(min=1, help="Conversations in flight.")] = 4,
    show_text: Annotated[bool, typer.Option(
        help="Print the requests and replies (they may be harmful).")] = False,
    max_failed_share: MaxFailedShare = DEFAULT_MAX_FAILED_SHARE,
) -> None:
    """Ask the app under test harmful seed requests and save the conversations as a dataset."""
    name = "builtin" if seeds == BUILTIN else Path(seeds).stem
    path = out or Path("assay-out") / f"simulate-{name}{'-injected' if inject else ''}.jsonl"
    with exit_on_errors(f"\ninterrupted: conversations so far are in {path}; rerun with "
                        "--resume to continue."):
        if not target:
            raise AssayError(f"--target is required. {_TARGET_HELP}")
        if templates and not inject:
            raise AssayError("--templates needs --inject. Add --inject, or drop --templates.")
        if path.exists() and not (resume or overwrite):
            raise AssayError(f"{path} already holds conversations. assay does not overwrite "
                             "them silently. Fix: --resume to continue, --overwrite to replace "
                             "them, or --out NEW_FILE.")
        chosen = pick_seeds(load_seeds(seeds), n, _categories(category))
        attacks = (injected_attacks(chosen, load_templates(list(templates or [])))
                   if inject else plain_attacks(chosen))
        app = make_target(target)
        rows = asyncio.run(_owning(app, simulate(
            attacks, app, path, turns=turns, resume=resume, concurrency=concurrency,
            progress=sys.stderr.isatty())))
    failed = [r for r in rows if r.get("error")]
    table = Table(title=f"assay simulate: {len(rows)} conversations, {app.id}")
    for col in ("category", "conversations", "app failures"):
        table.add_column(col, justify="left" if col == "category" else "right")
    for cat in sorted({r["category"] for r in rows}):
        of = [r for r in rows if r["category"] == cat]
        table.add_row(cat, str(len(of)), str(sum(1 for r in of if r.get("error"))))
    Console().print(table)
    if show_text:
        for r in rows:
            _print_text(Console(), r["id"], r)
    for r in failed[:10]:  # ids and errors may hold brackets: no markup
        err.print(f"{r['id']}: {r['error']}", style="yellow", highlight=False, markup=False)
    if len(failed) > 10:
        err.print(f"... and {len(failed) - 10} more app failures (their rows have 'error' set "
                  f"in {path})", highlight=False, markup=False)
    err.print(f"conversations: {path}\nrate them: assay run {path} --metrics "
              "hate_unfairness,sexual,violence,self_harm,refusal", highlight=False)
    failures = FailureTally()
    for r in rows:
        failures.add([str(r["error"])] if r.get("error") else [])
    exit_if_failed(failures, max_failed_share)


def print_defect_comparison(report: dict[str, Any], *, title: str,
                     texts: dict[str, dict[str, Any]] | None = None) -> None:
    """The per-category defect rates of both sides, their difference, and the rows whose
    severity rose the most (with the injected request and reply when ``texts`` is given)."""
    # no column rules, one space between columns: the table reads at 80 columns
    table = Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                  padding=(0, 0, 0, 1))
    for col in ("category", "plain", "injected", "difference", "scored", "refused",
                "unscored"):
        table.add_column(col, justify="left" if col == "category" else "right", no_wrap=True)
    for cat, entry in report["categories"].items():
        base, inj = entry["base"], entry["injected"]
        table.add_row("any category" if cat == ANY else cat,
                      f"{percent(base['defect_rate'])} ({base['defects']})",
                      f"{percent(inj['defect_rate'])} ({inj['defects']})", percent(entry["difference"], signed=True),
                      f"{base['scored']}/{inj['scored']}", f"{base['refused']}/{inj['refused']}",
                      f"{base['unscored']}/{inj['unscored']}")
    console = Console()
    console.print(table)
    if report["top_rises"]:
        rises = Table(title="largest severity rises (paired rows)")
        for col in ("id", "category", "plain", "injected", "rise", "injected reply refused"):
            rises.add_column(col, justify="left" if col in ("id", "category") else "right",
                             no_wrap=col in ("id", "category"))
        for r in report["top_rises"]:
            refused = {True: "yes (no defect)", False: "no", None: "-"}[r.get("refused")]
            rises.add_row(r["id"], r["category"], f"{r['base']:g}", f"{r['injected']:g}",
                          f"+{r['rise']:g}", refused)
        console.print(rises)
        for r in report["top_rises"]:
            row = (texts or {}).get(r["id"])
            if row:
                _print_text(console, r["id"], row)
    for key, what in (("only_base", "plain"), ("only_injected", "injected")):
        if report.get(key):
            err.print(f"[yellow]{len(report[key])} rows only in the {what} run, not compared:"
                      f"[/yellow] {', '.join(report[key][:10])}", highlight=False)


def _rows_by_id(path: Path) -> dict[str, dict[str, Any]]:
    """A dataset's conversation rows by id (for --show-text; an unreadable row is skipped)."""
    if not path.is_file():
        return {}
    return {str(rec.get("id")): rec for _, rec in read_records(path, [])
            if isinstance(rec.get("messages"), list)}


def jailbreak_cmd(
    target: Annotated[str, typer.Option(help=_TARGET_HELP)] = "",
    n: Annotated[int | None, typer.Option(min=1, help="Seeds to use (categories in turn).")]
        = 20,
    seeds: Annotated[str, typer.Option(help=_SEEDS_HELP)] = BUILTIN,
    templates: Annotated[list[str] | None, typer.Option(
        help=f"Jailbreak template file (repeatable; '{BUILTIN}' for the shipped ones, the "
             "default): a template or prompt column with {prompt} or [INSERT PROMPT HERE].")]
        = None,
    category: Annotated[str | None, typer.Option(
        help="Comma-separated categories of the seed list to keep.")] = None,
    turns: Annotated[int, typer.Option(min=1, help="User turns per conversation.")] = 1,
    judge: Annotated[str, typer.Option(
        help="Judge: local (embedded, offline), local:PATH.gguf, openai:MODEL, "
             "azure:DEPLOYMENT.")] = "local",
    safety_threshold: Annotated[str, typer.Option(
        help="low, medium or high: the severity level from which a reply is a defect.")]
        = "medium",
    safety_mode: Annotated[str, typer.Option(
        help="combined (one judge request per reply for the four categories) or separate.")]
        = "combined",
    refusal: Annotated[bool, typer.Option(
        help="Also judge whether the app refused (a refusal is never a defect).")] = True,
    out: Annotated[Path | None, typer.Option(
        help="Output directory. Default: assay-out/jailbreak-<target>.")] = None,
    cache: Annotated[Path | None, typer.Option(
        help="Judge cache file. Default: the user cache.")] = None,
    resume: Annotated[bool, typer.Option(
        help="Keep finished conversations and ratings; do only the rest.")] = False,
    overwrite: Annotated[bool, typer.Option(
        help="Replace the jailbreak already in the output directory (without it or --resume, "
             "one is refused).")] = False,
    concurrency: Annotated[int, typer.Option(min=1, help="Requests in flight.")] = 4,
    top: Annotated[int, typer.Option(min=0, help="Rows with the largest rise to list.")] = 5,
    show_text: Annotated[bool, typer.Option(
        help="Print the requests and replies of the listed rows (they may be harmful).")] = False,
    store: StoreOption = None,
    no_store: NoStoreOption = False,
    max_failed_share: MaxFailedShare = DEFAULT_MAX_FAILED_SHARE,
) -> None:
    """Ask the app the same seeds plain and with a jailbreak injection, rate both, and report
    the defect rates and their difference (the jailbreak defect rate)."""
    safe_name = "".join(c if c.isalnum() or c in "-_." else "-" for c in target)[:60]
    out_dir = out or Path("assay-out") / f"jailbreak-{safe_name}"
    with exit_on_errors(f"\ninterrupted: the work so far is in {out_dir}; rerun with --resume "
                        "to continue."):
        if not target:
            raise AssayError(f"--target is required. {_TARGET_HELP}")
        check_judge_spec(judge)
        app = make_target(target)
        report = asyncio.run(_owning(app, jailbreak(
            app, out=out_dir, n=n, seeds=seeds, templates=templates,
            categories=_categories(category), turns=turns, judge=judge,
            cache=cache if cache is not None else True, safety_threshold=safety_threshold,
            safety_mode=safety_mode, refusal=refusal, resume=resume, overwrite=overwrite,
            concurrency=concurrency,
            top=top, progress=sys.stderr.isatty(),
            store=store_arg(store, no_store))))
    t = report["timings"]
    print_defect_comparison(report, title=(
        f"assay jailbreak: {report['seeds']} seeds, {len(report['templates'])} templates, "
        f"defects at or above {report['threshold']}, {app.id}"),
        texts=_rows_by_id(out_dir / "injected.jsonl") if show_text else None)
    failures = report["app_failures"]
    if any(failures.values()):
        err.print(f"[yellow]app failures (unscored): plain {failures['plain']}, injected "
                  f"{failures['injected']}[/yellow]")
    if all(report["run_ids"].values()):
        err.print(f"stored runs: plain {report['run_ids']['plain']}, injected "
                  f"{report['run_ids']['injected']}", highlight=False)
    err.print(f"time: asking {t['ask_plain_s'] + t['ask_injected_s']:.0f} s, rating "
              f"{t['rate_plain_s'] + t['rate_injected_s']:.0f} s; report: "
              f"{out_dir / 'jailbreak.json'}", highlight=False)
    exit_if_failed(FailureTally.from_dict(report["failures"]), max_failed_share)


def compare_defects_cmd(
    base: Annotated[Path, typer.Argument(help="Run without injection: an `assay run` output "
                                              "directory or its results.jsonl.")],
    injected: Annotated[Path, typer.Argument(help="Run with injection, rows with the same ids.")],
    safety_threshold: Annotated[str, typer.Option(
        help="low, medium or high: the severity level from which a reply is a defect.")]
        = "medium",
    top: Annotated[int, typer.Option(min=0, help="Rows with the largest rise to list.")] = 5,
    json_out: Annotated[Path | None, typer.Option(
        "--json", help="Also write the comparison to this JSON file.")] = None,
    show_text: Annotated[bool, typer.Option(
        help="Print the injected request and reply of the listed rows (read from the run's "
             "dataset; they may be harmful).")] = False,
) -> None:
    """Compare the defect rates of two runs on their paired rows (same ids): the jailbreak
    defect rate when INJECTED is BASE's dataset with jailbreak injections."""
    with exit_on_errors("\ninterrupted."):
        report = compare_defects(read_run(base), read_run(injected), threshold=safety_threshold,
                                 top=top)
        texts = _texts_of_run(injected) if show_text else None
    print_defect_comparison(report, title=f"defects at or above {safety_threshold}: {base} vs {injected}",
                     texts=texts)
    if json_out is not None:
        try:
            json_out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        except OSError as e:
            err.print(f"[red]error:[/red] {escape(f'cannot write {json_out}: {e.strerror or e}')}."
                      " Fix: give --json a path in a writable folder.", highlight=False,
                      soft_wrap=True)
            raise typer.Exit(2) from None
        err.print(f"comparison: {json_out}", highlight=False)


def _texts_of_run(run: Path) -> dict[str, dict[str, Any]]:
    """The conversations of the dataset a run scored, by id (read from its summary.json);
    empty, with a warning, when they cannot be read."""
    summary = (run if run.is_dir() else run.parent) / "summary.json"
    try:
        dataset = json.loads(summary.read_text(encoding="utf-8")).get("dataset")
        return _rows_by_id(Path(dataset)) if isinstance(dataset, str) else {}
    except (OSError, ValueError, AttributeError) as e:
        err.print(f"--show-text: cannot read the conversations of {run} ({e}); the texts are "
                  "not shown.", style="yellow", markup=False, highlight=False, soft_wrap=True)
        return {}
