"""Train the learned injection detector and write its weights (issue 16).

Fits ``assay.injection``'s sentence classifier (a logistic regression over the hashed,
binary, L2-normalised character and word n-grams of ``assay.injection._learned``), keeps each
training n-gram with its weight (the run-time detector needs no hashing and no scikit-learn),
and writes ``src/assay/injection/learned.npz``:

- injected sentences: every sentence of the phrasings of ``injection_phrases.json`` sets
  ``--train-sets`` (not ``heldout5``, the test), the ``tuning`` phrasings of every language
  file ``benchmarks/injection_lang/<code>.json`` (never its ``heldout``), plus ``--synth``
  sentences drawn from ``injection_synth.injected``;
- clean sentences: the sentences of up to ``--per-source`` answer and context texts of each
  source of ``injection_patterns.clean_sources()`` in the ``train`` part of
  ``injection_patterns.split_of`` (user prompts are not used: the detector does not scan them),
  the ``train`` half (``injection_languages.lang_split_of``) of every language file's
  ``clean_general`` and ``clean_evaluation``, plus ``injection_synth.look_alikes``;
- the threshold: the lowest score at which, averaged over sources, ``--clean-rate`` of the
  answers of the ``calibrate`` part are flagged (a text is flagged when any piece is; the
  detector reads what the app wrote, not retrieved text).

Then it prints what it caught of the ``--test-set`` phrasings (per style, alone and with the
patterns, bootstrap 95% CI over phrasings) and the share of ``test``-part clean texts it flags
per source, and per language file its held-out phrasings caught and its test-half clean texts
flagged (the learned detector alone). Seeded: the same data gives the same weights.

Beside the weights it writes ``learned.json`` (:func:`write_manifest`): the sha256 of every
input file read (this script and the modules it draws on, the phrasings, the language files,
the ``../shared/data`` files; paths relative to the repository), of the written weights, the
seed, the command and the date. ``tests/test_injection_language.py`` checks that the shipped
weights are the manifest's: rebuilt weights without their manifest fail.
    .venv/bin/python benchmarks/injection_train.py            # about 2 minutes, no judge
    .venv/bin/python benchmarks/injection_train.py --dry-run  # measure, write nothing
"""

from __future__ import annotations

import argparse
import datetime
import functools
import hashlib
import json
import os
import random
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.append(str(Path(__file__).resolve().parent))

import injection_patterns
from injection_languages import LANG_DIR, language_files
from injection_languages import clean_part as lang_clean_part
from injection_patterns import PHRASES, bootstrap, clean_sources, split_of
from injection_synth import injected, look_alikes
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.linear_model import LogisticRegression

from assay.injection import _learned, scan_text
from assay.injection._learned import Weights, char_ngrams, word_ngrams
from assay.injection._pieces import sentence_spans

ROOT = Path(__file__).resolve().parents[1]
CODE = (Path(__file__), Path(injection_patterns.__file__), ROOT / "benchmarks/injection_synth.py",
        ROOT / "benchmarks/injection_languages.py", Path(_learned.__file__),
        Path(_learned.__file__).with_name("_pieces.py"))
"""The code whose behaviour decides the weights (hashed into the manifest with the data)."""
TRAIN_SETS = ("tuning", "heldout", "heldout2", "heldout3", "heldout4")
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


def text_scores(weights: Weights, texts: list[str]) -> np.ndarray:
    """Each text's highest probability over the pieces the detector scores (sentences and
    their tails, ``_pieces.piece_spans``; 0 for a text with none), as a run scores it."""
    return np.array([max((p for _, _, p in _learned.piece_scores(t, weights)), default=0.0)
                     for t in texts])


def balanced_threshold(per_source: list[np.ndarray], rate: float) -> float:
    """The lowest threshold at which the mean over sources of the share of texts scoring above
    it is at most ``rate`` (so a large, easy source cannot hide a hard one)."""
    for t in sorted({float(s) for scores in per_source for s in scores}):
        if statistics.fmean(float(np.mean(scores > t)) for scores in per_source) <= rate:
            return t
    return 1.0


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _relative(path: Path) -> str:
    return Path(os.path.relpath(os.path.abspath(path), ROOT)).as_posix()


def write_manifest(weights: Path, inputs: list[Path], *, seed: int, command: str,
                   note: str | None = None) -> Path:
    """Write ``learned.json`` beside ``weights``: the sha256 of each input (by path relative
    to the repository, ``../shared/data/...`` for the shared data) and of ``weights``, the seed,
    the command and the date (UTC). Returns its path."""
    manifest = {
        "_about": "How learned.npz was built: rebuild with the command; the inputs' and the "
                  "output's sha256 say whether a rebuild read the same files and wrote the same "
                  "weights (tests/test_injection_language.py checks the output's).",
        "command": command, "seed": seed,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        **({"note": note} if note else {}),
        "inputs": {_relative(p): sha256(p) for p in sorted(set(inputs), key=_relative)},
        "output": {_relative(weights): sha256(weights)},
    }
    path = weights.with_suffix(".json")
    path.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return path


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
    ap.add_argument("--test-set", default="heldout5")
    ap.add_argument("--synth", type=int, default=12_000)
    ap.add_argument("--per-source", type=int, default=4_000)
    ap.add_argument("--clean-rate", type=float, default=0.003)
    ap.add_argument("--C", type=float, default=4.0)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--dry-run", action="store_true", help="measure, do not write the weights")
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

    if args.dry_run:
        return
    np.savez_compressed(
        args.out, char_keys=np.frombuffer("\n".join(weights.chars).encode(), dtype=np.uint8),
        char_weights=np.array(list(weights.chars.values()), dtype=np.float32),
        word_keys=np.frombuffer("\n".join(weights.words).encode(), dtype=np.uint8),
        word_weights=np.array(list(weights.words.values()), dtype=np.float32),
        intercept=np.float64(weights.intercept), threshold=np.float64(threshold))
    print(f"\nwrote {args.out} ({len(weights.chars)} character and {len(weights.words)} word "
          f"n-grams, {args.out.stat().st_size / 1e6:.1f} MB)")
    inputs = [*CODE, PHRASES, *sorted(args.lang_dir.glob("*.json")), *injection_patterns.READ]
    command = " ".join(["benchmarks/injection_train.py", *sys.argv[1:]])
    print(f"wrote {write_manifest(args.out, inputs, seed=args.seed, command=command)} "
          f"({len(inputs)} inputs hashed)")


if __name__ == "__main__":
    main()
