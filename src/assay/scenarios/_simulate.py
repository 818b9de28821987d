"""``simulate_users``: every scenario played against the app under test by a simulated user, the
conversations written as a dataset ready for ``assay run``.

Each conversation is appended to ``FILE.jsonl`` as it finishes, so Ctrl-C or a crash loses
nothing; ``resume`` keeps the conversations that ran to their end (not failed ones) and plays
only the rest. At the end the file is rewritten in scenario order, so the same scenarios,
seed, models and a deterministic app give the same file, byte for byte, and with the judge
cache a second run asks the user model nothing (its answers come from the cache). The
seconds each conversation took go into ``FILE.summary.json``, not the rows.

Example:
    >>> import pathlib, tempfile
    >>> from assay.judges import FakeJudge
    >>> user = FakeJudge(lambda req: '{"message": "Weather in Oslo?"}'
    ...     if req.schema_name == "simulated_user_first" else
    ...     '{"reason": "It told me.", "action": "goal_met", "message": ""}')
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "sim.jsonl"
    >>> result = simulate_users([{"id": "w1", "goal": "Find out the weather in Oslo."}],
    ...     target="python:examples.agent_app:agent", tools="python:examples.agent_app:TOOLS",
    ...     user_model=user, out=out, cache=False)
    >>> row = result.rows[0]
    >>> row["stop_reason"], row["stop_detail"], [m["role"] for m in row["messages"]]
    ('goal_met', 'It told me.', ['user', 'assistant', 'tool', 'assistant'])
    >>> row["messages"][-1]["content"], row["simulation"]["user_turns"]
    ('In Oslo it is 3 °C and light rain.', 1)
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agents import AgentRunner, make_agent
from ..calls import JudgeCallOptions, OpenedJudge, open_judge
from ..costs import AppUsage, PriceBook, app_cost_line, roles_cost_section
from ..data import FieldLimits, LongFields
from ..errors import ConfigError, DataError, option
from ..judges import Judge
from ..records import Job
from ..run import run_sync
from ..store import Store
from ._conversation import converse
from ._output import (
    SimulationFiles,
    finished,
    manifest_for,
    resume_rule,
    summary_of,
)
from ._scenario import MAX_TURNS_CAP, Scenario, read_scenarios

__all__ = ["DEFAULT_MAX_TURNS", "SimulationResult", "simulate_users", "simulate_users_async"]

#: User turns per conversation when neither the scenario nor the run sets them.
DEFAULT_MAX_TURNS = 6

Scenarios = str | Path | Sequence[Scenario | Mapping[str, Any]]


@dataclass(frozen=True)
class SimulationResult:
    """The rows as written (scenario order), the summary (as in ``FILE.summary.json``) and
    the files."""

    rows: list[dict[str, Any]]
    summary: dict[str, Any]
    files: SimulationFiles
    #: The run's id in the run store (None: not recorded).
    run_id: str | None = None

    @property
    def failed(self) -> list[dict[str, Any]]:
        """The rows whose app or user model kept failing (``error`` set)."""
        return [r for r in self.rows if r.get("error")]


def simulate_users(scenarios: Scenarios, **options: Any) -> SimulationResult:
    """:func:`simulate_users_async` run to its end, from code that is not async (in a notebook,
    whose loop is running, on a worker thread: see :func:`assay.run.run_sync`)."""
    return run_sync(lambda: simulate_users_async(scenarios, **options))


async def simulate_users_async(
    scenarios: Scenarios, *, target: str | AgentRunner, out: str | Path,
    tools: str | None = None, user_model: str | Judge = "local",
    max_turns: int = DEFAULT_MAX_TURNS, seed: int = 0, resume: bool = False,
    overwrite: bool = False, parallel: int = 4, calls: JudgeCallOptions | None = None,
    concurrency: int | None = None, judge_concurrency: int | None = None,
    tpm: int | None = None, rpm: int | None = None, cache: str | Path | bool | None = None,
    timeout: float | None = None, max_steps: int = 8, progress: bool = False,
    max_wait: float | None = None, max_field_chars: int = FieldLimits.max_field_chars,
    long_fields: LongFields = "refuse", store: str | Path | Store | bool | None = None,
    name: str | None = None, prices: PriceBook | str | Path | None = None,
) -> SimulationResult:
    """Play each scenario against ``target`` with a simulated user and write the conversations
    to ``out`` (JSON Lines, one row per scenario, in order).

    Args:
        scenarios: a scenario file (JSONL, JSON, CSV), or scenarios / dicts.
        target: the app under test: a target spec (as ``assay run --target``) or an
            :class:`~assay.agents.AgentRunner`. tools: its tool functions
            (``python:module:TOOLS``), with a target spec only.
        user_model: the model that plays the user (a judge spec or instance).
        max_turns: user turns at most, for scenarios that set none. seed: picks the persona
            of each scenario that has none (see :func:`~._personas.pick_persona`).
        resume / overwrite: continue the run in ``out``, or replace it (without either, an
            existing one is refused).
        parallel: conversations in flight.
        calls: how user-model calls are made (:class:`~assay.calls.JudgeCallOptions`; its
            ``timeout`` and ``max_wait`` hold for the app's and tools' calls too). Or, each
            given at most one way: concurrency: user-model requests in flight (default:
            the judge's; ``judge_concurrency``: its deprecated name). tpm / rpm: the user
            model's budget. cache: the judge cache (True, the default: the default file; a
            path; False: none). timeout: seconds one model, app or tool call may take.
            max_wait: seconds one user-model or app call may wait on rate limits (429).
        max_steps: agent turns per app turn (with tools). progress: show progress on stderr.
        max_field_chars / long_fields: an app message longer than ``max_field_chars`` ends
            its conversation as ``app_failed`` (``"refuse"``) or is cut to it before the user
            model reads it (``"truncate"``, the cut recorded in the row's ``simulation``).
        store / name: record the run in the run store (kind ``simulate``; as
            :func:`assay.evaluate` takes ``store``; None: not recorded) under ``name``.
        prices: what the simulated user's calls are priced with (a price book or a price
            file over genai-prices): the summary's ``cost``, the simulated user apart.

    Raises:
        DataError: the scenarios are not valid (every problem listed).
        ConfigError: a bad option, or ``out`` holds a run that cannot be resumed or replaced,
            or another process is writing it.
        JudgeStoppedError: the user model failed the same hard way three times in a row.
    """
    started = time.monotonic()
    _check_options(max_turns=max_turns, seed=seed, parallel=parallel)
    book = prices if isinstance(prices, PriceBook) else PriceBook.load(prices)
    if judge_concurrency is not None:
        warnings.warn("simulate_users(judge_concurrency=...) is deprecated; use "
                      "concurrency=... (user-model requests in flight).", DeprecationWarning,
                      stacklevel=2)
        if concurrency is not None:
            raise ConfigError(f"Got {option('concurrency', concurrency)} and "
                              f"{option('judge_concurrency', judge_concurrency)}: the same "
                              "setting twice. Give concurrency only.")
        concurrency = judge_concurrency
    calls = JudgeCallOptions.with_overrides(calls, cache_by_default=True,
                                            concurrency=concurrency, tpm=tpm, rpm=rpm,
                                            cache=cache, timeout=timeout, max_wait=max_wait)
    if isinstance(target, AgentRunner) and tools:
        raise ConfigError(f"Got {option('tools', tools)} with a ready agent: give the tool "
                          f"functions to the agent, or {option('target')} as a spec.")
    limits = FieldLimits(max_field_chars, long_fields)
    chosen = _scenarios(scenarios)
    files = SimulationFiles.beside(out)
    with Job(files.rows, kind="simulate", store=store, name=name,
             dataset=str(scenarios) if isinstance(scenarios, str | Path) else None) as job:
        runner = (target if isinstance(target, AgentRunner) else
                  make_agent(target, tools=tools, max_steps=max_steps, timeout=calls.timeout,
                             max_wait=calls.max_wait, limits=limits))
        opened: OpenedJudge | None = None
        try:
            opened = open_judge(user_model, calls)
            managed = opened.judge
            manifest = manifest_for(chosen, seed=seed, user_model=managed.id, target=runner.id,
                                    tools=tools, max_turns=max_turns,
                                    max_steps=runner.max_steps)
            job.begin(manifest, **resume_rule(files, resume=resume, overwrite=overwrite),
                      settings={k: v for k, v in manifest.items() if k != "scenarios"},
                      judge=managed.id)
        except BaseException:
            await _close(target, runner, opened)
            raise
        seconds: dict[str, float] = {}

        async def one(scenario: Scenario) -> dict[str, Any]:
            done = await converse(scenario, runner=runner, user_model=managed, seed=seed,
                                  max_turns=max_turns)
            seconds[scenario.id] = done.seconds
            return done.row

        try:
            files.summary.unlink(missing_ok=True)  # an earlier run's: this one writes its own
            made = await job.run(chosen, one, key=lambda s: s.id, parallel=parallel,
                                 resume=resume, keep=finished, progress=progress,
                                 description="simulating users",
                                 what="the simulated conversations")
        finally:
            await _close(target, runner, opened)
        summary = summary_of(made.rows, seconds={s.id: seconds[s.id] for s in chosen
                                                 if s.id in seconds},
                             user_model={"id": managed.id, **managed.stats.as_dict()},
                             app=runner.summary(), total_seconds=time.monotonic() - started)
        # the simulated user's calls apart, and the app's (every row's, kept ones too)
        summary["cost"] = roles_cost_section(
            book, simulated_user=(managed.id, managed.stats.as_dict()))
        summary["cost"]["app"] = app_cost_line(_app_usage(made.rows, runner.id), book)
        job.finish(summary, summary_path=files.summary, what="the simulation summary")
    return SimulationResult(made.rows, summary, files, job.run_id)


def _app_usage(rows: Sequence[Mapping[str, Any]], target: str) -> AppUsage:
    """The app's usage over the conversations: each row's ``simulation.app_usage`` (a row
    written before assay kept it counts its app's messages as calls without usage)."""
    return AppUsage.of_rows([{**(r.get("simulation") or {}), "messages": r.get("messages")}
                             for r in rows], target)


def _check_options(*, max_turns: int, seed: int, parallel: int) -> None:
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or not (
            1 <= max_turns <= MAX_TURNS_CAP):
        raise ConfigError(f"Got {option('max_turns', max_turns)}. Must be a whole number of "
                          f"user turns from 1 to {MAX_TURNS_CAP}.")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError(f"Got {option('seed', seed)}. Must be a whole number.")
    if isinstance(parallel, bool) or not isinstance(parallel, int) or parallel < 1:
        raise ConfigError(f"Got {option('parallel', parallel)}. Must be at least 1.")


def _scenarios(scenarios: Scenarios) -> list[Scenario]:
    """Scenarios as given, or read (and checked) from a file or dicts."""
    if (isinstance(scenarios, Sequence) and not isinstance(scenarios, str) and scenarios
            and all(isinstance(s, Scenario) for s in scenarios)):
        given = [s for s in scenarios if isinstance(s, Scenario)]
        ids = [s.id for s in given]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise DataError([f"scenario id {i!r} is given more than once. Fix: give each "
                             "scenario its own id." for i in twice], outcome="nothing was "
                            "simulated")
        return given
    return read_scenarios(scenarios)  # type: ignore[arg-type]


async def _close(target: str | AgentRunner, runner: AgentRunner,
                 opened: OpenedJudge | None) -> None:
    """Close what this call made from specs (an instance is its owner's to close)."""
    if not isinstance(target, AgentRunner):
        await runner.aclose()
    if opened is not None:
        await opened.aclose()
