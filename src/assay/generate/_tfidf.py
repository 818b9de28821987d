"""TF-IDF over chunks (scikit-learn), on character n-grams so that it works for every language,
Chinese and Japanese included: the nearest chunks to a chunk (``multi`` pairs) and to a
question (does any document answer an ``unanswerable`` one?).

The n-grams are hashed (no vocabulary is kept) and counted with numpy a batch of chunks at a
time (:mod:`._grams`) into a ``float32`` matrix, so a large document costs its n-grams' count
and no more; ``on_batch`` is told how many chunks are done (progress).

Example:
    >>> index = TfidfIndex(["Refunds are paid in 14 days.", "We ship to Spain and France.",
    ...                     "Refunds: paid within 14 days of the return."])
    >>> index.nearest(0, 1)
    [2]
    >>> index.search("When are refunds paid?", 1)
    [0]
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np

from ._grams import FEATURES, gram_counts

__all__ = ["BATCH", "TfidfIndex"]

#: Chunks counted at a time.
BATCH = 500


class TfidfIndex:
    """TF-IDF vectors of ``texts`` (character 2-4-grams inside word boundaries, hashed into
    :data:`~._grams.FEATURES` columns, sublinear tf)."""

    def __init__(self, texts: Sequence[str], *,
                 on_batch: Callable[[int], None] | None = None) -> None:
        #: The TF-IDF rows, a batch of texts each (never stacked into one matrix: that would
        #: hold every row twice for a moment).
        self.parts: list[Any] = []
        self._dense: Any = None
        df = np.zeros(FEATURES, dtype=np.int64)
        for start in range(0, len(texts), BATCH):
            counts = gram_counts(texts[start:start + BATCH])
            df += np.bincount(counts.indices, minlength=FEATURES)
            self.parts.append(counts)
            if on_batch is not None:
                on_batch(min(len(texts), start + BATCH))
        #: scikit-learn's smooth idf: ln((1 + n) / (1 + df)) + 1.
        self.idf = (np.log((1 + len(texts)) / (1 + df)) + 1).astype(np.float32)
        for part in self.parts:
            self._weigh(part)

    def _weigh(self, counts: Any) -> Any:
        """``counts`` made TF-IDF rows in place (sublinear tf, idf, unit length)."""
        from sklearn.preprocessing import normalize

        np.log(counts.data, out=counts.data)
        counts.data += 1
        counts.data *= self.idf[counts.indices]
        return normalize(counts, copy=False)

    def _ranked(self, scores: Any, k: int, skip: int | None = None,
                among: Collection[int] | None = None) -> list[int]:
        keep = np.ones(len(scores), dtype=bool)
        if among is not None:
            keep[:] = False
            keep[list(among)] = True
        if skip is not None:
            keep[skip] = False
        order = np.flatnonzero(keep)
        ranked = order[np.argsort(-scores[order], kind="stable")]  # ties by position
        return [int(i) for i in ranked[:k]]

    def _scores(self, vector: Any) -> Any:
        """Every text's cosine with the one-row TF-IDF ``vector``: the rows times the vector
        spread into a dense buffer (set and cleared at its columns only)."""
        if not self.parts:
            return np.zeros(0, dtype=np.float32)
        if self._dense is None:
            self._dense = np.zeros(FEATURES, dtype=np.float32)
        self._dense[vector.indices] = vector.data
        try:
            return np.concatenate([part @ self._dense for part in self.parts])
        finally:
            self._dense[vector.indices] = 0

    def nearest(self, i: int, k: int, among: Collection[int] | None = None) -> list[int]:
        """The ``k`` texts most like text ``i`` (not ``i`` itself; only those ``among`` when
        given), most alike first (ties by position)."""
        row = self.parts[i // BATCH][i % BATCH]
        return self._ranked(self._scores(row), k, skip=i, among=among)

    def search(self, query: str, k: int) -> list[int]:
        """The ``k`` texts most like ``query``, most alike first."""
        vector = self._weigh(gram_counts([query]))
        return self._ranked(self._scores(vector), k)

