"""The characters NFKC changes, and the combining marks, as regular-expression classes.

:func:`._normalise.normalise` finds what to fold with one expression built from two classes:
the characters NFKC changes (but full-width punctuation, :data:`WIDE`, and ``‥ …``,
:data:`KEEP`) and the characters whose decomposition begins with a combining mark. Computing
them walks every code point below U+30000 through ``unicodedata`` (0.1-0.3 s, on the first
scan of a run whose text needs folding), so the classes of the Unicode versions of the
supported Pythons ship beside it (:data:`SHIPPED`, by ``unicodedata.unidata_version``);
another version computes them once per process. tests/test_injection_normalise.py checks the
shipped entry of the running Python against the computation. To add the entry of a new
Python, run this file with it (it needs only the standard library; it writes its entry)::

    python3.14 src/assay/injection/_nfkc_classes.py

Example:
    >>> changed, combining = nfkc_classes()
    >>> import re
    >>> bool(re.fullmatch(f"[{changed}]", "ｉ")), bool(re.fullmatch(f"[{changed}]", "i"))
    (True, False)
    >>> bool(re.fullmatch(f"[{combining}]", "\\u0301"))
    True
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

__all__ = ["KEEP", "SHIPPED", "WIDE", "computed_classes", "nfkc_classes"]

KEEP = "\u2025\u2026"
"""``‥ …``: NFKC would make them "..", a sentence end the writer did not put there."""
WIDE = r"\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff60"
"""Full-width ASCII punctuation: folded in Latin text, kept between CJK characters (it has an
alternative of its own in the expression, so it is left out of the changed class)."""

SHIPPED = Path(__file__).with_name("nfkc_classes.json")
"""The classes of :func:`computed_classes` per ``unicodedata.unidata_version``:
``{version: {"changed": ..., "combining": ...}}``."""


def nfkc_classes() -> tuple[str, str]:
    """``(changed, combining)``: the class bodies for the running Python's Unicode data, shipped
    (:data:`SHIPPED`) or else computed (:func:`computed_classes`)."""
    shipped = _shipped().get(unicodedata.unidata_version)
    return shipped if shipped is not None else computed_classes()


def _shipped() -> dict[str, tuple[str, str]]:
    """The entries of :data:`SHIPPED` (none if the file is missing)."""
    try:
        entries = json.loads(SHIPPED.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    return {version: (e["changed"], e["combining"]) for version, e in entries.items()}


def computed_classes() -> tuple[str, str]:
    """``(changed, combining)`` computed from ``unicodedata``: the body of a class of every
    character NFKC changes (but those of :data:`KEEP` and :data:`WIDE`, and surrogates), and
    of one of every character whose NFKD form begins with a combining mark.

    Example:
        >>> computed_classes() == nfkc_classes()
        True
    """
    changed, combining = [], []
    for code in range(0x30000):
        char = chr(code)
        if 0xD800 <= code <= 0xDFFF or char in KEEP:
            continue
        if unicodedata.normalize("NFKC", char) != char:
            changed.append(code)
        if unicodedata.combining(unicodedata.normalize("NFKD", char)[:1] or " "):
            combining.append(code)
    wide = {ord(c) for c in re.findall(f"[{WIDE}]", "".join(map(chr, changed)))}
    return _ranges([c for c in changed if c not in wide]), _ranges(combining)


def _ranges(codes: list[int]) -> str:
    """A character class's body for ``codes`` (sorted), as ranges.

    Example:
        >>> _ranges([65, 66, 67, 70])
        'A-CF'
    """
    parts: list[str] = []
    start = prev = codes[0]
    for code in [*codes[1:], -1]:
        if code == prev + 1:
            prev = code
            continue
        parts.append(re.escape(chr(start)) if start == prev
                     else f"{re.escape(chr(start))}-{re.escape(chr(prev))}")
        start = prev = code
    return "".join(parts)


if __name__ == "__main__":  # add (or renew) the running Python's entry in SHIPPED
    entries = _shipped()
    entries[unicodedata.unidata_version] = computed_classes()
    SHIPPED.write_text(json.dumps({v: {"changed": c, "combining": m}
                                   for v, (c, m) in sorted(entries.items())}, indent=1) + "\n")
