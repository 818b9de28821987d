"""A document file's bytes as text: UTF-8 (with or without a BOM), or one problem saying what
the file is instead and how to convert it.

Example:
    >>> decode_text("a.txt", "café\\n".encode("utf-8-sig"))
    'café\\n'
    >>> try:
    ...     decode_text("a.txt", "café".encode("utf-16"))
    ... except Unreadable as e:
    ...     print(e.problems[0].split(" Fix: ")[1])
    convert it, e.g. iconv -f UTF-16 -t UTF-8 a.txt > a.utf8.txt
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from shlex import quote

__all__ = ["Unreadable", "decode_text"]

_BOMS = ((b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe\x00\x00", "UTF-32"),
         (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))
_MAGIC = ((b"%PDF", "a PDF document", "name it .pdf"),
          (b"PK\x03\x04", "a ZIP archive (a .docx, .odt or .epub document is one)",
           "export the document as .txt, .md, .html or .pdf"),
          (b"\x1f\x8b", "gzip-compressed", "decompress it first: gunzip FILE"),
          (b"\x89PNG", "a PNG image", "run OCR on it first, or leave it out"),
          (b"\xff\xd8\xff", "a JPEG image", "run OCR on it first, or leave it out"),
          (b"\xd0\xcf\x11\xe0", "an old Microsoft Office document (.doc, .xls)",
           "export it as .txt, .html or .pdf"),
          (b"{\\rtf", "an RTF document", "export it as .txt, .html or .pdf"))


class Unreadable(Exception):
    """A file (or a line of one) that gives no document; ``problems`` says why and the fix,
    each naming the file."""

    def __init__(self, *problems: str) -> None:
        super().__init__("\n".join(problems))
        self.problems = list(problems)


def decode_text(label: str, data: bytes) -> str:
    """``data`` decoded as UTF-8 (a leading BOM dropped), for the file named ``label``.

    Raises:
        Unreadable: the bytes are not UTF-8 text (NUL bytes, a UTF-16/32 byte-order mark,
            a known binary format, or bytes UTF-8 does not allow): says what they look like
            and how to convert them.
    """
    for bom, name in _BOMS:
        if data.startswith(bom):
            raise Unreadable(f"{label}: {name} text (it starts with a {name} byte-order mark), "
                             f"not UTF-8. Fix: convert it, e.g. {_iconv(label, name)}")
    for magic, what, fix in _MAGIC:
        if data.startswith(magic):
            raise Unreadable(f"{label}: this is {what}, not a text file. Fix: {fix}.")
    nul = data.find(b"\x00")
    if nul >= 0:
        utf16 = _utf16_without_bom(data)
        if utf16:
            raise Unreadable(f"{label}: {utf16} text (every other byte is NUL), not UTF-8. "
                             f"Fix: convert it, e.g. {_iconv(label, utf16)}")
        raise Unreadable(f"{label}: a binary file, not text (a NUL byte at byte {nul:,}). "
                         "Fix: give a text, Markdown, HTML, PDF or JSONL file; "
                         f"`file {quote(label)}` says what this one is.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        looks, codec = guess_encoding(data[max(0, e.start - 200): e.start + 200])
        raise Unreadable(f"{label} line {line}: not UTF-8 (byte 0x{data[e.start]:02X} at byte "
                         f"{e.start:,}); it looks like {looks}. Fix: convert it, e.g. "
                         f"{_iconv(label, codec)}") from None


def guess_encoding(raw: bytes) -> tuple[str, str]:
    """(a name for the legacy encoding ``raw`` looks like, its iconv name).

    Example:
        >>> guess_encoding("東京の天気は晴れです".encode("shift_jis"))
        ('Shift_JIS (Japanese)', 'SHIFT_JIS')
        >>> guess_encoding("北京今天天气很好".encode("gb18030"))
        ('GBK/GB18030 (Chinese)', 'GB18030')
        >>> guess_encoding("Größe und Maße".encode("cp1252"))
        ('Windows-1252 / Latin-1', 'WINDOWS-1252')
    """
    runs = re.findall(rb"[\x80-\xff]+", raw)
    if runs and sum(map(len, runs)) < 3 * len(runs):
        return "Windows-1252 / Latin-1", "WINDOWS-1252"  # accented letters among ASCII ones
    for codec, iconv, name, letters in (
            ("shift_jis", "SHIFT_JIS", "Shift_JIS (Japanese)", ("\u3040", "\u30ff")),
            ("gb18030", "GB18030", "GBK/GB18030 (Chinese)", ("\u4e00", "\u9fff"))):
        text = raw.decode(codec, errors="replace")  # a cut character at either edge: 2 at most
        if text.count("\ufffd") <= 2 and sum(letters[0] <= c <= letters[1] for c in text) >= 2:
            return name, iconv
    return "Windows-1252 / Latin-1", "WINDOWS-1252"


def _utf16_without_bom(data: bytes) -> str | None:
    """``UTF-16LE`` or ``UTF-16BE`` when ``data`` reads as mostly-ASCII UTF-16, else None."""
    sample = data[:4096][: len(data[:4096]) // 2 * 2]
    half = len(sample) / 2
    if len(sample) < 4:
        return None
    odd, even = sample[1::2].count(0), sample[::2].count(0)
    if odd > 0.4 * half > even:
        return "UTF-16LE"
    if even > 0.4 * half > odd:
        return "UTF-16BE"
    return None


def _iconv(label: str, codec: str) -> str:
    path = PurePosixPath(label)
    converted = str(path.with_name(path.stem + ".utf8" + path.suffix))
    return f"iconv -f {codec} -t UTF-8 {quote(label)} > {quote(converted)}"
