"""TF-IDF over chunks (scikit-learn), on character n-grams so that it works for every language,
Chinese and Japanese included: the nearest chunks to a chunk (``multi`` pairs) and to a
question (does any document answer an ``unanswerable`` one?).

Example:
    >>> index = TfidfIndex(["Refunds are paid in 14 days.", "We ship to Spain and France.",
    ...                     "Refunds: paid within 14 days of the return."])
    >>> index.nearest(0, 1)
    [2]
    >>> index.search("When are refunds paid?", 1)
    [0]
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

__all__ = ["TfidfIndex"]


class TfidfIndex:
    """TF-IDF vectors of ``texts`` (character 2-4-grams inside word boundaries, sublinear tf)."""

    def __init__(self, texts: Sequence[str]) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        self.vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4),
                                          sublinear_tf=True, lowercase=True)
        self.matrix: Any = self.vectorizer.fit_transform(list(texts))

    def _ranked(self, scores: Any, k: int, skip: int | None = None,
                among: Collection[int] | None = None) -> list[int]:
        order = sorted(range(len(scores)), key=lambda i: (-float(scores[i]), i))
        return [i for i in order if i != skip and (among is None or i in among)][:k]

    def nearest(self, i: int, k: int, among: Collection[int] | None = None) -> list[int]:
        """The ``k`` texts most like text ``i`` (not ``i`` itself; only those ``among`` when
        given), most alike first (ties by position)."""
        scores = (self.matrix @ self.matrix[i].T).toarray().ravel()
        return self._ranked(scores, k, skip=i, among=among)

    def search(self, query: str, k: int) -> list[int]:
        """The ``k`` texts most like ``query``, most alike first."""
        scores = (self.matrix @ self.vectorizer.transform([query]).T).toarray().ravel()
        return self._ranked(scores, k)
