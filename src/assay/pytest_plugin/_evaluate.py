"""The ``assay_eval`` fixture's callable: evaluate data (a file, rows, or a target answering a
test set), decide the bars, fail the test with a readable message when one fails.

Example (in a test):

.. code-block:: python

    def test_bot(assay_eval):
        result = assay_eval([{"id": "q1", "answer": "Paris", "ground_truth": "Paris"}],
                            metrics="f1_score", fail_under={"f1_score": 0.8})
        assert result.summary["rows"] == 1
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from ..errors import AssayError, ConfigError
from ..gate import BarOutcome, check_bar_names, parse_bars, summary_outcomes
from ..metrics import Plan
from ..records import EvalResult, RunData, load_run
from ..run import JudgeOptions, ReadOptions, RunOptions, ScoringOptions, evaluate_async, run_sync
from ._report import evaluation_entry, failure_message
from ._settings import PluginSettings

__all__ = ["AssayEval"]

#: The option objects evaluate() takes, by keyword; each of their fields may be given flat.
_GROUPS: dict[str, type[Any]] = {"reading": ReadOptions, "scoring": ScoringOptions,
                                 "judging": JudgeOptions, "run": RunOptions}
_GROUP_OF = {f.name: group for group, cls in _GROUPS.items() for f in dataclasses.fields(cls)}
_INCONCLUSIVE = ("fail", "pass", "skip")
Bars = Mapping[str, float] | str | Sequence[str] | None


class AssayEval:
    """``assay_eval(data, *, metrics="auto", judge=None, fail_under=None, fail_over=None,
    baseline=None, max_drop=None, name=None, target=None, tools=None, **options)``.

    Args:
        data: a dataset file (``.jsonl``, ``.json``, ``.csv``, ...), or rows (dicts); with
            ``target``, the test set the app answers first.
        metrics: ``"auto"`` (what the fields allow), ``"a,b"`` or a list.
        judge: a judge spec or instance; default: the session's (``--assay-judge``,
            ``ASSAY_JUDGE``, ``assay_judge``, else ``local``).
        fail_under, fail_over: bars on the run, ``{name: number}`` (or ``"name=number,..."``)
            with the names of ``assay run --fail-under/--fail-over``: a metric's mean,
            ``<metric>_defect_rate``, ``<metric>_unscored_rate``.
        baseline, max_drop: a baseline run (a stored run id, an ``out`` folder, or an
            EvalResult) and ``{metric: most it may get worse}``, decided from the paired
            difference's interval at ``confidence``; an undecided bar fails the test
            (``inconclusive="fail"``), passes it (``"pass"``) or skips it (``"skip"``).
        name: the evaluation's name, when a test runs several (its folder and stored run).
        target, tools, max_steps: the app under test (``python:...``, ``openai:MODEL``,
            ``http:URL``, or a Python function) answers each row without an answer first, as
            ``assay run --target`` does; ``tools``: a ``python:module:TOOLS`` spec or a dict
            of name -> function.
        max_failed_share: the test fails when a metric lost more than this share of its rows
            to failed judge calls or unreadable answers, or the target failed on more.
        **options: ``embeddings``, the option objects ``reading``, ``scoring``, ``judging``,
            ``run``, or any of their fields by name (``lang="zh"``, ``cache=False``,
            ``concurrency=4``).

    Returns:
        the :class:`~assay.EvalResult`; the test has failed (``pytest.fail``) when a bar
        failed, the judge or the app failed, or the input was bad.
    """

    def __init__(self, *, nodeid: str, settings: PluginSettings, out_root: Callable[[], Path],
                 record: Callable[[dict[str, Any]], None]) -> None:
        self.nodeid, self.settings = nodeid, settings
        self._out_root, self._record = out_root, record
        self._folders: set[str] = set()

    def __call__(self, data: str | Path | Iterable[Mapping[str, Any]], *,
                 metrics: str | Sequence[Any] = "auto", judge: Any = None,
                 fail_under: Bars = None, fail_over: Bars = None,
                 baseline: str | Path | EvalResult | None = None, max_drop: Bars = None,
                 name: str | None = None, target: str | Callable[..., Any] | None = None,
                 tools: str | Mapping[str, Callable[..., Any]] | None = None, max_steps: int = 8,
                 confidence: float = 0.95, inconclusive: str = "fail",
                 max_failed_share: float = 0.05, **options: Any) -> EvalResult:
        out = self._folder(name)
        error: str | None = None
        try:
            under, over = _bars(fail_under, "fail_under"), _bars(fail_over, "fail_over")
            drops = _bars(max_drop, "max_drop")
            decide_drops = _check_baseline(baseline, drops, inconclusive)
            grouped = self._options(options, out=out, name=name)
            agent = _agent(target, tools, max_steps, grouped["judging"])

            def on_plan(plan: Plan) -> None:  # a bar that can never pass: before any judge call
                check_bar_names(plan.metrics, fail_under=under, fail_over=over,
                                skipped=plan.skipped)

            result = run_sync(lambda: _closing(agent, evaluate_async(
                data, metrics=metrics, judge=judge or self.settings.judge, on_plan=on_plan,
                agent=agent, **grouped)))
            outcomes = summary_outcomes(result.summary, fail_under=under, fail_over=over,
                                        records=result.rows)
            if decide_drops is not None:
                outcomes += decide_drops(
                    _comparison(baseline, result, list(drops), grouped["run"].store),
                    drops, confidence=confidence)
        except AssayError as e:
            error = str(e)  # failed below, outside this block: no chained traceback
        if error is not None:
            self._record(evaluation_entry(self.nodeid, name, [], rows=0, run_id=None,
                                          out=str(out), problems=[f"error: {error}"],
                                          error=True))
            pytest.fail(f"assay: {_title(self.nodeid, name)}: {error}", pytrace=False)
        summary = result.summary
        rows = int(summary.get("rows") or 0)
        problems = _judge_problems(summary, max_failed_share) + _agent_problems(
            agent, rows, max_failed_share)
        run_id = summary.get("run_id")
        self._record(evaluation_entry(self.nodeid, name, outcomes, rows=rows, run_id=run_id,
                                      out=str(out), problems=problems))
        undecided = [o for o in outcomes if o.verdict == "inconclusive"]
        failed = problems or any(o.verdict == "fail" for o in outcomes) or (
            undecided and inconclusive == "fail")
        if failed or (undecided and inconclusive == "skip"):
            where = f"out {out}" + (f", run {run_id}" if run_id else "")
            message = failure_message(outcomes, rows=rows, title=_title(self.nodeid, name),
                                      where=where, problems=problems)
            if not failed:
                pytest.skip(message)
            pytest.fail(message, pytrace=False)
        return result

    def _folder(self, name: str | None) -> Path:
        """This evaluation's own folder: the test's id (and ``name``) made a folder name; a
        second evaluation of the same name in one test gets ``-2``, ``-3``, ..."""
        slug = re.sub(r"[^\w.-]+", "_", self.nodeid + (f"-{name}" if name else ""))
        slug = slug.strip("_.")[-120:] or "evaluation"
        unique, n = slug, 1
        while unique in self._folders:
            n += 1
            unique = f"{slug}-{n}"
        self._folders.add(unique)
        return self._out_root() / unique

    def _options(self, options: dict[str, Any], *, out: Path,
                 name: str | None) -> dict[str, Any]:
        """evaluate()'s option objects: the plugin's defaults for the run (this evaluation's
        folder, replaced each session; the session's store; no progress bar), then the
        caller's option objects, then the caller's flat fields."""
        unknown = sorted(set(options) - set(_GROUP_OF) - set(_GROUPS) - {"embeddings"})
        if unknown:
            raise ConfigError(
                f"assay_eval() got unknown option{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(unknown)}. Fix: use evaluate()'s options: embeddings, "
                f"{', '.join(_GROUPS)}, or their fields: {', '.join(sorted(_GROUP_OF))}.")
        grouped: dict[str, Any] = {
            "reading": ReadOptions(), "scoring": ScoringOptions(), "judging": JudgeOptions(),
            "run": RunOptions(out=out, overwrite=True, store=self.settings.store,
                              run_name=name or self.nodeid, tags=("pytest",))}
        for group, cls in _GROUPS.items():
            given = options.get(group)
            if given is not None and not isinstance(given, cls):
                raise ConfigError(f"Got {group}={given!r}: it takes a {cls.__name__}.")
            flat = {k: v for k, v in options.items() if _GROUP_OF.get(k) == group}
            grouped[group] = dataclasses.replace(given or grouped[group], **flat)
        if "embeddings" in options:
            grouped["embeddings"] = options["embeddings"]
        return grouped


def _title(nodeid: str, name: str | None) -> str:
    return nodeid + (f" [{name}]" if name else "")


def _bars(bars: Bars, keyword: str) -> dict[str, float]:
    """``{name: number}`` from a mapping, a ``"name=number,..."`` string or a list of them;
    each number checked (a ConfigError naming the keyword and the fix)."""
    if not bars:
        return {}
    if isinstance(bars, Mapping):
        specs = [f"{name}={value}" for name, value in bars.items()]
    else:
        specs = [bars] if isinstance(bars, str) else list(bars)
    return parse_bars(specs, keyword)


def _check_baseline(baseline: object, drops: Mapping[str, float], inconclusive: str,
                    ) -> Callable[..., list[BarOutcome]] | None:
    """``assay.compare.decide_drops`` when a baseline is to be compared, None when not; a
    ConfigError for half a comparison, a bad ``inconclusive`` or a missing decide_drops
    (before any judge call)."""
    if inconclusive not in _INCONCLUSIVE:
        raise ConfigError(f"Got inconclusive={inconclusive!r}. Must be one of "
                          f"{list(_INCONCLUSIVE)}.")
    if (baseline is None) != (not drops):
        given, missing = (("baseline", "max_drop") if baseline is not None
                          else ("max_drop", "baseline"))
        raise ConfigError(f"Got {given} without {missing}: a baseline is compared on the "
                          f"bars of max_drop. Fix: give both, e.g. baseline='runs/main', "
                          f"max_drop={{'groundedness': 0.2}}.")
    if baseline is None:
        return None
    from .. import compare
    decide: Callable[..., list[BarOutcome]] | None = getattr(compare, "decide_drops", None)
    if decide is None:
        raise ConfigError("baseline and max_drop are not available in this version of assay "
                          "(assay.compare has no decide_drops). Fix: upgrade assay, or use "
                          "fail_under / fail_over.")
    return decide


def _comparison(baseline: str | Path | EvalResult | None, result: EvalResult,
                metrics: list[str], store: Any) -> dict[str, Any]:
    """``compare_runs`` of the baseline and this run, on ``metrics``."""
    from ..compare import compare_runs
    if isinstance(baseline, EvalResult):
        base = RunData(str(baseline.summary.get("run_id") or "baseline"), baseline.summary,
                       baseline.rows)
    else:
        base = load_run(str(baseline), store if store is not None else True)
    candidate = RunData(str(result.summary.get("run_id") or "candidate"), result.summary,
                        result.rows)
    return compare_runs(base, candidate, metrics=metrics)


def _agent(target: str | Callable[..., Any] | None, tools: Any, max_steps: int,
           judging: JudgeOptions) -> Any:
    """The agent that completes rows before scoring (None without a target)."""
    if target is None:
        if tools:
            raise ConfigError("Got tools without target: the tools answer a target's calls. "
                              "Fix: add target='python:package.module:function' (or the "
                              "function).")
        return None
    from ..agents import make_agent
    return make_agent(target, tools=tools, max_steps=max_steps, timeout=judging.timeout,
                      max_wait=judging.max_wait)


async def _closing(agent: Any, work: Coroutine[Any, Any, EvalResult]) -> EvalResult:
    """Await ``work``, then close the agent's target (once, whatever happened)."""
    try:
        return await work
    finally:
        if agent is not None:
            await agent.aclose()


def _judge_problems(summary: Mapping[str, Any], max_failed_share: float) -> list[str]:
    """A line per metric that lost more than ``max_failed_share`` of its rows to failed judge
    calls or unreadable judge answers (``assay run`` exits 3 on it), with the top causes;
    none when only the target failed (:func:`_agent_problems` says so)."""
    report = summary.get("failures") or {}
    causes = {why: n for why, n in (report.get("causes") or {}).items()
              if not str(why).startswith("target call failed")}
    for reasons in (report.get("unreadable") or {}).values():
        causes.update(reasons or {})
    lost = [f"{name} lost {int(m.get('failed', 0)) + int(m.get('unreadable', 0))} of "
            f"{m.get('applicable', '?')} rows" for name, m in (report.get("by_metric") or {}).items()
            if (m.get("failed") or m.get("unreadable")) and m.get("share", 0) > max_failed_share]
    if not lost or not causes:
        return []
    top = "; ".join(f"{n} x {why}" for why, n in list(causes.items())[:3])
    return [(f"judge failed: {', '.join(lost)} to failed judge calls or unreadable answers "
            f"(over max_failed_share={max_failed_share}): {top}")]


def _agent_problems(agent: Any, rows: int, max_failed_share: float) -> list[str]:
    """A line when the target failed on more than ``max_failed_share`` of the rows."""
    if agent is None or not rows:
        return []
    failed = agent.stats.failed
    if not failed or failed / rows <= max_failed_share:
        return []
    return [(f"target failed: {agent.id} could not answer {failed} of {rows} rows (over "
            f"max_failed_share={max_failed_share}); their metrics are unscored with the cause")]
