"""Headings: where a document's sections begin, and the section path a position sits under.

Markdown headings are found in the text (ATX ``#`` .. ``######`` and setext underlines
``===``/``---`` under a one-line paragraph, never inside fenced code, so a ``# comment`` in a
shell block is no heading); HTML's ``h1``-``h6`` are recorded while the text is extracted.

Example:
    >>> text = "# Install\\n\\n```sh\\n# not a heading\\n```\\n\\n## Linux\\napt install x\\n"
    >>> [(h.level, h.title, text[h.start:h.end]) for h in markdown_headings(text)]
    [(1, 'Install', '# Install'), (2, 'Linux', '## Linux')]
    >>> section_paths(markdown_headings(text))
    ['Install', 'Install > Linux']
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["PATH_SEPARATOR", "Heading", "markdown_headings", "section_paths"]

#: What joins the titles of a section path: ``Install > Linux``.
PATH_SEPARATOR = " > "

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))??(?:[ \t]+#+)?[ \t]*")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*")
_NOT_PARAGRAPH = re.compile(r" {4}|\t| {0,3}(?:[-*+>]|\d{1,9}[.)])(?:[ \t]|$)|[ \t]*$")


@dataclass(frozen=True)
class Heading:
    """A heading of a document: ``text[start:end]`` is its line(s) in the document's text
    (``## Linux``; for HTML the heading's extracted text), ``level`` 1-6 and ``title`` its
    words (``Linux``)."""

    start: int
    end: int
    level: int
    title: str


def markdown_headings(text: str) -> tuple[Heading, ...]:
    """The ATX and setext headings of the Markdown ``text``, in order.

    Example:
        >>> text = "Guide\\n=====\\n\\nUsage\\n---\\nrun it"
        >>> [(h.level, h.title) for h in markdown_headings(text)]
        [(1, 'Guide'), (2, 'Usage')]
        >>> markdown_headings("---\\ntitle: front matter\\n---\\n#hashtag, not a heading")
        ()
    """
    found: list[Heading] = []
    fence = ""
    offset = 0
    before: list[tuple[int, str]] = []  # the two lines before this one: (offset, line)
    for raw in text.splitlines(keepends=True):
        line = raw.rstrip("\r\n")
        opening = _FENCE.match(line)
        if fence:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(
                    fence) and not line[opening.end():].strip():
                fence = ""
        elif opening:
            fence = opening.group(1)
        elif (atx := _ATX.fullmatch(line)) and (atx.group(2) or "").strip():
            start = offset + len(line) - len(line.lstrip())
            found.append(Heading(start, offset + len(line.rstrip()), len(atx.group(1)),
                                 atx.group(2).strip()))
        elif _SETEXT.fullmatch(line) and _underlines(before, found):
            start, previous = before[-1]
            found.append(Heading(start + len(previous) - len(previous.lstrip()),
                                 offset + len(line.rstrip()), 1 if line.strip()[0] == "=" else 2,
                                 previous.strip()))
        before = [*before[-1:], (offset, line)]
        offset += len(raw)
    return tuple(found)


def _underlines(before: list[tuple[int, str]], found: list[Heading]) -> bool:
    """Whether a ``===``/``---`` line underlines the line before it: a one-line paragraph (not
    a list item, quote, code or heading) after a blank line or the start of the text."""
    if not before or _NOT_PARAGRAPH.match(before[-1][1]) or _FENCE.match(before[-1][1]):
        return False
    if found and found[-1].end > before[-1][0]:
        return False  # the line before is itself a heading
    return len(before) == 1 or not before[0][1].strip()


def section_paths(headings: Sequence[Heading]) -> list[str]:
    """Each heading's section path: the titles of the headings it sits under, then its own.

    Example:
        >>> hs = [Heading(0, 1, 1, "A"), Heading(2, 3, 2, "B"), Heading(4, 5, 3, "C"),
        ...       Heading(6, 7, 2, "D"), Heading(8, 9, 1, "E")]
        >>> section_paths(hs)
        ['A', 'A > B', 'A > B > C', 'A > D', 'E']
    """
    stack: list[Heading] = []
    paths = []
    for heading in headings:
        while stack and stack[-1].level >= heading.level:
            stack.pop()
        stack.append(heading)
        paths.append(PATH_SEPARATOR.join(h.title for h in stack))
    return paths
