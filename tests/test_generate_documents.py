"""assay.generate's first layer: reading documents (every format, folders, languages, every bad
input at once) and cutting them into chunks that are exact, ordered, non-overlapping spans."""

from __future__ import annotations

import importlib.util
import inspect
import io
import random
import re
import sys
from pathlib import Path

import pytest

import assay.generate
from assay.errors import ConfigError, DataError
from assay.generate._chunks import Chunk, chunk_document
from assay.generate._documents import UNDETERMINED, Document, read_documents

requires_pypdf = pytest.mark.skipif(importlib.util.find_spec("pypdf") is None,
                                    reason="needs the 'pdf' extra (pip install 'assay[pdf]')")

EN = ("The installer copies the program into your home folder. It asks no questions and "
      "needs no administrator rights. When it has finished, open a new terminal and run the "
      "program once to check that it starts.")
DE = ("Der Installationsassistent kopiert das Programm in Ihren Benutzerordner. Er stellt "
      "keine Fragen und benötigt keine Administratorrechte. Öffnen Sie danach ein neues "
      "Terminal und starten Sie das Programm einmal.")
ES = ("El instalador copia el programa en su carpeta personal. No hace preguntas y no "
      "necesita permisos de administrador. Cuando termine, abra una terminal nueva y ejecute "
      "el programa una vez para comprobar que arranca.")
# Chinese and Japanese are written without spaces: a chunker that cuts only at spaces fails.
ZH = "".join(f"第{i}步：安装程序会把软件复制到您的主目录，不需要管理员权限。"
             "安装完成后，请打开新的终端并运行一次程序，确认它可以正常启动！" for i in range(1, 40))
JA = "".join(f"手順{i}：インストーラーはプログラムをホームフォルダーにコピーします、"
             "管理者権限は必要ありません。完了したら、新しいターミナルを開いて"
             "プログラムを一度実行し、起動することを確認してください。" for i in range(1, 40))


def minimal_pdf(pages: list[list[str] | None]) -> bytes:
    """A small valid PDF written by hand: each page shows its lines in Helvetica (None: a page
    with nothing on it, as a scan's text layer would be)."""
    n = len(pages)
    font = 3 + 2 * n
    objects = ["<< /Type /Catalog /Pages 2 0 R >>",
               "<< /Type /Pages /Kids [" + " ".join(f"{3 + 2 * i} 0 R" for i in range(n))
               + f"] /Count {n} >>"]
    for i, lines in enumerate(pages):
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents "
                       f"{4 + 2 * i} 0 R /Resources << /Font << /F1 {font} 0 R >> >> >>")
        ops = "".join(f"BT /F1 12 Tf 72 {720 - 20 * j} Td ({line}) Tj ET\n"
                      for j, line in enumerate(lines or []))
        objects.append(f"<< /Length {len(ops)} >>\nstream\n{ops}endstream")
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{offset:010d} 00000 n \n" for offset in offsets).encode()
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n"
            "%%EOF\n").encode()
    return out


def span_problems(document: Document, chunks: list[Chunk]) -> list[str]:
    """What is wrong with ``chunks`` as spans of ``document`` (empty when nothing): each is
    its text, in order, without overlap or surrounding whitespace, numbered from 0, and
    together they cover every non-whitespace character."""
    problems = []
    covered = 0
    end = 0
    for i, chunk in enumerate(chunks):
        if chunk.text != document.text[chunk.start:chunk.end]:
            problems.append(f"chunk {i}: text is not document.text[start:end]")
        if chunk.start < end:
            problems.append(f"chunk {i}: starts at {chunk.start}, before the last ended ({end})")
        if not chunk.text or chunk.text != chunk.text.strip():
            problems.append(f"chunk {i}: empty, or starts or ends with whitespace")
        if chunk.index != i or chunk.doc != document.id:
            problems.append(f"chunk {i}: index {chunk.index}, doc {chunk.doc!r}")
        gap = document.text[end:chunk.start]
        if gap.strip():
            problems.append(f"chunk {i}: text before it is in no chunk: {gap.strip()[:30]!r}")
        covered += sum(not c.isspace() for c in chunk.text)
        end = max(end, chunk.end)
    if document.text[end:].strip():
        problems.append(f"text after the last chunk is in no chunk: {document.text[end:][:30]!r}")
    if covered != sum(not c.isspace() for c in document.text):
        problems.append("the chunks do not hold every non-whitespace character exactly once")
    return problems


def chunked(document: Document, **sizes: int) -> list[Chunk]:
    """The document's chunks, checked as spans and against ``max_chars``."""
    chunks = chunk_document(document, **sizes)
    assert span_problems(document, chunks) == []
    assert all(len(c.text) <= sizes.get("max_chars", 1200) for c in chunks)
    return chunks


def read_one(path: Path, **kwargs: str) -> Document:
    [document] = read_documents([path], **kwargs).documents
    return document


# --- reading: each format ------------------------------------------------------------------

def test_a_text_file_is_its_text_as_decoded_unchanged(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_bytes(("\ufeffLine one,\r\n  indented.\r\n\r\n" + EN)
                                         .encode("utf-8"))
    doc = read_one(tmp_path / "notes.txt")
    assert doc.text == "Line one,\r\n  indented.\r\n\r\n" + EN  # the BOM goes, nothing else
    assert (doc.id, doc.format, doc.lang, doc.headings) == (
        (tmp_path / "notes.txt").as_posix(), "txt", "en", ())


def test_markdown_keeps_its_text_and_records_its_headings(tmp_path: Path) -> None:
    text = ("# Tool guide\n\nIntro.\n\n## Install\n\n```sh\n# a comment, not a heading\n"
            "pip install tool\n```\n\n### Linux ###\nRun it.\n\nUsage\n-----\n\nCall it.\n")
    (tmp_path / "guide.markdown").write_text(text, encoding="utf-8")
    doc = read_one(tmp_path / "guide.markdown")
    assert doc.text == text and doc.format == "md" and doc.title == "Tool guide"
    assert [(h.level, h.title, text[h.start:h.end]) for h in doc.headings] == [
        (1, "Tool guide", "# Tool guide"), (2, "Install", "## Install"),
        (3, "Linux", "### Linux ###"), (2, "Usage", "Usage\n-----")]


def test_html_is_read_as_its_text_with_headings_and_title(tmp_path: Path) -> None:
    (tmp_path / "page.htm").write_text(
        "<!doctype html><html><head><title>Tool &ndash; help</title><style>h1{color:red}"
        "</style><script>var heading = '<h1>no</h1>';</script></head><body>"
        "<nav>Home</nav><h1>Install <small>v2</small></h1>"
        "<p>Download   the\n<b>installer</b>&nbsp;from &lt;site&gt; &amp; run it.</p>"
        "<h2>Linux</h2><ul><li>apt</li><li>dnf</li></ul><pre>make\n  install</pre>"
        "<table><tr><td>a</td><td>b</td></tr></table><!-- a comment --></body></html>",
        encoding="utf-8")
    doc = read_one(tmp_path / "page.htm")
    assert doc.text == ("Home\n\nInstall v2\n\nDownload the installer from <site> & run it."
                        "\n\nLinux\n\napt\ndnf\n\nmake\n  install\n\na b")
    assert doc.format == "html" and doc.title == "Tool – help"
    assert [(h.level, h.title, doc.text[h.start:h.end]) for h in doc.headings] == [
        (1, "Install v2", "Install v2"), (2, "Linux", "Linux")]
    # Sloppy markup: a title outside <head>, a heading never closed, an empty one.
    (tmp_path / "sloppy.html").write_text("<title>Sloppy</title><h2>Open<h3>Next</h3><h4></h4>"
                                          "Tail text &#8212; here", encoding="utf-8")
    doc = read_one(tmp_path / "sloppy.html")
    assert (doc.text, doc.title) == ("Open\n\nNext\n\nTail text — here", "Sloppy")
    assert [(h.level, h.title) for h in doc.headings] == [(2, "Open"), (3, "Next")]


@requires_pypdf
def test_a_pdf_is_read_as_its_pages_text_joined_by_a_blank_line(tmp_path: Path) -> None:
    (tmp_path / "manual.pdf").write_bytes(minimal_pdf(
        [["The installer copies the program.", "It needs no rights."], None,
         ["Open a new terminal afterwards."]]))
    doc = read_one(tmp_path / "manual.pdf")
    assert doc.text == ("The installer copies the program.\nIt needs no rights.\n\n"
                        "Open a new terminal afterwards.")
    assert (doc.format, doc.lang) == ("pdf", "en")


def test_jsonl_gives_one_document_a_line(tmp_path: Path) -> None:
    (tmp_path / "kb.jsonl").write_text(
        '{"text": "Refunds are paid within 14 days.", "id": "kb-7", "title": "Refunds"}\n'
        "\n"
        '{"text": "We ship to every country in the European Union.", "id": 12}\n'
        '{"text": "Orders can be cancelled until they are shipped.", "extra": [1]}\n',
        encoding="utf-8")
    docs = read_documents([tmp_path / "kb.jsonl"]).documents
    assert [(d.id, d.title, d.line, d.format) for d in docs] == [
        ("kb-7", "Refunds", 1, "jsonl"), ("12", None, 3, "jsonl"),
        (f"{(tmp_path / 'kb.jsonl').as_posix()}#4", None, 4, "jsonl")]
    assert docs[2].text == "Orders can be cancelled until they are shipped."


# --- reading: folders, order, names ------------------------------------------------------

def test_a_folder_is_walked_in_sorted_order_without_hidden_files(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    for name in ("b.md", "a/z.txt", "a/b/c.html", ".hidden.md", ".git/config.txt", "c.jsonl",
                 "logo.png", "README", "A.TXT"):
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(
            '{"text": "A line."}\n' if name.endswith(".jsonl") else f"<p>{name}</p>",
            encoding="utf-8")
    (tmp_path / "extra.txt").write_text("Given after the folder.", encoding="utf-8")
    read = read_documents([docs, tmp_path / "extra.txt", docs / "b.md"])
    assert [d.id for d in read.documents] == [
        "A.TXT", "a/b/c.html", "a/z.txt", "b.md", "c.jsonl#1", (tmp_path / "extra.txt").as_posix()]
    assert [d.path for d in read.documents][:2] == [f"{docs.as_posix()}/A.TXT",
                                                   f"{docs.as_posix()}/a/b/c.html"]
    assert read.skipped == [(f"{docs.as_posix()}/README", "no suffix"),
                            (f"{docs.as_posix()}/logo.png", "unsupported suffix .png")]
    assert len(read) == 6 and list(read) == read.documents
    assert read_documents(str(docs / "b.md")).documents == read_documents([docs / "b.md"]).documents


def test_two_documents_of_one_name_are_a_problem(tmp_path: Path) -> None:
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "faq.md").write_text(EN, encoding="utf-8")
    (tmp_path / "kb.jsonl").write_text('{"text": "a b c", "id": "x"}\n{"text": "d e", "id": "x"}\n',
                                       encoding="utf-8")
    with pytest.raises(DataError) as raised:
        read_documents([tmp_path / "one", tmp_path / "two", tmp_path / "kb.jsonl"])
    assert [p.split(" (")[0] for p in raised.value.problems] == [
        "2 documents are named 'faq.md'", "2 documents are named 'x'"]
    assert "kb.jsonl line 2" in raised.value.problems[1]


# --- reading: languages ------------------------------------------------------------------

def test_each_documents_language_is_detected(tmp_path: Path) -> None:
    texts = {"en": EN, "de": DE, "es": ES, "zh": ZH[:300], "ja": JA[:300], "und": "v2.1"}
    for code, text in texts.items():
        (tmp_path / f"{code}.txt").write_text(text, encoding="utf-8")
    read = read_documents([tmp_path])
    assert {d.id.removesuffix(".txt"): d.lang for d in read.documents} == {
        code: code for code in texts}
    assert UNDETERMINED == "und"


def test_the_language_override_applies_to_every_document(tmp_path: Path) -> None:
    (tmp_path / "en.txt").write_text(EN, encoding="utf-8")
    (tmp_path / "de.md").write_text(DE, encoding="utf-8")
    assert [d.lang for d in read_documents([tmp_path], lang="zh")] == ["zh", "zh"]
    assert [d.lang for d in read_documents([tmp_path], lang="PT-BR")] == ["pt-BR", "pt-BR"]
    with pytest.raises(ConfigError, match=r"Got lang='english'\. Must be 'auto'"):
        read_documents([tmp_path], lang="english")


# --- reading: every bad input at once ------------------------------------------------------

def test_every_bad_input_is_one_data_error_naming_each_file_and_fix(tmp_path: Path,
                                                                   monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    files: dict[str, bytes | str] = {
        "good.md": "# Fine\n\nThis file is fine.",
        "empty.txt": b"",
        "blank.md": " \n\n\t\n",
        "binary.txt": b"GIF89a\x00\x01\x02",
        "utf16.md": "Hello, world.".encode("utf-16"),
        "latin.txt": "Größe und Maße des Geräts.".encode("cp1252"),
        "gbk.txt": "北京今天天气很好，我们去公园散步。".encode("gbk"),
        "report.docx": b"PK\x03\x04",
        "bad.jsonl": ('{"text": "fine"}\nnot json\n[1, 2]\n{"body": "x"}\n{"text": 5}\n'
                      '{"text": "  "}\n{"text": "x", "id": true}\n'),
        "scripts.html": "<html><script>alert(1)</script></html>",
        "folder/notes.rtf": "{\\rtf1 hello}",
        "nothing/.hidden.md": "hidden",
    }
    for name, content in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        data = content.encode("utf-8") if isinstance(content, str) else content
        (tmp_path / name).write_bytes(data)
    names = ["missing.md", *[n for n in files if "/" not in n], "folder", "nothing"]
    with pytest.raises(DataError) as raised:
        read_documents(names)
    problems = raised.value.problems
    expected = [  # (the start of the problem, a word of its fix), in the order given
        ("missing.md: no such file", "check the path"),
        ("empty.txt: the file is empty (0 bytes)", "add its text"),
        ("blank.md: the file is blank (only whitespace)", "add its text"),
        ("binary.txt: a binary file, not text (a NUL byte at byte 6)", "file binary.txt"),
        ("utf16.md: UTF-16 text", "iconv -f UTF-16 -t UTF-8 utf16.md > utf16.utf8.md"),
        ("latin.txt line 1: not UTF-8", "iconv -f WINDOWS-1252"),
        ("gbk.txt line 1: not UTF-8", "iconv -f GB18030"),
        ("report.docx: cannot read a file with suffix .docx", ".txt, .md"),
        ("bad.jsonl line 2: not JSON", "one JSON object per line"),
        ("bad.jsonl line 3: expected a JSON object, got an array", "one object per line"),
        ("bad.jsonl line 4: no 'text' field (its fields: 'body')", "string field 'text'"),
        ("bad.jsonl line 5: 'text' is a number", "string field 'text'"),
        ("bad.jsonl line 6: 'text' is blank", "drop the line"),
        ("bad.jsonl line 7: 'id' is a boolean", "non-empty string or an integer"),
        ("scripts.html: the page has no text", "save the page"),
        ("folder: no document to read in this folder (it holds only files of other", ".rtf"),
        ("nothing: no document to read in this folder (it holds no files", "hidden files"),
    ]
    assert len(problems) == len(expected), "\n".join(problems)
    for problem, (start, fix) in zip(problems, expected):
        assert problem.startswith(start) and "Fix:" in problem and fix in problem, problem
    assert "good.md" not in str(raised.value)


@requires_pypdf
def test_pdfs_without_text_encrypted_or_broken_are_problems(tmp_path: Path) -> None:
    import pypdf

    (tmp_path / "scan.pdf").write_bytes(minimal_pdf([None, None]))
    (tmp_path / "broken.pdf").write_bytes(minimal_pdf([["Cut short."]])[:150])
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(minimal_pdf([["Secret text."]])))
    writer.encrypt("secret", algorithm="RC4-128")
    with open(tmp_path / "locked.pdf", "wb") as f:
        writer.write(f)
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(minimal_pdf([["Open to read."]])))
    writer.encrypt("", owner_password="owner", algorithm="RC4-128")  # opens without a password
    with open(tmp_path / "restricted.pdf", "wb") as f:
        writer.write(f)
    with pytest.raises(DataError) as raised:
        read_documents([tmp_path])
    scan, broken, locked = (next(p for p in raised.value.problems if name in p)
                            for name in ("scan.pdf", "broken.pdf", "locked.pdf"))
    assert len(raised.value.problems) == 3
    assert "no text could be extracted from its 2 pages" in scan and "run OCR first" in scan
    assert "cannot be read as a PDF (pypdf says:" in broken and "Fix:" in broken
    assert "encrypted" in locked and "without the password" in locked
    assert read_one(tmp_path / "restricted.pdf").text == "Open to read."


def test_without_pypdf_a_pdf_asks_for_the_extra(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "manual.pdf").write_bytes(minimal_pdf([["Some text."]]))
    monkeypatch.setitem(sys.modules, "pypdf", None)  # import pypdf -> ImportError
    with pytest.raises(ConfigError) as raised:
        read_documents([tmp_path / "manual.pdf"])
    assert str(raised.value) == "reading PDF needs pypdf: pip install 'assay[pdf]'"


def test_no_paths_is_a_problem_not_an_empty_set() -> None:
    with pytest.raises(DataError, match="no documents were given"):
        read_documents([])


# --- chunking -----------------------------------------------------------------------------

def test_the_span_check_finds_what_it_looks_for() -> None:
    """span_problems fails a gap, an overlap, a wrong text and untrimmed whitespace."""
    doc = Document(id="d", text="aaa bbb ccc", lang="en", format="txt")
    good = [Chunk("d", 0, 7, "aaa bbb", None, 0), Chunk("d", 8, 11, "ccc", None, 1)]
    assert span_problems(doc, good) == []
    assert span_problems(doc, good[:1]) != []  # "ccc" left out
    assert span_problems(doc, [good[0], Chunk("d", 4, 11, "bbb ccc", None, 1)]) != []
    assert span_problems(doc, [Chunk("d", 0, 11, "aaa bbb cc", None, 0)]) != []
    assert span_problems(doc, [Chunk("d", 0, 4, "aaa ", None, 0), good[1]]) != []


def test_markdown_chunks_follow_sections_and_record_their_path() -> None:
    text = ("Preface without a heading.\n\n# Install\n\n## Linux\n\n"
            + "\n\n".join([EN] * 8) + "\n\n## Windows\n\nRun the installer.\n\n"
            "# Use\n\n```sh\n# run it\ntool --help\n```\n")
    doc = Document(id="guide.md", text=text, lang="en", format="md")
    chunks = chunked(doc)
    assert [c.heading for c in chunks] == [None, "Install > Linux", "Install > Linux",
                                           "Install > Windows", "Use"]
    assert chunks[1].text.startswith("# Install\n\n## Linux\n\nThe installer")  # no lone heading
    assert chunks[1].text.endswith("starts.") and chunks[2].text.startswith("The installer")
    assert chunks[4].text.endswith("tool --help\n```")  # the fenced comment is no section


def test_html_chunks_follow_the_headings_recorded_at_extraction(tmp_path: Path) -> None:
    body = "".join(f"<p>{EN}</p>" for _ in range(6))
    (tmp_path / "page.html").write_text(
        f"<h1>Guide</h1><h2>Install</h2>{body}<h2>Use</h2><p>Run it.</p><h3>Flags</h3>"
        "<p>Pass <code>-v</code> for more output.</p>", encoding="utf-8")
    doc = read_one(tmp_path / "page.html")
    chunks = chunked(doc, max_chars=800)
    assert [c.heading for c in chunks] == ["Guide > Install"] * 2 + [
        "Guide > Use", "Guide > Use > Flags"]
    assert chunks[0].text.startswith("Guide\n\nInstall\n\n")
    assert [c.text for c in chunks[-2:]] == ["Use\n\nRun it.",
                                             "Flags\n\nPass -v for more output."]


@pytest.mark.parametrize("text", [ZH, JA])
def test_chinese_and_japanese_without_spaces_are_cut_at_sentence_ends(text: str) -> None:
    doc = Document(id="cjk.txt", text=text, lang="zh", format="txt")
    chunks = chunked(doc, max_chars=300, min_chars=50)
    assert len(chunks) >= 8 and all(len(c.text) > 250 for c in chunks[:-1])
    assert all(c.text[-1] in "。！" for c in chunks)  # each chunk holds whole sentences


def test_cjk_text_without_punctuation_is_cut_between_characters() -> None:
    text = "安装程序会把软件复制到您的主目录" * 100
    chunks = chunked(Document(id="z", text=text, lang="zh", format="txt"))
    assert [len(c.text) for c in chunks] == [1200, 400]


def test_a_long_paragraph_is_cut_at_sentence_ends_never_inside_a_word() -> None:
    text = " ".join([EN, DE, ES] * 12)  # one paragraph, 7,523 characters
    doc = Document(id="long.txt", text=text, lang="en", format="txt")
    chunks = chunked(doc)
    assert len(chunks) == 7 and all(len(c.text) > 1100 for c in chunks[:-1])
    assert all(c.text[-1] == "." for c in chunks)
    words = re.compile(r"\S+")
    assert [w for c in chunks for w in words.findall(c.text)] == words.findall(text)


def test_a_sentence_longer_than_a_chunk_is_cut_at_a_space_then_anywhere() -> None:
    text = "word " * 300 + "x" * 2500
    chunks = chunked(Document(id="w", text=text, lang="en", format="txt"))
    assert [c.text.split(" ")[-1] for c in chunks] == ["word", "word"] + ["x" * 1200] + [
        "x" * 650] * 2  # the word longer than a chunk is cut; its short tail shares the rest


def test_a_short_tail_joins_its_neighbour_in_its_section() -> None:
    para = "A sentence of about fifty characters, give or take."  # 51
    text = "\n\n".join([para] * 23 + ["Tail."])  # 23 paragraphs fill one chunk, then a tail
    chunks = chunked(Document(id="t", text=text, lang="en", format="txt"))
    assert len(chunks) == 1 or all(len(c.text) >= 200 for c in chunks)
    assert chunks[-1].text.endswith("\n\nTail.")
    text = "\n\n".join([para] * 60 + ["Tail."])
    chunks = chunked(Document(id="t", text=text, lang="en", format="txt"))
    assert all(len(c.text) >= 200 for c in chunks) and chunks[-1].text.endswith("Tail.")
    # A short section stays its own chunk: a tail never crosses a heading.
    doc = Document(id="m.md", text=f"# A\n\n{EN}\n\n# B\n\nShort.", lang="en", format="md")
    assert [c.text for c in chunked(doc)][-1] == "# B\n\nShort."


def test_chunking_is_deterministic(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\n" + "\n\n".join([EN, ZH, DE] * 5), encoding="utf-8")
    (tmp_path / "b.html").write_text(f"<h1>B</h1><p>{JA}</p>", encoding="utf-8")
    first = [chunk_document(d) for d in read_documents([tmp_path])]
    again = [chunk_document(d) for d in read_documents([tmp_path])]
    assert first == again and sum(map(len, first)) > 5


def test_random_texts_keep_every_invariant() -> None:
    """Spans, order, coverage and the size bound, on texts mixing every kind of cut."""
    pieces = ["word", "词语", "。", ". ", "! ", "\n", "\n\n", " ", "\u3000", "，", "# H\n",
              "## G\n", "x" * 40, "e\u0301", "\r\n"]
    rng = random.Random(35)
    for _ in range(400):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 300)))
        max_chars = rng.randint(1, 200)
        doc = Document(id="r", text=text, lang="en", format=rng.choice(["md", "txt"]))
        chunked(doc, max_chars=max_chars, min_chars=rng.randint(0, max_chars // 2))


def test_bad_sizes_are_config_errors() -> None:
    doc = Document(id="d", text=EN, lang="en", format="txt")
    with pytest.raises(ConfigError, match=r"Got max_chars=0\. Must be a whole number"):
        chunk_document(doc, max_chars=0)
    with pytest.raises(ConfigError, match=r"Got min_chars=600\. .* at most 500"):
        chunk_document(doc, max_chars=1000, min_chars=600)


def test_the_public_names_are_sorted_and_documented() -> None:
    names = assay.generate.__all__
    assert len(set(names)) == len(names) and all(hasattr(assay.generate, n) for n in names)
    assert [n for n in names if n.isupper()] == sorted(n for n in names if n.isupper())
    undocumented = [n for n in names if (inspect.isclass(obj := getattr(assay.generate, n))
                                         or inspect.isfunction(obj)) and not obj.__doc__]
    assert undocumented == []
