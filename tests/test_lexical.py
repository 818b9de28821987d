"""Lexical metrics against the ground truth: token F1, exact match, BLEU and ROUGE-L."""

from __future__ import annotations

import asyncio

import pytest

from assay.data import Row
from assay.metrics.lexical import BleuScore, ExactMatch, F1Score, RougeL, token_f1
from assay.metrics.lexical._normalize import normalize_text, normalize_tokens


def score(metric: object, answer: str, truth: str) -> float:
    row = Row(id="1", line=1, answer=answer, ground_truth=truth)
    result = asyncio.run(metric.score(row, None))  # type: ignore[attr-defined]
    assert result.value is not None, result.error
    return result.value


# --- normalisation ---------------------------------------------------------------------------


def test_normalize_squad_style() -> None:
    assert normalize_text("The  Eiffel-Tower, in PARIS!") == "eiffeltower in paris"
    assert normalize_text("An apple a day; the end.") == "apple day end"
    assert normalize_text("«Théâtre»") == "théâtre"  # Unicode punctuation goes too
    assert normalize_text("theatre another") == "theatre another"  # articles only as whole words


def test_normalize_tokens_splits_cjk_per_character() -> None:
    assert normalize_tokens("帐篷很轻，只有1.3kg。") == ["帐", "篷", "很", "轻", "只", "有", "13kg"]
    assert normalize_tokens("Tent 帐篷") == ["tent", "帐", "篷"]


# --- f1_score -------------------------------------------------------------------------------


@pytest.mark.parametrize("answer, truth, expected", [
    ("The Eiffel Tower.", "eiffel tower", 1.0),           # case, punctuation, article
    ("an apple", "Apple!", 1.0),
    ("The quick brown fox!", "quick brown dog", 0.6667),   # 2 of 3 each way: P = R = 2/3
    ("a red tent with two poles", "the red tent", 0.5714),  # P = 2/5, R = 1: F = 4/7
    ("go go go", "go", 0.5),                               # clipped counts: P = 1/3, R = 1
    ("blue", "green", 0.0),
    ("帐篷很轻", "帐篷重", 0.5714),                          # CJK chars: P = 2/4, R = 2/3: F = 4/7
    ("帐篷", "帐篷", 1.0),
])
def test_f1_score(answer: str, truth: str, expected: float) -> None:
    assert score(F1Score(), answer, truth) == expected


def test_token_f1_empty_after_normalisation() -> None:
    assert token_f1("The.", "a!") == 1.0   # both empty
    assert token_f1("the", "tent") == 0.0  # one empty
    assert token_f1("tent", "") == 0.0


def test_f1_is_symmetric() -> None:
    a, b = "a red tent with two poles", "the red tent"
    assert token_f1(a, b) == pytest.approx(token_f1(b, a))


# --- exact_match ------------------------------------------------------------------------------


@pytest.mark.parametrize("answer, truth, expected", [
    ("Paris", "paris.", 1.0),
    ("The Paris", "Paris", 1.0),
    ("Paris, France", "Paris", 0.0),
    ("帐篷。", "帐篷", 1.0),
    ("帐篷", "帐", 0.0),
])
def test_exact_match(answer: str, truth: str, expected: float) -> None:
    assert score(ExactMatch(), answer, truth) == expected


# --- bleu_score -------------------------------------------------------------------------------


def test_bleu_identical_is_one_and_disjoint_is_zero() -> None:
    text = "the tent weighs one point three kilograms"
    assert score(BleuScore(), text, text) == 1.0
    assert score(BleuScore(), "Paris", "Paris") == 1.0  # short sentences use the effective order
    assert score(BleuScore(), "red green blue yellow", "one two three four") == pytest.approx(0.0,
                                                                                       abs=1e-3)


def test_bleu_partial_is_between_and_ordered() -> None:
    truth = "the tent weighs one point three kilograms"
    close = score(BleuScore(), "the tent weighs one point three kg", truth)
    far = score(BleuScore(), "a tent that weighs three kilos", truth)
    assert 0.0 < far < close < 1.0


def test_bleu_uses_zh_tokenizer_for_chinese() -> None:
    row = Row(id="1", line=1, answer="这个帐篷很轻", ground_truth="这个帐篷很轻")
    result = asyncio.run(BleuScore().score(row, None))
    assert result.value == 1.0 and result.details["tokenize"] == "zh"
    # Without per-character tokens this partial match would score 0 (one token each).
    assert 0.0 < score(BleuScore(), "这个帐篷很轻便", "这个帐篷很轻") < 1.0


# --- rouge_l ----------------------------------------------------------------------------------


@pytest.mark.parametrize("answer, truth, expected", [
    ("the cat sat on the mat", "the cat sat on the mat", 1.0),
    # LCS "the cat on the mat" = 5 of 6 tokens each way
    ("the cat sat on the mat", "the cat is on the mat", 0.8333),
    # LCS 6, answer 7 tokens, truth 6: P = 6/7, R = 1, F = 12/13
    ("the cat was found under the bed", "the cat was under the bed", 0.9231),
    ("alpha beta", "gamma delta", 0.0),
])
def test_rouge_l_english(answer: str, truth: str, expected: float) -> None:
    assert score(RougeL(), answer, truth) == expected


def test_rouge_l_chinese() -> None:
    # per-character LCS 帐篷轻 = 3; P = 3/4, R = 3/7, F = 18/33
    row = Row(id="1", line=1, answer="帐篷很轻", ground_truth="这个帐篷非常轻")
    result = asyncio.run(RougeL().score(row, None))
    assert result.value == 0.5455
    assert result.details == {"tokens": "cjk"}
    assert score(RougeL(), "帐篷很轻", "帐篷很轻") == 1.0


def test_rouge_l_other_scripts_are_not_dropped() -> None:
    # rouge-score's own tokenizer keeps only [a-z0-9]: identical Russian texts scored 0.
    assert score(RougeL(), "привет мир", "привет мир") == 1.0
    assert score(RougeL(), "привет мир", "привет друг") == 0.5
    assert score(RougeL(), "καλημέρα κόσμε", "καλημέρα") == pytest.approx(0.6667)
