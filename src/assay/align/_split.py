"""Train / held-out split of rated rows: stratified by human label, seeded, disjoint.

Example:
    >>> train, heldout = stratified_split([1, 1, 1, 5, 5, 5, 5, 3, 3, 3], heldout=0.3, seed=0)
    >>> len(train), len(heldout), sorted(set(train) | set(heldout)) == list(range(10))
    (6, 4, True)
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Sequence

from ..errors import ConfigError, DataError, option

__all__ = ["MIN_ROWS", "stratified_split"]

#: Fewest rated rows ``assay align`` works with: fewer leave nothing to learn from or measure.
MIN_ROWS = 10


def stratified_split(labels: Sequence[Hashable], *, heldout: float = 0.3, seed: int = 0
                     ) -> tuple[list[int], list[int]]:
    """Row indices ``(train, heldout)``: for each label, ``ceil(heldout * count)`` of its rows
    (drawn with ``seed``) go to held-out, keeping at least one in train; a label with a single
    row stays in train. So the held-out share is at least ``heldout`` of the labels that can
    give one, and both lists are sorted and disjoint.

    Raises:
        DataError: fewer than :data:`MIN_ROWS` rows.
        ConfigError: ``heldout`` outside 0.3-0.8.
    """
    if not 0.3 <= heldout <= 0.8:
        raise ConfigError(f"Got {option('heldout', heldout)}. The held-out share must lie "
                          "within 0.3-0.8 (at least 30% of the rows measure the result).")
    if len(labels) < MIN_ROWS:
        raise DataError([(f"Only {len(labels)} rows have a human rating; aligning needs at "
                          f"least {MIN_ROWS} (to learn on some and measure on the others). "
                          "Fix: rate more rows.")])
    rng = random.Random(seed)
    by_label: dict[Hashable, list[int]] = {}
    for i, label in enumerate(labels):
        by_label.setdefault(label, []).append(i)
    train: list[int] = []
    held: list[int] = []
    for label in sorted(by_label, key=str):
        rows = by_label[label][:]
        rng.shuffle(rows)
        n_held = min(math.ceil(heldout * len(rows)), len(rows) - 1)
        held += rows[:n_held]
        train += rows[n_held:]
    return sorted(train), sorted(held)
