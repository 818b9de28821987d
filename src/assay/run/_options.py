"""The options of :func:`assay.evaluate`, grouped by what they govern: four frozen dataclasses
with the defaults of a plain call.

- :class:`ReadOptions` (``reading=``): how the dataset is read (column mapping, field length);
- :class:`ScoringOptions` (``scoring=``): how the metrics ask and count (rubric language, judge
  style, injection handling, safety threshold);
- :class:`JudgeOptions` (``judging=``): how judge calls are made (concurrency, budget, retries,
  timeout, cache);
- :class:`RunOptions` (``run=``): where the run goes and where it runs (output folder, resume,
  run store, progress, engine), and how many times each judge metric is asked (``repeat``).

Each field keeps the name of the flat keyword it replaces (``evaluate(lang="zh")`` is
``evaluate(scoring=ScoringOptions(lang="zh"))``); those keywords still work for one release,
with a DeprecationWarning that names the option object to use (see :mod:`._folding`).

Example:
    >>> options = JudgeOptions(concurrency=16, tpm=90_000)
    >>> options.concurrency, options.max_attempts
    (16, 6)
    >>> ScoringOptions(lang="zh")
    ScoringOptions(lang='zh', style='auto', on_injection='mask', fence='tags', injection_detector='learned', safety_threshold='medium', safety_mode='combined', reasons='auto')
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..calls import DEFAULT_TIMEOUT, JudgeCallOptions
from ..errors import ConfigError, option
from ..metrics import ScoringSettings

if TYPE_CHECKING:
    from ..data import LongFields
    from ..store import Store

__all__ = ["JudgeOptions", "ReadOptions", "RunOptions", "ScoringOptions", "check_repeat"]


@dataclass(frozen=True, kw_only=True)
class ReadOptions:
    """How the dataset is read.

    Attributes:
        mapping: ``{field: column}`` for other column names, e.g. ``{"answer": "output"}``.
        max_field_chars, long_fields: a text field longer than ``max_field_chars`` is an
            error (``"refuse"``) or is cut to that length (``"truncate"``, with one warning
            counting the cuts), before any judge sees it.

    Example:
        >>> ReadOptions(mapping={"answer": "output"}).long_fields
        'refuse'
    """

    mapping: Mapping[str, str] | None = None
    max_field_chars: int = 100_000
    long_fields: LongFields = "refuse"


#: The scoring settings as declared (core and the metric families'): ScoringOptions' defaults.
_DECLARED = ScoringSettings()


@dataclass(frozen=True, kw_only=True)
class ScoringOptions:
    """How the metrics ask the judge and count the answers: one field per scoring setting
    (``assay.metrics.declared_settings()``: its default, allowed values and doc), checked
    when a run builds its :class:`~assay.metrics.ScoringSettings` (:meth:`settings`).

    Attributes:
        lang: the rubrics' language, ``en`` or ``zh``.
        style: how judge metrics ask: ``"rating"`` (a 1-5 number), ``"verdict"`` (Yes/No, its
            probability mapped to 1-5, for metrics that have a verdict rubric), or ``"auto"``
            (verdicts on the embedded judge, where they agree better with people; else ratings).
        on_injection: what happens to a row whose texts address the evaluator ("ignore the
            rubric", "rate this 5", a fake verdict, a closing fence tag, a fake system turn):
            always flagged (its record and judge results say so; the summary counts them).
            ``mask`` (default): the judge reads it with the flagged sentences withheld;
            ``flag``: as it is; ``unscored``: its judge metrics are not asked; ``fail``: as
            mask, and the CLI exits 4.
        fence: how rubrics fence the texts under evaluation: ``tags`` (escaped tags, the
            default), ``spotlight`` (also between boundary lines keyed on the texts with a
            secret salt, an explanation before and the rubric's reminder after) or
            ``datamark`` (spotlight, and every space of each text written as a mark).
        injection_detector: what finds text addressed to the evaluator: ``learned`` (default:
            the patterns and a learned sentence classifier for wording they miss) or
            ``patterns`` (the patterns only).
        safety_threshold: ``low``, ``medium`` or ``high``: the severity level from which a row
            is a defect in the severity metrics' summary (a refusal, when ``refusal`` runs
            too, is never a defect).
        safety_mode: ``combined`` (one judge request per row for the four severity metrics)
            or ``separate`` (one per category).
        reasons: which rows get the judge's reason (most of what a small local judge
            generates): ``always``, ``never``, or ``auto`` (default: every row on a remote
            judge; on a local judge the rows that fail the metric and one in ten). A row
            without a reason says so in its record (``details.no_reason``).

    Example:
        >>> ScoringOptions(lang="zh").style
        'auto'
        >>> ScoringOptions(reasons="sometimes").settings()
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: Got reasons='sometimes'. Must be one of ['auto', 'always', 'never'].
    """

    lang: str = _DECLARED.lang
    style: str = _DECLARED.style
    on_injection: str = _DECLARED.on_injection
    fence: str = _DECLARED.fence
    injection_detector: str = _DECLARED.injection_detector
    safety_threshold: str = _DECLARED.family("safety_threshold")
    safety_mode: str = _DECLARED.family("safety_mode")
    reasons: str = _DECLARED.reasons

    def settings(self) -> ScoringSettings:
        """The typed settings of these options, each checked against its declaration (what
        a run builds once, and every ScoreContext of the run carries).

        Raises:
            ConfigError: an option outside its allowed values (named, with them).
        """
        return ScoringSettings.build(dataclasses.asdict(self))


@dataclass(frozen=True, kw_only=True)
class JudgeOptions:
    """How judge (and embedding) calls are made.

    Attributes:
        concurrency: judge requests in flight, fixed. ``None`` (default): a remote judge
            runs at the endpoint's pace: 64 in flight at first, more while latency stays flat,
            half as many after a 429 or 5xx, at most 128 (or the judge's own cap); a local
            judge keeps 8 slots (most local judges allow 1). ``tpm`` / ``rpm`` cap both.
        tpm, rpm: client-side token / request budget per minute for the judge.
        max_attempts: tries per judge call for errors worth retrying (5xx, timeouts, resets).
        max_wait: seconds one judge call may spend waiting on rate limits (429) before its
            row is left unscored; 429s do not use up ``max_attempts``.
        timeout: seconds one judge (or embedding) call may take in all: connecting, waiting
            and reading the answer, whatever the server sends meanwhile. A call past it is
            tried once more, then its row is unscored ("timed out after N s") and counted as
            a failed call. A positive finite number.
        cache: ``True`` (user cache dir), a path, or ``False``/``None`` for no cache.
        prices: a price file (TOML or JSON, dollars per million tokens) over genai-prices'
            list, for self-hosted models and negotiated prices (see :mod:`assay.costs`).

    Example:
        >>> JudgeOptions(tpm=90_000).cache
        True
    """

    concurrency: int | None = None
    tpm: int | None = None
    rpm: int | None = None
    max_attempts: int = 6
    max_wait: float = 600.0
    timeout: float = DEFAULT_TIMEOUT
    cache: str | Path | bool | None = True
    prices: str | Path | None = None

    def __post_init__(self) -> None:
        self.call_options()  # a bad value (timeout 0, attempts 0, ...): a ConfigError now

    @classmethod
    def from_calls(cls, calls: JudgeCallOptions) -> JudgeOptions:
        """The options of ``calls`` (see :meth:`call_options`), for an evaluate() call.

        Example:
            >>> JudgeOptions.from_calls(JudgeCallOptions(tpm=9)).call_options().tpm
            9
        """
        return cls(concurrency=calls.concurrency, tpm=calls.tpm, rpm=calls.rpm,
                   max_attempts=calls.attempts, max_wait=calls.max_wait,
                   timeout=calls.timeout, cache=calls.cache or False)

    def call_options(self) -> JudgeCallOptions:
        """These options as every model call takes them (``cache=True``: the default file).

        Example:
            >>> JudgeOptions(max_attempts=2, cache=False).call_options().attempts
            2
        """
        return JudgeCallOptions.with_overrides(
            None, concurrency=self.concurrency, tpm=self.tpm, rpm=self.rpm,
            attempts=self.max_attempts, max_wait=self.max_wait, timeout=self.timeout,
            cache=self.cache if self.cache is not None else False)


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """Where the run's results go, where its rows are scored, and how many times each judge
    metric is asked per row.

    Attributes:
        out: directory for ``results.jsonl`` (written as rows finish), ``summary.json`` and
            ``run.json`` (which run the folder holds). The run locks it: a second run on the
            same folder fails at once. A folder that holds an earlier run needs ``resume``
            or ``overwrite``.
        resume: keep the rows already in ``out/results.jsonl`` and score only the rest (and
            again any result a failed judge call left unscored). Only the run the folder
            holds is continued: a different dataset, metric set or judge is refused.
        overwrite: replace the earlier run's files in ``out``.
        store: record the run in the run store: ``True`` (``ASSAY_STORE`` or the user data
            dir), a path or ``postgresql://`` URL, or a Store; ``None`` (default) records
            nothing. Rows are added as they finish; an interrupted run is marked so, and
            ``resume`` with the same ``out`` adds the rest to the same run. The summary gets
            ``run_id``.
        run_name, tags, kind: the stored run's name, tags and kind (``run``, ``calibration``,
            ``jailbreak``, ...).
        keep_rows: return every record in ``EvalResult.rows`` (``False`` keeps memory flat
            for very large datasets: the records are in ``out/results.jsonl`` and the store).
        progress: show progress on stderr.
        engine: ``local`` (asyncio workers in this process) or ``ray``: the rows are
            streamed in batches to Ray workers (``pip install 'assay[ray]'``), each with its
            own judge client, under one ``tpm`` / ``rpm`` budget for all of them; the records
            are the same as the local engine's.
        ray_address: the Ray cluster to use (``ray://...`` or ``auto``); a local Ray instance
            when ``None``.
        ray_workers: Ray worker actors (default: 2 on a local instance, one per node of a
            cluster); the judge concurrency is shared among them.
        repeat: how many times each judge metric is asked per row (K): K times the judge
            calls, each repeat cached apart (the first under the key of a run without
            repeats). A row's result is the mean of its scored repeats (the majority for a
            label), with every repeat's value in ``repeats``; the summary gives each judge
            metric's test-retest figures (``retest``: agreement, within-row SD,
            Krippendorff's alpha). Metrics that call no judge are computed once.

    Example:
        >>> RunOptions(out="runs/a", resume=True).engine
        'local'
        >>> RunOptions(repeat=3).repeat
        3
        >>> RunOptions(repeat=0)
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: Got repeat=0. Must be a whole number, 1 or more: how many times each judge metric is asked per row, such as 3 (1 asks once).
    """

    out: str | Path | None = None
    resume: bool = False
    overwrite: bool = False
    store: str | Path | Store | bool | None = None
    run_name: str | None = None
    tags: Sequence[str] = ()
    kind: str = "run"
    keep_rows: bool = True
    progress: bool = False
    engine: str = "local"
    ray_address: str | None = None
    ray_workers: int | None = None
    repeat: int = 1

    def __post_init__(self) -> None:
        check_repeat(self.repeat)  # a bad value: a ConfigError now


def check_repeat(repeat: object) -> int:
    """``repeat`` when it is a whole number, 1 or more, else a ConfigError that says so.

    Example:
        >>> check_repeat(3)
        3
        >>> check_repeat(0)
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: Got repeat=0. Must be a whole number, 1 or more: how many times each judge metric is asked per row, such as 3 (1 asks once).
    """
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise ConfigError(f"Got {option('repeat', repeat)}. Must be a whole number, 1 or "
                          "more: how many times each judge metric is asked per row, such as "
                          "3 (1 asks once).")
    return repeat
