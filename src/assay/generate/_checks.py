"""The checks a candidate passes before it is kept that need no judge: a question that points
at a text the reader does not have, a question in another language than its document's, and
near-duplicates of a question kept before it (compared in :mod:`._duplicates`), and a
"question" that is a sentence of the document copied (a small judge sometimes writes the
passage back instead of asking).

Near-duplicates: English questions are compared by the cosine of their sentence embeddings
(the offline MiniLM embedder: at :data:`COSINE_THRESHOLD` or more, a paraphrase asking the same
thing); MiniLM reads English only (two unrelated Chinese questions score 0.96), so questions in
other languages, and all questions when no embedder is available, are compared by the Jaccard
overlap of their character n-grams (3-grams; 2-grams for Chinese, Japanese and Korean), at
:data:`NGRAM_THRESHOLD` or more: the same question in nearly the same words.

Example:
    >>> pointing_phrase("According to the passage, how long do refunds take?", "en")
    'the passage'
    >>> pointing_phrase("上文提到的退款期限是多久？", "zh"), pointing_phrase("How long?", "en")
    ('上文', None)
    >>> wrong_language("¿Cuánto tarda el reembolso de un pedido devuelto?", "en")
    'es'
    >>> round(ngram_similarity("How long do refunds take?", "How long do refunds take"), 2)
    1.0
    >>> copied_sentence("唐代是茶文化发展的重要时期。", ["唐代是茶文化发展的重要时期。陆羽写成《茶经》。"])
    '唐代是茶文化发展的重要时期。'
    >>> copied_sentence("唐代是茶文化发展的重要时期吗？", ["唐代是茶文化发展的重要时期。"]) is None
    True
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from ._documents import UNDETERMINED
from ._spans import resembling

__all__ = ["COPY_OVERLAP", "COSINE_THRESHOLD", "NGRAM_THRESHOLD", "POINTING_PHRASES",
           "QUESTION_MARKS", "copied_sentence", "grams", "ngram_similarity", "pointing_phrase",
           "wrong_language"]

#: Two English questions this alike by embedding cosine (or more) are near-duplicates.
COSINE_THRESHOLD = 0.88
#: Two questions this alike by character n-gram Jaccard (or more) are near-duplicates.
NGRAM_THRESHOLD = 0.6
#: Phrases that point at a text the reader of a test question does not have, per language
#: (matched in any case; every language's list is checked).
POINTING_PHRASES: dict[str, tuple[str, ...]] = {
    "en": ("the passage", "this passage", "the excerpt", "this excerpt", "the text above",
           "the above text", "according to the text", "according to the document",
           "according to the article", "in this text", "in the document above",
           "mentioned above", "described above", "the given text", "the given document",
           "the provided text", "the provided document", "the given context",
           # "What is the name of the product described in the document?" (embedded judge)
           "the document", "this document", "the article", "this article", "in the text"),
    "zh": ("本文", "上文", "文中提到", "文中所述", "这段文字", "这篇文章", "该文档", "这份文档",
           "根据文档", "根据文本", "根据上述", "上述文本", "以上内容", "材料中"),
    "ja": ("この文章", "本文", "上記", "この文書", "文中", "この記事", "上の文", "文書によると"),
    "es": ("el texto anterior", "el pasaje", "según el texto", "según el documento",
           "este texto", "el fragmento", "el documento anterior", "mencionado anteriormente",
           # "¿Cuál es el producto mencionado en el texto?" (embedded judge)
           "en el texto", "el documento", "este documento", "el artículo", "este artículo"),
    "fr": ("le texte ci-dessus", "selon le texte", "le passage", "ce texte", "selon le document",
           "l'extrait"),
    "de": ("der obige text", "laut dem text", "laut text", "dieser text", "im obigen text",
           "der abschnitt oben"),
    "pt": ("o texto acima", "segundo o texto", "de acordo com o texto", "o trecho",
           "este texto"),
}
#: A question without a question mark whose words overlap a run of the passage's sentences
#: this much (F1) or more is that text copied, not a question.
COPY_OVERLAP = 0.8
#: Question marks in the scripts assay writes questions in.
QUESTION_MARKS = "?？¿؟"
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_KEEP = re.compile(r"[\w\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+")


def pointing_phrase(question: str, lang: str) -> str | None:
    """The first phrase of :data:`POINTING_PHRASES` in ``question`` (the document's language's
    list first), else ``None``.

    Example:
        >>> pointing_phrase("What is the name of the product described in the document?", "en")
        'the document'
        >>> pointing_phrase("¿Cuál es el producto mencionado en el texto?", "es")
        'en el texto'
        >>> pointing_phrase("赵州桥是什么类型的桥？", "zh") is None
        True
    """
    text = unicodedata.normalize("NFKC", question).casefold()
    primary = lang.split("-")[0]
    order = [primary, *(k for k in POINTING_PHRASES if k != primary)]
    for key in order:
        for phrase in POINTING_PHRASES.get(key, ()):
            if phrase in text:
                return phrase
    return None


def copied_sentence(question: str, passages: Sequence[str]) -> str | None:
    """The passage text ``question`` copies when it has no question mark and its words overlap
    one to three sentences of a passage by :data:`COPY_OVERLAP` or more (F1), else ``None``.
    A request without a question mark that is not a copy ("Summarise the history of X.")
    passes."""
    if any(mark in question for mark in QUESTION_MARKS):
        return None
    for text in passages:
        at = resembling(question, text, COPY_OVERLAP)
        if at is not None:
            return text[at[0]:at[1]]
    return None


def wrong_language(text: str, lang: str) -> str | None:
    """The language ``text`` is in when it is clearly not ``lang`` (py3langid, through the
    injection defence's detector), else ``None`` (the same language, too little text to tell,
    or a document of undetermined language)."""
    from ..injection import language_of

    if lang == UNDETERMINED:
        return None
    got = language_of(text)
    return got if got is not None and got != lang.split("-")[0].lower() else None


def grams(text: str) -> set[str]:
    """The character n-grams of ``text`` (3-grams; 2-grams for Chinese, Japanese and Korean),
    case, punctuation and spacing aside."""
    flat = " ".join(_KEEP.findall(unicodedata.normalize("NFKC", text).casefold()))
    n = 2 if _CJK.search(flat) else 3
    return {flat[i:i + n] for i in range(max(1, len(flat) - n + 1))}


def ngram_similarity(a: str, b: str) -> float:
    """Jaccard overlap of the character n-grams of two texts (case, punctuation and spacing
    aside)."""
    ga, gb = grams(a), grams(b)
    return len(ga & gb) / len(ga | gb) if ga or gb else 1.0
