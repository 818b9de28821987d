"""``assay generate DOCS... --out FILE.jsonl``: a test set from your documents, written by a
judge and checked row by row; prints what was kept and rejected per kind and why.

Example:
    >>> callable(generate_cmd)
    True
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from ..calls import DEFAULT_TIMEOUT
from ..costs import cost_line
from ..generate import DETECT, KINDS, generate
from ._call_flags import (
    DEFAULT_MAX_ATTEMPTS,
    CacheOption,
    ConcurrencyOption,
    MaxAttemptsOption,
    MaxCostOption,
    MaxTokensOption,
    NoCacheOption,
    RpmOption,
    TpmOption,
    call_options,
)
from ._errors import exit_on_errors
from ._estimate import EstimateJsonOption, EstimateOnlyOption, check_json_flag, print_estimate
from ._format import printable
from ._options import (
    DEFAULT_MAX_WAIT,
    MaxWaitOption,
    NoStoreOption,
    StoreOption,
    TimeoutOption,
    store_arg,
)
from ._prices_flag import PricesOption, check_prices_flag

__all__ = ["generate_cmd", "print_generation"]

err = Console(stderr=True)


def generate_cmd(
    docs: Annotated[list[Path], typer.Argument(
        help="Documents: .txt, .md, .html, .pdf (pip install 'assay[pdf]') or .jsonl files "
             "(one document per line: text, optional id and title), and folders of them.")],
    out: Annotated[str, typer.Option(
        help="The rows' JSONL file; FILE.rejected.jsonl, FILE.run.json and FILE.summary.json "
             "are written beside it.")],
    n: Annotated[int, typer.Option(min=1, help="Rows wanted.")] = 20,
    kinds: Annotated[str, typer.Option(
        help=f"Comma-separated kinds, taken in turn: {', '.join(KINDS)}.")] = ",".join(KINDS),
    judge: Annotated[str, typer.Option(
        help="The judge that writes and checks the rows: local (embedded offline model), "
             "local:PATH.gguf, openai:MODEL, openai:MODEL@URL, azure:DEPLOYMENT.")] = "local",
    seed: Annotated[int, typer.Option(help="Seed of the plan: same documents, seed and judge, "
                                           "same file.")] = 0,
    lang: Annotated[str, typer.Option(
        help="auto (each document's language) or a language code every row is written in "
             "(en, zh, ja, es, ...).")] = DETECT,
    resume: Annotated[bool, typer.Option(
        help="Continue the run in --out: keep what was kept and rejected, ask only the rest "
             "(same documents and options).")] = False,
    overwrite: Annotated[bool, typer.Option(
        help="Replace the run in --out (without it or --resume, one is refused).")] = False,
    max_candidates: Annotated[int | None, typer.Option(
        min=1, help="The most candidates to write in all, rejected ones included. Default: "
                    "3 x --n.")] = None,
    embeddings: Annotated[str, typer.Option(
        help="Embedder for near-duplicate English questions: local (offline MiniLM), "
             "openai:MODEL, or none (character n-grams only).")] = "local",
    concurrency: ConcurrencyOption = None,
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
    max_attempts: MaxAttemptsOption = DEFAULT_MAX_ATTEMPTS,
    max_wait: MaxWaitOption = DEFAULT_MAX_WAIT,
    tpm: TpmOption = None,
    rpm: RpmOption = None,
    cache: CacheOption = None,
    no_cache: NoCacheOption = False,
    prices: PricesOption = None,
    max_cost: MaxCostOption = None,
    max_tokens: MaxTokensOption = None,
    progress: Annotated[bool, typer.Option(
        help="Show progress on stderr: a bar on a terminal, else a line every few seconds.")
    ] = True,
    store: StoreOption = None,
    no_store: NoStoreOption = False,
    estimate: EstimateOnlyOption = False,
    json_path: EstimateJsonOption = None,
) -> None:
    """Write test rows (questions, ground truths, evidence spans) from your documents; each is
    checked before it is kept: its evidence is found in the document, its answer is supported,
    its question stands alone, is in the document's language and is no near-duplicate.

    Exit status: 0 done (fewer than --n rows kept is said, not an error); 2 bad input or
    options; 3 the judge failed (every call, or the same hard way three times), no row was
    kept at all, or a file could not be written; 6 --max-cost / --max-tokens reached (no
    request sent past it); 130 interrupted. What was written is kept: --resume continues.
    With --estimate: 0, nothing sent (2 on bad input).
    """
    hint = ("rerun the same command with --resume to continue (rows so far are in "
            f"{printable(out)}).")
    check_json_flag(estimate, json_path)
    if estimate:  # plan and count the judge's requests; nothing is sent
        from ._estimate_generate import estimate_generate

        with exit_on_errors("\ninterrupted"):
            check_prices_flag(prices)
            print_estimate(asyncio.run(estimate_generate(
                docs, out=out, n=n, kinds=kinds, judge=judge, seed=seed, lang=lang,
                max_candidates=max_candidates, tpm=tpm, rpm=rpm, prices_file=prices)),
                json_path)
        return
    with exit_on_errors(f"\ninterrupted: {hint}", stopped=f"Then {hint}"):
        book = check_prices_flag(prices)  # a bad price file: exit 2 before any call
        result = generate(
            docs, out=out, n=n, kinds=kinds, judge=judge, seed=seed, lang=lang, resume=resume,
            overwrite=overwrite, calls=call_options(concurrency=concurrency, timeout=timeout,
                               max_attempts=max_attempts, max_wait=max_wait, tpm=tpm, rpm=rpm,
                               cache=cache, no_cache=no_cache,
                               max_cost=max_cost, max_tokens=max_tokens, prices=prices),
            embeddings=None if embeddings == "none" else embeddings,
            max_candidates=max_candidates, progress=progress, prices=book,
            store=store_arg(store, no_store),  # it holds the file while it writes
            on_stage=lambda line: err.print(printable(line), highlight=False, markup=False))
    print_generation(result.summary)
    files = result.files
    err.print(f"rows: {printable(files.rows)}  rejected: {printable(files.rejected)}  "
              f"summary: {printable(files.summary)}"
              + (f"  stored run: {result.run_id}" if result.run_id else ""),
              highlight=False, markup=False)
    if result.judge_failed:
        causes = {r["detail"] for r in result.rejected if r.get("detail")}
        err.print(f"judge failed: the judge calls of all {result.summary['generated']} "
                  f"candidates failed ({'; '.join(sorted(causes)[:3])}); exit 3. Fix the "
                  f"cause, then {hint}", highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(3)
    if not result.rows:  # a run that produced nothing is no success, whatever the cause
        reasons = ", ".join(f"{why} {k}" for why, k in result.summary["rejected_by_reason"]
                            .items())
        err.print(f"nothing kept: all {result.summary['generated']} candidates were rejected "
                  f"({reasons}); exit 3. A stronger --judge, more documents or a larger "
                  f"--max-candidates give rows; {printable(files.rejected)} says why each was "
                  "rejected.",
                  highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(3)


def print_generation(summary: dict[str, Any]) -> None:
    """The kinds table, the reasons for rejection, the judge's work and any shortfall.

    Example:
        >>> import contextlib, io
        >>> shown = io.StringIO()
        >>> with contextlib.redirect_stdout(shown):
        ...   print_generation({"wanted": 1, "generated": 1, "kept": 1, "rejected": 0,
        ...     "complete": True, "candidate_cap": 3, "by_kind": {"single": {"generated": 1,
        ...     "kept": 1, "rejected": {}}}, "rejected_by_reason": {}, "kinds_not_possible": {},
        ...     "near_duplicates": {"method": "character n-grams"}, "seconds": 0.5,
        ...     "judge": {"id": "fake", "requests": 3, "prompt_tokens": 300,
        ...               "completion_tokens": 40}, "documents": {"read": 1, "skipped": []}})
        >>> "1 of 1 rows kept" in shown.getvalue(), "judge fake: 3 requests" in shown.getvalue()
        (True, True)
    """
    table = Table(title=f"assay generate: {summary['kept']} of {summary['wanted']} rows kept, "
                        f"{summary['generated']} candidates")
    for col in ("kind", "generated", "kept", "rejected"):
        table.add_column(col, justify="left" if col == "kind" else "right")
    for kind, entry in summary["by_kind"].items():
        table.add_row(kind, str(entry["generated"]), str(entry["kept"]),
                      str(sum(entry["rejected"].values())))
    Console().print(table)
    for reason, count in summary["rejected_by_reason"].items():
        Console().print(f"  rejected, {reason}: {count}", highlight=False, markup=False)
    for kind, why in summary["kinds_not_possible"].items():
        err.print(f"{kind}: not generated ({why})", highlight=False, markup=False)
    judge = summary["judge"]
    docs = summary["documents"]
    Console().print(
        f"judge {judge['id']}: {judge.get('requests', 0)} requests "
        f"({judge.get('cache_hits', 0)} from the cache), {judge.get('prompt_tokens', 0):,} "
        f"prompt + {judge.get('completion_tokens', 0):,} completion tokens; "
        f"{summary['seconds']:.1f} s; documents read {docs['read']}, skipped "
        f"{len(docs['skipped'])}; near-duplicates by {summary['near_duplicates']['method']}",
        highlight=False, markup=False)
    if (line := cost_line(summary.get("cost"))) is not None:  # over every run on the file
        Console().print(line, highlight=False, markup=False, emoji=False)
    lost = summary["rejected_by_reason"].get("judge call failed", 0)
    if lost:
        err.print(f"{lost} candidates lost to failed judge calls: --resume asks them again.",
                  highlight=False, markup=False, style="yellow")
    if not summary["complete"]:
        err.print(f"kept {summary['kept']} of the {summary['wanted']} rows wanted after "
                  f"{summary['generated']} candidates (at most {summary['candidate_cap']}): "
                  "see the rejected file for why. More documents, a larger --max-candidates "
                  "or a stronger judge give more rows.", highlight=False, markup=False,
                  style="yellow")
