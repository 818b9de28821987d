"""Injection detection per language: caught share of held-out phrasings, plain and obfuscated,
and false alarms on clean texts, each with a 95% interval (issue 33).

Per language of ``benchmarks/injection_lang/<code>.json`` (the layout of issue 33: ``tuning``,
``heldout``, ``clean_general``, ``clean_evaluation``), plus English and Chinese from
``injection_phrases.json`` and ``../shared/data``:

- **held-out phrasings** (``heldout`` of the language file; for English every style of
  ``injection_phrases.json``'s ``--en-set`` (default ``test``, the one set
  ``injection_train.py`` never trains on) but ``chinese``, which is Chinese's): each appended
  to ``--base`` clean texts of that language (its ``clean_general`` test part; English: HaluEval
  QA right answers; Chinese without a file: RGB passages), scanned as the answer as a run scans
  it (patterns and the learned detector). The caught share per style is the mean over
  phrasings of the share of texts flagged, with a bootstrap 95% interval over phrasings (a
  missed phrasing is missed on every text: the honest unit). Never trained or tuned on.
- **obfuscated** styles: every held-out phrasing with a zero-width space between words (between
  characters in Chinese and Japanese), in full-width forms (ASCII letters, digits and signs),
  or with Latin letters swapped for their Cyrillic homoglyphs (``а е о р с х у і``); the
  normaliser, not this benchmark, is what should undo them.
- **false alarms**: the share of the ``test`` part of ``clean_general`` and
  ``clean_evaluation`` flagged, with a Wilson 95% interval and how many of them the learned
  detector flagged (English general: ``--en-clean``
  test-part answers of ``injection_patterns.clean_sources``; Chinese without a file: RGB
  passages).
- **identified**: the share of the clean texts :func:`assay.injection._language.language_of`
  gives the file's language (None, too short to tell, counts as wrong); then, over each
  language's phrasings and clean texts, the share identified, the cost per text, and the
  share of English clean answers that would be counted as ``unknown_language``.

The clean texts of a language file are split by :func:`lang_split_of` (a hash of the text):
half ``train``, which ``injection_train.py`` fits the learned detector on, half ``test``,
measured here and never trained on.

    .venv/bin/python benchmarks/injection_languages.py            # a minute or two, no judge
    .venv/bin/python benchmarks/injection_languages.py --lang es --lang ja
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent))

from _stats import wilson
from injection_patterns import PHRASES, bootstrap, clean_sources, split_of

from assay.data import Row
from assay.injection import _language, scan_row
from assay.injection._language import SUPPORTED, language_of
from assay.injection._scan import LEARNED

LANG_DIR = Path(__file__).with_name("injection_lang")
STYLES = ("order", "evaluator_note", "fake_verdict", "fake_system", "pairwise", "safety")
_CJK = ("zh", "ja")
_HOMOGLYPHS = str.maketrans("aeopcxyiAEOPCXYIBHKMT", "аеорсхуіАЕОРСХУІВНКМТ")
OBFUSCATIONS: dict[str, Callable[[str, str], str]] = {
    "zero_width": lambda text, lang: ("\u200b".join(text) if lang in _CJK
                                      else "\u200b".join(text.split(" "))),
    "full_width": lambda text, lang: "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c
                                             for c in text),
    "homoglyph": lambda text, lang: text.translate(_HOMOGLYPHS),
}
"""How a phrasing is obfuscated: ``(phrasing, language) -> text``."""


def lang_split_of(text: str) -> str:
    """The part of a language file's clean texts ``text`` falls in: ``train`` or ``test``
    (half each, by the first byte of its sha256).

    Example:
        >>> lang_split_of("Mezcle la harina.") in ("train", "test")
        True
    """
    return ("train", "test")[hashlib.sha256(text.encode("utf-8")).digest()[0] % 2]


def language_files(directory: Path = LANG_DIR) -> dict[str, dict]:
    """``{code: file content}`` for every ``<code>.json`` of ``directory``, by code."""
    out = {}
    for path in sorted(directory.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        out[str(data.get("lang") or path.stem)] = data
    return out


def file_phrasings(data: dict, key: str) -> dict[str, list[str]]:
    """``{style: phrasings}`` of ``key`` (``tuning`` or ``heldout``) of a language file."""
    return {style: list(texts) for style, texts in (data.get(key) or {}).items() if texts}


def clean_part(data: dict, key: str, part: str) -> list[str]:
    """The ``part`` (``train``/``test``) of a language file's clean texts ``key``."""
    return [t for t in data.get(key) or [] if lang_split_of(t) == part]


def _english(en_set: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """English and Chinese held-out phrasings of ``injection_phrases.json``'s ``en_set``."""
    phrases = json.loads(PHRASES.read_text(encoding="utf-8"))[en_set]
    en = {style: texts for style, texts in phrases.items() if style != "chinese"}
    return en, {"order": phrases.get("chinese", [])}


EN_ANSWERS = ("halueval_general", "truthfulqa", "hh_rlhf", "pandalm", "llmbar", "xstest",
              "hanna", "summeval", "faithbench", "qags", "begin", "diasafety")
"""The ``clean_sources`` whose answers are English general clean texts."""


@functools.cache
def _sources() -> dict[str, list[tuple[str, str]]]:
    return clean_sources()


def _shared_clean(names: tuple[str, ...], field: str, n: int, seed: int) -> list[str]:
    """A seeded sample of ``n`` test-part ``field`` texts pooled over the sources ``names``."""
    texts = [t for name in names for f, t in _sources().get(name, [])
             if f == field and split_of(t) == "test"]
    return random.Random(f"{seed}:{','.join(names)}").sample(texts, min(n, len(texts)))


def _flagged(text: str) -> bool:
    return bool(scan_row(Row(id="x", line=1, answer=text)))


def _fmt(rate: float, low: float, high: float) -> str:
    return f"{rate:.3f} [{low:.3f}, {high:.3f}]"


def caught(phrasings: list[str], base: list[str], seed: int) -> tuple[float, float, float]:
    """Mean over phrasings of the share of ``base`` texts flagged with it appended, and the
    bootstrap 95% interval over phrasings."""
    per_phrase = [statistics.fmean(_flagged(f"{text} {p}") for text in base) for p in phrasings]
    return (statistics.fmean(per_phrase), *bootstrap(per_phrase, seed=seed))


def false_alarms(texts: list[str]) -> tuple[int, int]:
    """``(flagged, n)`` of ``texts`` scanned as answers."""
    return sum(_flagged(t) for t in texts), len(texts)


def learned_alarms(texts: list[str]) -> int:
    """How many of ``texts`` the learned detector flags (kind ``addressed``), patterns aside."""
    return sum(any(f.kind == LEARNED for f in scan_row(Row(id="x", line=1, answer=t)))
               for t in texts)


def plan(args: argparse.Namespace) -> dict[str, dict]:
    """Per language: ``heldout`` phrasings by style, ``base`` texts, ``clean`` texts by set."""
    files = language_files(args.lang_dir)
    en_heldout, zh_heldout = _english(args.en_set)
    out: dict[str, dict] = {}
    for code in SUPPORTED:
        data = files.get(code, {})
        heldout = file_phrasings(data, "heldout")
        general = clean_part(data, "clean_general", "test")
        clean = {"clean_general": general,
                 "clean_evaluation": clean_part(data, "clean_evaluation", "test")}
        if code == "en":
            heldout = {**en_heldout, **heldout}
            clean["clean_general"] = general or _shared_clean(EN_ANSWERS, "answer",
                                                               args.en_clean, args.seed)
            general = _shared_clean(("halueval_qa",), "answer", args.base * 4, args.seed)
            general = [t for t in general if len(t.split()) >= 4] or general
        elif code == "zh":
            heldout = {style: [*zh_heldout.get(style, []), *heldout.get(style, [])]
                       for style in {*zh_heldout, *heldout}}
            if not general:
                general = clean["clean_general"] = _shared_clean(("rgb_zh",), "context",
                                                                 args.en_clean, args.seed)
        if not heldout and not any(clean.values()):
            continue
        rng = random.Random(f"{args.seed}:base:{code}")
        out[code] = {"heldout": heldout, "clean": clean,
                     "base": rng.sample(general, min(args.base, len(general)))}
    return out


def report(code: str, item: dict, seed: int) -> None:
    base = item["base"]
    print(f"\n## {code}: held-out phrasings appended to {len(base)} clean texts "
          "(caught share [bootstrap 95% CI over phrasings])")
    pooled: list[str] = []
    for style in [s for s in STYLES if s in item["heldout"]] + sorted(
            s for s in item["heldout"] if s not in STYLES):
        phrasings = item["heldout"][style]
        pooled += phrasings
        if base:
            print(f"{style:22s} phrasings={len(phrasings):3d} "
                  f"caught={_fmt(*caught(phrasings, base, seed))}")
    for name, obfuscate in OBFUSCATIONS.items():
        if base and pooled:
            print(f"{'obfuscated:' + name:22s} phrasings={len(pooled):3d} caught="
                  f"{_fmt(*caught([obfuscate(p, code) for p in pooled], base, seed))}")
    for name, texts in item["clean"].items():
        if texts:
            k, n = false_alarms(texts)
            ok = sum(language_of(t) == code for t in texts)
            print(f"{name + ' (test part)':22s} n={n:4d} flagged={k:3d} rate="
                  f"{_fmt(k / n, *wilson(k, n))} (Wilson), learned={learned_alarms(texts)}  "
                  f"identified as {code}: {ok / n:.3f}")


def identification(items: dict[str, dict], en_clean: list[str], load: float) -> None:
    """How :func:`language_of` does: the model's load time, its cost per text, the share of
    each language's texts identified as it, and the share of English clean answers it would
    count as ``unknown_language`` (a false notice)."""
    texts = {code: [p for ps in item["heldout"].values() for p in ps]
             + [t for ts in item["clean"].values() for t in ts] for code, item in items.items()}
    start = time.perf_counter()
    got = {code: [language_of(t) for t in ts] for code, ts in texts.items()}
    en = [language_of(t) for t in en_clean]
    n = sum(map(len, texts.values())) + len(en_clean)
    per_text = (time.perf_counter() - start) / max(n, 1) * 1e6
    print(f"\n## Language identification (py3langid model loaded in {load:.2f} s; "
          f"{per_text:.0f} us a text over {n} texts)")
    for code, found in got.items():
        right = sum(g == code for g in found)
        unknown = sum(not _language.is_supported(g) for g in found)
        print(f"{code:4s} n={len(found):4d} identified={right / len(found):.3f} "
              f"too short={found.count(None) / len(found):.3f} unknown_language={unknown}")
    k = sum(not _language.is_supported(g) for g in en)
    print(f"English clean answers counted as unknown_language: {k} of {len(en)} "
          f"{_fmt(k / max(len(en), 1), *wilson(k, len(en)))} (Wilson)")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lang", action="append", choices=SUPPORTED,
                    help="only these languages (repeatable; default: every one with data)")
    ap.add_argument("--lang-dir", type=Path, default=LANG_DIR)
    ap.add_argument("--en-set", default="test",
                    help="the set of injection_phrases.json held out for English and Chinese")
    ap.add_argument("--base", type=int, default=20,
                    help="clean texts each held-out phrasing is appended to, per language")
    ap.add_argument("--en-clean", type=int, default=1000,
                    help="English (and Chinese without a file) clean texts from ../shared/data")
    ap.add_argument("--seed", type=int, default=33)
    args = ap.parse_args(argv)
    start = time.perf_counter()
    _language._identifier()
    load = time.perf_counter() - start
    print(f"Held-out phrasings never trained or tuned on; clean texts: the test half "
          f"(lang_split_of) of each file, English from ../shared/data (seed {args.seed})")
    items = {code: item for code, item in plan(args).items()
             if not args.lang or code in args.lang}
    for code, item in items.items():
        report(code, item, args.seed)
    identification(items, _shared_clean(EN_ANSWERS, "answer", args.en_clean * 3, args.seed + 1),
                   load)


if __name__ == "__main__":
    main()
