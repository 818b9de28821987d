"""``assay simulate``: adversarial conversations from seed requests, asked of the app under test.

The terminal shows ids and categories; the requests and the app's replies stay in the output
file unless ``--show-text`` is given. When the app left more than ``--max-failed-share`` of the
conversations unscored, the command names the top causes and exits 3.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from ..calls import DEFAULT_TIMEOUT
from ..errors import AssayError
from ..redteam import (
    BUILTIN,
    injected_attacks,
    load_seeds,
    load_templates,
    pick_seeds,
    plain_attacks,
    simulate,
)
from ..targets import DEFAULT_MAX_FAILED_SHARE, FailureTally, make_target
from ._errors import exit_on_errors
from ._options import TimeoutOption
from ._redteam_common import (
    SEEDS_HELP,
    TARGET_HELP,
    MaxFailedShare,
    categories,
    exit_if_failed,
    owning,
    print_text,
)

__all__ = ["simulate_cmd"]

err = Console(stderr=True)


def simulate_cmd(
    target: Annotated[str, typer.Option(help=TARGET_HELP)] = "",
    seeds: Annotated[str, typer.Option(help=SEEDS_HELP)] = BUILTIN,
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
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
) -> None:
    """Ask the app under test harmful seed requests and save the conversations as a dataset."""
    name = "builtin" if seeds == BUILTIN else Path(seeds).stem
    path = out or Path("assay-out") / f"simulate-{name}{'-injected' if inject else ''}.jsonl"
    with exit_on_errors(f"\ninterrupted: conversations so far are in {path}; rerun with "
                        "--resume to continue."):
        if not target:
            raise AssayError(f"--target is required. {TARGET_HELP}")
        if templates and not inject:
            raise AssayError("--templates needs --inject. Add --inject, or drop --templates.")
        if path.exists() and not (resume or overwrite):
            raise AssayError(f"{path} already holds conversations. assay does not overwrite "
                             "them silently. Fix: --resume to continue, --overwrite to replace "
                             "them, or --out NEW_FILE.")
        chosen = pick_seeds(load_seeds(seeds), n, categories(category))
        attacks = (injected_attacks(chosen, load_templates(list(templates or [])))
                   if inject else plain_attacks(chosen))
        app = make_target(target, timeout=timeout)
        rows = asyncio.run(owning(app, simulate(
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
            print_text(Console(), r["id"], r)
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
