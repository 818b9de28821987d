"""Test sets from documents (``assay generate``): reading a user's documents, cutting them into
chunks, and having a judge write test rows from them (questions, ground truths, evidence
spans), each checked before it is kept.

:func:`generate` (and :func:`generate_async`) plans candidates of five kinds (:data:`KINDS`)
over the chunks, asks the judge to write each, checks it and writes the kept rows, the
rejected candidates with the check that failed, a manifest and a summary.

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

from ._candidate import DECLINE, REASONS
from ._checks import COSINE_THRESHOLD, NGRAM_THRESHOLD, POINTING_PHRASES
from ._chunks import MAX_CHARS, MIN_CHARS, Chunk, chunk_document
from ._documents import DETECT, FORMATS, UNDETERMINED, Document, DocumentSet, read_documents
from ._generate import GenerationResult, generate, generate_async
from ._headings import Heading
from ._output import OutputFiles
from ._plan import KINDS, Candidate, Passage, Plan, check_kinds
from ._spans import locate

__all__ = ["COSINE_THRESHOLD", "DECLINE", "DETECT", "FORMATS", "KINDS", "MAX_CHARS", "MIN_CHARS",
           "NGRAM_THRESHOLD", "POINTING_PHRASES", "REASONS", "UNDETERMINED", "Candidate",
           "Chunk", "Document", "DocumentSet", "GenerationResult", "Heading", "OutputFiles",
           "Passage", "Plan", "check_kinds", "chunk_document", "generate", "generate_async",
           "locate", "read_documents"]
