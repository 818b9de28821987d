"""Calibration statistics and report: every figure checked against a hand computation."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from scipy.stats import kendalltau, spearmanr

from assay.calibration import agreement_stats, comparison_table
from assay.calibration._report import confusion_png, write_calibration

# sklearn's zero-division and undefined-metric warnings must never escape.
pytestmark = pytest.mark.filterwarnings("error")

PAIRWISE = ["BASELINE", "CANDIDATE", "TIE"]
# The mission's example: rows = human label, columns = judge label.
MISSION = [[20, 31, 15], [10, 11, 3], [3, 2, 2]]


def _expand(matrix: list[list[int]], labels: list) -> tuple[list, list]:
    human, judge = [], []
    for h, row in zip(labels, matrix):
        for j, count in zip(labels, row):
            human += [h] * count
            judge += [j] * count
    return human, judge


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def _render(table) -> str:
    console = Console(record=True, width=200, file=io.StringIO())
    console.print(table)
    return console.export_text()


# 1. The mission's three-class pairwise matrix -------------------------------------------------

def test_mission_matrix_by_hand() -> None:
    human, judge = _expand(MISSION, PAIRWISE)
    s = agreement_stats(human, judge, labels=PAIRWISE, ordinal=False)
    assert s["confusion_matrix"] == MISSION
    assert s["n_rows"] == s["n_compared"] == 97
    assert s["unscored"] == 0 and s["no_human"] == 0 and s["unscored_share"] == 0.0
    assert s["labels"] == PAIRWISE

    # supports (row sums) 66, 24, 7; judge totals (column sums) 33, 44, 20; diagonal 20, 11, 2
    recall = {"BASELINE": 20 / 66, "CANDIDATE": 11 / 24, "TIE": 2 / 7}
    precision = {"BASELINE": 20 / 33, "CANDIDATE": 11 / 44, "TIE": 2 / 20}
    support = {"BASELINE": 66, "CANDIDATE": 24, "TIE": 7}
    f1 = {k: _f1(precision[k], recall[k]) for k in PAIRWISE}
    for k in PAIRWISE:
        got = s["per_class"][k]
        assert got["recall"] == pytest.approx(recall[k])
        assert got["precision"] == pytest.approx(precision[k])
        assert got["f1"] == pytest.approx(f1[k])
        assert got["support"] == support[k]
    assert f1["BASELINE"] == pytest.approx(40 / 99)  # 2TP / (2TP + FP + FN) = 40 / (40+13+46)

    balanced = (20 / 66 + 11 / 24 + 2 / 7) / 3
    assert balanced == pytest.approx(0.34903, abs=1e-5)
    assert s["balanced_accuracy"] == pytest.approx(balanced)

    weighted = (66 * f1["BASELINE"] + 24 * f1["CANDIDATE"] + 7 * f1["TIE"]) / 97
    assert weighted == pytest.approx(0.3657, abs=1e-4)
    assert s["class_weighted_f1"] == pytest.approx(weighted)

    p_o = (20 + 11 + 2) / 97
    p_e = (66 * 33 + 24 * 44 + 7 * 20) / 97**2  # = 3374 / 9409
    assert s["exact_agreement"] == pytest.approx(33 / 97)
    assert s["cohen_kappa"] == pytest.approx((p_o - p_e) / (1 - p_e))
    assert s["kappa_weights"] == "none"
    for absent in ("spearman", "kendall", "within_one", "tpr", "positive_label"):
        assert absent not in s
    assert json.loads(json.dumps(s, allow_nan=False)) == s


def test_order_of_rows_does_not_matter() -> None:
    human, judge = _expand(MISSION, PAIRWISE)
    s = agreement_stats(human[::-1], judge[::-1], labels=PAIRWISE, ordinal=False)
    assert s["confusion_matrix"] == MISSION


# 2. Two classes --------------------------------------------------------------------------------

def _binary() -> tuple[list[str], list[str]]:
    # TP=8 (Yes, Yes), FN=2 (Yes, No), TN=5 (No, No), FP=5 (No, Yes)
    human = ["Yes"] * 10 + ["No"] * 10
    judge = ["Yes"] * 8 + ["No"] * 2 + ["No"] * 5 + ["Yes"] * 5
    return human, judge


def test_two_classes_by_hand() -> None:
    human, judge = _binary()
    s = agreement_stats(human, judge, labels=["No", "Yes"], ordinal=False)
    assert s["confusion_matrix"] == [[5, 5], [2, 8]]
    assert s["positive_label"] == "Yes"
    assert s["tpr"] == pytest.approx(8 / 10) == 0.8
    assert s["tnr"] == pytest.approx(5 / 10) == 0.5
    assert s["fpr"] == pytest.approx(5 / 10)
    assert s["fnr"] == pytest.approx(2 / 10)
    assert s["balanced_accuracy"] == pytest.approx((0.8 + 0.5) / 2) == pytest.approx(0.65)
    f1_yes = 2 * 8 / (2 * 8 + 5 + 2)  # 16/23: precision 8/13, recall 8/10
    f1_no = 2 * 5 / (2 * 5 + 2 + 5)  # 10/17: precision 5/7, recall 5/10
    assert f1_yes == pytest.approx(_f1(8 / 13, 0.8))
    assert s["per_class"]["Yes"]["f1"] == pytest.approx(f1_yes)
    assert s["class_weighted_f1"] == pytest.approx((10 * f1_no + 10 * f1_yes) / 20)
    assert s["exact_agreement"] == pytest.approx(13 / 20)
    p_e = (10 * 7 + 10 * 13) / 20**2  # human 10/10, judge No 7 / Yes 13 -> 0.5
    assert s["cohen_kappa"] == pytest.approx((13 / 20 - p_e) / (1 - p_e)) == pytest.approx(0.3)


def test_two_classes_other_positive() -> None:
    human, judge = _binary()
    s = agreement_stats(human, judge, labels=["No", "Yes"], ordinal=False, positive="No")
    assert s["positive_label"] == "No"
    assert (s["tpr"], s["tnr"], s["fpr"], s["fnr"]) == pytest.approx((0.5, 0.8, 0.2, 0.5))
    with pytest.raises(ValueError, match="Maybe"):
        agreement_stats(human, judge, labels=["No", "Yes"], ordinal=False, positive="Maybe")
    with pytest.raises(ValueError, match="two labels"):
        agreement_stats([1], [1], labels=[1, 2, 3], ordinal=True, positive=3)


def test_rates_undefined_without_that_class() -> None:
    s = agreement_stats(["Yes", "Yes"], ["Yes", "No"], labels=["No", "Yes"], ordinal=False)
    assert s["tpr"] == 0.5 and s["fnr"] == 0.5
    assert s["tnr"] is None and s["fpr"] is None  # no human "No": undefined, not 0
    # the judge used "No" though no human did: balanced accuracy is over human classes only
    assert s["balanced_accuracy"] == 0.5
    assert s["per_class"]["No"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 0}


# 3. Ordinal 1-5 --------------------------------------------------------------------------------

HUMAN_5 = [1, 2, 3, 4, 5]
JUDGE_5 = [1, 3, 3, 5, 2]


def test_ordinal_by_hand() -> None:
    s = agreement_stats(HUMAN_5, JUDGE_5, labels=[1, 2, 3, 4, 5], ordinal=True)
    assert s["confusion_matrix"] == [[1, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 1, 0, 0],
                                     [0, 0, 0, 0, 1], [0, 1, 0, 0, 0]]
    assert s["kappa_weights"] == "quadratic"
    # quadratic kappa = 1 - sum w*O / sum w*E with w = (i - j)^2, E = row total x column total / n
    observed = 0 + 1 + 0 + 1 + 9  # squared differences row by row
    # E: each human value once; judge 1, 2, 5 once and 3 twice. sum_i (i - j)^2 over i = 1..5
    # is 30 for j = 1, 15 for j = 2, 10 for j = 3, 30 for j = 5.
    expected = (30 * 1 + 15 * 1 + 10 * 2 + 30 * 1) / 5  # = 19
    assert expected == sum((h - j) ** 2 for h in HUMAN_5 for j in JUDGE_5) / 5
    assert s["cohen_kappa"] == pytest.approx(1 - observed / expected) == pytest.approx(8 / 19)
    assert s["within_one"] == pytest.approx(4 / 5)  # |diff| = 0, 1, 0, 1, 3
    assert s["exact_agreement"] == pytest.approx(2 / 5)
    h_idx, j_idx = [0, 1, 2, 3, 4], [0, 2, 2, 4, 1]
    assert s["spearman"] == pytest.approx(spearmanr(h_idx, j_idx).statistic)
    assert s["kendall"] == pytest.approx(kendalltau(h_idx, j_idx).statistic)
    # balanced accuracy: recall 1, 0, 1, 0, 0 over the five human classes
    assert s["balanced_accuracy"] == pytest.approx(2 / 5)
    assert s["per_class"]["4"]["precision"] == 0.0  # the judge never said 4


def test_ordinal_figures_use_label_order_not_values() -> None:
    names = ["awful", "poor", "fair", "good", "great"]  # alphabetical order differs
    by_name = agreement_stats([names[h - 1] for h in HUMAN_5], [names[j - 1] for j in JUDGE_5],
                              labels=names, ordinal=True)
    by_value = agreement_stats([h * 10 for h in HUMAN_5], [j * 10 for j in JUDGE_5],
                               labels=[10, 20, 30, 40, 50], ordinal=True)
    for key in ("cohen_kappa", "spearman", "kendall", "within_one", "balanced_accuracy"):
        assert by_name[key] == pytest.approx(by_value[key]) == pytest.approx(
            agreement_stats(HUMAN_5, JUDGE_5, labels=[1, 2, 3, 4, 5], ordinal=True)[key])
    assert list(by_name["per_class"]) == names


def test_constant_sides_give_none_not_warnings() -> None:
    s = agreement_stats([3, 3, 3], [3, 3, 3], labels=[1, 2, 3, 4, 5], ordinal=True)
    assert s["exact_agreement"] == 1.0 and s["within_one"] == 1.0
    assert s["cohen_kappa"] is None  # p_e = 1: undefined
    assert s["spearman"] is None and s["kendall"] is None
    s = agreement_stats([1, 2, 3], [3, 3, 3], labels=[1, 2, 3], ordinal=True)
    assert s["spearman"] is None and s["within_one"] == pytest.approx(2 / 3)
    assert s["cohen_kappa"] == pytest.approx(0.0)  # the judge always says 3: chance level


# 4. Unscored and missing human rows ------------------------------------------------------------

def test_unscored_and_missing_human_rows_are_counted() -> None:
    human = [1, None, 2, 3, None, 5]
    judge = [1, 2, None, 3, None, 4]
    s = agreement_stats(human, judge, labels=[1, 2, 3, 4, 5], ordinal=True)
    assert s["n_rows"] == 6
    assert s["no_human"] == 2  # rows 1 and 4 (row 4 has no judge label either)
    assert s["unscored"] == 1  # row 2: a human label, no judge label
    assert s["n_compared"] == 3
    assert s["n_rows"] == s["n_compared"] + s["unscored"] + s["no_human"]
    assert s["unscored_share"] == pytest.approx(1 / 4)  # 1 of 4 rows with a human label
    assert sum(map(sum, s["confusion_matrix"])) == 3
    both = agreement_stats([1, 3, 5], [1, 3, 4], labels=[1, 2, 3, 4, 5], ordinal=True)
    for key in ("confusion_matrix", "cohen_kappa", "spearman", "exact_agreement", "per_class"):
        assert s[key] == both[key]
    assert s["exact_agreement"] == pytest.approx(2 / 3)


# 5. Errors and empty comparisons --------------------------------------------------------------

def test_unknown_label_is_named() -> None:
    with pytest.raises(ValueError, match=r"'MAYBE'.*'BASELINE', 'CANDIDATE', 'TIE'"):
        agreement_stats(["TIE", "BASELINE"], ["TIE", "MAYBE"], labels=PAIRWISE, ordinal=False)
    with pytest.raises(ValueError, match="human label 7"):
        agreement_stats([7], [1], labels=[1, 2, 3], ordinal=True)
    with pytest.raises(ValueError, match=r"\[1, 2, 3\]"):
        agreement_stats([None], [0], labels=[1, 2, 3], ordinal=True)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="3 human and 2 judge"):
        agreement_stats([1, 2, 3], [1, 2], labels=[1, 2, 3], ordinal=True)
    with pytest.raises(ValueError, match="distinct"):
        agreement_stats([1], [1], labels=[1, 1, 2], ordinal=True)
    with pytest.raises(ValueError, match="empty"):
        agreement_stats([], [], labels=[], ordinal=True)


@pytest.mark.parametrize(("human", "judge"), [([], []), ([1, 2], [None, None]),
                                              ([None, None], [1, 2])])
def test_nothing_compared_gives_none(human: list, judge: list) -> None:
    s = agreement_stats(human, judge, labels=[1, 2], ordinal=True)
    assert s["n_compared"] == 0 and s["n_rows"] == len(human)
    assert s["unscored"] == (2 if human == [1, 2] else 0)
    assert s["confusion_matrix"] == [[0, 0], [0, 0]]
    for key in ("balanced_accuracy", "class_weighted_f1", "exact_agreement", "cohen_kappa",
                "spearman", "kendall", "within_one", "tpr", "tnr", "fpr", "fnr"):
        assert s[key] is None, key
    assert s["per_class"]["1"] == {"precision": None, "recall": None, "f1": None, "support": 0}
    assert s["unscored_share"] == (1.0 if human == [1, 2] else None)
    json.dumps(s, allow_nan=False)


# 6. PNG and files ----------------------------------------------------------------------------

def test_confusion_png(tmp_path: Path) -> None:
    human, judge = _expand(MISSION, PAIRWISE)
    stats = agreement_stats(human, judge, labels=PAIRWISE, ordinal=False)
    path = confusion_png(stats, tmp_path / "sub" / "cm.png", title="pairwise vs humans")
    assert path == tmp_path / "sub" / "cm.png"
    assert path.read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="confusion_matrix"):
        confusion_png({"labels": ["a", "b"], "confusion_matrix": [[1]]}, tmp_path / "x.png",
                      title="bad")


def test_write_calibration_round_trip(tmp_path: Path) -> None:
    human, judge = _expand(MISSION, PAIRWISE)
    reports = {
        "local:qwen": agreement_stats(human, judge, labels=PAIRWISE, ordinal=False),
        "openai/gpt-4o mini": agreement_stats(human, human, labels=PAIRWISE, ordinal=False),
        "a:b": agreement_stats(["TIE"], ["TIE"], labels=PAIRWISE, ordinal=False),
        "a/b": agreement_stats(["TIE"], [None], labels=PAIRWISE, ordinal=False),
    }
    files = write_calibration(tmp_path / "out", reports, metric="pairwise")
    assert files["json"] == tmp_path / "out" / "calibration.json"
    saved = json.loads(files["json"].read_text())
    assert saved == {"metric": "pairwise", "reports": reports}
    assert saved["reports"]["local:qwen"]["balanced_accuracy"] == pytest.approx(0.34903, abs=1e-5)
    assert files["local:qwen"].name == "confusion-local_qwen.png"
    assert files["openai/gpt-4o mini"].name == "confusion-openai_gpt-4o_mini.png"
    assert files["a:b"].name == "confusion-a_b.png"
    assert files["a/b"].name == "confusion-a_b-2.png"  # no overwrite
    assert set(files) == {"json", *reports}
    for name in reports:
        assert files[name].parent == tmp_path / "out"
        assert files[name].read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="json"):
        write_calibration(tmp_path / "o2", {"json": reports["a:b"]}, metric="m")


def test_importing_never_imports_pyplot(tmp_path: Path) -> None:
    code = ("import sys, pathlib; import assay.calibration._report as c; "
            "c.confusion_png({'labels': [1, 2], 'confusion_matrix': [[1, 0], [0, 1]]}, "
            f"pathlib.Path({str(tmp_path / 'p.png')!r}), title='t'); "
            "print('matplotlib.pyplot' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


# 7. Side-by-side table ------------------------------------------------------------------------

def test_comparison_table_shows_every_report() -> None:
    human, judge = _binary()
    reports = {"local:qwen": agreement_stats(human, judge, labels=["No", "Yes"], ordinal=False),
               "openai:gpt-4o": agreement_stats(human, human, labels=["No", "Yes"],
                                                ordinal=False)}
    text = _render(comparison_table(reports, title="toxicity vs humans"))
    assert "toxicity vs humans" in text
    assert "local:qwen" in text and "openai:gpt-4o" in text
    lines = {line.split("│")[1].strip(): line for line in text.splitlines() if "│" in line}
    assert "0.650" in lines["balanced accuracy"] and "1.000" in lines["balanced accuracy"]
    assert "0.300 (none)" in lines["Cohen's kappa (weights)"]
    assert "0.800" in lines["TPR"] and "0.500" in lines["TNR"] and "0.200" in lines["FNR"]
    assert "0 (0.000)" in lines["unscored (count, share)"]
    assert "Spearman" not in text  # not an ordinal scale: no rank rows


def test_comparison_table_dashes_for_missing_figures() -> None:
    ordinal = agreement_stats(HUMAN_5, JUDGE_5, labels=[1, 2, 3, 4, 5], ordinal=True)
    empty = agreement_stats([1, 2], [None, None], labels=[1, 2, 3, 4, 5], ordinal=True)
    text = _render(comparison_table({"judge-a": ordinal, "judge-b": empty}, title="t"))
    lines = {line.split("│")[1].strip(): line for line in text.splitlines() if "│" in line}
    assert f"{8 / 19:.3f} (quadratic)" in lines["Cohen's kappa (weights)"]
    assert lines["Spearman"].rstrip(" │").endswith("-")
    assert "2 (1.000)" in lines["unscored (count, share)"]
    assert "0.800" in lines["within one"]
