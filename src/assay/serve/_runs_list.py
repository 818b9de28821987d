"""The runs list's preselected comparison: two runs of one dataset, so that "Compare A → B"
pairs rows at once (the two newest runs of different datasets share no row).

Example:
    >>> from types import SimpleNamespace as Run
    >>> runs = [Run(id="c", dataset="docs.jsonl", dataset_sha256="d1"),
    ...         Run(id="b", dataset="qa.jsonl", dataset_sha256="q1"),
    ...         Run(id="a", dataset="qa.jsonl", dataset_sha256="q1")]
    >>> preselected_pair(runs)
    ('a', 'b')
    >>> preselected_pair([Run(id="g", kind="generate", dataset=None, dataset_sha256=None),
    ...                   Run(id="y", kind="attack", dataset=None, dataset_sha256=None),
    ...                   Run(id="x", kind="attack", dataset=None, dataset_sha256=None)])
    ('x', 'y')
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath
from typing import Any, Protocol

__all__ = ["preselected_pair"]


class _Listed(Protocol):
    id: str
    dataset: Any
    dataset_sha256: Any


def _dataset_key(run: _Listed) -> str | None:
    """What says two runs scored one dataset the same way: its sha256 (else its file name),
    and the run's kind (a calibration pairs with a calibration, a run with a run)."""
    kind = getattr(run, "kind", "run")
    if kind == "attack" and not run.dataset:
        return kind  # attack runs pair with each other (their seeds are no dataset file)
    if run.dataset_sha256:
        return f"{kind}:sha256:{run.dataset_sha256}"
    return f"{kind}:name:{PurePath(str(run.dataset)).name}" if run.dataset else None


def preselected_pair(runs: Sequence[_Listed]) -> tuple[str | None, str | None]:
    """(baseline A, candidate B) to preselect in a list of runs, newest first: B the newest run
    whose dataset another listed run of its kind scored too, A the newest of those others; when no two
    runs share a dataset, the two newest (B the newest); ``None`` where there is no run.

    Example:
        >>> from types import SimpleNamespace as Run
        >>> preselected_pair([Run(id="y", dataset="a", dataset_sha256=None),
        ...                   Run(id="x", dataset="b", dataset_sha256=None)])
        ('x', 'y')
        >>> preselected_pair([]), preselected_pair([Run(id="x", dataset=None, dataset_sha256=None)])
        ((None, None), (None, 'x'))
    """
    keys = [_dataset_key(run) for run in runs]
    for i, key in enumerate(keys):
        if key is None:
            continue
        for j in range(i + 1, len(runs)):
            if keys[j] == key:
                return runs[j].id, runs[i].id
    if not runs:
        return None, None
    return (runs[1].id if len(runs) > 1 else None), runs[0].id
