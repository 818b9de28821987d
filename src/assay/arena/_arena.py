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
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import ConfigError, option
from ..judges import Judge
from ..metrics import Metric, get_metric
from ..metrics.custom import PairwiseMetric, load_metric_file
from ..records import open_run_store, write_summary
from ..run import JudgeOptions, RunOptions, evaluate_async, run_sync
from ._pairs import comparison_of, pair_rows
from ._preference import PREFERENCE, preference_metric
from ._ratings import BOOTSTRAP, Leaderboard, rate
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

    def as_dict(self) -> dict[str, Any]:
        """What ``leaderboard.json`` and ``--json`` hold."""
        return {"ratings": [asdict(r) for r in self.leaderboard.ratings],
                "comparisons": self.leaderboard.comparisons, "rows": self.leaderboard.rows,
                "bootstrap": self.leaderboard.bootstrap, "seed": self.leaderboard.seed,
                "separated": self.leaderboard.separated(), "position": self.position,
                "missing": self.missing, "run_id": self.summary.get("run_id")}


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
                      bootstrap: int = BOOTSTRAP, seed: int = 0) -> ArenaResult:
    """Judge every pair of ``systems`` (answer files, ``assay run`` output folders or stored
    runs, with the same row ids; see :func:`~assay.arena._systems.read_systems`) on each row
    they share, in both orders, and fit the leaderboard.

    Raises:
        ConfigError: fewer than two systems, a name used twice, no shared rows, a metric
            that is not pairwise, a panel of judges (each told before any judge call).
        DataError: a system's file has problems (all of them).
    """
    if not isinstance(judge, (str, Judge)):
        raise ConfigError("the arena takes one judge (a panel's position bias is not "
                          f"reported yet): give one {option('judge')}.")
    field: Field = read_systems(systems, names, store=run.store)
    with_context = all(s.rows[r].context for s in field.systems for r in field.row_ids
                       if r in s.rows)
    pairwise = arena_metric(metric, with_context=with_context)
    pairs = pair_rows(field, seed=seed)
    label = ", ".join(s.name for s in field.systems)
    options = replace(run, kind="arena", run_name=run.run_name or f"arena: {label}",
                      keep_rows=True)
    result = await evaluate_async(list(pairs.values()), metrics=[pairwise], judge=judge,
                                  judging=judging, run=options)
    comparisons = [comparison_of(record, pairwise.name) for record in result.rows]
    board = rate(comparisons, systems=[s.name for s in field.systems], bootstrap=bootstrap,
                 seed=seed)
    figures = result.summary["metrics"].get(pairwise.name) or {}
    position = {k: figures.get(k) for k in ("first_shown_share", "position_consistency",
                                            "flips", "tie_rate", "scored", "unscored",
                                            "decided_by")}
    arena = ArenaResult(board, position, field.missing, result.summary, result.out_dir)
    _keep_board(arena, run.store)
    return arena


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
                opened.update_summary(arena.summary["run_id"], {"arena": board})
            finally:
                if opened is not store:
                    opened.close()


def arena(systems: Sequence[str | Path], **options: Any) -> ArenaResult:
    """:func:`arena_async` from synchronous code (a script, a notebook cell): the same
    options, the same result."""
    return run_sync(lambda: arena_async(systems, **options))
