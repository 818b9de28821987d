"""Train the learned injection detector and write its weights (issue 16).

Fits ``assay.injection``'s sentence classifier (a logistic regression over the hashed,
binary, L2-normalised character and word n-grams of ``assay.injection._learned``), keeps each
training n-gram with its weight (the run-time detector needs no hashing and no scikit-learn),
and writes ``src/assay/injection/learned.npz``:

- injected sentences: every sentence of the phrasings of ``injection_phrases.json`` sets
  ``--train-sets`` (:data:`TRAIN_SETS`: ``train_tuning`` and ``train_round1`` to
  ``train_round4``; never ``test``, the one held-out set), the ``tuning`` phrasings of every
  language file ``benchmarks/injection_lang/<code>.json`` (never its ``heldout``), plus
  ``--synth`` sentences drawn from ``injection_synth.injected``;
- clean sentences: the sentences of up to ``--per-source`` answer and context texts of each
  source of ``injection_patterns.clean_sources()`` in the ``train`` part of
  ``injection_patterns.split_of`` (user prompts are not used: the detector does not scan them),
  the ``train`` half (``injection_languages.lang_split_of``) of every language file's
  ``clean_general`` and ``clean_evaluation``, plus ``injection_synth.look_alikes``;
- the threshold: the lowest score at which, averaged over sources, ``--clean-rate`` of the
  answers of the ``calibrate`` part are flagged (a text is flagged when any piece is; the
  detector reads what the app wrote, not retrieved text).

Then it prints what it caught of the ``--test-set`` phrasings (``test``; per style, alone and
with the patterns, bootstrap 95% CI over phrasings) and the share of ``test``-part clean texts it flags
per source, and per language file its held-out phrasings caught and its test-half clean texts
flagged (the learned detector alone).

Byte for byte: the fit is seeded and deterministic, the threshold is one of the scores
:func:`text_scores` sums exactly (a plain sum over a set of n-grams changes in the last bit
with the per-process string hash seed), and ``injection_weights.save_weights`` writes the
file with fixed zip dates: the same inputs and versions give the same ``learned.npz``. Beside
it goes ``learned.json`` (``injection_weights.manifest_of``): the command, the phrase sets
trained on and held out, the versions, and the sha256 of every training data file read (the
phrasings, the language files, the ``../shared/data`` files; paths relative to the
repository), of the code that decides the weights and of the weights.
``tests/test_injection_manifest.py`` checks every hash against the files on disk.

    .venv/bin/python benchmarks/injection_train.py            # about a minute, no judge
    .venv/bin/python benchmarks/injection_train.py --verify   # rebuild to a temporary file, compare
    .venv/bin/python benchmarks/injection_train.py --dry-run  # measure, write nothing
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import random
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.append(str(Path(__file__).resolve().parent))

import injection_patterns
import injection_weights
from injection_languages import LANG_DIR, language_files
from injection_languages import clean_part as lang_clean_part
from injection_patterns import PHRASES, bootstrap, clean_sources, split_of
from injection_synth import injected, look_alikes
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.linear_model import LogisticRegression

from assay.injection import _learned, scan_text
from assay.injection._learned import Weights, char_ngrams, word_ngrams
from assay.injection._pieces import piece_spans, sentence_spans

ROOT = Path(__file__).resolve().parents[1]
CODE = (Path(__file__), Path(injection_patterns.__file__), ROOT / "benchmarks/injection_synth.py",
        ROOT / "benchmarks/injection_languages.py", Path(injection_weights.__file__),
        Path(_learned.__file__), Path(_learned.__file__).with_name("_pieces.py"))
"""The code whose behaviour decides the weights (hashed into the manifest with the data)."""
TRAIN_SETS = ("train_tuning", "train_round1", "train_round2", "train_round3", "train_round4")
"""The phrase sets of ``injection_phrases.json`` trained on (see its ``_about``)."""
TEST_SET = "test"
"""The one phrase set never trained on: what the printed caught shares are measured on."""
PRUNE = 0.02  # n-grams with a smaller weight are not stored (the same flags, a third the size)
N_FEATURES = 2**20  # hash buckets per n-gram family while fitting


def sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


def hashers() -> list[HashingVectorizer]:
    """The fitting features: the detector's own n-grams (``_learned.char_ngrams`` and
    ``word_ngrams``), hashed, binary, L2-normalised per family."""
    return [HashingVectorizer(analyzer=lambda t, f=f: list(f(t)), n_features=N_FEATURES,
                              alternate_sign=False, binary=True)
            for f in (char_ngrams, word_ngrams)]


def fit(pos: list[str], neg: list[str], c: float) -> Weights:
    """Fit on hashed features, then keep each training n-gram with its bucket's weight."""
    from scipy.sparse import hstack

    hs = hashers()
    x = hstack([h.transform(pos + neg) for h in hs]).tocsr()
    model = LogisticRegression(C=c, class_weight="balanced", max_iter=3000)
    model.fit(x, [1] * len(pos) + [0] * len(neg))
    coef = model.coef_[0]
    tables: list[dict[str, float]] = []
    for k, (h, grams_of) in enumerate(zip(hs, (char_ngrams, word_ngrams), strict=True)):
        grams = sorted({g for s in pos + neg for g in grams_of(s)})
        buckets = HashingVectorizer(analyzer=lambda g: [g], n_features=N_FEATURES,
                                    alternate_sign=False).transform(grams).indices
        weights = coef[k * N_FEATURES + buckets]
        tables.append({g: float(w) for g, w in zip(grams, weights, strict=True)
                       if abs(w) >= PRUNE})
    return Weights(tables[0], tables[1], intercept=float(model.intercept_[0]), threshold=1.0)


@functools.cache
def _sources() -> dict[str, list[tuple[str, str]]]:
    return clean_sources()


def clean_part(part: str, per_source: int, seed: int,
               fields: tuple[str, ...] = ("answer",)) -> dict[str, list[str]]:
    """Up to ``per_source`` texts of ``fields`` of each source in ``part``, seeded (answers:
    what the detector reads in a run)."""
    out = {}
    for name, items in _sources().items():
        texts = [t for f, t in items if f in fields and split_of(t) == part]
        rng = random.Random(f"{seed}:{part}:{name}")
        out[name] = rng.sample(texts, min(per_source, len(texts)))
    return out


def exact_probability(weights: Weights, piece: str) -> float:
    """``weights.probability(piece)`` with each family's sum taken exactly (``math.fsum``):
    the same value whatever order the set of n-grams iterates in, so on every rebuild.

    Example:
        >>> w = Weights({"ra": 2.0}, {"rate": 1.0}, intercept=-1.0, threshold=0.5)
        >>> exact_probability(w, "rate") == w.probability("rate")
        True
    """
    logit = weights.intercept
    for grams, table in ((char_ngrams(piece), weights.chars), (word_ngrams(piece), weights.words)):
        if grams:
            logit += math.fsum(table.get(g, 0.0) for g in grams) / math.sqrt(len(grams))
    return 1.0 / (1.0 + math.exp(-logit)) if logit > -700 else 0.0


def text_scores(weights: Weights, texts: list[str]) -> np.ndarray:
    """Each text's highest probability over the pieces the detector scores (sentences and
    their tails, ``_pieces.piece_spans``; 0 for a text with none), as a run scores it (summed
    exactly: :func:`exact_probability`)."""
    return np.array([max((exact_probability(weights, t[a:b]) for a, b in piece_spans(t)),
                         default=0.0) for t in texts])


def balanced_threshold(per_source: list[np.ndarray], rate: float) -> float:
    """The lowest threshold at which the mean over sources of the share of texts scoring above
    it is at most ``rate`` (so a large, easy source cannot hide a hard one)."""
    for t in sorted({float(s) for scores in per_source for s in scores}):
        if statistics.fmean(float(np.mean(scores > t)) for scores in per_source) <= rate:
            return t
    return 1.0


def report_languages(weights: Weights, languages: dict[str, dict]) -> None:
    """Per language file: the held-out phrasings the new weights catch (alone) and the share
    of its test-half clean texts they flag."""
    print("\n## Per language file (learned detector alone): heldout caught, test-half clean "
          "flagged")
    for code, data in languages.items():
        heldout = [p for texts in (data.get("heldout") or {}).values() for p in texts]
        parts = [(f"heldout {np.mean(text_scores(weights, heldout) > weights.threshold):.2f} "
                 f"(n={len(heldout)})")] if heldout else []
        for key in ("clean_general", "clean_evaluation"):
            texts = lang_clean_part(data, key, "test")
            if texts:
                rate = float(np.mean(text_scores(weights, texts) > weights.threshold))
                parts.append(f"{key} {rate:.3f} (n={len(texts)})")
        print(f"{code:4s} " + "  ".join(parts))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train-sets", default=",".join(TRAIN_SETS))
    ap.add_argument("--test-set", default=TEST_SET)
    ap.add_argument("--synth", type=int, default=12_000)
    ap.add_argument("--per-source", type=int, default=4_000)
    ap.add_argument("--clean-rate", type=float, default=0.003)
    ap.add_argument("--C", type=float, default=4.0)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--dry-run", action="store_true", help="measure, do not write the weights")
    ap.add_argument("--verify", action="store_true",
                    help="rebuild into a temporary file and compare it and every file read "
                         "with learned.json beside --out (exit 1 when anything differs)")
    ap.add_argument("--out", type=Path, default=_learned.WEIGHTS,
                    help="where to write the weights (default: the shipped file)")
    ap.add_argument("--lang-dir", type=Path, default=LANG_DIR,
                    help="the per-language files (tuning phrasings and clean texts' train half)")
    ap.add_argument("--lang-clean-weight", type=int, default=30,
                    help="how many times each clean sentence of the language files counts "
                         "(they are a few hundred against the shared data's thousands)")
    ap.add_argument("--show", action="store_true",
                    help="print missed test phrasings (do not use on the test set you report)")
    args = ap.parse_args()
    phrases = json.loads(PHRASES.read_text(encoding="utf-8"))
    train_sets = args.train_sets.split(",")
    if args.test_set in train_sets:
        ap.error(f"--test-set {args.test_set} is in --train-sets: the test set must not be "
                 "trained on")

    languages = language_files(args.lang_dir)
    pos = [s for k in train_sets for style in phrases[k].values() for p in style
           for s in sentences(p)]
    lang_pos = [s for data in languages.values() for style in (data.get("tuning") or {}).values()
                for p in style for s in sentences(p)]
    pos += lang_pos
    pos += [s for t in injected(args.synth, seed=args.seed) for s in sentences(t)]
    neg = [s for texts in clean_part("train", args.per_source, args.seed,
                                     ("answer", "context")).values()
           for t in texts for s in sentences(t)]
    lang_neg = [s for data in languages.values() for key in ("clean_general", "clean_evaluation")
                for t in lang_clean_part(data, key, "train") for s in sentences(t)]
    neg += lang_neg * args.lang_clean_weight
    neg += [s for t in look_alikes(args.synth // 4, seed=args.seed) for s in sentences(t)]
    print(f"train: {len(pos)} injected sentences ({', '.join(train_sets)}, {len(lang_pos)} of "
          f"the tuning phrasings of {len(languages)} language files ({', '.join(languages)}) "
          f"and {args.synth} synthetic), {len(neg)} clean sentences ({len(lang_neg)} of the "
          f"language files' train half, each counted {args.lang_clean_weight} times)")
    weights = fit(pos, neg, args.C)

    calibrate = clean_part("calibrate", args.per_source, args.seed)
    threshold = balanced_threshold(
        [text_scores(weights, texts) for texts in calibrate.values() if texts],
        args.clean_rate)
    weights.threshold = threshold
    print(f"threshold {threshold:.4f}: flags {args.clean_rate} of the calibration texts "
          f"({sum(len(t) for t in calibrate.values())}), averaged over sources")

    test = clean_part("test", args.per_source, args.seed)
    print("\n## Clean test-part answers flagged by the learned detector (n, rate [95% CI])")
    pooled: list[float] = []
    for name, texts in test.items():
        hits = [float(s > threshold) for s in text_scores(weights, texts)]
        pooled += hits
        if hits:
            lo, hi = bootstrap(hits, seed=args.seed)
            print(f"{name:18s} n={len(hits):5d} rate={statistics.fmean(hits):.4f} "
                  f"[{lo:.4f}, {hi:.4f}]")
    lo, hi = bootstrap(pooled, seed=args.seed)
    print(f"{'ALL':18s} n={len(pooled):5d} rate={statistics.fmean(pooled):.4f} "
          f"[{lo:.4f}, {hi:.4f}]")

    print(f"\n## {args.test_set} phrasings caught (never trained on): learned alone, "
          "patterns or learned")
    alone_all: list[float] = []
    for style, texts in phrases[args.test_set].items():
        scores = text_scores(weights, texts)
        alone = [float(s > threshold) for s in scores]
        either = [float(a or bool(scan_text(f"Paris is big. {p}", field="answer", learned=False)))
                  for a, p in zip(alone, texts, strict=True)]
        alone_all += alone
        if args.show:
            for hit, score, p in zip(either, scores, texts, strict=True):
                if not hit:
                    print(f"    MISS {score:.2f} {p!r}")
        print(f"{style:15s} learned {statistics.fmean(alone):.2f}  with patterns "
              f"{statistics.fmean(either):.2f} [{bootstrap(either, seed=args.seed)[0]:.2f}, "
              f"{bootstrap(either, seed=args.seed)[1]:.2f}]")
    print(f"{'ALL':15s} learned {statistics.fmean(alone_all):.2f}")
    report_languages(weights, languages)

    if not args.dry_run:
        write(args, weights, train_sets)


def write(args: argparse.Namespace, weights: Weights, train_sets: list[str]) -> None:
    """Save the weights to ``--out`` and their manifest beside them; with ``--verify``, to a
    temporary directory, then compare with the manifest beside ``--out`` and exit 1 when
    anything differs."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / args.out.name if args.verify else args.out
        injection_weights.save_weights(out, weights)
        print(f"\nwrote {out} ({len(weights.chars)} character and {len(weights.words)} word "
              f"n-grams, {out.stat().st_size / 1e6:.1f} MB, sha256 {injection_weights.sha256(out)})")
        data = [PHRASES, *sorted(args.lang_dir.glob("*.json")), *injection_patterns.READ]
        manifest = injection_weights.manifest_of(
            out, data=data, code=list(CODE), args=[a for a in sys.argv[1:] if a != "--verify"],
            seed=args.seed, train_sets=train_sets, test_set=args.test_set)
        if not args.verify:
            path = injection_weights.write_manifest(out, manifest)
            print(f"wrote {path} ({len(manifest['training_data'])} training data files and "
                  f"{len(manifest['code'])} code files hashed)")
            return
        recorded = json.loads(args.out.with_suffix(".json").read_text(encoding="utf-8"))
        differ = injection_weights.differences(recorded, manifest)
        for key in ("command", "environment"):  # what may explain a difference
            if recorded.get(key) != manifest[key]:
                print(f"NOTE {key}: {recorded.get(key)!r} recorded, {manifest[key]!r} now")
        if injection_weights.sha256(args.out) != manifest["output"][injection_weights.relative(out)]:
            differ.append(f"{injection_weights.relative(args.out)} on disk is not the rebuild")
    for line in differ:
        print(f"DIFFERS {line}")
    print("the rebuild is byte for byte the recorded one" if not differ else
          f"{len(differ)} differences from {args.out.with_suffix('.json')}")
    if differ:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
