"""assay generate at scale: near-duplicates are decided incrementally (each question's n-grams
made once, never all pairs again each round) with the same answers as comparing every pair;
the TF-IDF n-grams are those of scikit-learn's ``char_wb`` analyzer; large documents say their
long phases as they happen. Speed and memory figures: ``benchmarks/generate_scale.py``."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

from assay.generate import _checks, generate
from assay.generate._checks import NGRAM_THRESHOLD, ngram_similarity
from generation_judge import generation_judge

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "docs"


def _pairwise(questions: list[tuple[str, str, str]]) -> dict[str, tuple[str, float]]:
    """The reference: every question against every kept one before it, in order."""
    kept: list[tuple[str, str, str]] = []
    found: dict[str, tuple[str, float]] = {}
    for row_id, lang, question in questions:
        best: tuple[str, float] | None = None
        for other_id, other_lang, other in kept:
            if other_lang == lang:
                s = ngram_similarity(question, other)
                if s >= NGRAM_THRESHOLD and (best is None or s > best[1]):
                    best = (other_id, round(s, 4))
        if best is None:
            kept.append((row_id, lang, question))
        else:
            found[row_id] = best
    return found


def _questions(count: int, seed: int) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    subjects = ["refund", "lamp", "charger", "order", "parcel", "invoice", "battery"]
    verbs = ["take", "cost", "last", "need", "weigh"]
    zh = ["退款需要多久", "灯的电池能用多久", "运费是多少", "发票怎么开", "包裹多久到"]
    out = []
    for i in range(count):
        if rng.random() < 0.3:
            out.append((f"q{i}", "zh", rng.choice(zh) + rng.choice(["？", "呢？", "吗？"])))
        else:
            words = [rng.choice(["How long does", "What does", "Why does"]),
                     f"the {rng.choice(subjects)}", rng.choice(verbs),
                     rng.choice(["", " in Spain", " on Sundays", " for a student"])]
            out.append((f"q{i}", "en", " ".join(words).strip() + "?"))
    return out


@pytest.mark.parametrize("batch", [1, 7, 50, 600])
def test_the_incremental_index_decides_as_every_pair_does(batch: int) -> None:
    from assay.generate._duplicates import NearDuplicateIndex

    questions = _questions(300, seed=batch)
    index = NearDuplicateIndex(None)
    found: dict[str, Any] = {}
    for start in range(0, len(questions), batch):
        found.update(asyncio.run(index.add(questions[start:start + batch])))
    assert {i: (d.of, d.similarity) for i, d in found.items()} == _pairwise(questions)
    assert all(d.method == "ngrams" for d in found.values())
    assert index.kept == len(questions) - len(found)


def test_each_question_is_turned_into_ngrams_once_over_all_rounds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = [0]
    name = "grams" if hasattr(_checks, "grams") else "_grams"  # (its name before the index)
    real = getattr(_checks, name)

    def counted(text: str) -> set[str]:
        calls[0] += 1
        return real(text)

    monkeypatch.setattr(_checks, name, counted)
    if name == "grams":
        monkeypatch.setattr("assay.generate._duplicates.grams", counted)
    # the same question every time: every round rejects all but the first as near-duplicates
    judge = generation_judge(question="How long does a full charge of the Lumo lamp take?")
    result = generate([EXAMPLES], out=tmp_path / "qa.jsonl", n=8, kinds="single",
                      max_candidates=24, judge=judge, embeddings=None, cache=False)
    passed = result.summary["kept"] + result.summary["rejected_by_reason"]["near-duplicate"]
    assert passed == 24 and result.summary["kept"] == 4  # one a language
    assert calls[0] == passed  # once each, not once a pair and round


def test_tfidf_ngrams_are_those_of_the_char_wb_analyzer() -> None:
    from sklearn.feature_extraction.text import CountVectorizer

    from assay.generate._grams import gram_counts

    texts = ["Refunds are paid within 14 days.", "今天天气很好。我们去公园散步吧！", "a",
             "", "  Mixed\tCASE  words\nand I a é ß", "¿Cuánto tarda el reembolso?"]
    expected = CountVectorizer(analyzer="char_wb", ngram_range=(2, 4)).fit_transform(texts)
    got = gram_counts(texts)
    for i in range(len(texts)):
        # the same grams counted the same (hashing keeps counts, loses the names)
        assert sorted(got[i].data.tolist()) == sorted(expected[i].data.tolist()), texts[i]


def test_large_documents_say_their_long_phases(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("assay.generate._plan.LARGE", 1000)
    said: list[str] = []
    generate([EXAMPLES], out=tmp_path / "qa.jsonl", n=2, kinds="single,multi",
             judge=generation_judge(), embeddings=None, cache=False, on_stage=said.append)
    assert said[0].startswith("cutting 4 documents (")
    assert said[1].startswith("indexing ") and "chunks (TF-IDF" in said[1]
