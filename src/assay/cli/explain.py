"""``assay explain RUN ROW [METRIC]``: the judge's reason for a stored row, asked later.

Example:
    >>> from assay.run import Explanation
    >>> table = explanation_table("q1", [Explanation("fluency", 5.0, "clear", asked=True,
    ...                                              explained_score=5.0)])
    >>> [c.header for c in table.columns]
    ['metric', 'score', 'reason']
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .._secrets import mask_log_output
from ..calls import DEFAULT_TIMEOUT
from ..errors import JudgeError
from ..run import Explanation, explain_async
from ._call_flags import (
    DEFAULT_MAX_ATTEMPTS,
    CacheOption,
    ConcurrencyOption,
    MaxAttemptsOption,
    NoCacheOption,
    RpmOption,
    TpmOption,
    call_options,
)
from ._errors import exit_on_errors
from ._options import (
    DEFAULT_MAX_WAIT,
    MaxWaitOption,
    NoStoreOption,
    StoreOption,
    TimeoutOption,
    store_arg,
)

__all__ = ["explain_cmd", "explanation_table"]

err = Console(stderr=True)


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"


def explanation_table(row_id: str, found: list[Explanation]) -> Table:
    """One line per metric: its stored score and the judge's reason (or why there is none)."""
    table = Table(title=f"row {row_id}", title_justify="left", show_lines=True)
    table.add_column("metric", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("reason", overflow="fold")
    for e in found:
        reason = escape(e.reason) if e.reason else f"[dim]{escape(e.note or 'no reason')}[/dim]"
        if e.reason and e.note:
            reason += f"\n[yellow]note:[/yellow] {escape(e.note)}"
        table.add_row(escape(e.metric), _score(e.score), reason)
    return table


def explain_cmd(
    run: Annotated[str, typer.Argument(
        help="A run's output folder (its --out), or a stored run's id, unique prefix or "
             "'latest'.")],
    row: Annotated[str, typer.Argument(help="The row's id (the 'id' of results.jsonl).")],
    metric: Annotated[str | None, typer.Argument(
        help="One judge metric. Default: every judge metric of the row.")] = None,
    judge: Annotated[str | None, typer.Option(
        help="The judge to ask: local, local:PATH.gguf, openai:MODEL, azure:DEPLOYMENT. "
             "Default: the run's own judge.")] = None,
    concurrency: ConcurrencyOption = None,
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
    max_attempts: MaxAttemptsOption = DEFAULT_MAX_ATTEMPTS,
    max_wait: MaxWaitOption = DEFAULT_MAX_WAIT,
    tpm: TpmOption = None,
    rpm: RpmOption = None,
    cache: CacheOption = None,
    no_cache: NoCacheOption = False,
    json_: Annotated[bool, typer.Option(
        "--json", help="Print JSON (a list of {metric, score, reason, asked, explained_score, "
                       "note}) instead of a table.")] = False,
    store: StoreOption = None,
    no_store: NoStoreOption = False,
) -> None:
    """Print the judge's reason for a stored row, asking the judge where the run left it out.

    A run with --reasons auto (the embedded judge's default) or never scores most rows
    without the judge's reason. This asks the run's judge the same prompt again with the
    reason, writes the reason into the run (results.jsonl and the run store), and prints
    metric, score and reason. Asked again, the row's stored reason is printed without a
    judge call.

    Exit status: 0 done; 2 unknown run, row or metric, or a metric that uses no judge; 3 the
    judge failed (the reasons it gave are kept); 130 interrupted.
    """
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    mask_log_output()  # no key in a logged message or traceback
    with exit_on_errors("interrupted: the reasons already given are kept.",
                        stopped="Nothing was written for the metrics left without a reason."):
        try:
            found = asyncio.run(explain_async(
                run, row, metric, judge=judge, store=store_arg(store, no_store),
                calls=call_options(concurrency=concurrency, timeout=timeout,
                               max_attempts=max_attempts, max_wait=max_wait, tpm=tpm, rpm=rpm,
                               cache=cache, no_cache=no_cache)))
        except JudgeError as e:
            err.print(f"[red]judge failed:[/red] {escape(str(e))}", highlight=False,
                      soft_wrap=True)
            raise typer.Exit(3) from None
    if json_:
        typer.echo(json.dumps([dataclasses.asdict(e) for e in found], indent=2,
                              ensure_ascii=False))
    else:
        Console().print(explanation_table(row, found))
    for told in found:
        if told.score_differs:
            err.print(f"[yellow]note:[/yellow] {escape(told.metric)}: the judge, asked again, "
                      f"scored {_score(told.explained_score)}, not the stored "
                      f"{_score(told.score)}; "
                      "the stored score stands and the reason is for the new one.",
                      highlight=False, soft_wrap=True)
    asked = sum(e.asked and e.reason is not None for e in found)
    stored = sum(not e.asked and e.reason is not None for e in found)
    err.print(f"{asked} reason{'s' if asked != 1 else ''} asked of the judge now and written "
              f"into the run; {stored} stored before." if asked else
              "the judge was not asked: every reason there is was stored already.",
              highlight=False)
