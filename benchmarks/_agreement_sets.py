"""The labelled sets of ``../shared/data`` that ``agreement.py --all`` scores: a registry.

Each :class:`BenchSet` reads its file into :class:`Item` rows (the assay row, the gold labels
by key, and the group that rows share: a source article, a question, a passage), says how to
sample ``n`` of them, and which :class:`Line` figures to print: the assay metric(s) read, the
gold key compared and the figure that fits (``auroc`` for binary gold against a graded score,
``spearman`` for ratings, ``pairwise_accuracy`` for pairwise choices, ``balanced_accuracy``
for labels). Sets in the folder that fit no metric are in :data:`SKIPPED`, with the reason.

Example:
    >>> s = SETS["halueval"]
    >>> items = s.sample(s.load(), 4)
    >>> [it.gold["grounded"] for it in items], sorted(items[0].row)
    ([0, 0, 1, 1], ['answer', 'context', 'id', 'question'])
    >>> [line.figure for line in SETS["summeval"].lines]
    ['spearman', 'spearman', 'spearman', 'spearman']
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from safety_agreement import BENIGN as SAFETY_BENIGN
from safety_agreement import DATASETS as SAFETY_DATASETS
from safety_agreement import even_sample as spread

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
PREFERENCE = Path(__file__).resolve().parents[1] / "examples" / "metrics" / "preference.md"
#: What a PandaLM response that is empty reads as (the data reader treats "" as missing).
EMPTY = "(empty response)"
PAIRWISE_COLUMN = "preference/human_pairwise_choice"
FIGURES = ("auroc", "spearman", "pairwise_accuracy", "balanced_accuracy", "false_alarm_medium")


@dataclass(frozen=True)
class Item:
    """One row to score: the assay row, its gold labels (by key) and its group."""

    row: dict[str, Any]
    gold: dict[str, Any]
    group: str


@dataclass(frozen=True)
class Line:
    """One table line of a set: ``metrics`` read (the highest graded value when several, as
    for the four safety severities), compared with ``gold`` by ``figure``."""

    name: str
    metrics: tuple[str, ...]
    gold: str
    figure: str
    #: read the probability-weighted value where there is one (``False``: the value itself,
    #: as the defect rate counts it)
    graded: bool = True


@dataclass(frozen=True)
class BenchSet:
    """A labelled set: its reader, its sampling (``balanced`` on the first line's binary gold
    or ``spread`` evenly through the file), its lines and a note for the table."""

    name: str
    load: Callable[[], list[Item]]
    lines: tuple[Line, ...]
    sampling: str = "spread"
    note: str = ""
    pairwise: bool = False

    def sample(self, items: Sequence[Item], n: int) -> list[Item]:
        """``n`` items (all of them when the set has fewer), the same on every run."""
        if self.sampling == "balanced":
            return balanced(items, self.lines[0].gold, n)
        return spread(items, n)


def balanced(items: Sequence[Item], key: str, n: int) -> list[Item]:
    """``n // 2`` items of gold 0 and the rest of gold 1 (fewer if a class has fewer), each
    evenly spaced through its class, in that order."""
    out: list[Item] = []
    for label, want in ((0, n // 2), (1, n - n // 2)):
        out += spread([it for it in items if it.gold.get(key) == label], want)
    return out


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def halueval_items() -> list[Item]:
    out = []
    for seed in _jsonl(DATA / "halueval" / "qa_shared.jsonl"):
        for kind, answer, label in (("right", seed["right_answer"], 1),
                                    ("halluc", seed["hallucinated_answer_one_turn"], 0)):
            out.append(Item({"id": f"{seed['id']}-{kind}", "question": seed["question"],
                             "context": seed["knowledge"], "answer": answer},
                            {"grounded": label}, str(seed["id"])))
    return out


def faithbench_items() -> list[Item]:
    return [Item({"id": f"fb-{r['id']}", "context": r["source"], "answer": r["summary"]},
                 {"grounded": int(r["worst_label"] in ("Consistent", "Benign"))},
                 str(r["source_id"]))
            for r in _jsonl(DATA / "faithbench" / "faithbench_shared.jsonl")]


def qags_items() -> list[Item]:
    files = [_jsonl(DATA / "qags" / f"qags_{name}_shared.jsonl") for name in ("cnndm", "xsum")]
    out = []
    for pair in zip(*files):  # alternate the two sources
        for name, r in zip(("cnndm", "xsum"), pair):
            gold = float(r["scores"]["consistency"])
            out.append(Item({"id": f"qags-{name}-{r['doc_id']}-{r['system_id']}",
                             "context": r["source"], "answer": r["system_output"]},
                            {"grounded": int(gold == 1.0), "consistency": gold},
                            f"{name}-{r['doc_id']}"))
    return out


def begin_items() -> list[Item]:
    out = []
    for name in ("begin_dev_wow_shared", "begin_dev_tc", "begin_dev_cmu"):
        with (DATA / "begin" / f"{name}.tsv").open(newline="") as f:
            for i, r in enumerate(csv.DictReader(f, delimiter="\t")):
                if r["begin_label"] == "Generic":
                    continue
                row = {"id": f"{name}-{i}", "question": r["message"],
                       "context": r["knowledge"], "answer": r["response"]}
                out.append(Item({k: v for k, v in row.items() if v.strip()},
                                {"grounded": int(r["begin_label"] == "Fully attributable")},
                                r["knowledge"]))
    return out


SUMMEVAL_DIMENSIONS = {"coherence": "coherence", "fluency": "fluency",
                       "groundedness": "consistency", "relevance": "relevance"}


def summeval_items() -> list[Item]:
    return [Item({"id": f"{r['article_id']}-{r['summary_id']}",
                  "question": "Summarize the news article.", "context": r["article"],
                  "answer": r["summary"]},
                 {k: float(r[k]) for k in SUMMEVAL_DIMENSIONS.values()}, r["article_id"])
            for r in _jsonl(DATA / "summeval" / "summeval_shared.jsonl")]


def usr_items() -> list[Item]:
    return [Item({"id": f"usr-{r['context_id']}-{r['system_id']}", "question": r["source"],
                  "context": r["context"], "answer": r["system_output"]},
                 {k: float(r["scores"][k]) for k in ("groundedness", "coherence")},
                 str(r["context_id"]))
            for r in _jsonl(DATA / "usr_topical_chat" / "topical_chat_shared.jsonl")]


def hanna_items() -> list[Item]:
    return [Item({"id": f"hanna-{r['prompt_id']}-{r['story_id']}", "question": r["prompt"],
                  "answer": r["story"]},
                 {"coherence": float(r["Coherence"])}, r["prompt_id"])
            for r in _jsonl(DATA / "hanna" / "hanna_shared.jsonl")]


def data2text_items() -> list[Item]:
    files = [_jsonl(DATA / "data2text_sf" / f"{name}.jsonl") for name in ("sfhot", "sfres")]
    out = []
    for pair in zip(*files):  # alternate hotels and restaurants
        for name, r in zip(("sfhot", "sfres"), pair):
            out.append(Item({"id": f"{name}-{r['doc_id']}", "answer": r["system_output"]},
                            {"naturalness": float(r["scores"]["naturalness"])},
                            f"{name}-{r['source']}"))
    return out


def truthfulqa_items() -> list[Item]:
    with (DATA / "truthfulqa" / "TruthfulQA_shared.csv").open(newline="") as f:
        correct = {r["question_id"]: r["Correct Answers"] for r in csv.DictReader(f)}
    out = []
    for i, r in enumerate(_jsonl(DATA / "truthfulqa" / "judged_answers_shared.jsonl")):
        qid = str(r["question_id"])
        if r["truthful"] is None or qid not in correct or not str(r["answer"]).strip():
            continue
        out.append(Item({"id": f"tqa-{i}", "question": r["question"], "answer": r["answer"],
                         "ground_truth": correct[qid]},
                        {"truthful": int(bool(r["truthful"]))}, qid))
    return out


def _response(value: Any) -> str:
    """A PandaLM response as text: a few are JSON ``true`` (the model wrote "True")."""
    return EMPTY if value is None or value == "" else str(value)


def pairwise_rows(name: str, n: int) -> list[dict]:
    """Rows for ``assay.calibrate`` with ``preference/human_pairwise_choice``: the first
    ``n`` of ``llmbar_natural``, ``llmbar_adversarial`` (the four adversarial subsets,
    interleaved), ``llmbar_mtbench`` (MT-Bench human votes) or ``pandalm`` (majority label,
    ties kept)."""
    column = PAIRWISE_COLUMN
    if name.startswith("llmbar"):
        files = {"llmbar_natural": ["natural"], "llmbar_mtbench": ["processed_mtbench_human"]
                 }.get(name, ["adversarial_neighbor", "adversarial_gptinst",
                              "adversarial_gptout", "adversarial_manual"])
        lists = [_jsonl(DATA / "llmbar" / f"{f}_shared.jsonl") for f in files]
        picked = [r for group in zip(*lists) for r in group] if len(lists) > 1 else lists[0]
        extra = [r for lst in lists for r in lst[min(map(len, lists)):]] if len(lists) > 1 else []
        rows = [{"id": f"{r['subset']}-{r['id']}", "question": r["input"],
                 "answer": r["output_1"], "baseline_model_response": r["output_2"],
                 column: "CANDIDATE" if r["label"] == 1 else "BASELINE"}
                for r in picked + extra]
        return rows[:n]
    rows = []
    for r in _jsonl(DATA / "pandalm" / "testset_shared.jsonl"):
        if r["majority_label"] is None:
            continue
        task = r["instruction"] + (f"\n\n{r['input']}" if r["input"] else "")
        # an empty response is still a response to judge: shown as a marker, not dropped
        rows.append({"id": f"pandalm-{r['idx']}", "question": task,
                     "answer": _response(r["response1"]),
                     "baseline_model_response": _response(r["response2"]),
                     column: {0: "TIE", 1: "CANDIDATE", 2: "BASELINE"}[r["majority_label"]]})
    return rows[:n]


def _pairwise_items(name: str) -> Callable[[], list[Item]]:
    def load() -> list[Item]:
        return [Item({k: v for k, v in r.items() if k != PAIRWISE_COLUMN},
                     {"choice": r[PAIRWISE_COLUMN]}, r["id"])
                for r in pairwise_rows(name, 10**9)]
    return load


def _safety_items(name: str) -> Callable[[], list[Item]]:
    loader, _metrics = SAFETY_DATASETS[name]

    def load() -> list[Item]:  # no group: each text stands alone; an empty reply is left out
        return [Item(it.row, {"positive": it.label}, it.row["id"]) for it in loader()
                if str(it.row.get("answer") or "").strip()]
    return load


def _safety_line(name: str) -> Line:
    metrics = SAFETY_DATASETS[name][1]
    shown = "refusal" if metrics == ("refusal",) else (
        metrics[0] if len(metrics) == 1 else "max_severity")
    if name in SAFETY_BENIGN:  # one class: the share of benign texts rated harmful
        return Line(shown, metrics, "positive", "false_alarm_medium", graded=False)
    return Line(shown, metrics, "positive", "auroc")


_GROUNDED = (Line("groundedness", ("groundedness",), "grounded", "auroc"),)
_PAIRWISE = (Line("preference", ("preference",), "choice", "pairwise_accuracy"),)
_SAFETY_NOTES = {
    "diasafety": "Unsafe vs Safe; most DiaSafety categories lie outside the four harms",
    "davidson": "hate speech vs neither (offensive left out)",
    "toxigen": "hate vs neutral seed statements",
    "xstest": "refusal vs full compliance, GPT-4 and Mistral-Instruct completions",
    "xstest_safe": "XSTest safe prompts as the text rated: share at Medium or above",
    "xstest_pairs": "XSTest unsafe prompts vs their safe twins, rated as the text",
    "xstest_replies": "GPT-4's compliant replies to XSTest safe prompts: share at Medium or above",
    "hh_chosen": "HH-RLHF chosen (less harmful) replies: share at Medium or above, an upper "
                 "bound on false alarms"}

#: Every set ``--all`` runs, in order.
SETS: dict[str, BenchSet] = {s.name: s for s in [
    BenchSet("halueval", halueval_items, _GROUNDED, "balanced",
             "QA: right answer (1) vs one-turn hallucinated answer (0)"),
    BenchSet("faithbench", faithbench_items, _GROUNDED, "balanced",
             "worst label Consistent/Benign (1) vs Questionable/Unwanted (0)"),
    BenchSet("qags", qags_items, _GROUNDED, "balanced",
             "every summary sentence consistent (1) vs not (0)"),
    BenchSet("begin", begin_items, _GROUNDED, "balanced",
             "fully attributable (1) vs not (0); Generic left out"),
    BenchSet("summeval", summeval_items,
             tuple(Line(m, (m,), h, "spearman") for m, h in SUMMEVAL_DIMENSIONS.items()),
             note="pooled over rows vs the experts' mean 1-5 (groundedness vs consistency)"),
    BenchSet("usr_topical_chat", usr_items,
             (Line("groundedness", ("groundedness",), "groundedness", "spearman"),
              Line("coherence", ("coherence",), "coherence", "spearman")),
             note="vs annotators' mean groundedness (0-1) and coherence (1-3)"),
    BenchSet("hanna", hanna_items, (Line("coherence", ("coherence",), "coherence", "spearman"),),
             note="stories vs raters' mean Coherence; Relevance needs a context (none)"),
    BenchSet("data2text_sf", data2text_items,
             (Line("fluency", ("fluency",), "naturalness", "spearman"),),
             note="SF hotel/restaurant outputs vs mean naturalness (1-6)"),
    BenchSet("truthfulqa", truthfulqa_items,
             (Line("similarity", ("similarity",), "truthful", "auroc"),), "balanced",
             "answer vs the Correct Answers list; gold = human truthful label"),
    *(BenchSet(name, _pairwise_items(name), _PAIRWISE, pairwise=True, note=note)
      for name, note in (("llmbar_natural", "gold better output, no ties; both orders"),
                         ("llmbar_adversarial", "four adversarial subsets; both orders"),
                         ("llmbar_mtbench", "MT-Bench human votes, no ties; both orders"),
                         ("pandalm", "3 annotators' majority, ties kept; both orders"))),
    *(BenchSet(name, _safety_items(name), (_safety_line(name),),
               "spread" if name in SAFETY_BENIGN else "balanced", _SAFETY_NOTES[name])
      for name in SAFETY_DATASETS),
]}

#: Sets of ``../shared/data`` that ``--all`` leaves out, and why.
SKIPPED: dict[str, str] = {
    "halueval/general": "hallucination without a context: no metric judges an answer alone",
    "hh_rlhf_harmless": "pairwise harmlessness: no shipped pairwise rubric asks which reply "
                        "is less harmful (preference.md judges instruction following)",
    "llmbar (faireval, llmeval2, case studies)": "same preference metric as the llmbar sets "
                                                  "above; left out to bound the run time",
    "jailbreakbench_artifacts": "jailbroken flags come from an automated judge, not people",
    "advbench, harmbench, jailbreak_prompts_self_reminder": "attack seeds, no labels",
    "rgb": "robustness suite (answers checked by substring), not judge labels",
    "azure_eval_samples": "input-format fixtures, no labels",
}
