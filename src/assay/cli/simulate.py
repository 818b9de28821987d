"""``assay simulate``: conversations with the app under test, saved as a dataset. Two modes:

- harmful seed requests with fixed follow-ups (the default): the terminal shows ids and
  categories; the requests and the app's replies stay in the output file unless
  ``--show-text`` is given;
- ``--scenarios FILE``: simulated users, each with a goal, a persona and facts, played by the
  user model against the app until the goal is met or the app is stuck (see
  :mod:`assay.cli._simulate_users`).

The options of one mode are refused in the other. When more than ``--max-failed-share`` of the
conversations failed, the command names the top causes and exits 3.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from .._files import beside
from ..calls import DEFAULT_TIMEOUT
from ..data import FieldLimits
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
    parallel_help,
)
from ._errors import exit_on_errors
from ._estimate import EstimateJsonOption, EstimateOnlyOption, check_json_flag, print_estimate
from ._options import (
    DEFAULT_MAX_FIELD_CHARS,
    DEFAULT_MAX_WAIT,
    LongFieldsOption,
    MaxFieldCharsOption,
    MaxWaitOption,
    NoStoreOption,
    StoreOption,
    TimeoutOption,
    store_arg,
)
from ._prices_flag import PricesOption, check_prices_flag
from ._redteam_common import (
    SEEDS_HELP,
    TARGET_HELP,
    MaxFailedShare,
    categories,
    exit_if_failed,
    owning,
    print_text,
)
from ._simulate_users import run_scenarios

__all__ = ["simulate_cmd"]

err = Console(stderr=True)


def simulate_cmd(
    target: Annotated[str, typer.Option(help=TARGET_HELP)] = "",
    scenarios: Annotated[Path | None, typer.Option(
        help="Simulated users instead of seed requests: a JSONL or CSV file, one scenario a "
             "line: goal (required), id, persona, first_message, facts, expected_outcome, "
             "max_turns, lang, system, tools. See docs/guides/simulate.md.")] = None,
    tools: Annotated[str | None, typer.Option(
        help="With --scenarios: python:package.module:TOOLS, the app's tool functions; assay "
             "runs its calls and asks it again (as assay run --tools).")] = None,
    judge: Annotated[str | None, typer.Option(
        help="With --scenarios: the model that plays the users: local (embedded, the "
             "default), local:PATH.gguf, openai:MODEL, openai:MODEL@URL, azure:DEPLOYMENT.")]
        = None,
    user_model: Annotated[str | None, typer.Option(
        help="With --scenarios: the model that plays the users, if not --judge.")] = None,
    max_turns: Annotated[int | None, typer.Option(
        min=1, max=100, help="With --scenarios: user turns per conversation at most, for "
                             "scenarios that set none (default 6).")] = None,
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
    parallel: Annotated[int, typer.Option(min=1, help=parallel_help("Conversations"))] = 4,
    seed: Annotated[int | None, typer.Option(
        help="With --scenarios: picks the persona of each scenario that has none (terse, "
             "chatty, vague at first, ...); the user model runs at temperature 0, so the same "
             "seed gives the same conversations (default 0).")] = None,
    seeds: Annotated[str | None, typer.Option(
        help=SEEDS_HELP + f" Default: {BUILTIN}.")] = None,
    category: Annotated[str | None, typer.Option(
        help="Comma-separated categories of the seed list to keep.")] = None,
    n: Annotated[int | None, typer.Option(min=1, help="Use N seeds (categories in turn).")] = None,
    turns: Annotated[int | None, typer.Option(
        min=1, help="User turns per conversation; later ones follow up on the app's answer "
                    "(default 1).")] = None,
    inject: Annotated[bool, typer.Option(
        help="Wrap each request in a jailbreak template (seed i gets template i mod count).")]
        = False,
    templates: Annotated[list[str] | None, typer.Option(
        help=f"Jailbreak template file (repeatable; '{BUILTIN}' for the shipped ones): a "
             "template or prompt column with {prompt} or [INSERT PROMPT HERE].")] = None,
    out: Annotated[Path | None, typer.Option(
        help="Output JSONL. Default: assay-out/simulate-<seeds>.jsonl; with --scenarios, "
             "assay-out/simulated-<scenarios>.jsonl (FILE.run.json and FILE.summary.json "
             "beside it).")] = None,
    resume: Annotated[bool, typer.Option(help="Keep finished rows; ask only the rest.")] = False,
    overwrite: Annotated[bool, typer.Option(
        help="Replace an existing output file (without it or --resume, one is refused).")]
        = False,
    show_text: Annotated[bool, typer.Option(
        help="Print the requests and replies (they may be harmful).")] = False,
    max_failed_share: MaxFailedShare = DEFAULT_MAX_FAILED_SHARE,
    max_field_chars: MaxFieldCharsOption = DEFAULT_MAX_FIELD_CHARS,
    long_fields: LongFieldsOption = "refuse",
    store: StoreOption = None,
    no_store: NoStoreOption = False,
    estimate: EstimateOnlyOption = False,
    json_path: EstimateJsonOption = None,
) -> None:
    """Ask the app under test harmful seed requests, or (--scenarios) let simulated users talk
    to it, and save the conversations as a dataset.

    Exit status: 0 done; 2 bad input or options; 3 more than --max-failed-share of the
    conversations failed, the user model failed the same hard way three times, or a file
    could not be written; 130 interrupted (what was written is kept: --resume continues).
    With --estimate: 0, nothing sent (2 on bad input).
    """
    seed_mode = {"--seeds": seeds is not None, "--category": category is not None,
                 "--n": n is not None, "--turns": turns is not None, "--inject": inject,
                 "--templates": bool(templates), "--show-text": show_text}
    scenario_mode = {"--tools": tools is not None, "--judge": judge is not None,
                     "--user-model": user_model is not None, "--max-turns": max_turns is not None,
                     "--seed": seed is not None, "--cache": cache is not None,
                     "--tpm": tpm is not None, "--rpm": rpm is not None,
                     "--no-cache": no_cache, "--concurrency": concurrency is not None,
                     "--max-attempts": max_attempts != DEFAULT_MAX_ATTEMPTS,
                     "--max-cost": max_cost is not None, "--max-tokens": max_tokens is not None}
    check_json_flag(estimate, json_path)
    with exit_on_errors("\ninterrupted"):
        _refuse_mixing(scenarios, seed_mode, scenario_mode)
        calls = call_options(concurrency=concurrency, timeout=timeout,
                             max_attempts=max_attempts, max_wait=max_wait, tpm=tpm, rpm=rpm,
                             cache=cache, no_cache=no_cache, max_cost=max_cost,
                             max_tokens=max_tokens, prices=prices)  # a bad value: exit 2, not a traceback
        if estimate:  # plan and count the requests; nothing is sent
            if not target:
                raise AssayError(f"--target is required. {TARGET_HELP}")
            check_prices_flag(prices)
            print_estimate(asyncio.run(_estimate(
                scenarios, target=target, tools=tools, user_model=user_model or judge or "local",
                max_turns=max_turns, seed=seed or 0, tpm=tpm, rpm=rpm, prices=prices,
                limits=FieldLimits(max_field_chars, long_fields),  # type: ignore[arg-type]
                seeds=seeds or BUILTIN, n=n, category=category, turns=turns or 1,
                templates=list(templates or []) if inject else None, out=out)), json_path)
            return
    if scenarios is not None:
        run_scenarios(scenarios, target=target, out=out, tools=tools,
                      user_model=user_model or judge or "local", max_turns=max_turns, seed=seed,
                      resume=resume, overwrite=overwrite, parallel=parallel,
                      calls=calls,
                      max_failed_share=max_failed_share, max_field_chars=max_field_chars,
                      long_fields=long_fields, store=store_arg(store, no_store), prices=prices)
        return
    seeds = seeds or BUILTIN
    turns = turns or 1
    name = "builtin" if seeds == BUILTIN else Path(seeds).stem
    path = out or Path("assay-out") / f"simulate-{name}{'-injected' if inject else ''}.jsonl"
    with exit_on_errors(f"\ninterrupted: conversations so far are in {path}; rerun with "
                        "--resume to continue."):
        if not target:
            raise AssayError(f"--target is required. {TARGET_HELP}")
        if templates and not inject:
            raise AssayError("--templates needs --inject. Add --inject, or drop --templates.")
        chosen = pick_seeds(load_seeds(seeds), n, categories(category))
        attacks = (injected_attacks(chosen, load_templates(list(templates or [])))
                   if inject else plain_attacks(chosen))
        app = make_target(target, timeout=timeout)
        rows = asyncio.run(owning(app, simulate(  # it holds the file while it writes
            attacks, app, path, turns=turns, resume=resume, overwrite=overwrite,
            parallel=parallel, progress=sys.stderr.isatty(), max_wait=max_wait,
            limits=FieldLimits(max_field_chars, long_fields),  # type: ignore[arg-type]
            store=store_arg(store, no_store), prices=prices)))
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
    run_id = _stored_run_id(path)
    err.print(f"conversations: {path}" + (f"  stored run: {run_id}" if run_id else "")
              + f"\nrate them: assay run {path} --metrics "
              "hate_unfairness,sexual,violence,self_harm,refusal", highlight=False)
    failures = FailureTally()
    for r in rows:
        failures.add([str(r["error"])] if r.get("error") else [])
    exit_if_failed(failures, max_failed_share)


async def _estimate(scenarios: Path | None, *, target: str, tools: str | None,
                    user_model: str, max_turns: int | None, seed: int, tpm: int | None,
                    rpm: int | None, prices: Path | None, limits: FieldLimits, seeds: str,
                    n: int | None, category: str | None, turns: int,
                    templates: list[str] | None, out: Path | None) -> Any:
    """The estimate of either mode (see :mod:`._estimate_simulate`)."""
    from ._estimate_simulate import estimate_scenarios, estimate_seed_requests

    if scenarios is not None:
        return await estimate_scenarios(
            scenarios, target=target, user_model=user_model, max_turns=max_turns, seed=seed,
            tools=tools, tpm=tpm, rpm=rpm, prices_file=prices,
            max_field_chars=limits.max_field_chars, long_fields=limits.long_fields,
            out=out or Path("assay-out") / f"simulated-{scenarios.stem}.jsonl")
    chosen = pick_seeds(load_seeds(seeds), n, categories(category))
    attacks = (injected_attacks(chosen, load_templates(list(templates)))
               if templates is not None else plain_attacks(chosen))
    return await estimate_seed_requests(attacks, target=target, turns=turns, limits=limits,
                                        tpm=tpm, rpm=rpm, prices_file=prices)


def _stored_run_id(path: Path) -> str | None:
    """The stored run's id its job wrote to ``FILE.run.json`` (None: not recorded)."""
    try:
        return json.loads(beside(path, ".run.json").read_text(encoding="utf-8")).get("run_id")
    except (OSError, ValueError, AttributeError):
        return None


def _refuse_mixing(scenarios: Path | None, seed_mode: dict[str, bool],
                   scenario_mode: dict[str, bool]) -> None:
    """Refuse the options of one mode in the other, naming them and the fix."""
    if scenarios is not None:
        mixed = [flag for flag, given in seed_mode.items() if given]
        if mixed:
            raise AssayError(f"{', '.join(mixed)} belong{'s' if len(mixed) == 1 else ''} to "
                             "the harmful-seed mode, and "
                             "--scenarios runs simulated users. Fix: drop "
                             f"{', '.join(mixed)}, or drop --scenarios.")
        return
    alone = [flag for flag, given in scenario_mode.items() if given]
    if alone:
        items = (" (--concurrency is the user model's requests in flight; conversations at a "
                 "time are --parallel N)" if "--concurrency" in alone else "")
        raise AssayError(f"{', '.join(alone)} need{'s' if len(alone) == 1 else ''} "
                         "--scenarios FILE (simulated users); the harmful-seed mode takes "
                         f"none of them. Fix: add --scenarios FILE, or drop {', '.join(alone)}"
                         f"{items}.")
