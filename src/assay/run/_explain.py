"""``explain()``: the judge's reason for a stored row, written later.

Under ``reasons="auto"`` (the embedded judge's default) most passing rows are scored without
the judge's reason; their record says so in ``details.no_reason``. ``explain`` reads the run
(its output folder or its entry in the run store), asks the same judge the same prompt again
with ``reasons="always"`` (the judge cache and the local judge's prompt cache make it cheap),
writes the reason into the stored row (``results.jsonl`` and the store), and returns, per
metric, the stored score, the explained score and the reason. A row explained before is read
back without asking the judge. A re-asked score that differs from the stored one (it should
not: the same prompt, the score first) is said plainly, and recorded as
``details.reason_for_score``; the stored score stands.

See :func:`explain` for an example.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._secrets import MASK
from ..calls import JudgeCallOptions
from ..errors import ConfigError, JudgeError, option
from ..judges import Judge
from ..metrics import get_metric
from ..metrics.judge import REASON_DETAILS
from ..records import StoredRow, is_call_failure, judge_spec_of, store_reasons, write_reasons
from ..store import Store
from ._evaluate import evaluate_async
from ._options import JudgeOptions, RunOptions, ScoringOptions
from ._sync import run_sync

__all__ = ["Explanation", "explain", "explain_async"]

#: The recorded run settings that go into ScoringOptions (``reasons`` is asked as ``always``).
_SCORING_KEYS = tuple(f.name for f in dataclasses.fields(ScoringOptions) if f.name != "reasons")


@dataclass(frozen=True)
class Explanation:
    """One metric of an explained row.

    Attributes:
        metric: the metric's name.
        score: the stored score (None when the run left it unscored).
        reason: the judge's reason (None when there is none: see ``note``).
        asked: whether the judge was asked now (False: the reason was stored already).
        explained_score: the score of the answer that carried the reason, when asked now.
        note: what the reader should know: the re-asked score differs from the stored one,
            the prompt or the judge is not the run's, or why there is no reason.

    Example:
        >>> Explanation("fluency", 5.0, "clear", asked=True, explained_score=4.0).score_differs
        True
    """

    metric: str
    score: float | None
    reason: str | None
    asked: bool = False
    explained_score: float | None = None
    note: str | None = None

    @property
    def score_differs(self) -> bool:
        """Whether the judge, asked again, gave another score than the stored one."""
        return self.asked and self.explained_score != self.score


async def explain_async(run: str | Path, row_id: str, metric: str | None = None, *,
                        judge: str | Judge | None = None,
                        store: str | Path | Store | bool | None = True,
                        calls: JudgeCallOptions | None = None,
                        cache: str | Path | bool | None = None,
                        timeout: float | None = None, max_wait: float | None = None
                        ) -> list[Explanation]:
    """The reasons of one stored row, asked of the judge where the run left them out.

    Args:
        run: a run's output folder, or a stored run's id, unique id prefix or ``latest``.
        row_id: the row's id (the ``id`` of its ``results.jsonl`` line).
        metric: one judge metric; ``None``: every judge metric of the row.
        judge: the judge to ask (a spec or a Judge); ``None``: the run's own.
        store: the run store to find the run in and to update (``True``: ``ASSAY_STORE`` or
            the default one; ``False``: the folder only).
        calls: how judge calls are made (:class:`~assay.calls.JudgeCallOptions`). Or, each
            given at most one way: cache: the judge cache (``True``, the default: the user
            cache dir; a path; ``False``: none). timeout: seconds per judge call. max_wait:
            seconds one judge call may wait on rate limits (429) in all.

    Raises:
        ConfigError: no such run, row or metric; a metric that uses no judge; a judge or
            row inputs that cannot be had again.
        JudgeError: the judge failed to answer (the reasons it gave are kept).
        JudgeStoppedError: the judge cannot be reached at all (wrong URL, key or model).
    """
    options = JudgeCallOptions.with_overrides(calls, cache_by_default=True, cache=cache,
                                              timeout=timeout, max_wait=max_wait)
    row = StoredRow.find(run, str(row_id), store=store)
    try:
        return await _explain_row(row, metric, judge=judge, calls=options)
    finally:
        if not isinstance(store, Store):
            row.close()


def explain(run: str | Path, row_id: str, metric: str | None = None, *,
            judge: str | Judge | None = None, store: str | Path | Store | bool | None = True,
            calls: JudgeCallOptions | None = None, cache: str | Path | bool | None = None,
            timeout: float | None = None, max_wait: float | None = None) -> list[Explanation]:
    """:func:`explain_async` from synchronous code (also inside a running event loop).

    Example:
        >>> import json, pathlib, tempfile
        >>> from assay import FakeJudge, RunOptions, ScoringOptions, evaluate
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> data, out = folder / "qa.jsonl", folder / "out"
        >>> _ = data.write_text('{"id": "q1", "question": "Capital of France?", "answer": "Paris."}')
        >>> _ = evaluate(data, metrics="fluency", judge=FakeJudge(),
        ...              scoring=ScoringOptions(reasons="never"), run=RunOptions(out=out))
        >>> json.loads((out / "results.jsonl").read_text())["fluency"]["details"]["no_reason"]
        'no reason asked (reasons=never)'
        >>> [e.reason for e in explain(out, "q1", judge=FakeJudge(), cache=False, store=False)]
        ['scripted']
        >>> json.loads((out / "results.jsonl").read_text())["fluency"]["reason"]
        'scripted'
        >>> explain(out, "q1", store=False)[0].asked  # stored now: the judge is not asked again
        False
    """
    return run_sync(lambda: explain_async(run, row_id, metric, judge=judge, store=store,
                                          calls=calls, cache=cache, timeout=timeout,
                                          max_wait=max_wait))


async def _explain_row(row: StoredRow, metric: str | None, *, judge: str | Judge | None,
                       calls: JudgeCallOptions) -> list[Explanation]:
    names = _judge_metrics(row, metric)
    out: dict[str, Explanation] = {}
    ask = []
    for name in names:
        result = row.record[name]
        if result.get("value") is None:
            out[name] = Explanation(name, None, None,
                                    note=f"unscored: {result.get('error') or 'no value'}")
        elif result.get("reason"):
            out[name] = Explanation(name, result["value"], result["reason"],
                                    note=_stored_note(result))
        else:
            ask.append(name)
    if ask:
        out.update(await _ask(row, ask, judge=judge, calls=calls))
    return [out[name] for name in names]


def _judge_metrics(row: StoredRow, metric: str | None) -> list[str]:
    """The row's judge metrics to explain: ``metric``, or all of them."""
    held = [name for name, value in row.record.items()
            if name != "id" and isinstance(value, dict) and "value" in value]
    known = [name for name in held if name in row.metrics] or held
    if metric is not None:
        if metric not in known:
            raise ConfigError(f"Got metric {metric!r}: row {row.row_id!r} has no result for "
                              f"it. Its metrics: {', '.join(known) or 'none'}.")
        if not _uses_judge(metric):
            raise ConfigError(f"{metric} uses no judge, so it has no reason to explain. "
                              "Judge metrics of this row: "
                              f"{', '.join(n for n in known if _uses_judge(n)) or 'none'}.")
        return [metric]
    found = [name for name in known if _uses_judge(name)]
    if not found:
        raise ConfigError(f"Row {row.row_id!r} has no judge metric, so nothing to explain "
                          f"(its metrics: {', '.join(known) or 'none'}).")
    return found


def _uses_judge(name: str) -> bool:
    try:
        return bool(get_metric(name).uses_judge)
    except (ConfigError, KeyError):  # a custom metric file: judged, but not rebuilt here
        return True


async def _ask(row: StoredRow, names: list[str], *, judge: str | Judge | None,
               calls: JudgeCallOptions) -> dict[str, Explanation]:
    """Score the row again with ``reasons="always"``; write the reasons it gives."""
    spec = judge if judge is not None else judge_spec_of(row.judge)
    if spec is None:
        raise ConfigError(f"The run records no judge for row {row.row_id!r}. Fix: name one "
                          f"with {option('judge')}.")
    if isinstance(spec, str) and f"{MASK}@" in spec:  # a URL whose login was not recorded
        raise ConfigError(f"The run's judge {spec} logs in with credentials that are not "
                          "recorded. Fix: name it again with its URL's user and password, "
                          f"{option('judge', 'openai:MODEL@https://USER:PASSWORD@HOST/v1')}.")
    for name in names:
        try:
            get_metric(name)
        except (ConfigError, KeyError):
            raise ConfigError(f"{name} is not a built-in or installed metric (a metric file?), "
                              "so it cannot be asked again here.") from None
    s = row.settings
    scoring = ScoringOptions(**{k: s[k] for k in _SCORING_KEYS if isinstance(s.get(k), str)},
                             reasons="always")
    if scoring.on_injection == "fail":  # the run judged such rows masked; no exit 4 here
        scoring = dataclasses.replace(scoring, on_injection="mask")
    result = await evaluate_async(
        [row.row_data()], metrics=list(names), judge=spec, scoring=scoring,
        judging=JudgeOptions.from_calls(calls),
        run=RunOptions(store=None))
    fresh = result.rows[0] if result.rows else {}
    judge_id = (result.summary.get("judge") or {}).get("id")
    out: dict[str, Explanation] = {}
    written: dict[str, dict[str, Any]] = {}
    notes: dict[str, dict[str, Any]] = {}
    failures: list[str] = []
    call_failed = False
    for name in names:
        stored, new = row.record[name], fresh.get(name) or {}
        if new.get("value") is None or not new.get("reason"):
            why = new.get("error") or "the answer had no reason"
            failures.append(f"{name}: {why}")
            call_failed = call_failed or is_call_failure(new.get("error"))
            out[name] = Explanation(name, stored.get("value"), None, asked=True,
                                    note=f"no reason: {why}")
            continue
        extra = _notes(stored, new, judge_id if judge_id != row.judge else None)
        details = {k: v for k, v in (stored.get("details") or {}).items() if k != "no_reason"}
        written[name] = {**stored, "reason": new["reason"], "details": {**details, **extra}}
        notes[name] = extra
        out[name] = Explanation(name, stored.get("value"), new["reason"], asked=True,
                                explained_score=new.get("value"), note=_stored_note(written[name]))
    if written:
        if row.folder is not None:
            write_reasons(row.folder, row.row_id, written)
        store_reasons(row, {n: r["reason"] for n, r in written.items()}, notes)
    if failures:
        raise JudgeError(f"The judge {judge_id or spec} gave no reason for row "
                         f"{row.row_id!r}: {'; '.join(failures)}"
                         + ("" if call_failed else ". The score stands; try again, or "
                            "another judge."))
    return out


def _notes(stored: Mapping[str, Any], new: Mapping[str, Any],
           other_judge: str | None) -> dict[str, Any]:
    """What an explained result records besides its reason: what comes with the reason (the
    conversation turn it names: ``REASON_DETAILS``), a score the reason was given for that is
    not the stored one, a prompt that is not the run's, a judge that is not the run's."""
    fresh = new.get("details") or {}
    extra: dict[str, Any] = {k: fresh[k] for k in REASON_DETAILS if k in fresh}
    if new.get("value") != stored.get("value"):
        extra["reason_for_score"] = new.get("value")
    old_prompt = (stored.get("details") or {}).get("prompt_sha256")
    new_prompt = (new.get("details") or {}).get("prompt_sha256")
    if old_prompt and new_prompt and old_prompt != new_prompt:
        extra["reason_prompt_sha256"] = new_prompt
    if other_judge:
        extra["reason_judge"] = other_judge
    return extra


def _stored_note(result: Mapping[str, Any]) -> str | None:
    """The notes of a result with a reason, in words (None when there are none)."""
    details = result.get("details") or {}
    parts = []
    if "reason_for_score" in details:
        parts.append(f"the judge, asked again, scored {details['reason_for_score']} (the "
                     f"stored score is {result.get('value')}): the reason is for that score")
    if "reason_prompt_sha256" in details:
        parts.append("the prompt asked was not the run's (its settings or rubric changed)")
    if "reason_judge" in details:
        parts.append(f"the reason is from {details['reason_judge']}, not the run's judge")
    return "; ".join(parts) or None
