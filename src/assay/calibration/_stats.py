"""Agreement figures between human labels and a judge's labels (sklearn / scipy underneath).

Rows fall in exactly one of three groups, so none is dropped silently: ``no_human`` (no human
label), ``unscored`` (a human label but no judge label) and ``n_compared`` (both). Every figure
is computed over the compared rows; ``n_rows`` is the sum of the three.

Example:
    >>> s = agreement_stats(["No", "Yes", "Yes", None], ["No", "Yes", None, "No"],
    ...                     labels=["No", "Yes"], ordinal=False)
    >>> s["n_rows"], s["n_compared"], s["unscored"], s["no_human"]
    (4, 2, 1, 1)
    >>> s["confusion_matrix"], s["exact_agreement"], s["tpr"], s["positive_label"]
    ([[1, 0], [0, 1]], 1.0, 1.0, 'Yes')
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

__all__ = ["agreement_stats", "jsonable"]


def jsonable(value: Any) -> Any:
    """``value`` with numpy scalars and arrays made plain, tuples made lists, NaN made ``None``.

    Example:
        >>> jsonable({"a": np.float64("nan"), "b": (np.int64(2), 0.5)})
        {'a': None, 'b': [2, 0.5]}
    """
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _index_of(labels: Sequence[Hashable]) -> dict[Hashable, int]:
    if len(labels) == 0:
        raise ValueError("labels is empty; give the ordered list of classes, e.g. [1, 2, 3, 4, 5].")
    index: dict[Hashable, int] = {}
    for i, label in enumerate(labels):
        if label is None:
            raise ValueError(f"labels must not contain None (None means 'no label'); got "
                             f"{list(labels)!r}.")
        try:
            if label in index:
                raise ValueError(f"labels must be distinct; {label!r} appears twice in "
                                 f"{list(labels)!r}.")
        except TypeError:
            raise ValueError(f"labels must be hashable; got {label!r}.") from None
        index[label] = i
    return index


def _lookup(index: dict[Hashable, int], value: Hashable, who: str, labels: Sequence[Hashable],
            row: int | None = None) -> int:
    try:
        return index[value]
    except (KeyError, TypeError):
        where = "" if row is None else f" (row {row})"
        raise ValueError(f"{who} label {value!r}{where} is not one of the allowed labels "
                         f"{list(labels)!r}.") from None


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def _rank_figures(h: np.ndarray, j: np.ndarray) -> dict[str, float | None]:
    """Spearman and Kendall on label indices; ``None`` where one side is constant (undefined)."""
    from scipy.stats import kendalltau, spearmanr

    if len(set(h.tolist())) < 2 or len(set(j.tolist())) < 2:
        return {"spearman": None, "kendall": None}
    return {"spearman": float(spearmanr(h, j).statistic),
            "kendall": float(kendalltau(h, j).statistic)}


def agreement_stats(human: Sequence[Hashable | None], judge: Sequence[Hashable | None], *,
                    labels: Sequence[Hashable], ordinal: bool,
                    positive: Hashable | None = None) -> dict[str, Any]:
    """Agreement of ``judge`` with ``human`` (the reference), row by row.

    Args:
        human: The human label of each row, ``None`` where the row has no human label.
        judge: The judge's label of each row, ``None`` where the judge left it unscored.
        labels: The classes, in order (index order is the scale order when ``ordinal``).
        ordinal: Whether the labels are ordered; adds quadratic-weighted kappa, Spearman,
            Kendall and within-one agreement (all on label indices).
        positive: With exactly two labels, the positive class for TPR/TNR/FPR/FNR
            (default: ``labels[-1]``).

    Returns:
        A JSON-serialisable dict: counts (``n_rows``, ``n_compared``, ``unscored``,
        ``unscored_share`` = unscored / rows with a human label, ``no_human``), ``labels``,
        ``confusion_matrix`` (rows: human, columns: judge, in ``labels`` order),
        ``balanced_accuracy`` (mean recall over classes present in the human labels),
        ``class_weighted_f1`` (support-weighted F1), ``per_class``, ``exact_agreement``,
        ``cohen_kappa`` and ``kappa_weights``; when ``ordinal`` also ``spearman``, ``kendall``
        and ``within_one``; with two labels also ``positive_label``, ``tpr``, ``tnr``, ``fpr``
        and ``fnr``. Precision/recall/F1 of a class with no predictions (or no support) count
        as 0; figures that are undefined (no compared rows, a constant side for a rank
        correlation, kappa when both sides use one and the same class) are ``None``.

    Raises:
        ValueError: lengths differ, a label is not in ``labels``, ``labels`` is empty or has
            duplicates, or ``positive`` is not one of two labels.

    Example:
        >>> s = agreement_stats([1, 2, 3, 3], [1, 3, 3, 2], labels=[1, 2, 3], ordinal=True)
        >>> s["exact_agreement"], s["within_one"], s["kappa_weights"]
        (0.5, 1.0, 'quadratic')
    """
    from sklearn.metrics import (
        accuracy_score,
        cohen_kappa_score,
        confusion_matrix,
        precision_recall_fscore_support,
        recall_score,
    )

    if len(human) != len(judge):
        raise ValueError(f"human and judge must have one label per row; got {len(human)} human "
                         f"and {len(judge)} judge labels.")
    index = _index_of(labels)
    k = len(labels)
    if positive is not None:
        if k != 2:
            raise ValueError(f"positive applies to two labels only; labels are {list(labels)!r}.")
        _lookup(index, positive, "positive", labels)

    h_idx: list[int] = []
    j_idx: list[int] = []
    no_human = unscored = 0
    for row, (h, j) in enumerate(zip(human, judge)):
        hi = None if h is None else _lookup(index, h, "human", labels, row)
        ji = None if j is None else _lookup(index, j, "judge", labels, row)
        if hi is None:
            no_human += 1
        elif ji is None:
            unscored += 1
        else:
            h_idx.append(hi)
            j_idx.append(ji)

    n = len(h_idx)
    with_human = n + unscored
    out: dict[str, Any] = {
        "n_rows": len(human),
        "n_compared": n,
        "unscored": unscored,
        "unscored_share": _ratio(unscored, with_human),
        "no_human": no_human,
        "labels": list(labels),
    }
    codes = list(range(k))
    h_arr, j_arr = np.asarray(h_idx, dtype=int), np.asarray(j_idx, dtype=int)
    matrix = (confusion_matrix(h_arr, j_arr, labels=codes) if n else
              np.zeros((k, k), dtype=int))
    out["confusion_matrix"] = matrix
    figures: dict[str, Any] = {
        "balanced_accuracy": None, "class_weighted_f1": None,
        "per_class": {str(label): {"precision": None, "recall": None, "f1": None, "support": 0}
                      for label in labels},
        "exact_agreement": None, "cohen_kappa": None,
        "kappa_weights": "quadratic" if ordinal else "none"}
    if ordinal:
        figures.update(dict.fromkeys(["spearman", "kendall", "within_one"]))
    if n:
        precision, recall, f1, support = precision_recall_fscore_support(
            h_arr, j_arr, labels=codes, average=None, zero_division=0)
        present = sorted(set(h_idx))
        figures["per_class"] = {
            str(label): {"precision": precision[i], "recall": recall[i], "f1": f1[i],
                         "support": support[i]} for i, label in enumerate(labels)}
        # balanced accuracy == macro recall over the classes present in the human labels
        # (sklearn's balanced_accuracy_score warns when the judge uses a class humans did not).
        figures["balanced_accuracy"] = recall_score(h_arr, j_arr, labels=present,
                                                    average="macro", zero_division=0)
        figures["class_weighted_f1"] = precision_recall_fscore_support(
            h_arr, j_arr, labels=codes, average="weighted", zero_division=0)[2]
        figures["exact_agreement"] = accuracy_score(h_arr, j_arr)
        judge_used = sorted(set(j_idx))
        if not (len(present) == 1 and present == judge_used):  # else p_e = 1: undefined
            figures["cohen_kappa"] = cohen_kappa_score(
                h_arr, j_arr, labels=codes, weights="quadratic" if ordinal else None)
        if ordinal:
            figures.update(_rank_figures(h_arr, j_arr))
            figures["within_one"] = float(np.mean(np.abs(h_arr - j_arr) <= 1))
    out.update(figures)
    if k == 2:
        pos = index[positive] if positive is not None else 1
        neg = 1 - pos
        tp, fn = matrix[pos, pos], matrix[pos, neg]
        tn, fp = matrix[neg, neg], matrix[neg, pos]
        out["positive_label"] = labels[pos]
        out["tpr"] = _ratio(tp, tp + fn)
        out["tnr"] = _ratio(tn, tn + fp)
        out["fpr"] = _ratio(fp, fp + tn)
        out["fnr"] = _ratio(fn, fn + tp)
    return jsonable(out)
