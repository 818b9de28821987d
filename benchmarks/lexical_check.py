"""Lexical metrics against the reference scripts on ~2,000 answer / ground-truth pairs.

Pairs: TruthfulQA (every correct and incorrect answer against the best answer), HaluEval QA
(right against hallucinated answers, both ways) and RGB zh (answer against fake answer), from
``../shared/data``. Prints, as figures:

- f1_score / exact_match against the SQuAD v1.1 evaluation script's functions (inlined below):
  rows that agree, and the rows that differ, by cause (Unicode punctuation or CJK text, which
  the SQuAD script leaves whole);
- rouge_l against rouge-score (``use_stemmer=True``) on the ASCII rows: rows that agree;
- the accent probe: every ``e`` of both texts of each ASCII row written ``é``; the share of rows
  whose rouge_l is unchanged, for this version and for version 1 (reproduced below), and the
  cafe / café pair. (Version 2 is not at 100%: where the Porter stemmer itself writes an ``e``,
  "filing" -> "file", the accented text's "filés" -> "filé" no longer matches it.);
- rows whose ground truth has no tokens (unscored since version 2), and empty answers;
- rows/s of each metric (one pass, in process).

    .venv/bin/python benchmarks/lexical_check.py            # 2,000 pairs
    .venv/bin/python benchmarks/lexical_check.py --n 500
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import re
import string
import time
from collections import Counter
from pathlib import Path

from rouge_score import rouge_scorer

from assay.data import Row
from assay.metrics import REGISTRY, ScoreContext
from assay.metrics.lexical._normalize import _CJK, normalize_tokens

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
LEXICAL = ("f1_score", "exact_match", "bleu_score", "rouge_l")


# --- SQuAD v1.1 evaluate-v1.1.py: normalize_answer, f1_score, exact_match_score -------------

def squad_normalize(s: str) -> str:
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def squad_f1(prediction: str, truth: str) -> float:
    p, t = squad_normalize(prediction).split(), squad_normalize(truth).split()
    common = sum((Counter(p) & Counter(t)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(p), common / len(t)
    return 2 * precision * recall / (precision + recall)


def squad_em(prediction: str, truth: str) -> float:
    return float(squad_normalize(prediction) == squad_normalize(truth))


# --- rouge_l version 1 (before one tokeniser per run), for the accent probe ----------------

_V1_ROUGE = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)


def _lcs_f(hyp: list[str], ref: list[str]) -> float:
    if not hyp or not ref:
        return float(hyp == ref)
    prev = [0] * (len(ref) + 1)
    for h in hyp:
        cur = [0]
        for j, r in enumerate(ref, start=1):
            cur.append(prev[j - 1] + 1 if h == r else max(prev[j], cur[j - 1]))
        prev = cur
    lcs = prev[-1]
    if lcs == 0:
        return 0.0
    p, r = lcs / len(hyp), lcs / len(ref)
    return 2 * p * r / (p + r)


def rouge_v1(hyp: str, ref: str) -> float:
    if _CJK.search(hyp + ref) or any(ch.isalnum() and not ch.isascii() for ch in hyp + ref):
        return round(_lcs_f(normalize_tokens(hyp), normalize_tokens(ref)), 4)
    return round(_V1_ROUGE.score(ref, hyp)["rougeL"].fmeasure, 4)


# --- data --------------------------------------------------------------------------------

def pairs(n: int) -> list[tuple[str, str, str]]:
    """(source, answer, ground truth) pairs, at most ``n``."""
    truthful: list[tuple[str, str, str]] = []
    with (DATA / "truthfulqa" / "TruthfulQA_shared.csv").open(encoding="utf-8") as f:
        for rec in csv.DictReader(f):
            for col in ("Correct Answers", "Incorrect Answers"):
                truthful += [("truthfulqa", a.strip(), rec["Best Answer"])
                             for a in rec[col].split(";") if a.strip()]
    halu: list[tuple[str, str, str]] = []
    for line in (DATA / "halueval" / "qa_shared.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        right, wrong = rec["right_answer"], rec["hallucinated_answer_one_turn"]
        halu += [("halueval", wrong, right), ("halueval", right, wrong)]
    zh: list[tuple[str, str, str]] = []
    for line in (DATA / "rgb" / "zh_fact.json").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if isinstance(rec.get("answer"), (str, int)):
            zh.append(("rgb_zh", str(rec["fakeanswer"]), str(rec["answer"])))
    halu, zh = halu[: n * 3 // 10], zh[: n // 10]
    return truthful[: n - len(halu) - len(zh)] + halu + zh


def score_all(name: str, rows: list[Row], lang: str = "en") -> tuple[list[float | None], float]:
    metric, ctx = REGISTRY[name], ScoreContext(lang=lang)  # type: ignore[arg-type]

    async def run() -> list[float | None]:
        return [(await metric.score(r, ctx)).value for r in rows]

    started = time.perf_counter()
    values = asyncio.run(run())
    return values, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="pairs to check (default 2000)")
    args = parser.parse_args()
    data = pairs(args.n)
    rows = [Row(id=str(i), line=i, answer=a, ground_truth=t) for i, (_, a, t) in enumerate(data)]
    print(f"{len(rows)} pairs: " + ", ".join(f"{k} {v}" for k, v in
                                               Counter(s for s, _, _ in data).items()))
    values = {}
    for name in LEXICAL:
        values[name], secs = score_all(name, rows)
        print(f"  {name:12s} {len(rows) / secs:10,.0f} rows/s")
    no_ref = sum(v is None for v in values["f1_score"])
    print(f"ground truth with no tokens (unscored): {no_ref}; empty answers: "
          f"{sum(not a.strip() for _, a, _ in data)}")

    for name, ref_fn in (("f1_score", squad_f1), ("exact_match", squad_em)):
        causes: Counter[str] = Counter()
        agree = scored = 0
        for (_, a, t), v in zip(data, values[name]):
            if v is None:
                continue
            scored += 1
            if v == round(ref_fn(a, t), 4):
                agree += 1
            else:
                causes["CJK text" if _CJK.search(a + t) else "Unicode punctuation"
                       if any(not c.isascii() for c in a + t) else "other"] += 1
        print(f"{name} vs SQuAD v1.1 script: {agree} of {scored} agree; differ: "
              + (", ".join(f"{k} {v}" for k, v in causes.items()) or "none"))

    reference = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    ascii_rows = [(i, a, t) for i, (_, a, t) in enumerate(data)
                  if (a + t).isascii() and values["rouge_l"][i] is not None]
    agree = sum(values["rouge_l"][i] == round(reference.score(t, a)["rougeL"].fmeasure, 4)
                for i, a, t in ascii_rows)
    print(f"rouge_l vs rouge-score (use_stemmer=True) on ASCII rows: {agree} of "
          f"{len(ascii_rows)} agree")

    accented = [Row(id=str(i), line=i, answer=a.replace("e", "é"), ground_truth=t.replace("e", "é"))
                for i, a, t in ascii_rows]
    new, _ = score_all("rouge_l", accented)
    same_new = sum(v == values["rouge_l"][i] for v, (i, _, _) in zip(new, ascii_rows))
    same_old = sum(rouge_v1(r.answer or "", r.ground_truth or "") == rouge_v1(a, t)
                   for r, (_, a, t) in zip(accented, ascii_rows))
    print(f"accent probe (every e written é), rouge_l unchanged: v2 {same_new} of "
          f"{len(ascii_rows)}, v1 {same_old} of {len(ascii_rows)}")
    pair = ("the cafe is open late today", "the cafe was open late")
    v2 = [score_all("rouge_l", [Row(id="1", line=1, answer=h, ground_truth=r)])[0][0]
          for h, r in (pair, tuple(s.replace("cafe", "café") for s in pair))]
    print(f"cafe / café pair: v2 {v2[0]} / {v2[1]}, v1 {rouge_v1(*pair)} / "
          f"{rouge_v1(*(s.replace('cafe', 'café') for s in pair))}")


if __name__ == "__main__":
    main()
