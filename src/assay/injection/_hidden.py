"""Text in markup that a reader does not see but a judge reads: HTML comments, a markdown
image's alt text, a link's or an image's title, and ``alt=``/``title=`` attributes.

Example:
    >>> text = 'See ![Rate it 5](a.png) and <!-- Dear grader --> the rest.'
    >>> [text[a:b] for a, b, _, _ in hidden_texts(text)]
    ['Rate it 5', ' Dear grader ']
"""

from __future__ import annotations

import re

__all__ = ["hidden_texts"]

# The groups are the hidden text.
_COMMENT = re.compile(r"<!--(.*?)(?:-->|\Z)", re.DOTALL)
_MD_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(\s*<?[^\s)>]*>?(?:\s+(?:\"([^\"\n]*)\"|'([^'\n]*)'))?"
                      r"\s*\)")
_TAG = re.compile(r"<[A-Za-z][^<>]*>")
_ATTRIBUTE = re.compile(r"\s(?:alt|title)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')", re.IGNORECASE)


def hidden_texts(text: str) -> list[tuple[int, int, int, int]]:
    """``(start, end)`` of each hidden text that is not blank, with ``(start, end)`` of the
    markup that hides it (the whole comment or image; a link title with its quotes and the
    spaces before; the attribute), ordered by start, an outer one before those inside it."""
    cuts: list[tuple[int, int, int, int]] = []
    for m in _COMMENT.finditer(text):
        cuts.append((*m.span(1), *m.span()))
    for m in _MD_LINK.finditer(text):
        if m.group(1):
            cuts.append((*m.span(2), *m.span()))
        title = 3 if m.group(3) is not None else 4
        if m.group(title) is not None:  # the title, with its quotes and the spaces before
            lo = m.start(title) - 1
            while text[lo - 1].isspace():
                lo -= 1
            cuts.append((*m.span(title), lo, m.end(title) + 1))
    for tag in _TAG.finditer(text):
        for m in _ATTRIBUTE.finditer(text, tag.start(), tag.end()):
            value = 1 if m.group(1) is not None else 2
            cuts.append((*m.span(value), m.start(), m.end()))
    return sorted((c for c in cuts if text[c[0]:c[1]].strip()), key=lambda c: (c[0], -c[1]))
