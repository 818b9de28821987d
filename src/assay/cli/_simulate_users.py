"""``assay simulate --scenarios FILE``: simulated users against the app under test; the table of
how the conversations ended, and the hint to score them.

Example:
    >>> import contextlib, io
    >>> shown = io.StringIO()
    >>> with contextlib.redirect_stdout(shown):
    ...     print_simulation({"scenarios": 2, "stop_reasons": {"goal_met": 1, "stuck": 1,
    ...         "max_turns": 0, "app_failed": 0, "user_failed": 0}, "simulated": 2,
    ...         "kept_from_earlier_run": 0, "seconds_per_conversation": 1.5, "seconds_max": 2.0,
    ...         "seconds": 3.1, "user_model": {"id": "fake", "requests": 5, "cache_hits": 1,
    ...         "prompt_tokens": 900, "completion_tokens": 80}, "app": {"target": "python:m:f",
    ...         "turns": 3, "tool_calls": 1}}, title="assay simulate")
    >>> "goal_met" in shown.getvalue(), "5 requests (1 from the cache)" in shown.getvalue()
    (True, True)
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from ..calls import JudgeCallOptions
from ..costs import cost_line
from ..errors import AssayError
from ..scenarios import DEFAULT_MAX_TURNS, STOP_REASONS, simulate_users
from ..targets import FailureTally
from ._errors import exit_on_errors
from ._prices_flag import check_prices_flag
from ._redteam_common import TARGET_HELP, exit_if_failed

__all__ = ["SCORE_METRICS", "print_simulation", "run_scenarios"]

err = Console(stderr=True)

#: The metrics the hint after a simulation names.
SCORE_METRICS = "goal_completion,knowledge_retention,role_adherence,turn_relevance"


def run_scenarios(scenarios: Path, *, target: str, out: Path | None, tools: str | None,
                  user_model: str, max_turns: int | None, seed: int | None, resume: bool,
                  overwrite: bool, parallel: int, calls: JudgeCallOptions,
                  max_failed_share: float, max_field_chars: int, long_fields: str,
                  store: str | bool = False, prices: Path | None = None) -> None:
    """Simulate the users of ``scenarios``, print the table and the hint; exit 3 when more
    than ``max_failed_share`` of the conversations failed."""
    path = out or Path("assay-out") / f"simulated-{scenarios.stem}.jsonl"
    hint = f"rerun the same command with --resume to continue (conversations so far are in {path})."
    with exit_on_errors(f"\ninterrupted: {hint}", stopped=f"Then {hint}"):
        if not target:
            raise AssayError(f"--target is required. {TARGET_HELP}")
        book = check_prices_flag(prices)  # a bad price file: exit 2 before any call
        result = simulate_users(
            scenarios, target=target, out=path, tools=tools, user_model=user_model,
            max_turns=max_turns or DEFAULT_MAX_TURNS, seed=seed or 0, resume=resume,
            overwrite=overwrite, parallel=parallel, calls=calls,
            progress=sys.stderr.isatty(), max_field_chars=max_field_chars,
            long_fields=long_fields, store=store,  # it holds the file while it writes
            prices=book)
    summary = result.summary
    print_simulation(summary, title=f"assay simulate: {summary['scenarios']} scenarios")
    if (line := cost_line(summary.get("cost"))) is not None:  # the simulated user's calls
        err.print(line, highlight=False, markup=False, emoji=False)
    for r in result.failed[:10]:  # ids and errors may hold brackets: no markup
        err.print(f"{r['id']} ({r['stop_reason']}): {r['error']}", style="yellow",
                  highlight=False, markup=False, soft_wrap=True)
    if len(result.failed) > 10:
        err.print(f"... and {len(result.failed) - 10} more failed conversations (their rows "
                  f"have 'error' set in {path})", highlight=False, markup=False)
    if summary["without_messages"]:
        err.print(f"{len(summary['without_messages'])} rows have no message at all (the user "
                  "model failed before the first one): assay run refuses an empty "
                  "conversation; --resume simulates them again once the cause is fixed.",
                  style="yellow", highlight=False, markup=False, soft_wrap=True)
    err.print(f"conversations: {path}  summary: {result.files.summary}"
              + (f"  stored run: {result.run_id}" if result.run_id else "")
              + "\nrate them: assay run "
              f"{path} --metrics {SCORE_METRICS}", highlight=False, markup=False,
              soft_wrap=True)
    failures = FailureTally()
    for r in result.rows:
        failures.add([str(r["error"])] if r.get("error") else [])
    exit_if_failed(failures, max_failed_share)


def print_simulation(summary: dict[str, Any], *, title: str) -> None:
    """The conversations by stop reason, then a line on the user model's work and the time a
    conversation took."""
    table = Table(title=title)
    table.add_column("stop reason")
    table.add_column("conversations", justify="right")
    for reason in STOP_REASONS:
        table.add_row(reason, str(summary["stop_reasons"].get(reason, 0)))
    Console().print(table)
    user = summary["user_model"]
    app = summary["app"]
    kept = summary["kept_from_earlier_run"]
    per = summary["seconds_per_conversation"]
    timing = (f"{per:.1f} s per conversation (at most {summary['seconds_max']:.1f} s; "
              f"{summary['simulated']} simulated in {summary['seconds']:.1f} s)"
              if per is not None else "no conversation simulated")
    Console().print(
        f"user model {user['id']}: {user.get('requests', 0)} requests "
        f"({user.get('cache_hits', 0)} from the cache), {user.get('prompt_tokens', 0):,} "
        f"prompt + {user.get('completion_tokens', 0):,} completion tokens; app "
        f"{app.get('target')}: {app.get('turns', 0)} turns, {app.get('tool_calls', 0)} tool "
        f"calls; {timing}"
        + (f"; {kept} kept from the earlier run" if kept else ""),
        highlight=False, markup=False, soft_wrap=True)
