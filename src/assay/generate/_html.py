"""The text of an HTML page, with its headings, by the standard library's ``html.parser``.

Scripts, styles, the ``<head>`` and other non-text elements are dropped; block elements end a
paragraph (a blank line: ``p``, headings, lists, tables, quotes, ``pre``) or a line (``br``,
``li``, ``div``, table rows); other whitespace collapses to one space, except inside ``pre``;
entities are decoded. ``h1``-``h6`` become paragraphs of their own, recorded as
:class:`Heading` spans of the text, and ``<title>`` is kept as the page's title.

Example:
    >>> page = extract_html('''<html><head><title>Guide</title><style>p {}</style></head>
    ... <body><h1>Install</h1><p>Run  <b>pip</b>&nbsp;install.<br>Done &amp; dusted.</p>
    ... <h2>On <i>Linux</i></h2><ul><li>apt</li><li>dnf</li></ul></body></html>''')
    >>> print(page.text)
    Install
    <BLANKLINE>
    Run pip install.
    Done & dusted.
    <BLANKLINE>
    On Linux
    <BLANKLINE>
    apt
    dnf
    >>> page.title, [(h.level, h.title) for h in page.headings]
    ('Guide', [(1, 'Install'), (2, 'On Linux')])
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

from ._headings import Heading

__all__ = ["ExtractedPage", "extract_html"]

_SKIPPED = frozenset(("script", "style", "head", "title", "template", "noscript", "svg", "math",
                      "iframe", "object", "select", "button"))
_PARAGRAPH_TAGS = frozenset((
    "p", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "header", "footer", "nav",
    "aside", "main", "blockquote", "pre", "ul", "ol", "dl", "table", "figure", "form", "hr",
    "address", "details", "fieldset", "body", "html"))
_LINE_TAGS = frozenset(("br", "li", "div", "tr", "dt", "dd", "figcaption", "summary",
                        "caption", "legend", "option"))
_SPACE_TAGS = frozenset(("td", "th", "img", "input", "textarea"))
_NONE, _SPACE, _LINE, _PARAGRAPH = range(4)
_SEPARATORS = {_SPACE: " ", _LINE: "\n", _PARAGRAPH: "\n\n"}
_RUNS = re.compile(r"\s+|\S+")


@dataclass(frozen=True)
class ExtractedPage:
    """The text of an HTML page, its ``h1``-``h6`` headings (spans of ``text``) and its
    ``<title>`` (None when it has none)."""

    text: str
    headings: tuple[Heading, ...]
    title: str | None


def extract_html(markup: str) -> ExtractedPage:
    """The text, headings and title of the HTML ``markup`` (see the module's docstring)."""
    parser = _TextParser()
    parser.feed(markup)
    parser.close()
    title = " ".join("".join(parser.title_parts).split()) or None
    return ExtractedPage("".join(parser.parts).rstrip(), tuple(parser.headings), title)


def _level(tag: str) -> int:
    """A heading tag's level (``h2`` -> 2), else 0."""
    return int(tag[1]) if len(tag) == 2 and tag[0] == "h" and tag[1] in "123456" else 0


class _TextParser(HTMLParser):
    """Builds the text piece by piece, so that each heading's offsets are known exactly."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.length = 0
        self.pending = _NONE  # the strongest break asked for since the last text
        self.skipped: list[str] = []  # open elements whose text is dropped
        self.pre = 0
        self.in_title = False
        self.title_parts: list[str] = []
        self.heading: tuple[int, int | None] | None = None  # (level, start) of an open h1-h6
        self.headings: list[Heading] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self.in_title = True
        elif tag == "body" and "head" in self.skipped:
            self.skipped.clear()  # a <head> never closed
        if tag in _SKIPPED:
            self.skipped.append(tag)
            return
        self._break(tag)
        if tag == "pre":
            self.pre += 1
        elif _level(tag):
            self._end_heading()  # a heading opened inside another ends it, as browsers do
            self.heading = (_level(tag), None)

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        if tag in _SKIPPED:
            if tag in self.skipped:
                del self.skipped[len(self.skipped) - 1 - self.skipped[::-1].index(tag):]
            return
        if tag == "pre":
            self.pre = max(0, self.pre - 1)
        elif _level(tag):
            self._end_heading()
        self._break(tag)

    def close(self) -> None:
        super().close()
        self._end_heading()

    def _end_heading(self) -> None:
        """Record the open heading (if it has text)."""
        if self.heading is not None and self.heading[1] is not None:
            start = self.heading[1]
            words = "".join(self.parts)[start:self.length].rstrip()
            self.headings.append(Heading(start, start + len(words), self.heading[0],
                                         " ".join(words.split())))
        self.heading = None

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title_parts.append(data)
        if self.skipped:
            return
        if self.pre:
            if self.length == 0 or self.pending:
                data = data.lstrip()
            if data:
                self._emit(data)
            return
        for run in _RUNS.findall(data):
            if run[0].isspace():
                self.pending = max(self.pending, _SPACE)
            else:
                self._emit(run)

    def _break(self, tag: str) -> None:
        if tag in _PARAGRAPH_TAGS:
            self.pending = _PARAGRAPH
        elif tag in _LINE_TAGS:
            self.pending = max(self.pending, _LINE)
        elif tag in _SPACE_TAGS:
            self.pending = max(self.pending, _SPACE)

    def _emit(self, text: str) -> None:
        if self.length and self.pending:
            self._append(_SEPARATORS[self.pending])
        self.pending = _NONE
        if self.heading is not None and self.heading[1] is None:
            self.heading = (self.heading[0], self.length)
        self._append(text)

    def _append(self, text: str) -> None:
        self.parts.append(text)
        self.length += len(text)
