"""Score bars inside your own tests: ``assert_scores`` fails with every bar that a run missed.

Example (in a pytest test file):

.. code-block:: python

    import assay
    from assay.testing import assert_scores

    def test_my_bot_answers_well():
        rows = [{"id": "q1", "answer": my_bot("Capital of France?"), "ground_truth": "Paris"}]
        result = assay.evaluate(rows, metrics="f1_score,exact_match")
        assert_scores(result, min={"f1_score": 0.8}, max={"exact_match_unscored_rate": 0.0})

Doctest:
    >>> import assay
    >>> result = assay.evaluate([{"answer": "Paris", "ground_truth": "Paris"}],
    ...                         metrics="f1_score,exact_match")
    >>> assert_scores(result, min={"f1_score": 0.8, "exact_match": 1.0})
    >>> assert_scores(result, min={"groundedness": 4.0}, max={"f1_score": 0.5})
    Traceback (most recent call last):
    ...
    AssertionError: 2 score bars failed:
      - groundedness: no such metric in this run, so the bar 4.0 cannot pass. Metrics: f1_score, exact_match; also <metric>_unscored_rate.
      - f1_score mean 1.0 is over the bar 0.5
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .gate import check_summary
from .records import load_run_dir

__all__ = ["assert_scores"]


def assert_scores(result: Any, *, min: Mapping[str, float] | None = None,
                  max: Mapping[str, float] | None = None) -> None:
    """Assert that a run meets its bars: ``min`` (each value at least its bar) and ``max``
    (each value at most its bar), with the names of ``assay run --fail-under / --fail-over``:
    a metric's mean, ``<category>_defect_rate``, ``<metric>_unscored_rate``.

    Args:
        result: an :class:`assay.EvalResult`, a summary dict (as in ``summary.json``), or the
            output directory of a run.
        min, max: ``{name: bar}``; at least one bar must be given.

    Raises:
        AssertionError: listing every failed bar (a metric the run lacks, or with nothing
            scored, fails too).
        ValueError: no bar given, or ``result`` is none of the accepted kinds.
    """
    if not min and not max:
        raise ValueError("Got no bars: assert_scores would check nothing. Fix: pass "
                         "min={'metric': bar} and/or max={'metric': bar}.")
    failures = check_summary(_summary(result), fail_under=min or {}, fail_over=max or {})
    if failures:
        n = len(failures)
        raise AssertionError(f"{n} score bar{'s' if n != 1 else ''} failed:\n"
                             + "\n".join(f"  - {f}" for f in failures))


def _summary(result: Any) -> Mapping[str, Any]:
    if isinstance(result, Mapping):
        return result
    if isinstance(result, (str, Path)):
        return load_run_dir(result).summary
    summary = getattr(result, "summary", None)
    if isinstance(summary, Mapping):
        return summary
    raise ValueError(f"Got result of type {type(result).__name__}. Must be an assay.EvalResult, "
                     "a summary dict, or a run output directory.")
