"""Test sets from documents: reading a user's documents and cutting them into chunks (the
first layer of ``assay generate``; questions, ground truths and evidence spans are written
from the chunks).

:func:`read_documents` reads files and folders (``.txt .md .markdown .html .htm .pdf
.jsonl``), detects each document's language and reports every bad input at once;
:func:`chunk_document` cuts a document into passages by its structure, each a span of the
document's text.

Example:
    >>> import tempfile, pathlib
    >>> from assay.generate import chunk_document, read_documents
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "faq.md").write_text(
    ...     "# FAQ\\n\\n## Refunds\\n\\nRefunds are paid within 14 days of the return.\\n\\n"
    ...     "## Shipping\\n\\nWe ship to every country in the European Union.\\n")
    >>> [doc] = read_documents([folder / "faq.md"]).documents
    >>> doc.lang, doc.format
    ('en', 'md')
    >>> for chunk in chunk_document(doc):
    ...     assert chunk.text == doc.text[chunk.start:chunk.end]
    ...     print(chunk.index, chunk.heading, "|", chunk.text.splitlines()[-1])
    0 FAQ > Refunds | Refunds are paid within 14 days of the return.
    1 FAQ > Shipping | We ship to every country in the European Union.
"""

from ._chunks import MAX_CHARS, MIN_CHARS, Chunk, chunk_document
from ._documents import FORMATS, UNDETERMINED, Document, DocumentSet, read_documents
from ._headings import Heading

__all__ = ["FORMATS", "MAX_CHARS", "MIN_CHARS", "UNDETERMINED", "Chunk", "Document",
           "DocumentSet", "Heading", "chunk_document", "read_documents"]
