"""Would a learned sentence classifier catch the injections the patterns miss? (Issue 16,
the proposed next step; nothing in assay uses it yet.)

Trains a logistic regression on character and word n-grams of single sentences: positives are
the sentences of the phrasings in ``injection_phrases.json`` sets ``tuning``, ``heldout``,
``heldout2`` and ``heldout3``; negatives the sentences of clean texts from every other
source of ``injection_patterns.clean_sources()`` (sorted names, even positions). It is tested
on the sentences of ``heldout4`` (never trained on) against clean sentences from the other
sources (odd positions): AUROC, then at the thresholds that flag 1%, 0.5% and 0.1% of those
clean sentences, the share of held-out sentences caught (bootstrap 95% CI over phrasings),
and per style the phrasings caught by the patterns or the classifier.

    .venv/bin/python benchmarks/injection_learned.py      # about a minute, no judge
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent))

from injection_patterns import PHRASES, bootstrap, clean_sources
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.pipeline import make_pipeline, make_union

from assay.injection import scan_text

TRAIN_SETS = ("tuning", "heldout", "heldout2", "heldout3")
TEST_SET = "heldout4"
_SPLIT = re.compile(r"(?<=[.!?。！？])\s+|\n+")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SPLIT.split(text) if len(s.strip()) > 3]


def main() -> None:
    phrases = json.loads(PHRASES.read_text(encoding="utf-8"))
    train_pos = [s for k in TRAIN_SETS for style in phrases[k].values() for p in style
                 for s in sentences(p)]
    sources = clean_sources()
    names = sorted(sources)

    def clean(picked: list[str]) -> list[str]:
        return [s for n in picked for _, t in sources[n][:2000] for s in sentences(t)]

    train_neg, test_neg = clean(names[::2]), clean(names[1::2])
    model = make_pipeline(
        make_union(TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), min_df=2,
                                   sublinear_tf=True),
                   TfidfVectorizer(analyzer="word", ngram_range=(1, 2), sublinear_tf=True)),
        LogisticRegression(C=4, class_weight="balanced", max_iter=2000))
    model.fit(train_pos * 20 + train_neg, [1] * (20 * len(train_pos)) + [0] * len(train_neg))
    test = [(style, p, sentences(p)) for style, ps in phrases[TEST_SET].items() for p in ps]
    pos = [s for _, _, ss in test for s in ss]
    p_pos = list(model.predict_proba(pos)[:, 1])
    p_neg = sorted(model.predict_proba(test_neg)[:, 1])
    print(f"train: {len(train_pos)} injected and {len(train_neg)} clean sentences "
          f"({', '.join(names[::2])})")
    print(f"test: {len(pos)} {TEST_SET} sentences, {len(test_neg)} clean sentences "
          f"({', '.join(names[1::2])})")
    print(f"AUROC {roc_auc_score([1] * len(p_pos) + [0] * len(p_neg), p_pos + p_neg):.4f}")
    for share in (0.01, 0.005, 0.001):
        thr = p_neg[int((1 - share) * len(p_neg))]
        caught = [1.0 if any(model.predict_proba([s])[0, 1] > thr for s in ss) else 0.0
                  for _, _, ss in test]
        lo, hi = bootstrap(caught, seed=16)
        print(f"clean sentences flagged {share:.3f} (threshold {thr:.3f}): {TEST_SET} "
              f"phrasings caught {sum(caught) / len(caught):.2f} [{lo:.2f}, {hi:.2f}]")
    thr = p_neg[int(0.999 * len(p_neg))]
    by_style: dict[str, list[float]] = {}
    for style, p, ss in test:
        hit = bool(scan_text(f"Paris is big. {p}", field="answer")) or any(
            model.predict_proba([s])[0, 1] > thr for s in ss)
        by_style.setdefault(style, []).append(1.0 if hit else 0.0)
    print("patterns or classifier (0.1% clean sentences): " + ", ".join(
        f"{style} {sum(v) / len(v):.2f}" for style, v in by_style.items()))


if __name__ == "__main__":
    main()
