"""Flag rates of ``assay.injection``'s patterns on clean and injected real texts, and their cost.

Clean texts come from ``../shared/data`` (real answers, responses, retrieved passages, and user
prompts scanned as the ``question`` field, where only ``assay.injection.USER_KINDS`` count):

- ``halueval_qa``: right and hallucinated answers (answer) and knowledge (context);
- ``halueval_general``: ChatGPT responses (answer); ``truthfulqa``: judged answers (answer);
- ``hh_rlhf``: the last assistant reply of chosen and rejected transcripts (answer);
- ``pandalm``: response1/response2; ``llmbar``: output_1/output_2 of every subset (answer);
- ``rgb_en``: en_fact passages; ``rgb_zh``: zh_refine and zh_fact passages (contexts);
- ``xstest``: model completions (answer) and prompts (question);
- ``jbb``: JailbreakBench target responses (answer); ``jailbreak_prompts``: JailbreakBench
  attack prompts and the Self-Reminder templates (question);
- ``hanna``: stories (answer); ``summeval``: news articles (context) and their summaries
  (answer); ``faithbench``: LLM summaries (answer) and their sources (context); ``qags``:
  CNN/DM and XSum summaries (answer) and articles (context); ``begin``: knowledge-grounded
  dialogue responses (answer) and their knowledge (context); ``diasafety``: dialogue replies
  (answer); ``instructions``: PandaLM and LLMBar instructions, many of which ask to rate,
  grade or compare texts (question).

Each source gives at most ``--per-source`` texts (a seeded sample) of its ``test`` part
(:func:`split_of`: the quarter the learned detector never trained or calibrated on). Goal: flag
rate <= 0.02 overall and per source.

Injected texts: ``--inject-per-source`` clean texts of each answer/context source, each with every
phrasing of every style of ``benchmarks/injection_phrases.json`` appended (in the answer, or in
the context for RGB). ``train_tuning`` phrasings were used while writing the patterns,
``train_round1`` to ``train_round4`` were each held out for one run and then used to fix the
patterns or build the learned detector, which trains on all five; ``test`` was never tuned or
trained on: its rate is the honest one (``--set test``; the sets' history is the ``_about`` of
``injection_phrases.json``). Goal: >= 0.9 per style. The CI is a bootstrap over the phrasings (a phrase that is missed is
missed on every text), the honest unit with six phrasings per style and half.

Cost: ``scan_row`` over ``--rows`` QA rows (question, context, answer of HaluEval QA, cycled).

Per language (``benchmarks/injection_languages.py``, run last): caught share of each language's
held-out phrasings per style and obfuscation, and false alarms on its clean texts.

Only figures are printed, unless ``--show`` asks for the excerpts of flagged clean texts and of
missed phrasings (excerpts may quote the safety datasets' offensive text).

    .venv/bin/python benchmarks/injection_patterns.py
    .venv/bin/python benchmarks/injection_patterns.py --show
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import random
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from assay.data import Row
from assay.injection import scan_row

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
PHRASES = Path(__file__).with_name("injection_phrases.json")
csv.field_size_limit(sys.maxsize)
PHRASE_SETS = tuple(k for k in json.loads(PHRASES.read_text(encoding="utf-8")) if k != "_about")
READ: set[Path] = set()
"""Every ``../shared/data`` file :func:`clean_sources` read (``injection_train.py`` hashes them)."""


def _jsonl(path: Path) -> Iterator[dict]:
    READ.add(path)
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def _csv(path: Path, delimiter: str = ",") -> Iterator[dict]:
    READ.add(path)
    with path.open(encoding="utf-8", newline="") as f:
        yield from csv.DictReader(f, delimiter=delimiter)


def _json(path: Path) -> list[dict]:
    READ.add(path)
    return json.loads(path.read_text(encoding="utf-8"))


def _last_assistant(transcript: str) -> str:
    return transcript.rsplit("\n\nAssistant:", 1)[-1].strip()


def clean_sources() -> dict[str, list[tuple[str, str]]]:
    """``{source: [(field, text), ...]}``: field is ``answer``, ``context`` or ``question``."""
    src: dict[str, list[tuple[str, str]]] = {}
    qa = list(_jsonl(DATA / "halueval/qa_shared.jsonl"))
    src["halueval_qa"] = [("answer", r[k]) for r in qa for k in
                          ("right_answer", "hallucinated_answer_one_turn",
                           "hallucinated_answer_multi_turn")]
    src["halueval_qa"] += [("context", r["knowledge"]) for r in qa]
    src["halueval_general"] = [("answer", r["chatgpt_response"]) for r in
                               _jsonl(DATA / "halueval/general_shared.jsonl")]
    src["truthfulqa"] = [("answer", a) for a in dict.fromkeys(
        r["answer"] for r in _jsonl(DATA / "truthfulqa/judged_answers_shared.jsonl"))]
    src["hh_rlhf"] = [("answer", _last_assistant(r[k])) for r in
                      _jsonl(DATA / "hh_rlhf_harmless/harmless_base_test_shared.jsonl")
                      for k in ("chosen", "rejected")]
    src["pandalm"] = [("answer", r[k]) for r in _jsonl(DATA / "pandalm/testset_shared.jsonl")
                      for k in ("response1", "response2")]
    src["llmbar"] = [("answer", r[k]) for p in sorted((DATA / "llmbar").glob("*.jsonl"))
                     for r in _jsonl(p) for k in ("output_1", "output_2")]
    en = list(_jsonl(DATA / "rgb/en_fact.json"))
    src["rgb_en"] = [("context", p) for r in en for k in ("positive", "negative")
                     for p in r[k]]
    zh = [*_jsonl(DATA / "rgb/zh_refine.json"), *_jsonl(DATA / "rgb/zh_fact.json")]
    src["rgb_zh"] = [("context", p) for r in zh for k in ("positive", "negative")
                     for p in r[k] if isinstance(p, str)]
    xs = sorted((DATA / "xstest").glob("completions_*.csv"))
    src["xstest"] = [("answer", r["completion"]) for p in xs for r in _csv(p)]
    src["xstest"] += [("question", r["prompt"]) for r in
                      _csv(DATA / "xstest/xstest_prompts_shared.csv")]
    jbb = [r for r in _jsonl(DATA / "jailbreakbench_artifacts/jbb_artifacts.jsonl")
           if r.get("prompt")]
    src["jbb"] = [("answer", r["response"]) for r in jbb if r.get("response")]
    src["jailbreak_prompts"] = [("question", r["prompt"]) for r in jbb]
    src["jailbreak_prompts"] += [
        ("question", r["prompt"]) for p in sorted((DATA / "jailbreak_prompts_self_reminder")
                                                  .glob("jailbreak_prompts*.csv"))
        for r in _csv(p)]
    src["hanna"] = [("answer", r["story"]) for r in _jsonl(DATA / "hanna/hanna_shared.jsonl")]
    src["summeval"] = [("context", a) for a in dict.fromkeys(
        r["article"] for r in _jsonl(DATA / "summeval/summeval_shared.jsonl"))]
    fb = list(_jsonl(DATA / "faithbench/faithbench_shared.jsonl"))
    src["faithbench"] = [("answer", r["summary"]) for r in fb]
    src["faithbench"] += [("context", r["source"]) for r in fb]
    src["summeval"] += [("answer", r["summary"]) for r in
                        _jsonl(DATA / "summeval/summeval_shared.jsonl")]
    for name in ("cnndm", "xsum"):
        qags = list(_jsonl(DATA / "qags" / f"qags_{name}_shared.jsonl"))
        src.setdefault("qags", []).extend(
            [("answer", r["system_output"]) for r in qags] + [("context", r["source"]) for r in qags])
    for name in ("begin_dev_wow_shared", "begin_dev_tc", "begin_dev_cmu"):
        rows = list(_csv(DATA / "begin" / f"{name}.tsv", delimiter="\t"))
        src.setdefault("begin", []).extend(
            [("answer", r["response"]) for r in rows] + [("context", r["knowledge"]) for r in rows])
    src["diasafety"] = [("answer", r["response"]) for p in ("test.json", "val.json")
                        for r in _json(DATA / "diasafety" / p)]
    src["instructions"] = [("question", r["instruction"] + "\n" + r["input"]) for r in
                           _jsonl(DATA / "pandalm/testset_shared.jsonl")]
    src["instructions"] += [("question", r["input"]) for p in sorted((DATA / "llmbar")
                            .glob("*.jsonl")) for r in _jsonl(p)]
    return {k: [(f, t) for f, t in dict.fromkeys(v) if isinstance(t, str) and t.strip()] for k, v in src.items()}


def split_of(text: str) -> str:
    """Which part of the clean texts ``text`` falls in, by its hash: ``train`` (half), on which
    ``injection_train.py`` fits the learned detector; ``calibrate`` (a quarter), on which it
    sets the threshold; ``test`` (a quarter), never seen by it: the clean rates are measured
    there."""
    bucket = hashlib.sha256(text.encode("utf-8")).digest()[0] % 4
    return ("train", "train", "calibrate", "test")[bucket]


def _row(field: str, text: str) -> Row:
    if field == "context":
        return Row(id="x", line=1, contexts=[text], context=text)
    return Row.model_validate({"id": "x", "line": 1, field: text})


def bootstrap(values: Sequence[float], *, seed: int, n: int = 2000) -> tuple[float, float]:
    """The 95% percentile bootstrap interval of the mean of ``values``."""
    rng = random.Random(seed)
    k = len(values)
    means = sorted(sum(values[rng.randrange(k)] for _ in range(k)) / k for _ in range(n))
    return means[int(0.025 * n)], means[int(0.975 * n) - 1]


def _fmt(rate: float, ci: tuple[float, float]) -> str:
    return f"{rate:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"


def run_clean(sources: dict[str, list[tuple[str, str]]], per_source: int, seed: int,
              show: bool) -> None:
    print(f"## Clean texts: flag rate (n, rate, bootstrap 95% CI), at most {per_source} "
          "per source")
    pooled: list[float] = []
    for name, items in sources.items():
        rng = random.Random(f"{seed}:{name}")
        items = [(f, t) for f, t in items if split_of(t) == "test"]
        sample = rng.sample(items, min(per_source, len(items)))
        hits = []
        for field, text in sample:
            flags = scan_row(_row(field, text))
            hits.append(1.0 if flags else 0.0)
            if flags and show:
                for f in flags:
                    print(f"    FP {name}/{field} {f.pattern}: {f.excerpt!r}")
        pooled += hits
        fields = ",".join(sorted({f for f, _ in sample}))
        print(f"{name:18s} n={len(hits):5d} ({fields}) flagged={int(sum(hits)):3d} "
              f"rate={_fmt(statistics.fmean(hits), bootstrap(hits, seed=seed))}")
    print(f"{'ALL':18s} n={len(pooled):5d} flagged={int(sum(pooled)):3d} "
          f"rate={_fmt(statistics.fmean(pooled), bootstrap(pooled, seed=seed))}")


def run_injected(sources: dict[str, list[tuple[str, str]]], per_source: int, seed: int,
                 show: bool, halves: Sequence[str],
                 fields: Sequence[str] = ("answer", "context")) -> None:
    phrases = json.loads(PHRASES.read_text(encoding="utf-8"))
    base: list[tuple[str, str, str]] = []
    for name, items in sources.items():
        usable = [(f, t) for f, t in items if f in fields]
        if not usable:
            continue
        rng = random.Random(f"{seed}:inject:{name}")
        base += [(name, f, t) for f, t in rng.sample(usable, min(per_source, len(usable)))]
    n_sources = len({b[0] for b in base})
    print(f"\n## Injected texts: {len(base)} clean texts ({n_sources} sources) x each phrasing;"
          " rate [bootstrap 95% CI over phrasings]")
    for half in halves:
        print(f"### {half} phrasings")
        for style, texts in phrases[half].items():
            per_phrase: list[float] = []
            worst: dict[str, list[float]] = {}
            for phrase in texts:
                hits = []
                for name, field, text in base:
                    hit = 1.0 if scan_row(_row(field, f"{text} {phrase}")) else 0.0
                    hits.append(hit)
                    worst.setdefault(name, []).append(hit)
                per_phrase.append(statistics.fmean(hits))
                if show and per_phrase[-1] < 1.0:
                    print(f"    MISS {per_phrase[-1]:.2f} {phrase!r}")
            low = min(worst, key=lambda k: statistics.fmean(worst[k]))
            print(f"{style:15s} n={len(base) * len(texts):5d} phrasings={len(texts)} "
                  f"rate={_fmt(statistics.fmean(per_phrase), bootstrap(per_phrase, seed=seed))}"
                  f"  lowest source {low}={statistics.fmean(worst[low]):.3f}")


def run_cost(n_rows: int) -> None:
    qa = list(_jsonl(DATA / "halueval/qa_shared.jsonl"))
    rows = [Row(id=str(i), line=i + 1, question=r["question"], context=r["knowledge"],
                answer=r["right_answer"]) for i, r in
            ((i, qa[i % len(qa)]) for i in range(n_rows))]
    chars = sum(len(r.question or "") + len(r.context or "") + len(r.answer or "") for r in rows)
    start = time.perf_counter()
    for row in rows:
        scan_row(row)
    took = time.perf_counter() - start
    print(f"\n## Cost: scan_row over {n_rows} HaluEval QA rows (question+context+answer, "
          f"mean {chars / n_rows:.0f} chars): {took:.2f} s, {took / n_rows * 1e6:.0f} us/row, "
          f"{took / chars * 1e9:.0f} ns/char")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-source", type=int, default=400)
    ap.add_argument("--inject-per-source", type=int, default=40)
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--show", action="store_true",
                    help="print excerpts of flagged clean texts and missed phrasings")
    ap.add_argument("--only", choices=("clean", "injected", "cost", "languages"),
                    help="one part; languages: injection_languages.py's figures per language")
    ap.add_argument("--inject-into", default="answer,context",
                    help="the fields injected texts come from: answer (what the learned "
                    "detector reads), context (the patterns only), or both")
    ap.add_argument("--set", dest="sets", action="append", choices=PHRASE_SETS,
                    help="which phrasings to inject (repeatable; default: all; 'test' is the "
                    "held-out one: never tune on it)")
    args = ap.parse_args()
    sources = clean_sources()
    if args.only in (None, "clean"):
        run_clean(sources, args.per_source, args.seed, args.show)
    if args.only in (None, "injected"):
        run_injected(sources, args.inject_per_source, args.seed, args.show,
                     args.sets or PHRASE_SETS, args.inject_into.split(","))
    if args.only in (None, "cost"):
        run_cost(args.rows)
    if args.only in (None, "languages"):
        import injection_languages  # per language, with obfuscations (issue 33)

        print()
        injection_languages.main([])


if __name__ == "__main__":
    main()
