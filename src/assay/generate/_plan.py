"""The seeded plan of candidates: which kind of question each candidate is and which passages
of which documents it is written from.

Candidate ``i`` is a pure function of the documents, the kinds, the seed and ``i``: its kind is
``kinds[i % len(kinds)]`` and it takes the next source of that kind's seeded sequence. So a
plan can always be extended (a later round asks candidates ``M, M+1, ...``) and a resumed run
plans exactly what the first one did.

Each kind's sources, spread over the documents (each document's chunks in a seeded order,
the documents taken in turn):

- ``single``, ``unanswerable``, ``conversation``: one chunk;
- ``multi``: a chunk and the other chunk most like it by TF-IDF, of the same document or
  another one in the same language (chunks alone in their language are left out when others
  are not);
- ``abstract``: a section's consecutive chunks (at most :data:`SECTION_CHUNKS` of them and
  :data:`SECTION_CHARS` characters), chunks sharing their top heading.

When a kind's sources run out, the sequence starts again on narrower passages (a chunk cut
into 2, then 3, ... parts at sentence ends), so that a repeat asks about another part.

Example:
    >>> from assay.generate._documents import Document
    >>> docs = [Document(id="a.txt", lang="en", format="txt",
    ...                  text="Refunds take 14 days. " * 40 + "\\n\\n" + "We ship to Spain. " * 40)]
    >>> plan = Plan(docs, ["single", "multi"], seed=1)
    >>> [(c.id, c.kind, len(c.passages)) for c in plan.candidates(0, 3)]
    [('single-0001', 'single', 1), ('multi-0002', 'multi', 2), ('single-0003', 'single', 1)]
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

from ..errors import ConfigError, option
from ..records import RowProgress
from ._chunks import Chunk, chunk_document
from ._documents import UNDETERMINED, Document
from ._headings import PATH_SEPARATOR
from ._tfidf import TfidfIndex

__all__ = ["KINDS", "LARGE", "SECTION_CHARS", "SECTION_CHUNKS", "Candidate", "Passage", "Plan",
           "check_kinds", "indexed_plan"]

#: The kinds of test rows, in the order a plan takes them.
KINDS = ("single", "multi", "abstract", "unanswerable", "conversation")
#: An ``abstract`` candidate reads at most this many consecutive chunks ...
SECTION_CHUNKS = 3
#: ... and at most this many characters of them.
SECTION_CHARS = 2400
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？；])")


@dataclass(frozen=True)
class Passage:
    """A span of a document's text a question is written from: ``text ==
    document.text[start:end]``."""

    doc: str
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Candidate:
    """One planned test row: its ``index`` in the plan, ``id``, ``kind``, the passages it is
    written from, the language to write it in, (conversations) its user ``turns`` and its
    ``ordinal`` among the candidates of its kind."""

    index: int
    id: str
    kind: str
    passages: tuple[Passage, ...]
    lang: str
    turns: int = 1
    ordinal: int = 0


def check_kinds(kinds: str | Sequence[str] | None) -> list[str]:
    """The kinds asked for (all by default), each once, in :data:`KINDS` order.

    Example:
        >>> check_kinds("multi, single")
        ['single', 'multi']
        >>> check_kinds(["single", "essay"])
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: Got kinds='essay'. Must be one or more of single, multi, abstract, unanswerable, conversation (comma-separated).
    """
    if kinds is None:
        return list(KINDS)
    names = [k.strip() for k in (kinds.split(",") if isinstance(kinds, str) else kinds)]
    names = [k for k in names if k]
    unknown = [k for k in names if k not in KINDS]
    if unknown or not names:
        raise ConfigError(f"Got {option('kinds', ','.join(unknown) or '')}. Must be one or more "
                          f"of {', '.join(KINDS)} (comma-separated).")
    return [k for k in KINDS if k in names]


class Plan:
    """The candidates for ``documents`` (see the module's docstring); ``lang`` overrides each
    document's language when not ``None``; ``on_index`` is told the chunks indexed so far."""

    def __init__(self, documents: Sequence[Document], kinds: Sequence[str], *, seed: int,
                 lang: str | None = None, max_chars: int | None = None,
                 on_index: Callable[[int], None] | None = None) -> None:
        #: Told how many chunks the TF-IDF index holds so far, as it is built (progress).
        self.on_index = on_index
        self.documents = {d.id: d for d in documents}
        self.kinds = list(kinds)
        self.seed = seed
        self.lang = lang
        chunked = [(chunk_document(d, max_chars=max_chars) if max_chars else chunk_document(d))
                   for d in documents]
        self.chunks_by_doc = [c for c in chunked if c]
        self.chunks = [c for doc_chunks in self.chunks_by_doc for c in doc_chunks]
        #: Kinds the documents cannot give (``multi`` from a single chunk), with the reason.
        self.impossible = ({"multi": "the documents have a single chunk"}
                           if "multi" in self.kinds and len(self.chunks) < 2 else {})
        self.kinds = [k for k in self.kinds if k not in self.impossible]

    @cached_property
    def index(self) -> TfidfIndex:
        """TF-IDF over every chunk (pairs for ``multi``, retrieval for ``unanswerable``)."""
        return TfidfIndex([c.text for c in self.chunks], on_batch=self.on_index)

    def candidates(self, start: int, stop: int) -> list[Candidate]:
        """Candidates ``start`` .. ``stop - 1``."""
        return [self.candidate(i) for i in range(start, stop)] if self.kinds else []

    def candidate(self, i: int) -> Candidate:
        """Candidate ``i``."""
        kind = self.kinds[i % len(self.kinds)]
        j = i // len(self.kinds)
        sources = self._sources(kind)
        lap, source = divmod(j, len(sources))
        passages = self._passages(kind, sources[source], lap)
        doc = self.documents[passages[0].doc]
        lang = self.lang or (doc.lang if doc.lang != UNDETERMINED else UNDETERMINED)
        turns = random.Random(f"{self.seed}:turns:{i}").choice((2, 3)) if (
            kind == "conversation") else 1
        return Candidate(i, f"{kind}-{i + 1:04d}", kind, passages, lang, turns, j)

    def _sources(self, kind: str) -> list[tuple[Chunk, ...]]:
        """A kind's sources (made once: a candidate is planned in constant time)."""
        if kind == "abstract":
            return self._sections
        cached = self.__dict__.setdefault("_sources_cache", {})
        if kind not in cached:
            spread = self._spread(kind)
            if kind == "multi":  # chunks with another chunk in their language, if there are
                langs = Counter(self.documents[c.doc].lang for c in self.chunks)
                paired = [c for c in spread if langs[self.documents[c.doc].lang] > 1]
                spread = paired or spread
            cached[kind] = [(c,) for c in spread]
        sources: list[tuple[Chunk, ...]] = cached[kind]
        return sources

    @cached_property
    def _positions(self) -> dict[tuple[str, int], int]:
        """Each chunk's position in :attr:`chunks`, by document and index."""
        return {(c.doc, c.index): k for k, c in enumerate(self.chunks)}

    @cached_property
    def _by_lang(self) -> dict[str, list[int]]:
        """The positions of the chunks of each language."""
        found: dict[str, list[int]] = {}
        for k, c in enumerate(self.chunks):
            found.setdefault(self.documents[c.doc].lang, []).append(k)
        return found

    def _spread(self, kind: str) -> list[Chunk]:
        """Every chunk once: each document's chunks in a seeded order, documents in turn."""
        cached = self.__dict__.setdefault("_spread_cache", {})
        if kind not in cached:
            rng = random.Random(f"{self.seed}:{kind}")
            orders = [rng.sample(chunks, len(chunks)) for chunks in self.chunks_by_doc]
            rng.shuffle(orders)
            longest = max(len(o) for o in orders)
            cached[kind] = [o[k] for k in range(longest) for o in orders if k < len(o)]
        spread: list[Chunk] = cached[kind]
        return spread

    @cached_property
    def _sections(self) -> list[tuple[Chunk, ...]]:
        """Runs of consecutive chunks under one top heading, spread like chunks."""
        rng = random.Random(f"{self.seed}:abstract")
        per_doc = []
        for chunks in self.chunks_by_doc:
            runs: list[list[Chunk]] = []
            for chunk in chunks:
                top = (chunk.heading or "").split(PATH_SEPARATOR)[0]
                last = runs[-1] if runs else None
                if (last is not None and (last[-1].heading or "").split(PATH_SEPARATOR)[0] == top
                        and len(last) < SECTION_CHUNKS
                        and sum(len(c.text) for c in last) + len(chunk.text) <= SECTION_CHARS):
                    last.append(chunk)
                else:
                    runs.append([chunk])
            per_doc.append(rng.sample(runs, len(runs)))
        rng.shuffle(per_doc)
        longest = max(len(o) for o in per_doc)
        return [tuple(o[k]) for k in range(longest) for o in per_doc if k < len(o)]

    def _passages(self, kind: str, chunks: tuple[Chunk, ...], lap: int) -> tuple[Passage, ...]:
        if kind == "multi":
            first = self._positions[(chunks[0].doc, chunks[0].index)]
            same = self._by_lang[self.documents[chunks[0].doc].lang]  # ``first`` is skipped
            others = self.index.nearest(first, lap + 1, among=same if len(same) > 1 else None)
            partner = self.chunks[others[-1]] if others else chunks[0]
            return (_passage(chunks[0]), _passage(partner))
        if kind == "abstract" or lap == 0:
            return tuple(_passage(c) for c in chunks)
        return (_part(chunks[0], parts=lap + 1, which=lap % (lap + 1)),)


def _passage(chunk: Chunk) -> Passage:
    return Passage(chunk.doc, chunk.start, chunk.end, chunk.text)


def _part(chunk: Chunk, *, parts: int, which: int) -> Passage:
    """Part ``which`` of ``chunk`` cut into ``parts`` runs of whole sentences (fewer when it has
    fewer sentences).

    Example:
        >>> c = Chunk("d", 10, 26, "One. Two. Three.", None, 0)
        >>> _part(c, parts=2, which=1)
        Passage(doc='d', start=20, end=26, text='Three.')
    """
    cuts = [m.end() for m in _SENTENCE_END.finditer(chunk.text)]
    starts = [0, *(c for c in cuts if c < len(chunk.text))]
    if len(starts) < 2:
        return _passage(chunk)
    per = max(1, round(len(starts) / parts))
    groups = [starts[k:k + per] for k in range(0, len(starts), per)]
    group = groups[which % len(groups)]
    following = starts[starts.index(group[-1]) + 1] if group[-1] != starts[-1] else len(chunk.text)
    a, b = group[0], following
    text = chunk.text[a:b].rstrip()
    return Passage(chunk.doc, chunk.start + a, chunk.start + a + len(text), text)


#: Documents of this many characters in all (or more) have their chunking and indexing said
#: as they happen (a few seconds each).
LARGE = 2_000_000


def indexed_plan(documents: Sequence[Document], kinds: list[str], seed: int, *, progress: bool,
                 say: Callable[[str], None]) -> Plan:
    """The plan, with its TF-IDF index built now (when a kind needs it) and, for large
    documents, each phase said and the indexing shown as it goes."""
    chars = sum(len(d.text) for d in documents)
    large = chars >= LARGE
    if large:
        what = f"{len(documents)} documents" if len(documents) != 1 else "the document"
        say(f"cutting {what} ({chars:,} characters) into chunks")
    plan = Plan(documents, kinds, seed=seed)
    if not {"multi", "unanswerable"} & set(plan.kinds):
        return plan
    if large:
        say(f"indexing {len(plan.chunks):,} chunks (TF-IDF, for multi and unanswerable)")
    with RowProgress(len(plan.chunks), enabled=progress and large,
                     description="indexing chunks") as bar:
        done = [0]

        def advance(total: int) -> None:
            bar.advance(total - done[0])
            done[0] = total

        plan.on_index = advance
        _ = plan.index
    return plan
