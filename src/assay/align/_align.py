"""``align``: learn on train rows how a judge metric agrees better with people, measure the
result on held-out rows it never saw while choosing, and write the aligned metric file.

Candidates, each judged on the train rows that are not few-shot examples (the "selection"
rows): the metric as given, the metric with ``k`` rated train examples per label in its
instruction (for each ``k`` in ``shots``), and each wording variant; each of them as it
answers, and through an isotonic map from the judge's score to the human scale (its train
figure cross-validated). The best by train balanced accuracy (then Spearman, then the
simpler candidate) is measured once on the held-out rows against the metric as given.

Example:
    >>> import json, tempfile, pathlib
    >>> from assay.judges import FakeJudge
    >>> from assay.metrics.custom import PointwiseMetric
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> rows = [{"id": str(i), "response": f"level {h}", "tone/human_rating": h}
    ...         for i, h in enumerate([1, 2, 3] * 6)]
    >>> _ = (d / "rated.jsonl").write_text("\\n".join(json.dumps(r) for r in rows))
    >>> metric = PointwiseMetric("tone", "<a>{{ response }}</a>", scale="1-5")
    >>> judge = FakeJudge(lambda req: '{"score": %s, "reason": "r"}'
    ...                   % (int(req.messages[-1]["content"].split("level ")[-1][0]) + 2))
    >>> got = align(d / "rated.jsonl", metric=metric, judge=judge, out=d / "out", cache=None)
    >>> got.report["train"], got.report["heldout"], got.report["chosen"]["mapping"]
    (12, 6, True)
    >>> got.report["before"]["balanced_accuracy"]["value"], got.report["after"]["balanced_accuracy"]["value"]
    (0.0, 1.0)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..calibration import agreement_stats, human_labels, human_scale
from ..calls import JudgeCallOptions
from ..data import read_dataset
from ..errors import ConfigError, DataError
from ..judges import Judge, make_judge
from ..metrics import Metric, get_metric
from ..metrics.custom import PairwiseMetric, PointwiseMetric
from ..run import JudgeOptions, ScoringOptions
from ._candidates import pick_examples, rebuild, with_examples
from ._figures import compare_figures
from ._judging import Judged, judge_rows
from ._mapping import apply_thresholds, crossval_labels, fit_thresholds
from ._output import write_alignment
from ._split import stratified_split

__all__ = ["AlignmentResult", "align", "align_async"]

#: Fewest train rows left for choosing after the few-shot examples are taken out.
MIN_SELECTION = 6


@dataclass
class AlignmentResult:
    """``report`` is what ``alignment.json`` holds; ``aligned`` the chosen metric."""

    metric: str
    report: dict[str, Any]
    aligned: PointwiseMetric
    files: dict[str, Path] = field(default_factory=dict)


@dataclass
class _Candidate:
    name: str
    metric: PointwiseMetric
    judged: list[Judged] = field(default_factory=list)


def _pointwise(metric: str | Metric) -> PointwiseMetric:
    found = get_metric(metric) if isinstance(metric, str) else metric
    if isinstance(found, PairwiseMetric):
        raise ConfigError(f"align works on pointwise metrics for now; {found.name!r} is "
                          "pairwise. Use assay calibrate to measure its agreement.")
    if not isinstance(found, PointwiseMetric):
        raise ConfigError(f"align needs a custom pointwise metric (a metric file such as "
                          f"examples/metrics/helpfulness.md); {found.name!r} is a built-in "
                          "whose prompt is not a template. Write its rubric as a metric file.")
    return found


def _variant(base: PointwiseMetric, variant: str | Metric) -> PointwiseMetric:
    found = _pointwise(variant)
    if found.scale != base.scale:
        raise ConfigError(f"variant {found.source or found.name!r} has the scale "
                          f"{found.scale.labels}; the metric's is {base.scale.labels}. A "
                          "variant rewords the rubric on the same scale.")
    return rebuild(found, name=base.name)


def _train_figures(human: Sequence[Hashable], judged: Sequence[Any],
                   labels: Sequence[Hashable], ordinal: bool) -> tuple[float, float | None]:
    """Balanced accuracy (0 when nothing was scored) and Spearman (``None`` if undefined)."""
    stats = agreement_stats(human, judged, labels=labels, ordinal=ordinal)
    return (stats["balanced_accuracy"] or 0.0, stats.get("spearman"))


def align(data: str | Path, **options: Any) -> AlignmentResult:
    """The sync form of :func:`align_async` (same arguments)."""
    return asyncio.run(align_async(data, **options))


async def align_async(
    data: str | Path, *, metric: str | Metric, judge: str | Judge = "local",
    out: str | Path | None = None, variants: Sequence[str | Metric] = (),
    shots: Sequence[int] = (1, 2), heldout: float = 0.3, seed: int = 0,
    mapping: Mapping[str, str] | None = None, calls: JudgeCallOptions | None = None,
    cache: str | Path | bool | None = None,
    concurrency: int | None = None, lang: str = ScoringOptions().lang, progress: bool = False,
    on_stage: Callable[[str], None] | None = None, max_wait: float | None = None,
    timeout: float | None = None,
) -> AlignmentResult:
    """Align ``metric`` to the human ratings in ``data`` (``{metric}/human_rating``) and
    write ``out/<metric>-aligned.md`` and ``out/alignment.json``.

    Args:
        data: rated rows, as :func:`assay.calibration.calibrate` reads them.
        metric: a custom pointwise metric (or its registered name).
        judge: the judge spec or instance (one instance serves every candidate).
        out: output folder (default ``assay-out/align-<data name>``).
        variants: other wordings of the metric (metric objects or registered names).
        shots: few-shot sizes to try (rated train examples per label); empty for none.
        heldout: share of the rows kept for measuring (0.3-0.8), never used for choosing.
        seed: drives the split, the example picks, the map's folds and the bootstrap.
        mapping, lang, progress: as for :func:`assay.evaluate`.
        calls: how judge calls are made (:class:`~assay.calls.JudgeCallOptions`). Or, each
            given at most one way: cache (True, the default: the default file; a path;
            False: none), concurrency, max_wait, timeout (rate-limit waits and the deadline
            of one judge call).
        on_stage: called with a line saying what is judged next.

    Raises:
        ConfigError: a pairwise or built-in metric, a variant on another scale, a bad option.
        DataError: no human column, labels off the scale, rows lacking a template field,
            or too few rated rows for a split (all before any judge call).
    """
    options = JudgeCallOptions.with_overrides(calls, cache_by_default=True, cache=cache,
                                              concurrency=concurrency, max_wait=max_wait,
                                              timeout=timeout)
    base = _pointwise(metric)
    tried = [_variant(base, v) for v in variants]
    scale = human_scale(base)
    rows = read_dataset(data, mapping=mapping)
    labels_all = human_labels(rows, scale, str(data))
    rated = [(row, label) for row, label in zip(rows, labels_all) if label is not None]
    problems = [p for m in [base, *tried] for p in m.check_rows([r for r, _ in rated],
                                                                str(data))]
    if problems:
        raise DataError(sorted(set(problems)))
    train_idx, held_idx = stratified_split([lab for _, lab in rated], heldout=heldout, seed=seed)
    train = [rated[i] for i in train_idx]
    held = [rated[i] for i in held_idx]
    say = on_stage or (lambda _line: None)
    notes: list[str] = []
    train_labels = [lab for _, lab in train]
    ks: list[int] = []
    for k in sorted({k for k in shots if k > 0}):
        if len(train) - len(pick_examples(train_labels, k=k, seed=seed)) >= MIN_SELECTION:
            ks.append(k)
        else:
            notes.append(f"few-shot k={k} skipped: it would leave fewer than "
                         f"{MIN_SELECTION} train rows to choose with")
    # The larger k's examples include the smaller k's: none of them is ever scored.
    examples = pick_examples(train_labels, k=ks[-1], seed=seed) if ks else []
    taken = set(examples)
    selection = [pair for i, pair in enumerate(train) if i not in taken]
    candidates = [_Candidate("as given", base)]
    for k in ks:
        chosen_rows = pick_examples(train_labels, k=k, seed=seed)
        candidates.append(_Candidate(f"few-shot k={k}",
                                     with_examples(base, [train[i] for i in chosen_rows])))
    candidates += [_Candidate(f"variant {m.source or i + 1}", m) for i, m in enumerate(tried)]

    own_judge = isinstance(judge, str)
    backend = make_judge(judge, timeout=options.timeout)
    run: dict[str, Any] = {"judging": JudgeOptions.from_calls(options), "lang": lang,
                           "progress": progress}
    sel_rows = [r for r, _ in selection]
    sel_human = [lab for _, lab in selection]
    positions = [scale.labels.index(lab) for lab in sel_human]
    table_rows: list[dict[str, Any]] = []
    best: tuple[tuple[float, float, int], _Candidate, bool] | None = None
    try:
        for n, cand in enumerate(candidates, start=1):
            say(f"train: judging {len(sel_rows)} rows with {cand.name} ({n}/{len(candidates)})")
            cand.judged = await judge_rows(cand.metric, sel_rows, backend, **run)
            raw = _train_figures(sel_human, [j.label for j in cand.judged], scale.labels,
                                 scale.ordinal)
            mapped_labels = crossval_labels([j.score for j in cand.judged], positions,
                                            scale.labels, seed=seed)
            mapped = _train_figures(sel_human, mapped_labels, scale.labels, scale.ordinal)
            for with_map, figs in ((False, raw), (True, mapped)):
                rho = figs[1]
                rank = (round(figs[0], 6), -2.0 if rho is None else round(rho, 6),
                        -(2 * n + with_map))
                table_rows.append({"prompt": cand.name, "mapping": with_map,
                                   "train_balanced_accuracy": round(figs[0], 3),
                                   "train_spearman": None if rho is None else round(rho, 3)})
                if best is None or rank > best[0]:
                    best = (rank, cand, with_map)
        assert best is not None
        _, chosen, use_map = best
        held_rows = [r for r, _ in held]
        say(f"held-out: judging {len(held_rows)} rows with the metric as given")
        before = await judge_rows(base, held_rows, backend, **run)
        after = before
        if chosen is not candidates[0]:
            say(f"held-out: judging {len(held_rows)} rows with {chosen.name}")
            after = await judge_rows(chosen.metric, held_rows, backend, **run)
    finally:
        if own_judge:
            await backend.aclose()
    thresholds = None
    after_labels = [j.label for j in after]
    if use_map:
        fit = [(j.score, p) for j, p in zip(chosen.judged, positions) if j.score is not None]
        thresholds = fit_thresholds([s for s, _ in fit], [p for _, p in fit], scale.labels)
        after_labels = [None if j.score is None else apply_thresholds(thresholds, j.score)
                        for j in after]
    aligned = rebuild(chosen.metric, calibration=(
        {"input": "weighted", "thresholds": thresholds} if thresholds else None), where="")
    figures = compare_figures([lab for _, lab in held], [j.label for j in before],
                              after_labels, labels=scale.labels, ordinal=scale.ordinal,
                              seed=seed)
    report: dict[str, Any] = {
        "metric": base.name, "data": str(data), "judge": backend.id, "seed": seed,
        "heldout_share": heldout, "rated_rows": len(rated), "train": len(train),
        "heldout": len(held), "selection_rows": len(selection),
        "examples": [train[i][0].id for i in examples],
        "chosen": {"prompt": chosen.name, "mapping": use_map, "thresholds": thresholds,
                   "chosen_by": "train balanced accuracy on the non-example train rows "
                                "(the map's cross-validated), then Spearman, then the "
                                "simpler candidate"},
        "candidates": table_rows, "notes": notes, **figures,
        "beyond_noise": figures["gain"]["balanced_accuracy"]["beyond_noise"]}
    out_dir = Path(out) if out else Path("assay-out") / f"align-{Path(data).stem}"
    files = write_alignment(out_dir, aligned, report)
    return AlignmentResult(metric=base.name, report=report, aligned=aligned, files=files)
