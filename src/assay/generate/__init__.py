"""Test sets from documents (``assay generate``): reading a user's documents, cutting them into
chunks, and having a judge write test rows from them (questions, ground truths, evidence
spans), each checked before it is kept.

:func:`generate` (and :func:`generate_async`, whose signature lists the options) reads files
and folders (``.txt .md .markdown .html .htm .pdf .jsonl``, every bad input reported at once,
each document's language detected unless given: :data:`DETECT`), cuts each document into
passages by its structure, plans candidates of five kinds (:data:`KINDS`) over them, asks the
judge to write each, checks it and writes the kept rows, the rejected candidates with the
check that failed, a manifest and a summary; it returns a :class:`GenerationResult` (the rows,
the rejected candidates, the summary and the :class:`OutputFiles` written).

Example:
    >>> KINDS
    ('single', 'multi', 'abstract', 'unanswerable', 'conversation')
    >>> sorted(GenerationResult.__dataclass_fields__)
    ['files', 'rejected', 'rows', 'run_id', 'summary']
"""

from ._candidate import judge_candidate
from ._checks import pointing_phrase
from ._documents import DETECT, read_documents
from ._generate import GenerationResult, generate, generate_async
from ._output import OutputFiles
from ._plan import KINDS, Candidate, Passage, Plan, check_kinds, indexed_plan

__all__ = ["DETECT", "KINDS", "Candidate", "GenerationResult", "OutputFiles", "Passage", "Plan",
           "check_kinds", "generate", "generate_async", "indexed_plan", "judge_candidate",
           "pointing_phrase", "read_documents"]
