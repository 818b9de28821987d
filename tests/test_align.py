"""assay align: the split, the score map, few-shot examples, the written files, and that the
held-out rows never reach the judge while choosing (offline, scripted FakeJudge)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from assay.align import align
from assay.align._candidates import pick_examples, with_examples
from assay.align._figures import compare_figures
from assay.align._mapping import fit_thresholds
from assay.align._split import stratified_split
from assay.calibration import agreement_stats
from assay.data import Row
from assay.errors import ConfigError, DataError
from assay.judges import FakeJudge, JudgeRequest
from assay.metrics.custom import PairwiseMetric, PointwiseMetric, load_metric_file

TEMPLATE = "<question>\n{{ question }}\n</question>\n<answer>\n{{ response }}\n</answer>"


def _metric(**kw: object) -> PointwiseMetric:
    return PointwiseMetric("helpfulness", TEMPLATE, rating_rubric={5: "helps", 1: "no help"},
                           scale="1-5", instruction="Rate how well it helps.", **kw)


def _rated(tmp_path: Path, humans: list[int], name: str = "rated.jsonl") -> Path:
    rows = [{"id": f"r{i}", "question": f"question {i}?", "response": f"answer {i} level {h}",
             "helpfulness/human_rating": h} for i, h in enumerate(humans)]
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _level(req: JudgeRequest) -> int:
    """The human rating hidden in the row shown last (the user message)."""
    return int(re.findall(r"level (\d)", req.messages[-1]["content"])[-1])


def _mis_scaled(req: JudgeRequest) -> str:
    """A judge that ranks perfectly but says two points too high (3, 4, 5 for 1, 2, 3)."""
    return json.dumps({"score": min(5, _level(req) + 2), "reason": "scripted"})


HUMANS = [1, 2, 3] * 8


def test_split_is_stratified_seeded_and_disjoint() -> None:
    labels = [1] * 10 + [3] * 7 + [5] * 4 + [2]
    train, held = stratified_split(labels, heldout=0.3, seed=7)
    assert set(train).isdisjoint(held) and sorted(train + held) == list(range(len(labels)))
    per_label = Counter(labels[i] for i in held)
    assert per_label == {1: 3, 3: 3, 5: 2}  # ceil(0.3 * n); the single 2 stays in train
    assert len(held) >= 0.3 * (len(labels) - 1)
    assert stratified_split(labels, heldout=0.3, seed=7) == (train, held)
    assert stratified_split(labels, heldout=0.3, seed=8) != (train, held)


def test_split_refuses_too_few_rows_and_a_small_heldout() -> None:
    with pytest.raises(DataError, match="at least 10"):
        stratified_split([1, 2] * 4)
    with pytest.raises(ConfigError, match="0.3-0.8"):
        stratified_split([1, 2] * 10, heldout=0.2)


def test_isotonic_map_learned_on_train_fixes_a_mis_scaled_judge_on_heldout(
        tmp_path: Path) -> None:
    got = align(_rated(tmp_path, HUMANS), metric=_metric(), judge=FakeJudge(_mis_scaled),
                out=tmp_path / "out", cache=None, shots=())
    report = got.report
    assert report["chosen"] == {**report["chosen"], "prompt": "as given", "mapping": True}
    assert report["chosen"]["thresholds"] == {1: 0.0, 2: 3.5, 3: 4.5}
    assert report["before"]["balanced_accuracy"]["value"] == 0.0
    assert report["after"]["balanced_accuracy"]["value"] == 1.0
    assert report["gain"]["balanced_accuracy"]["beyond_noise"] is True
    assert report["train"] + report["heldout"] == len(HUMANS)
    assert report["heldout"] >= 0.3 * len(HUMANS)


def test_few_shot_examples_go_into_the_rubric_the_judge_sees() -> None:
    rows = [Row(id=str(i), line=i, question=f"q{i}?", answer=f"answer number {i}")
            for i in range(6)]
    labels = [1, 5, 1, 5, 3, 3]
    picks = pick_examples(labels, k=1, seed=0)
    assert sorted(labels[i] for i in picks) == [1, 3, 5]
    shot = with_examples(_metric(), [(rows[i], labels[i]) for i in picks])
    system = shot.messages(rows[0], "en")[0]["content"]
    for i in picks:
        assert f"answer number {i}\n</answer>\nrating: {labels[i]}\n</example>" in system
    assert "Rate how well it helps." in system and "5 = helps" in system


def test_both_files_are_written_and_the_aligned_file_loads_with_its_map(
        tmp_path: Path) -> None:
    got = align(_rated(tmp_path, HUMANS), metric=_metric(), judge=FakeJudge(_mis_scaled),
                out=tmp_path / "out", cache=None)
    aligned = tmp_path / "out" / "helpfulness-aligned.md"
    report = json.loads((tmp_path / "out" / "alignment.json").read_text())
    assert {"train", "heldout", "chosen", "before", "after", "gain"} <= set(report)
    for side in ("before", "after"):
        for figure in ("balanced_accuracy", "class_weighted_f1", "spearman", "cohen_kappa"):
            assert set(report[side][figure]) == {"value", "ci95"}
    loaded = load_metric_file(aligned)
    assert loaded.calibration is not None and got.aligned.calibration is not None
    assert loaded.calibration.thresholds == got.aligned.calibration.thresholds
    assert loaded.template.source.strip() == TEMPLATE
    assert loaded.rubric == _metric().rubric


def test_heldout_rows_never_reach_the_judge_while_choosing(tmp_path: Path) -> None:
    humans = [1, 2, 3, 4, 5] * 5
    data = _rated(tmp_path, humans)
    _, held = stratified_split(humans, heldout=0.3, seed=3)
    held_texts = [f"answer {i} level" for i in held]
    judge = FakeJudge(_mis_scaled)
    marks: list[tuple[str, int]] = []
    got = align(data, metric=_metric(), judge=judge, out=tmp_path / "out", cache=None,
                seed=3, shots=(1,), on_stage=lambda line: marks.append((line,
                                                                         len(judge.requests))))
    first_heldout = next(n for line, n in marks if line.startswith("held-out"))
    assert first_heldout > 0 and got.report["heldout"] == len(held)
    for n, request in enumerate(judge.requests):
        system, shown = request.messages[0]["content"], request.messages[-1]["content"]
        assert not any(t in system for t in held_texts)  # never a few-shot example
        if n < first_heldout:
            assert not any(t in shown for t in held_texts), n
    seen_later = [r.messages[-1]["content"] for r in judge.requests[first_heldout:]]
    assert all(any(t in s for s in seen_later) for t in held_texts)


def test_bootstrap_figures_match_agreement_stats() -> None:
    human = [1, 2, 3, 3, 2, 1, 1, 3, 2, 2]
    judged = [1, 3, 3, 2, 2, 1, 2, 3, 1, 2]
    out = compare_figures(human, judged, judged, labels=[1, 2, 3], ordinal=True, seed=0,
                          resamples=200)
    stats = agreement_stats(human, judged, labels=[1, 2, 3], ordinal=True)
    for name in ("balanced_accuracy", "class_weighted_f1", "spearman", "cohen_kappa"):
        assert out["before"][name]["value"] == round(stats[name], 3)
        low, high = out["before"][name]["ci95"]
        assert low <= stats[name] <= high
        assert out["gain"][name]["value"] == 0.0 and not out["gain"][name]["beyond_noise"]


def test_thresholds_are_monotone_on_a_noisy_judge() -> None:
    table = fit_thresholds([1.2, 1.4, 2.5, 2.6, 3.1, 2.2, 4.8, 4.4], [0, 0, 1, 0, 1, 1, 2, 2],
                           [1, 2, 3])
    assert list(table) == [1, 2, 3] and list(table.values()) == sorted(table.values())


def test_bad_inputs_are_refused_before_any_judge_call(tmp_path: Path) -> None:
    judge = FakeJudge(_mis_scaled)
    pairwise = PairwiseMetric("pref", "{{ response_a }} {{ response_b }}")
    with pytest.raises(ConfigError, match="pairwise"):
        align(_rated(tmp_path, HUMANS), metric=pairwise, judge=judge, out=tmp_path / "o")
    with pytest.raises(ConfigError, match="built-in"):
        align(_rated(tmp_path, HUMANS), metric="coherence", judge=judge, out=tmp_path / "o")
    with pytest.raises(DataError, match="at least 10"):
        align(_rated(tmp_path, [1, 2, 3]), metric=_metric(), judge=judge, out=tmp_path / "o")
    no_column = tmp_path / "plain.jsonl"
    no_column.write_text(json.dumps({"question": "q?", "response": "a"}) + "\n")
    with pytest.raises(DataError, match="helpfulness/human_rating"):
        align(no_column, metric=_metric(), judge=judge, out=tmp_path / "o")
    other = PointwiseMetric("helpfulness", "{{ response }}", scale="1-3")
    with pytest.raises(ConfigError, match="same scale"):
        align(_rated(tmp_path, HUMANS), metric=_metric(), variants=[other], judge=judge,
              out=tmp_path / "o")
    needs_context = PointwiseMetric("helpfulness", "{{ context }} {{ response }}")
    with pytest.raises(DataError, match="context"):
        align(_rated(tmp_path, HUMANS), metric=needs_context, judge=judge, out=tmp_path / "o")
    assert judge.requests == []


def test_score_map_in_a_metric_file_is_checked_and_optional(tmp_path: Path) -> None:
    body = "---\nname: m\nscale: 1-3\n{extra}---\n{{{{ response }}}}\n"
    plain = tmp_path / "plain.md"
    plain.write_text(body.format(extra=""))
    assert load_metric_file(plain).calibration is None
    good = tmp_path / "good.md"
    good.write_text(body.format(extra="calibration:\n  thresholds: {1: 0, 3: 2.2}\n"))
    assert load_metric_file(good).calibration.label_for(2.5) == 3  # type: ignore[union-attr]
    for extra, message in (("calibration:\n  thresholds: {1: 0, 3: 1, 2: 2}\n", "rise"),
                           ("calibration:\n  thresholds: {1: 0, 7: 2}\n", "not on the scale"),
                           ("calibration:\n  thresholds: {1: x}\n", "must be a number"),
                           ("calibration: 3\n", "needs 'thresholds'")):
        bad = tmp_path / "bad.md"
        bad.write_text(body.format(extra=extra))
        with pytest.raises(ConfigError, match=message):
            load_metric_file(bad)


def test_public_names_are_sorted_and_documented() -> None:
    import inspect

    import assay.align as package

    names = list(package.__all__)
    assert all(hasattr(package, n) for n in names)
    constants = [n for n in names if n.isupper()]
    assert names[:len(constants)] == sorted(constants)
    undocumented = [n for n in names if (inspect.isclass(getattr(package, n)) or
                                         inspect.isfunction(getattr(package, n)))
                    and not (getattr(package, n).__doc__ or "").strip()]
    assert undocumented == []


def test_a_label_scale_is_aligned_through_label_positions(tmp_path: Path) -> None:
    names = ["bad", "ok", "good", "great"]
    rows = [{"id": f"r{i}", "response": f"text {i} level {h}", "tone/human_rating": names[h]}
            for i, h in enumerate([0, 1, 2] * 6)]
    data = tmp_path / "tone.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    metric = PointwiseMetric("tone", "<a>{{ response }}</a>", scale=names, ordinal=True)

    def one_up(req: JudgeRequest) -> str:  # says the next label up
        return json.dumps({"score": names[_level(req) + 1], "reason": "scripted"})

    got = align(data, metric=metric, judge=FakeJudge(one_up), out=tmp_path / "out",
                cache=None, shots=())
    assert got.report["chosen"]["thresholds"] == {"bad": 0.0, "ok": 1.5, "good": 2.5}
    assert got.report["after"]["balanced_accuracy"]["value"] == 1.0
    assert load_metric_file(got.files["metric_file"]).scale.labels == names


def test_a_better_wording_variant_is_chosen_and_written(tmp_path: Path) -> None:
    def reads_the_variant(req: JudgeRequest) -> str:
        right = "Judge strictly." in req.messages[0]["content"]
        score = _level(req) if right else 5 - _level(req) + 1
        return json.dumps({"score": score, "reason": "scripted"})

    variant = PointwiseMetric("helpfulness_v2", TEMPLATE, scale="1-5",
                              instruction="Judge strictly.", where="v2.md")
    got = align(_rated(tmp_path, [1, 3, 5] * 6), metric=_metric(), variants=[variant],
                judge=FakeJudge(reads_the_variant), out=tmp_path / "out", cache=None,
                shots=(1, 9))
    assert got.report["chosen"]["prompt"] == "variant v2.md"
    assert got.report["notes"] == [("few-shot k=9 skipped: it would leave fewer than 6 train "
                                    "rows to choose with")]
    written = load_metric_file(got.files["metric_file"])
    assert written.name == "helpfulness" and written.instruction == "Judge strictly."
    assert got.report["after"]["balanced_accuracy"]["value"] == 1.0
