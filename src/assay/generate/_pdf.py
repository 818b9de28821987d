"""The text of a PDF, by ``pypdf`` (the ``pdf`` extra): pages joined with a blank line.

A PDF with no text to extract (a scanned one), an encrypted one that opens with no password
only, or one pypdf cannot parse gives one problem with the fix; pypdf missing is a
:class:`~assay.errors.ConfigError` naming the extra.

Example:
    >>> try:
    ...     extract_pdf("scan.pdf", b"%PDF-1.4 not really")
    ... except Unreadable as e:
    ...     print(e.problems[0].split(" (")[0])
    scan.pdf: cannot be read as a PDF
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import PurePosixPath
from shlex import quote
from types import ModuleType

from ..errors import ConfigError
from ._decode import Unreadable

__all__ = ["PDF_EXTRA", "extract_pdf", "load_pypdf"]

#: What installs pypdf.
PDF_EXTRA = "pip install 'assay[pdf]'"


def load_pypdf() -> ModuleType:
    """The ``pypdf`` module.

    Raises:
        ConfigError: pypdf is not installed (the message names the extra that installs it).
    """
    try:
        import pypdf
    except ImportError:
        raise ConfigError(f"reading PDF needs pypdf: {PDF_EXTRA}") from None
    return pypdf


def extract_pdf(label: str, data: bytes) -> str:
    """The text of the PDF ``data`` (the file ``label``), its pages' text stripped and joined
    with a blank line.

    Raises:
        Unreadable: the PDF is encrypted, corrupt, or has no text to extract.
        ConfigError: pypdf is not installed.
    """
    pypdf = load_pypdf()
    try:
        with _quiet_pypdf():
            reader = pypdf.PdfReader(io.BytesIO(data))
            if reader.is_encrypted and not _opens_without_password(reader):
                raise Unreadable(f"{label}: the PDF is encrypted (it needs a password to "
                                 "open). Fix: save a copy without the password (qpdf's "
                                 "decrypt option does it, or printing it to PDF from a "
                                 "viewer that opens it).")
            pages = [(page.extract_text() or "").strip() for page in reader.pages]
    except Unreadable:
        raise
    except Exception as e:  # noqa: BLE001 - pypdf raises many kinds on a broken file
        reason = " ".join(str(e).split())[:200] or type(e).__name__
        raise Unreadable(f"{label}: cannot be read as a PDF (pypdf says: {reason}). Fix: "
                         "check that the file is a whole, valid PDF (open it in a viewer, or "
                         f"repair it, e.g. qpdf {quote(label)} repaired.pdf).") from None
    text = "\n\n".join(page for page in pages if page)
    if not text:
        what = f"its {len(pages)} page{'s' if len(pages) != 1 else ''}" if pages else "it"
        ocr = PurePosixPath(label).with_suffix(".ocr.pdf")
        raise Unreadable(f"{label}: no text could be extracted from {what} (a scanned PDF "
                         "holds pictures of text). Fix: run OCR first, e.g. ocrmypdf "
                         f"{quote(label)} {quote(str(ocr))}")
    return text


def _opens_without_password(reader: object) -> bool:
    """Whether an encrypted PDF opens with the empty user password (many do: they only
    restrict printing or copying)."""
    try:
        return bool(reader.decrypt(""))  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - a cipher pypdf needs another package for
        return False


@contextmanager
def _quiet_pypdf() -> Iterator[None]:
    """pypdf's warnings about a damaged file stay out of the terminal (a problem says it)."""
    logger = logging.getLogger("pypdf")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)
