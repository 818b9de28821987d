"""``arena()``: rank N versions of an app from judged pairs.

The arena is a run (kind ``arena``): each pair of systems that answered a test row is one row
of it (:mod:`~assay.arena._pairs`), judged in both orders by a pairwise metric through the
same path as ``assay run`` (cache, budget, retries, the run store, ``results.jsonl`` written
as rows finish, Ctrl-C and ``resume``). The ratings are fitted from the run's records
(:mod:`~assay.arena._ratings`) and written to ``leaderboard.json`` beside the summary and
into the summary (``summary.json`` and the stored run's) under ``arena``; the
judge's position bias (the share of its single-order answers naming the first-shown
response; the pairs whose two orders disagreed: ties where the judge gives no token
probabilities, else decided by both orders' averaged probabilities) is the metric's own
aggregate.

Example:
    >>> import json, pathlib, tempfile
    >>> from assay.judges import FakeJudge
    >>> from assay.run import JudgeOptions
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for name, answer in {"good": "Paris", "bad": "Lyon", "worse": "Rome"}.items():
    ...     rows = [{"id": f"q{i}", "question": "Capital of France?", "answer": answer}
    ...             for i in range(6)]
    ...     _ = (folder / f"{name}.jsonl").write_text("\\n".join(map(json.dumps, rows)))
    >>> rank = {"Paris": 0, "Lyon": 1, "Rome": 2}
    >>> def pick(req):  # prefers the better answer, whichever order it is shown in
    ...     text = req.messages[-1]["content"]
    ...     a = text.split("<response_a>")[1].split("</response_a>")[0].strip()
    ...     b = text.split("<response_b>")[1].split("</response_b>")[0].strip()
    ...     return '{"choice": "%s", "reason": "r"}' % ("A" if rank[a] < rank[b] else "B")
    >>> result = arena([folder / "good.jsonl", folder / "bad.jsonl", folder / "worse.jsonl"],
    ...                judge=FakeJudge(pick), judging=JudgeOptions(cache=None), bootstrap=200)
    >>> [(r.system, r.rank, r.wins, r.losses) for r in result.leaderboard.ratings]
    [('good', '1', 12, 0), ('bad', '2', 6, 6), ('worse', '3', 0, 12)]
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import Any

from ..errors import ConfigError, option
from ..judges import Judge
from ..metrics import Metric, get_metric
from ..metrics.custom import PairwiseMetric, load_metric_file
from ..records import EvalResult, load_finished, open_run_store, write_summary
from ..run import JudgeOptions, RunOptions, evaluate_async, run_sync
from ._pairs import comparison_of, pair_rows
from ._preference import PREFERENCE, preference_metric
from ._ratings import BOOTSTRAP, Comparison, Leaderboard, rate
from ._schedule import STOP_REASONS, RoundReport, ScheduleOutcome, run_schedule
from ._systems import Field, read_systems

__all__ = ["LEADERBOARD_FILE", "ArenaResult", "arena", "arena_async", "arena_metric"]

#: The file beside ``summary.json`` that holds the leaderboard.
LEADERBOARD_FILE = "leaderboard.json"


@dataclass(frozen=True)
class ArenaResult:
    """The leaderboard, the judge's position figures, the rows some systems lack, and the
    arena run's summary (its ``run_id`` when stored) and folder."""

    leaderboard: Leaderboard
    position: dict[str, Any]
    missing: dict[str, list[str]]
    summary: dict[str, Any]
    out_dir: Path | None
    #: With a budget: ``{"budget", "candidates", "rounds", "stopped", "why"}``; else ``{}``.
    schedule: dict[str, Any] = dataclass_field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """What ``leaderboard.json`` and ``--json`` hold."""
        board = {"ratings": [asdict(r) for r in self.leaderboard.ratings],
                 "comparisons": self.leaderboard.comparisons, "rows": self.leaderboard.rows,
                 "bootstrap": self.leaderboard.bootstrap, "seed": self.leaderboard.seed,
                 "separated": self.leaderboard.separated(), "position": self.position,
                 "missing": self.missing, "run_id": self.summary.get("run_id"),
                 "length_effect": self.leaderboard.length_effect}
        return board | ({"schedule": self.schedule} if self.schedule else {})


def arena_metric(metric: str | Path | Metric, *, with_context: bool) -> PairwiseMetric:
    """The pairwise metric an arena judges with: ``preference`` (built in), a pairwise metric
    file (``.md``/``.yaml`` with ``kind: pairwise``), a registered pairwise metric or an
    instance.

    Raises:
        ConfigError: the metric is not pairwise (its scores rank no pair).

    Example:
        >>> try:
        ...     arena_metric("coherence", with_context=False)
        ... except ConfigError as e:
        ...     print(str(e).split(":")[0])
        the arena's metric must compare two answers (a pairwise metric)
    """
    if metric == PREFERENCE:
        return preference_metric(with_context=with_context)
    if isinstance(metric, Path) or (isinstance(metric, str) and Path(metric).suffix in (
            ".md", ".yaml", ".yml")):
        found: Metric = load_metric_file(metric)
    else:
        found = get_metric(metric) if isinstance(metric, str) else metric
    if not isinstance(found, PairwiseMetric):
        raise ConfigError(f"the arena's metric must compare two answers (a pairwise metric): "
                          f"{found.name!r} scores one answer at a time. Use "
                          f"{option('metric', PREFERENCE)}, or a metric file with 'kind: "
                          "pairwise'.")
    return found


async def arena_async(systems: Sequence[str | Path], *, names: Sequence[str] | None = None,
                      metric: str | Path | Metric = PREFERENCE,
                      judge: str | Judge = "local",
                      judging: JudgeOptions = JudgeOptions(),  # noqa: B008 (frozen)
                      run: RunOptions = RunOptions(),  # noqa: B008 (frozen)
                      bootstrap: int = BOOTSTRAP, seed: int = 0, budget: int | None = None,
                      on_round: Callable[[RoundReport], None] | None = None,
                      length_control: bool = False) -> ArenaResult:
    """Judge every pair of ``systems`` (answer files, ``assay run`` output folders or stored
    runs, with the same row ids; see :func:`~assay.arena._systems.read_systems`) on each row
    they share, in both orders, and fit the leaderboard.

    With ``budget``, at most that many comparisons (one pair of systems on one row, judged in
    both orders), chosen in rounds where the ratings are least separated and stopped early
    once the board is separated (:mod:`~assay.arena._schedule`); ``on_round`` hears after
    each round. It is still one run (one output folder, one stored run, resumable).
    ``length_control``: the ratings are fitted with the answers' length difference as a
    covariate (see :mod:`~assay.arena._ratings`); the board then says the length's weight.

    Raises:
        ConfigError: fewer than two systems, a name used twice, no shared rows, a metric
            that is not pairwise, a panel of judges, a budget below 1, one without
            bootstrap intervals or with a spending limit (each told before any judge call).
        DataError: a system's file has problems (all of them).
    """
    if not isinstance(judge, (str, Judge)):
        raise ConfigError("the arena takes one judge (a panel's position bias is not "
                          f"reported yet): give one {option('judge')}.")
    if budget is not None and (budget < 1 or bootstrap < 1):
        raise ConfigError(f"{option('budget', budget)} needs a budget of at least 1 comparison "
                          f"and bootstrap intervals to tell when to stop (got "
                          f"{option('bootstrap', bootstrap)}): give both above 0, or drop "
                          f"{option('budget')} to judge every pair on every row.")
    if budget is not None and (judging.max_cost is not None or judging.max_tokens is not None):
        raise ConfigError(f"{option('max_cost')} and {option('max_tokens')} do not yet bound "
                          f"all the rounds of a {option('budget')} arena together (each round "
                          f"would get the whole limit): drop them; {option('budget', budget)} "
                          f"already bounds it to {budget} comparisons, two judge requests "
                          "each (a failed request is asked again).")
    field: Field = read_systems(systems, names, store=run.store)
    with_context = all(s.rows[r].context for s in field.systems for r in field.row_ids
                       if r in s.rows)
    pairwise = arena_metric(metric, with_context=with_context)
    pairs = pair_rows(field, seed=seed)
    label = ", ".join(s.name for s in field.systems)
    options = replace(run, kind="arena", run_name=run.run_name or f"arena: {label}",
                      keep_rows=True)
    schedule: dict[str, Any] = {}
    if budget is None:
        result = await evaluate_async(list(pairs.values()), metrics=[pairwise], judge=judge,
                                      judging=judging, run=options)
    else:
        result, done = await _scheduled(pairs, pairwise, judge, judging, options,
                                        budget=budget, bootstrap=bootstrap, seed=seed,
                                        systems=[s.name for s in field.systems],
                                        on_round=on_round)
        schedule = {"budget": budget, "candidates": len(pairs), "rounds": done.rounds,
                    "stopped": done.stopped, "why": STOP_REASONS[done.stopped]}
    comparisons = [comparison_of(record, pairwise.name, pairs) for record in result.rows]
    board = rate(comparisons, systems=[s.name for s in field.systems], bootstrap=bootstrap,
                 seed=seed, length_control=length_control)
    figures = result.summary["metrics"].get(pairwise.name) or {}
    position = {k: figures.get(k) for k in ("first_shown_share", "position_consistency",
                                            "flips", "tie_rate", "scored", "unscored",
                                            "decided_by")}
    arena = ArenaResult(board, position, field.missing, result.summary,
                        result.out_dir if run.out is not None else None, schedule)
    _keep_board(arena, run.store)
    return arena


async def _scheduled(pairs: dict[str, dict[str, Any]], pairwise: PairwiseMetric,
                     judge: str | Judge, judging: JudgeOptions, options: RunOptions, *,
                     budget: int, bootstrap: int, seed: int, systems: list[str],
                     on_round: Callable[[RoundReport], None] | None
                     ) -> tuple[EvalResult, ScheduleOutcome]:
    """The budgeted arena: each round scores every comparison scheduled so far into the same
    output folder with ``resume`` (the judged ones are kept, only the round's new ones are
    asked), unstored; then one last pass, with nothing left to ask, records the run in the
    store (a complete stored run is never changed, so rounds each stored would make one run
    per round). Without ``out``, the rounds go to a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="assay-arena-") as spare:
        out = Path(options.out) if options.out is not None else Path(spare)
        results = out / "results.jsonl"
        earlier = load_finished(results) if options.resume and results.is_file() else {}
        judged = {p: comparison_of(r, pairwise.name) for p, r in earlier.items() if p in pairs}
        first = True
        usage: list[dict[str, Any]] = []

        async def ask(ids: list[str]) -> dict[str, Comparison]:
            nonlocal first
            step = replace(options, out=out, store=None, resume=options.resume or not first,
                           overwrite=options.overwrite and first)
            first = False
            scored = await evaluate_async([pairs[p] for p in ids], metrics=[pairwise],
                                          judge=judge, judging=judging, run=step)
            usage.append(scored.summary.get("judge") or {})
            return {str(r["id"]): comparison_of(r, pairwise.name) for r in scored.rows}

        done = await run_schedule(list(pairs), ask, budget=budget, systems=systems,
                                  bootstrap=bootstrap, seed=seed, judged=judged,
                                  on_round=on_round)
        last = replace(options, out=out, resume=options.resume or not first,
                       overwrite=options.overwrite and first)
        result = await evaluate_async([pairs[p] for p in done.judged], metrics=[pairwise],
                                      judge=judge, judging=judging, run=last)
        if usage:
            result.summary["judge"] = _summed(usage + [result.summary.get("judge") or {}])
    return result, done


def _summed(usages: list[dict[str, Any]]) -> dict[str, Any]:
    """The rounds' judge usage in one: counts added, peaks the highest, the rest (the judge's
    id, its final concurrency) the last's.

    Example:
        >>> _summed([{"id": "j", "requests": 4, "peak_in_flight": 3},
        ...          {"id": "j", "requests": 2, "peak_in_flight": 1}])
        {'id': 'j', 'requests': 6, 'peak_in_flight': 3}
    """
    out: dict[str, Any] = {}
    for usage in usages:
        for key, value in usage.items():
            if key.startswith("peak"):
                out[key] = max(out.get(key, value), value)
            elif (isinstance(value, (int, float)) and not isinstance(value, bool)
                  and not key.startswith("final")):
                out[key] = out.get(key, 0) + value
            else:
                out[key] = value
    return out


def _keep_board(arena: ArenaResult, store: Any) -> None:
    """The board beside the run (``leaderboard.json``) and in its summary under ``arena``:
    ``summary.json`` and the stored run's, which ``assay show``, the report and the web UI
    read."""
    board = arena.as_dict()
    arena.summary["arena"] = board
    if arena.out_dir is not None:
        (arena.out_dir / LEADERBOARD_FILE).write_text(json.dumps(board, indent=2) + "\n",
                                                      encoding="utf-8")
        write_summary(arena.out_dir, arena.summary)
    if arena.summary.get("run_id") and store not in (None, False):
        opened = open_run_store(store)
        if opened is not None:
            try:
                opened.update_summary(arena.summary["run_id"], {
                    "arena": board, **({"judge": arena.summary["judge"]}
                                       if arena.schedule and "judge" in arena.summary else {})})
            finally:
                if opened is not store:
                    opened.close()


def arena(systems: Sequence[str | Path], **options: Any) -> ArenaResult:
    """:func:`arena_async` from synchronous code (a script, a notebook cell): the same
    options, the same result."""
    return run_sync(lambda: arena_async(systems, **options))
