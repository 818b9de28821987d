"""Near-duplicate questions, found incrementally: an index of the questions kept so far, each
new question compared with it alone (one matrix product a batch), never all pairs again.

English questions are compared by the cosine of their embeddings (when an embedder is given);
questions in other languages, and all of them without an embedder, by the Jaccard overlap of
their character n-grams (see :mod:`._checks`), as sparse 0/1 vectors: the overlap of two sets
is the dot product of their vectors. Questions of different languages are never compared.

A question is a near-duplicate of the kept question most like it (the earliest of equals) at
the threshold or more; else it is kept, and later questions are compared with it too. Adding
questions in plan order, batch after batch, decides exactly what one pass over them all would.

Example:
    >>> import asyncio
    >>> index = NearDuplicateIndex(None)
    >>> asyncio.run(index.add([("a", "es", "¿Cuánto tarda el reembolso?")]))
    {}
    >>> asyncio.run(index.add([("b", "es", "¿Cuánto tarda el reembolso?"),
    ...                        ("c", "es", "¿Dónde envían?"), ("d", "en", "¿Dónde envían?")]))
    {'b': Duplicate(of='a', similarity=1.0, method='ngrams')}
    >>> index.kept
    3
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import sparse

from ..calls import ManagedEmbedder
from ._checks import COSINE_THRESHOLD, NGRAM_THRESHOLD, grams

__all__ = ["Duplicate", "NearDuplicateIndex", "find_duplicates"]

#: Questions compared with the index in one matrix product (bounds the memory of a batch).
SLICE = 512


@dataclass(frozen=True)
class Duplicate:
    """A question found too like an earlier one: that one's id, how alike, and by what."""

    of: str
    similarity: float
    method: str


@dataclass
class _Group:
    """The kept questions of one language compared one way: their ids, and their vectors
    (n-gram columns, or unit-length embeddings) as rows."""

    method: str
    ids: list[str] = field(default_factory=list)
    rows: list[Any] = field(default_factory=list)


class NearDuplicateIndex:
    """The questions kept so far (see the module's docstring); ``embedder`` embeds English
    ones (``None``: n-grams for all)."""

    def __init__(self, embedder: ManagedEmbedder | None) -> None:
        self.embedder = embedder
        self._groups: dict[str, _Group] = {}
        self._columns: dict[str, int] = {}  # n-gram -> column

    @property
    def kept(self) -> int:
        """How many questions the index holds."""
        return sum(len(g.ids) for g in self._groups.values())

    async def add(self, questions: Sequence[tuple[str, str, str]]) -> dict[str, Duplicate]:
        """Decide ``(id, lang, question)`` in order (all after those added before): the
        near-duplicates by id; the others join the index.

        Raises:
            JudgeError: the embedder failed (nothing of this batch was added).
        """
        english = [q for _, lang, q in questions if self._embedded(lang)]
        vectors: dict[str, Any] = {}
        if english:
            assert self.embedder is not None
            unique = list(dict.fromkeys(english))
            found = np.asarray(await self.embedder.embed(unique), dtype=np.float64)
            norms = np.linalg.norm(found, axis=1, keepdims=True)
            found = np.divide(found, norms, out=np.zeros_like(found), where=norms > 0)
            vectors = dict(zip(unique, found, strict=True))
        by_lang: dict[str, list[tuple[str, str]]] = {}
        for row_id, lang, question in questions:
            by_lang.setdefault(lang, []).append((row_id, question))
        duplicates: dict[str, Duplicate] = {}
        for lang, batch in by_lang.items():
            method = "embeddings" if self._embedded(lang) else "ngrams"
            group = self._groups.setdefault(lang, _Group(method))
            for start in range(0, len(batch), SLICE):
                part = batch[start:start + SLICE]
                rows = ([vectors[q] for _, q in part] if method == "embeddings"
                        else [self._grams(q) for _, q in part])
                duplicates.update(self._decide(group, part, rows))
        return {i: duplicates[i] for i, _, _ in questions if i in duplicates}

    def _embedded(self, lang: str) -> bool:
        return self.embedder is not None and lang.split("-")[0] == "en"

    def _grams(self, question: str) -> Any:
        columns = [self._columns.setdefault(g, len(self._columns)) for g in grams(question)]
        return np.asarray(sorted(columns), dtype=np.int64)

    def _decide(self, group: _Group, part: list[tuple[str, str]],
                rows: list[Any]) -> dict[str, Duplicate]:
        """Compare ``part`` with the group and with each other, in order; add the kept."""
        earlier = len(group.ids)
        before = self._similarities(group, group.rows, rows)  # part x kept before
        within = self._similarities(group, rows, rows)  # part x part
        bar = COSINE_THRESHOLD if group.method == "embeddings" else NGRAM_THRESHOLD
        found: dict[str, Duplicate] = {}
        kept_here: list[int] = []
        for k, (row_id, _question) in enumerate(part):
            scores = np.concatenate([before[k], within[k, kept_here]])
            best = int(np.argmax(scores)) if scores.size else -1
            if best >= 0 and scores[best] >= bar:
                of = group.ids[best] if best < earlier else part[kept_here[best - earlier]][0]
                found[row_id] = Duplicate(of, round(float(scores[best]), 4), group.method)
            else:
                kept_here.append(k)
        for k in kept_here:
            group.ids.append(part[k][0])
            group.rows.append(rows[k])
        return found

    def _similarities(self, group: _Group, kept: list[Any], new: list[Any]) -> Any:
        """``len(new) x len(kept)`` similarities (cosine, or n-gram Jaccard)."""
        if not kept or not new:
            return np.zeros((len(new), len(kept)))
        if group.method == "embeddings":
            return np.vstack(new) @ np.vstack(kept).T
        a, b = self._matrix(new), self._matrix(kept)
        overlap = (a @ b.T).toarray()
        sizes_a = np.asarray([len(r) for r in new], dtype=np.float64)[:, None]
        sizes_b = np.asarray([len(r) for r in kept], dtype=np.float64)[None, :]
        union = sizes_a + sizes_b - overlap
        return np.divide(overlap, union, out=np.ones_like(overlap), where=union > 0)

    def _matrix(self, rows: list[Any]) -> Any:
        """Rows of n-gram columns as a sparse 0/1 matrix."""
        indptr = np.cumsum([0, *(len(r) for r in rows)])
        indices = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
        return sparse.csr_matrix((np.ones(len(indices)), indices, indptr),
                                 shape=(len(rows), max(1, len(self._columns))))


async def find_duplicates(questions: Sequence[tuple[str, str, str]],
                          embedder: ManagedEmbedder | None) -> dict[str, Duplicate]:
    """Of ``(id, lang, question)`` in plan order, those too like an earlier one of the same
    language that is not itself a duplicate (one pass of a new :class:`NearDuplicateIndex`).

    Example:
        >>> import asyncio
        >>> qs = [("a", "es", "¿Cuánto tarda el reembolso?"),
        ...       ("b", "es", "¿Cuánto tarda el reembolso?"), ("c", "es", "¿Dónde envían?")]
        >>> asyncio.run(find_duplicates(qs, None))
        {'b': Duplicate(of='a', similarity=1.0, method='ngrams')}
    """
    return await NearDuplicateIndex(embedder).add(questions)
