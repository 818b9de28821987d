"""``assay watch``: score production traces as they arrive (OTLP/HTTP and/or growing files).

Example:
    >>> callable(watch_cmd)
    True
"""

from __future__ import annotations

import asyncio
import logging
import math
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from .._secrets import mask_log_output, remember_secret
from ..calls import DEFAULT_TIMEOUT
from ..run import JudgeOptions, ScoringOptions
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
from ._errors import exit_on_errors, print_failures
from ._options import DEFAULT_MAX_WAIT, MaxWaitOption, StoreOption, TimeoutOption, comma_names
from ._prices_flag import PricesOption, check_prices_flag
from ._summary import print_summary

__all__ = ["watch_cmd"]

err = Console(stderr=True)
_SCORING = ScoringOptions()


def finite_seconds(value: float) -> float:
    """A number of seconds as given when it is finite, else a usage error (exit 2): a trace
    idle for ``nan`` or ``inf`` seconds would stay open for ever.

    Example:
        >>> finite_seconds(10.0)
        10.0
        >>> try:
        ...     finite_seconds(float("nan"))
        ... except typer.BadParameter as e:
        ...     print(e.message)
        Got nan. Must be a finite number of seconds, such as 10.
    """
    if not math.isfinite(value):
        raise typer.BadParameter(f"Got {value}. Must be a finite number of seconds, such as 10.")
    return value


def watch_cmd(
    metrics: Annotated[str, typer.Option(
        help="The metrics scored on every trace's row, a,b,c (named: rows arrive one at a "
             "time). A metric that does not apply to a row is recorded unscored with the "
             "reason.")],
    listen: Annotated[str, typer.Option(
        help="HOST:PORT of the OTLP/HTTP receiver (POST /v1/traces, JSON or protobuf, gzip; "
             "GET /v1/status). A non-loopback address needs --token. 'off': files only.")
    ] = "127.0.0.1:4318",
    follow: Annotated[list[Path] | None, typer.Option(
        help="An OTLP JSON file to follow as it grows, one export per line (the Collector's "
             "file exporter); repeatable. Offsets are kept in the spool.")] = None,
    judge: Annotated[list[str] | None, typer.Option(
        help="As for assay run: local, openai:MODEL, openai:MODEL@URL, azure:DEPLOYMENT, "
             "fake; repeat for a panel.")] = None,
    embeddings: Annotated[str, typer.Option(help="Embedder, as for assay run.")] = "local",
    sample: Annotated[float, typer.Option(
        min=0, max=1, help="Share of finished traces scored (0-1), chosen by trace id: a "
                           "restart samples the same traces.")] = 1.0,
    filter_: Annotated[str | None, typer.Option(
        "--filter", help="Score only traces matching KEY=VALUE or KEY!=VALUE terms joined by "
                         "commas (all must hold): KEY is a resource attribute (service.name) "
                         "or a span attribute; resource.KEY / attr.KEY say which; name is "
                         "a span name.")] = None,
    idle: Annotated[float, typer.Option(
        callback=finite_seconds,
        help="Seconds without a new span after which a trace whose root span never came is "
             "finished.")] = 10.0,
    grace: Annotated[float, typer.Option(
        callback=finite_seconds,
        help="Seconds after a trace's root span to wait for its late spans.")] = 1.0,
    spool: Annotated[Path, typer.Option(
        help="Spool folder: every accepted span, durably, and the run to resume. One watch "
             "per folder.")] = Path(".assay/watch"),
    token: Annotated[str | None, typer.Option(
        envvar="ASSAY_WATCH_TOKEN", show_default=False,
        help="Require Authorization: Bearer TOKEN on every request (or ASSAY_WATCH_TOKEN).")
    ] = None,
    max_backlog: Annotated[int, typer.Option(
        min=1, help="Spans waiting to be scored from which the receiver answers 429 with "
                    "Retry-After (OTLP exporters retry) and followed files wait.")] = 10_000,
    alert: Annotated[list[str] | None, typer.Option(
        help="An alert rule, e.g. 'groundedness<3.5 over 50' (a rolling mean crossing a "
             "bar); repeatable.")] = None,
    alert_command: Annotated[str | None, typer.Option(
        help="A command run when an alert fires.")] = None,
    export_otlp: Annotated[str | None, typer.Option(
        help="An OTLP/HTTP traces URL that gets each score as a gen_ai.evaluation.result "
             "event on its trace.")] = None,
    store: StoreOption = None,
    name: Annotated[str | None, typer.Option(help="A name for the stored run.")] = None,
    tag: Annotated[list[str] | None, typer.Option(help="A tag for the stored run.")] = None,
    concurrency: ConcurrencyOption = None,
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
    max_attempts: MaxAttemptsOption = DEFAULT_MAX_ATTEMPTS,
    max_wait: MaxWaitOption = DEFAULT_MAX_WAIT,
    tpm: TpmOption = None,
    rpm: RpmOption = None,
    cache: CacheOption = None,
    no_cache: NoCacheOption = False,
    prices: PricesOption = None,
    max_failed_share: Annotated[float, typer.Option(
        min=0, max=1, help="Exit 3 on stop when a metric lost more than this share of its "
                           "rows to unreadable judge answers (any failed judge call exits 3)."
    )] = 0.0,
    lang: Annotated[str, typer.Option(help="Rubric language: en or zh.")] = _SCORING.lang,
    on_injection: Annotated[str, typer.Option(
        help="mask, flag, unscored or fail, as for assay run.")] = _SCORING.on_injection,
    status_every: Annotated[float, typer.Option(
        min=0, help="Seconds between status lines on stderr (0: none).")] = 5.0,
) -> None:
    """Receive OpenTelemetry traces (OTLP/HTTP) and/or follow trace files; score each finished
    trace once, as it arrives, into one live run in the store (assay serve shows it).

    Accepted spans are written to the spool before the receiver answers; after a crash or
    kill -9, running the same command again scores every spooled trace exactly once, in the
    same run. Ctrl-C or SIGTERM stops it: the rows being scored finish first.

    Exit status: 0 stopped; 2 bad options; 3 judge calls failed (rows stored unscored with
    the reason, or the judge stopped answering for a while).
    """
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    mask_log_output()
    if token:
        remember_secret(token)  # masked wherever it might show
    with exit_on_errors("\ninterrupted: run the same command again to go on (the spool keeps "
                        "every accepted span)."):
        from ..watch import Watcher, WatchOptions, protobuf_missing, spend_text, watch_async

        check_prices_flag(prices)  # a bad price file: exit 2 before the watch opens
        judges = judge or ["local"]
        options = WatchOptions(
            metrics=comma_names(metrics), judge=judges[0] if len(judges) == 1 else judges,
            embeddings=embeddings,
            scoring=ScoringOptions(lang=lang, on_injection=on_injection),
            judging=JudgeOptions.from_calls(call_options(
                concurrency=concurrency, timeout=timeout, max_attempts=max_attempts,
                max_wait=max_wait, tpm=tpm, rpm=rpm, cache=cache, no_cache=no_cache,
                prices=prices)),
            listen=None if listen == "off" else listen, follow=list(follow or []),
            sample=sample, filter=filter_, store=store or True,
            spool=spool, idle=idle, grace=grace, token=token, max_backlog=max_backlog,
            name=name, tags=tag or [], alerts=alert or [], alert_command=alert_command,
            export_otlp=export_otlp, status_every=status_every)
        if listen != "off" and (missing := protobuf_missing()):
            err.print(f"[yellow]note:[/yellow] {escape(missing)}. OTLP JSON works; protobuf "
                      "requests get 415.", highlight=False)

        def started(watcher: Watcher) -> None:
            where = [f"http://{options.listen}/v1/traces"] if options.listen else []
            where += [str(p) for p in options.follow]
            err.print(f"assay watch: {escape(', '.join(where))} -> run "
                      f"{watcher.recording.run_id}; Ctrl-C stops it.",
                      highlight=False)

        summary = asyncio.run(watch_async(options, on_start=started))
    print_summary(summary)
    w = summary.get("watch") or {}
    err.print(f"stored run: {summary.get('run_id')} ({w.get('scored', 0)} traces scored now, "
              f"{w.get('skipped', 0)} skipped, {w.get('unfinished_traces', 0)} left in the "
              "spool)", highlight=False, markup=False)
    for reason, n in (w.get("skip_reasons") or {}).items():
        err.print(f"  skipped {n}: {reason}", highlight=False, markup=False)
    if spent := spend_text(w.get("spend")):
        err.print(f"spent on the traces scored: {spent}", highlight=False, markup=False)
    failed = print_failures(summary, max_failed_share)
    if failed or w.get("judge_stops") or w.get("failed_rows"):
        err.print(f"[red]judge failed:[/red] {escape(', '.join(failed) or 'the judge stopped')}"
                  f" ({w.get('failed_rows', 0)} rows with failed judge calls, "
                  f"{w.get('judge_stops', 0)} judge stops); exit 3.", highlight=False)
        raise typer.Exit(3)
