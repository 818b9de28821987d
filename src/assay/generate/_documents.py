"""Reading a user's documents: files and folders of text, Markdown, HTML, PDF and JSON Lines.

Every problem in every file is found before anything is returned, and raised as one
:class:`~assay.errors.DataError` that names each file (and line), what is wrong and the fix.

Example:
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "guide.md").write_text("# Guide\\n\\nInstall it with pip, then run it.\\n")
    >>> _ = (folder / "notes.docx").write_bytes(b"PK")
    >>> docs = read_documents([folder])
    >>> [(d.id, d.format, d.lang, d.title) for d in docs.documents]
    [('guide.md', 'md', 'en', 'Guide')]
    >>> [(pathlib.Path(path).name, why) for path, why in docs.skipped]
    [('notes.docx', 'unsupported suffix .docx')]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import ConfigError, DataError, option
from ._decode import Unreadable, decode_text
from ._headings import Heading, markdown_headings
from ._html import extract_html
from ._jsonl import jsonl_records
from ._pdf import extract_pdf
from ._walk import link_problem, walk_folder

__all__ = ["DETECT", "FORMATS", "MAX_LISTED", "UNDETERMINED", "Document", "DocumentSet",
           "read_documents"]

#: File name endings read (in any case), and the format each is read as.
FORMATS = {".txt": "txt", ".md": "md", ".markdown": "md", ".html": "html", ".htm": "html",
           ".pdf": "pdf", ".jsonl": "jsonl"}
#: The language of a document too short (or too mixed) to tell: ISO 639-2's "undetermined".
UNDETERMINED = "und"
#: ``lang`` that detects each document's language (the default; else a language code for all).
DETECT = "auto"
#: At most this many problems are listed in the error (then a count of the rest).
MAX_LISTED = 200
_LANGUAGE_TAG = re.compile(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*")
_FENCED_CODE = re.compile(r"^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1", re.MULTILINE | re.DOTALL)
_SUFFIX_LIST = ", ".join(dict.fromkeys(FORMATS))


@dataclass(frozen=True)
class Document:
    """A document to generate test rows from.

    ``id`` names it in generated rows (the path as given, or relative to the folder given,
    with ``/``; ``FILE.jsonl#LINE`` or the line's ``id`` for JSON Lines); ``text`` is what
    chunks and evidence spans point into (a text or Markdown file's text as decoded,
    unchanged; the extracted text of HTML and PDF); ``lang`` its language (ISO 639-1, or
    :data:`UNDETERMINED`); ``format`` one of ``txt md html pdf jsonl``. ``title`` is the
    Markdown file's first ``#`` heading, the HTML ``<title>`` or the JSONL ``title``;
    ``path`` the file it came from and ``line`` its JSONL line; ``headings`` are spans of
    ``text`` (Markdown and HTML).

    Example:
        >>> Document(id="a.txt", text="Hello there.", lang="en", format="txt").headings
        ()
    """

    id: str
    text: str
    lang: str
    format: str
    title: str | None = None
    path: str = ""
    line: int | None = None
    headings: tuple[Heading, ...] = ()


@dataclass(frozen=True)
class DocumentSet:
    """The documents read (in the order the paths were given; a folder's files in sorted
    order) and the folder files ``skipped`` for their suffix, as ``(path, why)``."""

    documents: list[Document]
    skipped: list[tuple[str, str]]

    def __len__(self) -> int:
        return len(self.documents)

    def __iter__(self) -> Iterator[Document]:
        return iter(self.documents)


@dataclass(frozen=True)
class _File:
    path: Path
    label: str  # how messages name it: the path given, or the folder given / the file
    id: str  # how rows name it
    format: str


def read_documents(paths: Sequence[str | Path], *, lang: str = DETECT,
                   own: Mapping[Path, str] | None = None) -> DocumentSet:
    """Read the documents in ``paths`` (files, and folders walked in sorted order with hidden
    files and folders left out).

    Args:
        paths: files (``.txt .md .markdown .html .htm .pdf .jsonl``) and folders (or one
            path).
        lang: ``"auto"`` to detect each document's language, or a language code given to
            every document (``"zh"``).
        own: files never read as documents (a run's own output, by resolved path), each
            with what it is: skipped in a folder, a problem when named.

    Raises:
        DataError: listing every problem: a missing path, an empty or binary file, a file
            that is not UTF-8, a named file of another kind, a bad JSONL line, a PDF without
            text or that cannot be opened, a folder with nothing to read, two documents of
            one name.
        ConfigError: ``lang`` is not a language code, or a PDF is given without pypdf.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]  # one path, not its characters
    override = _language_override(lang)
    problems: list[str] = []
    skipped: list[tuple[str, str]] = []
    documents: list[Document] = []
    seen: set[Path] = set()
    for given in paths:
        for file in _files(Path(given), problems, skipped):
            if (key := file.path.resolve()) in seen:
                continue  # a file named and in a folder named, or named twice
            if own and key in own:
                if Path(given).is_dir():
                    skipped.append((file.label, own[key]))
                else:
                    problems.append(f"{file.label}: {own[key]}, not a document. Fix: leave it "
                                    "out, or write the output elsewhere.")
                continue
            seen.add(key)
            try:
                documents.extend(_read(file))
            except Unreadable as e:
                problems.extend(e.problems)
    problems.extend(_duplicate_ids(documents))
    if not paths:
        problems.append("no documents were given. Fix: name at least one file or folder.")
    if problems:
        if len(problems) > MAX_LISTED:
            rest = len(problems) - MAX_LISTED
            problems = [*problems[:MAX_LISTED], (f"... and {rest:,} more (only the "
                        f"first {MAX_LISTED} are listed).")]
        raise DataError(problems, outcome="nothing was generated")
    return DocumentSet([replace(d, lang=override or _detected_language(d.text))
                        for d in documents], skipped)


def _language_override(lang: str) -> str | None:
    if lang == DETECT:
        return None
    if not isinstance(lang, str) or not _LANGUAGE_TAG.fullmatch(lang):
        raise ConfigError(f"Got {option('lang', lang)}. Must be 'auto' (detect each document's "
                          "language) or a language code such as 'en', 'zh' or 'pt-BR'.")
    primary, _, rest = lang.partition("-")
    return primary.lower() + (f"-{rest}" if rest else "")


def _detected_language(text: str) -> str:
    """The language of ``text``'s prose (fenced code left out), or :data:`UNDETERMINED`."""
    from assay.injection import language_of

    return language_of(_FENCED_CODE.sub(" ", text[:20_000])) or UNDETERMINED


def _files(path: Path, problems: list[str], skipped: list[tuple[str, str]]) -> list[_File]:
    """The files to read for the path given (one, or a folder's); problems and skipped files
    are appended."""
    label = path.as_posix()
    if (why := link_problem(path)) is not None:
        problems.append(f"{label}: {why}. Fix: point the link at a file or folder of "
                        "documents, or give another path.")
        return []
    if path.is_dir():
        return _folder_files(path, label, problems, skipped)
    if path.is_file():
        fmt = FORMATS.get(path.suffix.lower())
        if fmt is not None:
            return [_File(path, label, label, fmt)]
        got = f"suffix {path.suffix}" if path.suffix else "no suffix"
        problems.append(f"{label}: cannot read a file with {got}. Fix: give a {_SUFFIX_LIST} "
                        "file (export other documents to one of them, or rename a text file "
                        "to .txt).")
    elif path.exists():
        problems.append(f"{label}: not a regular file or folder. Fix: give a file or a folder "
                        "of documents.")
    else:
        problems.append(f"{label}: no such file or folder. Fix: check the path (it is read "
                        f"from {Path.cwd().as_posix()}).")
    return []


def _folder_files(folder: Path, label: str, problems: list[str],
                  skipped: list[tuple[str, str]]) -> list[_File]:
    """The readable files under ``folder``, sorted, hidden ones left out."""
    found: list[_File] = []
    others: list[str] = []
    for path, unreadable in walk_folder(folder, problems):
        rel = path.relative_to(folder).as_posix()
        fmt = FORMATS.get(path.suffix.lower())
        if unreadable is not None:
            skipped.append((f"{label}/{rel}" if label != "." else rel, unreadable))
        elif fmt is None:
            why = f"unsupported suffix {path.suffix}" if path.suffix else "no suffix"
            skipped.append((f"{label}/{rel}" if label != "." else rel, why))
            others.append(path.suffix.lower() or "no suffix")
        else:
            found.append(_File(path, f"{label}/{rel}" if label != "." else rel, rel, fmt))
    if not found:
        kinds = ", ".join(f"{others.count(k)} {k}" for k in sorted(set(others)))
        what = f"it holds only files of other kinds: {kinds}" if others else "it holds no files"
        problems.append(f"{label}: no document to read in this folder ({what}; hidden files "
                        f"are left out). Fix: put {_SUFFIX_LIST} files in it (export other "
                        "documents to one of them).")
    return found


def _read(file: _File) -> list[Document]:
    """The documents of one file (several for JSON Lines), with no language yet."""
    try:
        data = file.path.read_bytes()
    except OSError as e:
        raise Unreadable(f"{file.label}: cannot be read ({e.strerror}). Fix: check the file "
                         "and its permissions.") from None
    if not data.strip():
        what = "empty (0 bytes)" if not data else "blank (only whitespace)"
        raise Unreadable(f"{file.label}: the file is {what}. Fix: add its text, or leave "
                         "it out.")
    if file.format == "pdf":
        text = extract_pdf(file.label, data)
        return [Document(file.id, text, "", "pdf", path=file.label)]
    content = decode_text(file.label, data)
    if file.format == "jsonl":
        return [Document(r.id or f"{file.id}#{r.line}", r.text, "", "jsonl", title=r.title,
                         path=file.label, line=r.line)
                for r in jsonl_records(file.label, content)]
    if not content.strip():
        raise Unreadable(f"{file.label}: the file is blank (only whitespace). Fix: add its "
                         "text, or leave it out.")
    if file.format == "html":
        page = extract_html(content)
        if not page.text:
            raise Unreadable(f"{file.label}: the page has no text (only markup, scripts or "
                             "styles). Fix: save the page with its content, or leave it out.")
        return [Document(file.id, page.text, "", "html", path=file.label, headings=page.headings,
                         title=page.title or next((h.title for h in page.headings), None))]
    if file.format == "md":
        headings = markdown_headings(content)
        title = next((h.title for h in headings if h.level == 1), None)
        return [Document(file.id, content, "", "md", title, file.label, headings=headings)]
    return [Document(file.id, content, "", "txt", path=file.label)]


def _duplicate_ids(documents: list[Document]) -> list[str]:
    """One problem for each name two documents share."""
    by_id: dict[str, list[Document]] = {}
    for document in documents:
        by_id.setdefault(document.id, []).append(document)
    return [f"{len(same)} documents are named {name!r} ("
            + ", ".join(d.path + (f" line {d.line}" if d.line else "") for d in same)
            + "). Fix: give their common parent folder instead of each folder, rename one, or "
            "give JSONL lines different 'id's (a document's name is its path inside the folder "
            "given, or its JSONL 'id')."
            for name, same in by_id.items() if len(same) > 1]
