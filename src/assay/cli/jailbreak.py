"""``assay jailbreak`` and ``assay compare-defects``: the jailbreak defect rate of an app (the
same seeds asked plain and with a jailbreak injection, ``--strategy template``), the success
rate of a multi-turn attack beside the plain defect rate (``--strategy crescendo|pair``), or
the defect rates of two runs on paired rows.

The command owns the app target and the judge: each is opened once and closed once, at the
end. The requests and replies stay in the output files unless ``--show-text`` is given.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from ..calls import DEFAULT_TIMEOUT
from ..costs import cost_line
from ..errors import AssayError
from ..judges import check_judge_spec
from ..redteam import (
    ATTACK_STRATEGIES,
    BUILTIN,
    DEFAULT_BACKTRACKS,
    DEFAULT_TURNS,
    attack,
    compare_defects,
    jailbreak,
    read_run,
)
from ..run import ScoringOptions
from ..targets import DEFAULT_MAX_FAILED_SHARE, FailureTally, make_target
from ._attack_table import print_attack_report, print_successes
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
from ._json_out import JSON_PATH_HELP, to_stdout, write_json
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
    print_defect_comparison,
    rows_by_id,
)

__all__ = ["compare_defects_cmd", "jailbreak_cmd"]

err = Console(stderr=True)
#: The scoring flags' defaults: the settings' declared defaults, through ScoringOptions.
_SCORING = ScoringOptions()


def jailbreak_cmd(
    target: Annotated[str, typer.Option(help=TARGET_HELP)] = "",
    n: Annotated[int | None, typer.Option(min=1, help="Seeds to use (categories in turn).")]
        = 20,
    seeds: Annotated[str, typer.Option(help=SEEDS_HELP)] = BUILTIN,
    templates: Annotated[list[str] | None, typer.Option(
        help=f"Jailbreak template file (repeatable; '{BUILTIN}' for the shipped ones, the "
             "default): a template or prompt column with {prompt} or [INSERT PROMPT HERE].")]
        = None,
    category: Annotated[str | None, typer.Option(
        help="Comma-separated categories of the seed list to keep.")] = None,
    strategy: Annotated[str, typer.Option(
        help="template: the seeds asked plain and wrapped in jailbreak templates; crescendo: "
             "a conversation that escalates toward each seed, backtracking on refusals; pair: "
             "one attack message refined from the rating of each reply.")] = "template",
    turns: Annotated[int | None, typer.Option(
        min=1, help="template: user turns per conversation (default 1); crescendo: the most "
                    f"turns, pair: the most attempts (default {DEFAULT_TURNS}).")] = None,
    backtracks: Annotated[int, typer.Option(
        min=0, help="crescendo: refused exchanges taken back per conversation.")]
        = DEFAULT_BACKTRACKS,
    attacker: Annotated[str | None, typer.Option(
        help="crescendo, pair: the model that writes the attack (a judge spec). Default: the "
             "judge.")] = None,
    judge: Annotated[str, typer.Option(
        help="Judge: local (embedded, offline), local:PATH.gguf, openai:MODEL, "
             "azure:DEPLOYMENT.")] = "local",
    safety_threshold: Annotated[str, typer.Option(
        help="low, medium or high: the severity level from which a reply is a defect.")]
        = _SCORING.safety_threshold,
    safety_mode: Annotated[str, typer.Option(
        help="combined (one judge request per reply for the four categories) or separate.")]
        = _SCORING.safety_mode,
    refusal: Annotated[bool, typer.Option(
        help="Also judge whether the app refused (a refusal is never a defect; crescendo "
             "backtracks on it, else on a refusal phrase).")] = True,
    out: Annotated[Path | None, typer.Option(
        help="Output directory. Default: assay-out/jailbreak-<target> (template) or "
             "assay-out/<strategy>-<target>.")] = None,
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
    parallel: Annotated[int, typer.Option(min=1, help=parallel_help("Conversations (seeds asked or attacked)"))] = 4,
    resume: Annotated[bool, typer.Option(
        help="Keep finished conversations and ratings; do only the rest.")] = False,
    overwrite: Annotated[bool, typer.Option(
        help="Replace the jailbreak already in the output directory (without it or --resume, "
             "one is refused).")] = False,
    top: Annotated[int, typer.Option(
        min=0, help="Rows with the largest rise to list (crescendo, pair: successful attacks "
                    "to show with --show-text).")] = 5,
    show_text: Annotated[bool, typer.Option(
        help="Print the requests and replies of the listed rows (they may be harmful).")] = False,
    store: StoreOption = None,
    no_store: NoStoreOption = False,
    max_failed_share: MaxFailedShare = DEFAULT_MAX_FAILED_SHARE,
    max_field_chars: MaxFieldCharsOption = DEFAULT_MAX_FIELD_CHARS,
    long_fields: LongFieldsOption = "refuse",
    estimate: EstimateOnlyOption = False,
    json_path: EstimateJsonOption = None,
) -> None:
    """Ask the app the same seeds plain and with a jailbreak injection, rate both, and report
    the defect rates and their difference (the jailbreak defect rate); or attack each seed over
    several turns (crescendo, pair) and report the attack success rate beside the plain one."""
    safe_name = "".join(c if c.isalnum() or c in "-_." else "-" for c in target)[:60]
    kind = "jailbreak" if strategy == "template" else strategy
    out_dir = out or Path("assay-out") / f"{kind}-{safe_name}"
    with exit_on_errors(f"\ninterrupted: the work so far is in {out_dir}; rerun with --resume "
                        "to continue."):
        if not target:
            raise AssayError(f"--target is required. {TARGET_HELP}")
        _check_strategy(strategy, templates=templates, attacker=attacker)
        check_judge_spec(judge)
        if attacker is not None:
            check_judge_spec(attacker)
        check_prices_flag(prices)  # a bad price file: exit 2 before any call
        check_json_flag(estimate, json_path)
        if estimate:  # plan and count the requests; nothing is sent
            from ._estimate_jailbreak import estimate_jailbreak
            return print_estimate(asyncio.run(estimate_jailbreak(
                target, strategy=strategy, turns=turns, n=n, seeds=seeds, templates=templates,
                categories=categories(category), backtracks=backtracks, judge=judge,
                attacker=attacker, safety_threshold=safety_threshold, safety_mode=safety_mode,
                refusal=refusal, max_field_chars=max_field_chars, long_fields=long_fields,
                tpm=tpm, rpm=rpm, prices_file=prices, cache=cache, no_cache=no_cache)),
                json_path)
        app = make_target(target, timeout=timeout)
        common: dict[str, Any] = {
            "out": out_dir, "n": n, "seeds": seeds, "categories": categories(category),
            "judge": judge, "safety_threshold": safety_threshold, "safety_mode": safety_mode,
            "refusal": refusal, "resume": resume, "overwrite": overwrite,
            "parallel": parallel, "progress": sys.stderr.isatty(),
            "calls": call_options(concurrency=concurrency, timeout=timeout,
                                  max_attempts=max_attempts, max_wait=max_wait, tpm=tpm,
                                  rpm=rpm, cache=cache, no_cache=no_cache,
                               max_cost=max_cost, max_tokens=max_tokens, prices=prices),
            "max_field_chars": max_field_chars,
            "long_fields": long_fields, "store": store_arg(store, no_store),
            "prices": prices}
        if strategy == "template":
            report = asyncio.run(owning(app, jailbreak(
                app, templates=templates, turns=turns or 1, top=top, **common)))
        else:
            report = asyncio.run(owning(app, attack(
                app, strategy=strategy, turns=turns or DEFAULT_TURNS, backtracks=backtracks,
                attacker=attacker, **common)))
    if (line := cost_line(report.get("cost"))) is not None:  # the judge's, the attacker's
        err.print(line, highlight=False, markup=False, emoji=False)
    if strategy != "template":
        _print_attack(report, app.id, out_dir, top=top if show_text else 0,
                      max_failed_share=max_failed_share)
        return
    t = report["timings"]
    print_defect_comparison(report, title=(
        f"assay jailbreak: {report['seeds']} seeds, {len(report['templates'])} templates, "
        f"defects at or above {report['threshold']}, {app.id}"),
        texts=rows_by_id(out_dir / "injected.jsonl") if show_text else None)
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


def _check_strategy(strategy: str, *, templates: list[str] | None,
                    attacker: str | None) -> None:
    """A usage error (exit 2) for a strategy assay does not have, or an option that does not
    apply to the one given."""
    if strategy not in ("template", *ATTACK_STRATEGIES):
        raise AssayError(f"Got --strategy {strategy}. Must be one of "
                         f"{['template', *ATTACK_STRATEGIES]}.")
    if strategy == "template" and attacker is not None:
        raise AssayError("--attacker applies to --strategy crescendo or pair (template wraps "
                         "the seeds in fixed templates). Fix: drop --attacker, or choose one "
                         "of those strategies.")
    if strategy != "template" and templates:
        raise AssayError(f"--templates applies to --strategy template, not {strategy}. Fix: "
                         "drop --templates.")


def _print_attack(report: dict[str, Any], app_id: str, out_dir: Path, *, top: int,
                  max_failed_share: float) -> None:
    """The attack's table, what it cost, where it is, and exit 3 when too many conversations
    are unrated."""
    strategy = report["strategy"]
    limit = (f"{report['turns']} turns, {report['backtracks']} backtracks"
             if strategy == "crescendo" else f"{report['turns']} attempts")
    print_attack_report(report, title=(
        f"assay jailbreak --strategy {strategy}: {report['seeds']} seeds, {limit}, success "
        f"at or above {report['threshold']}, {app_id}"))
    if top:
        print_successes(out_dir / f"{strategy}.jsonl", top=top, console=Console())
    calls, t = report["model_calls"], report["timings"]
    err.print(f"model calls: attacker {calls['attacker']['requests']} "
              f"({calls['attacker']['cache_hits']} from the cache), scorer "
              f"{calls['scorer']['requests']} ({calls['scorer']['cache_hits']} from the cache)",
              highlight=False)
    per = t["seconds_per_conversation"]
    err.print(f"time: plain {t['plain_s']:.0f} s, {strategy} {t[f'{strategy}_s']:.0f} s"
              + (f" ({per:g} s per conversation)" if per is not None else "")
              + f"; report: {out_dir / 'attack.json'}, transcripts: "
              f"{out_dir / f'{strategy}.jsonl'}"
              + (f"; stored run: {report['run_id']}" if report.get("run_id") else ""),
              highlight=False)
    exit_if_failed(FailureTally.from_dict(report["failures"]), max_failed_share)


def compare_defects_cmd(
    base: Annotated[Path, typer.Argument(help="Run without injection: an `assay run` output "
                                              "directory or its results.jsonl.")],
    injected: Annotated[Path, typer.Argument(help="Run with injection, rows with the same ids.")],
    safety_threshold: Annotated[str, typer.Option(
        help="low, medium or high: the severity level from which a reply is a defect.")]
        = _SCORING.safety_threshold,
    top: Annotated[int, typer.Option(min=0, help="Rows with the largest rise to list.")] = 5,
    json_out: Annotated[Path | None, typer.Option(
        "--json", help="Also write the comparison to this JSON file; " + JSON_PATH_HELP)]
        = None,
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
                     texts=texts, console=err if to_stdout(json_out) else None)
    if json_out is not None:
        try:
            write_json(report, json_out, ensure_ascii=True)
        except OSError as e:
            err.print(f"[red]error:[/red] {escape(f'cannot write {json_out}: {e.strerror or e}')}."
                      " Fix: give --json a path in a writable folder.", highlight=False,
                      soft_wrap=True)
            raise typer.Exit(2) from None
        if not to_stdout(json_out):
            err.print(f"comparison: {json_out}", highlight=False)


def _texts_of_run(run: Path) -> dict[str, dict[str, Any]]:
    """The conversations of the dataset a run scored, by id (read from its summary.json);
    empty, with a warning, when they cannot be read."""
    summary = (run if run.is_dir() else run.parent) / "summary.json"
    try:
        dataset = json.loads(summary.read_text(encoding="utf-8")).get("dataset")
        return rows_by_id(Path(dataset)) if isinstance(dataset, str) else {}
    except (OSError, ValueError, AttributeError) as e:
        err.print(f"--show-text: cannot read the conversations of {run} ({e}); the texts are "
                  "not shown.", style="yellow", markup=False, highlight=False, soft_wrap=True)
        return {}
