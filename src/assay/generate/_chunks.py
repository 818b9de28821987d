"""Cutting a document into chunks: the passages test questions are written from.

By structure first: a document is split into sections at its headings (Markdown ``#`` ..
``######`` and setext headings, HTML ``h1``-``h6``), and a section into chunks of whole
paragraphs (blank-line separated blocks) packed up to ``max_chars``. A paragraph that does not
fit is cut at a sentence end (Latin ``. ! ?`` before a space; CJK ``。！？；`` with no space
after them), else at a line break, a clause end, a space, between two CJK characters; never
inside a word of a space-separated language (unless one word is longer than a chunk: see
:mod:`._cuts`). A last chunk shorter than ``min_chars`` joins the one before it in its section
(or, when both would not fit in one, the two share the text at the best cut near their middle).
A section holding only a heading joins the next one, so a heading is never a chunk of its own.

Sizes are characters, not tokens: the default 1,200 characters keeps a chunk and a generation
prompt well inside the embedded judge's 4k-token context, also for Chinese and Japanese, where
a character is about one token (English runs about four characters a token). Every chunk is at
most ``max_chars`` long.

Chunks never overlap, cover all the document's non-whitespace text in order, and start and end
on non-whitespace: ``chunk.text == document.text[chunk.start:chunk.end]``.

Example:
    >>> from assay.generate._documents import Document
    >>> doc = Document(id="guide.md", lang="en", format="md", text=(
    ...     "# Install\\n\\n## Linux\\n\\nRun apt install tool. It takes a minute.\\n\\n"
    ...     "## Windows\\n\\nRun the installer."))
    >>> for chunk in chunk_document(doc, min_chars=10):
    ...     print(repr(chunk.heading), repr(chunk.text))
    'Install > Linux' '# Install\\n\\n## Linux\\n\\nRun apt install tool. It takes a minute.'
    'Install > Windows' '## Windows\\n\\nRun the installer.'
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ConfigError, option
from ._cuts import best_cut
from ._documents import Document
from ._headings import markdown_headings, section_paths

__all__ = ["MAX_CHARS", "MIN_CHARS", "Chunk", "chunk_document"]

#: The longest chunk, in characters (see the module's docstring for why 1,200).
MAX_CHARS = 1200
#: A chunk shorter than this joins its neighbour in the same section.
MIN_CHARS = 200


@dataclass(frozen=True)
class Chunk:
    """A passage of a document: ``text == document.text[start:end]``, under the section path
    ``heading`` (``"Install > Linux"``; None before the first heading or without headings),
    the ``index``-th chunk of the document ``doc`` (its id)."""

    doc: str
    start: int
    end: int
    text: str
    heading: str | None
    index: int


def chunk_document(document: Document, *, max_chars: int = MAX_CHARS,
                   min_chars: int = MIN_CHARS) -> list[Chunk]:
    """The chunks of ``document``, in order (see the module's docstring).

    A Markdown document's headings are read from its text when it has none recorded.

    Example:
        >>> doc = Document(id="zh.txt", lang="zh", format="txt",
        ...                text="今天天气很好。我们去公园散步吧！公园里有很多人。")
        >>> [c.text for c in chunk_document(doc, max_chars=16, min_chars=4)]
        ['今天天气很好。我们去公园散步吧！', '公园里有很多人。']

    Raises:
        ConfigError: ``max_chars`` is below 1, or ``min_chars`` below 0 or above half of
            ``max_chars``.
    """
    if not isinstance(max_chars, int) or max_chars < 1:
        raise ConfigError(f"Got {option('max_chars', max_chars)}. Must be a whole number of "
                          f"characters, at least 1 (e.g. {option('max_chars', MAX_CHARS)}).")
    if not isinstance(min_chars, int) or not 0 <= min_chars <= max_chars // 2:
        raise ConfigError(f"Got {option('min_chars', min_chars)}. Must be a whole number from "
                          f"0 to half of {option('max_chars', max_chars)}, i.e. at most "
                          f"{max_chars // 2}.")
    text = document.text
    chunks: list[Chunk] = []
    for start, end, heading in _sections(document):
        for a, b in _pieces(text, start, end, max_chars, min_chars):
            chunks.append(Chunk(document.id, a, b, text[a:b], heading, len(chunks)))
    return chunks


def _sections(document: Document) -> list[tuple[int, int, str | None]]:
    """``(start, end, section path)`` of each section with text, a section holding only its
    heading joined to the next one."""
    text = document.text
    headings = sorted(document.headings or (
        markdown_headings(text) if document.format == "md" else ()), key=lambda h: h.start)
    paths: list[str | None] = [None, *section_paths(headings)]
    bounds = [0, *(h.start for h in headings), len(text)]
    sections: list[tuple[int, int, str | None]] = []
    carried: int | None = None  # the start of headings still waiting for a section's text
    for i, path in enumerate(paths):
        start, end = _strip(text, bounds[i], bounds[i + 1])
        if start == end:
            continue
        if carried is not None:
            start, carried = carried, None
        heading_only = i > 0 and end <= headings[i - 1].end
        if heading_only and i < len(paths) - 1:
            carried = start
            continue
        sections.append((start, end, path))
    return sections


def _pieces(text: str, start: int, end: int, max_chars: int,
            min_chars: int) -> list[tuple[int, int]]:
    """The chunks of the section ``text[start:end]`` (stripped) as ``(start, end)``."""
    pieces: list[tuple[int, int]] = []
    while end - start > max_chars:
        cut = best_cut(text, start, end, start + min_chars, start + max_chars)
        pieces.append(_strip(text, start, cut))
        start = _strip(text, cut, end)[0]
    pieces.append((start, end))
    if len(pieces) > 1 and end - pieces[-1][0] < min_chars:
        first = pieces[-2][0]
        if end - first <= max_chars:
            pieces[-2:] = [(first, end)]
        else:
            low, high = max(first + min_chars, end - max_chars), min(first + max_chars,
                                                                     end - min_chars)
            if low <= high:
                cut = best_cut(text, first, end, low, high, middle=(first + end) // 2)
                pieces[-2:] = [_strip(text, first, cut), _strip(text, cut, end)]
    return pieces


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` moved past the whitespace at either end of ``text[start:end]``."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
