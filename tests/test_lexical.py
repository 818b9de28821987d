"""Lexical metrics against the ground truth: token F1, exact match, BLEU and ROUGE-L."""

from __future__ import annotations

import asyncio

import pytest

from assay import JudgeOptions, evaluate
from assay.data import Row
from assay.metrics import REGISTRY, ScoreContext
from assay.metrics.lexical import BleuScore, ExactMatch, F1Score, RougeL, token_f1
from assay.metrics.lexical._common import NO_REFERENCE
from assay.metrics.lexical._normalize import normalize_text, normalize_tokens
from assay.metrics.lexical._tokenize import RougeTokenizer

LEXICAL = ("f1_score", "exact_match", "bleu_score", "rouge_l")


def score(metric: object, answer: str, truth: str, lang: str = "en") -> float:
    row = Row(id="1", line=1, answer=answer, ground_truth=truth)
    ctx = ScoreContext(lang=lang)  # type: ignore[arg-type]
    result = asyncio.run(metric.score(row, ctx))  # type: ignore[attr-defined]
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
    ("北京 大学", "北京大学", 1.0),       # whitespace between CJK characters does not count
    ("北京大学", "北 京 大 学。", 1.0),
    ("iPhone手机", "iphone 手机", 1.0),
    ("北京 大学", "北京大", 0.0),
    ("new york", "newyork", 0.0),         # between Latin words it does
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


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_rouge_l_chinese(lang: str) -> None:
    # per-character LCS 帐篷轻 = 3; P = 3/4, R = 3/7, F = 18/33 (in either run language)
    row = Row(id="1", line=1, answer="帐篷很轻", ground_truth="这个帐篷非常轻")
    result = asyncio.run(RougeL().score(row, ScoreContext(lang=lang)))  # type: ignore[arg-type]
    assert result.value == 0.5455
    assert result.details == {"tokenizer": lang}
    assert score(RougeL(), "帐篷很轻", "帐篷很轻") == 1.0


def test_rouge_l_other_scripts_are_not_dropped() -> None:
    # rouge-score's own tokenizer keeps only [a-z0-9]: identical Russian texts scored 0.
    assert score(RougeL(), "привет мир", "привет мир") == 1.0
    assert score(RougeL(), "привет мир", "привет друг") == 0.5
    assert score(RougeL(), "καλημέρα κόσμε", "καλημέρα") == pytest.approx(0.6667)


def test_rouge_l_accented_letters_use_the_same_tokenizer_and_stemmer() -> None:
    # One accented letter switched the row to unstemmed whitespace words: 0.667 vs 0.444.
    plain = score(RougeL(), "the cafe opens at noon", "the cafe opened at noon today")
    accented = score(RougeL(), "the café opens at noon", "the café opened at noon today")
    assert plain == accented == 0.9091  # "opens" / "opened" stem alike: LCS 5 of 5 and 6
    assert score(RougeL(), "cafés", "café") == 1.0  # accented words are stemmed too
    assert score(RougeL(), "naïve résumés", "naïve résumé") == 1.0
    # decomposed accents (NFD) tokenise as the composed ones
    assert score(RougeL(), "cafe\u0301 au lait", "café au lait") == 1.0


@pytest.mark.parametrize("answer, truth", [
    ("the cafe opens at noon", "the cafe opened at noon today"),
    ("The tents were pitched quickly near the lakes", "tent pitched quickly by a lake"),
    ("generalizations of relational databases", "generalization relations database"),
    ("she was elected senator", "elected senators"),
])
def test_rouge_l_accents_change_no_score(answer: str, truth: str) -> None:
    # accented words stem as their unaccented forms do: every "e" written "é" scores the same
    plain = score(RougeL(), answer, truth)
    assert score(RougeL(), answer.replace("e", "é"), truth.replace("e", "é")) == plain
    assert score(RougeL(), answer.replace("e", "è"), truth.replace("e", "è")) == plain


def test_rouge_l_one_tokenizer_per_run_whatever_the_row_holds() -> None:
    assert RougeTokenizer("en").tokenize("The Cafés, OPENED!") == ["the", "café", "open"]
    assert RougeTokenizer("zh").tokenize("The Cafés, OPENED!") == ["the", "cafés", "opened"]
    # a zh run does not stem, whatever the row holds; an en run stems
    assert score(RougeL(), "opens", "opened", lang="zh") == 0.0
    assert score(RougeL(), "opens", "opened", lang="en") == 1.0
    with pytest.raises(ValueError, match="Got lang='fr'. Must be one of"):
        RougeTokenizer("fr")  # type: ignore[arg-type]


@pytest.mark.parametrize("answer, truth", [
    ("the cat sat on the mat", "the cat is on the mat"),
    ("The tents were pitched quickly; running water nearby.", "Tent pitched quick, run water!"),
    ("It's 1,300 g (about 2.9 lb) -- e.g. ultra_light", "it weighs 1300 g, 2.9 lbs"),
    ("Generalizations of relational databases", "generalization relations database"),
    ("", "the cat"),
    ("...", "the cat"),
])
def test_rouge_l_matches_rouge_score_on_ascii(answer: str, truth: str) -> None:
    from rouge_score import rouge_scorer

    reference = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    assert score(RougeL(), answer, truth) == round(
        reference.score(truth, answer)["rougeL"].fmeasure, 4)


# --- edge cases shared by the four metrics ------------------------------------------------


@pytest.mark.parametrize("name", LEXICAL)
def test_dot_against_the_is_unscored_with_the_reason(name: str) -> None:
    row = Row(id="1", line=1, answer=".", ground_truth="the")
    result = asyncio.run(REGISTRY[name].score(row, ScoreContext()))
    assert result.value is None and result.error == NO_REFERENCE
    assert result.details == {"ground_truth": "the"}


@pytest.mark.parametrize("name", LEXICAL)
def test_empty_and_blank_answers_score_zero(name: str) -> None:
    for answer in ("", "  "):
        assert score(REGISTRY[name], answer, "The tent weighs 1.3 kg.") == 0.0


def test_a_run_counts_empty_answers_and_skips_only_missing_fields() -> None:
    records = [
        {"id": "right", "answer": "Paris", "ground_truth": "Paris"},
        {"id": "empty", "answer": "", "ground_truth": "Paris"},       # an answer: scores 0
        {"id": "blank", "answer": "  ", "ground_truth": "Paris"},     # as does a blank one
        {"id": "no-truth", "answer": "Paris"},                        # does not apply
        {"id": "dot", "answer": ".", "ground_truth": "the"},          # nothing to compare
    ]
    res = evaluate(records, metrics=",".join(LEXICAL), judging=JudgeOptions(cache=None))
    by_id = {r["id"]: r for r in res.rows}
    for name in LEXICAL:
        assert by_id["empty"][name]["value"] == 0.0
        assert by_id["blank"][name]["value"] == 0.0
        assert by_id["no-truth"][name]["error"] == "does not apply: row has no ground_truth"
        assert by_id["dot"][name]["error"] == NO_REFERENCE
        agg = res.summary["metrics"][name]
        assert (agg["mean"], agg["scored"], agg["unscored"]) == (round(1 / 3, 4), 3, 2)
        assert agg["unscored_reasons"] == {"does not apply: row has no ground_truth": 1,
                                           NO_REFERENCE: 1}


def test_bleu_in_a_zh_run_tokenizes_every_row_alike() -> None:
    row = Row(id="1", line=1, answer="“tent” — light", ground_truth="“tent” — light")
    en = asyncio.run(BleuScore().score(row, ScoreContext()))
    zh = asyncio.run(BleuScore().score(row, ScoreContext(lang="zh")))
    assert (en.details, zh.details) == ({"tokenize": "13a"}, {"tokenize": "zh"})
    assert en.value == zh.value == 1.0
