"""``assay generate --estimate``: the judge requests a generation would send, planned and
counted without sending any.

The documents are read and the candidates planned as the run plans them (same seed, kinds and
``--max-candidates``); each candidate goes through the run's own producer
(:func:`assay.generate._candidate.judge_candidate`: the generation request, then each check the
judge is asked) against a stand-in judge (:class:`DraftWriter`) whose draft quotes the
candidate's passages, so that every check passes and every request of the candidate's chain is
rendered. How many candidates a run makes depends on how many the judge's drafts pass, so:

- **low**: every candidate kept: the first ``--n`` candidates, each through its whole chain
  (a brief verdict);
- **expected**: with an earlier run's ``FILE.summary.json`` beside ``--out``, the candidates
  its keep rate needs, each counted as that run's outcomes went (a candidate rejected when its
  draft was read asks one request, or two when the answer did not parse; one rejected as not
  standalone by the judge two; the others their whole chain); without one, as low with verdicts
  of a usual length;
- **high**: ``--max-candidates`` candidates (3 x ``--n`` by default), each through its whole
  chain, every answer at its ``max_tokens``.

Completion tokens: the stand-in's draft (it quotes the document as the judge is asked to) and
verdicts of a usual length (low: the verdict word); high: each request's ``max_tokens``.
Retries and the near-duplicate embedder's calls are not counted.

Example:
    >>> import asyncio, pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "faq.md").write_text("# FAQ\\n\\nRefunds are paid within 14 days of "
    ...     "the return. Shipping is free on orders over 50 euros.\\n")
    >>> est = asyncio.run(estimate_generate([folder], out=folder / "qa.jsonl", n=2,
    ...                                     kinds="single", judge="openai:gpt-4o-mini"))
    >>> est.by_role["judge"].tally.requests.as_dict()
    {'low': 6, 'expected': 6, 'high': 18}
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..calls import Estimate, PlaceholderJudge, placeholder_answer
from ..calls._placeholder import REASON
from ..generate import OutputFiles
from ..generate._candidate import REASONS, judge_candidate
from ..generate._checks import pointing_phrase
from ..generate._documents import DETECT, read_documents
from ..generate._plan import Candidate, Passage, Plan, check_kinds, indexed_plan
from ..judges import Accept, JudgeRequest, JudgeResponse
from ._estimate_plan import _judge_or_standin
from ._estimate_roles import RoleCount, estimate_of

__all__ = ["DraftWriter", "estimate_generate"]

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*")
_GENERATION = {"generated_qa", "generated_pair", "generated_question",
               "generated_conversation"}
#: The requests of its chain a rejected candidate made, by why it was rejected (the others:
#: its whole chain).
_REACHED = {"judge call failed": 1, "unreadable judge answer": 1,
            "evidence not found in the source": 1, "evidence not from both passages": 1,
            "not a question (copies the document)": 1, "not standalone (phrase)": 1,
            "wrong language": 1, "not standalone (judge)": 2}
#: Rejected after its first request was asked twice (an answer that did not parse is asked
#: once more, see ask_until_parsed).
_ASKED_TWICE = "unreadable judge answer"


def _sentences(passage: Passage) -> list[str]:
    """The passage's sentences that can serve as a question and its evidence (a usual
    length, no phrase that points at the document), else its whole text."""
    found = [s.strip() for s in _SENTENCE_END.split(passage.text) if len(s.strip()) >= 15]
    usable = [s for s in found if pointing_phrase(s, "en") is None]
    return usable or found or [passage.text.strip()]


def _turn(sentence: str) -> dict[str, Any]:
    mark = "？" if re.search(r"[\u3040-\u30ff\u3400-\u9fff]", sentence) else "?"
    question = sentence.rstrip(".!?。！？ ") + mark
    return {"question": question, "answer": sentence, "evidence": [sentence]}


class DraftWriter(PlaceholderJudge):
    """A placeholder judge whose drafts quote ``candidate``'s passages (so every check of the
    run passes), whose quote of an answering sentence is ``NONE`` and whose verdicts are Yes
    (see :func:`placeholder_answer`)."""

    candidate: Candidate | None = None

    def draft(self, request: JudgeRequest) -> str:
        """The draft the judge is asked for: questions on the candidate's sentences."""
        c = self.candidate
        assert c is not None
        first = _sentences(c.passages[0])
        if request.schema_name == "generated_question":
            return json.dumps({"question": _turn(first[0])["question"]}, ensure_ascii=False)
        if request.schema_name == "generated_pair":
            second = _sentences(c.passages[-1])[0]
            turn = _turn(first[0])
            return json.dumps({"question": turn["question"], "answer": turn["answer"],
                               "evidence_1": [first[0]], "evidence_2": [second]},
                              ensure_ascii=False)
        if request.schema_name == "generated_conversation":
            return json.dumps({"turns": [_turn(first[i % len(first)]) for i in range(c.turns)]},
                              ensure_ascii=False)
        return json.dumps(_turn(first[0]), ensure_ascii=False)

    async def complete(self, request: JudgeRequest, *,
                       accept: Accept | None = None) -> JudgeResponse:
        if request.schema_name in _GENERATION:
            self.requests.append(request)
            return JudgeResponse(text=self.draft(request), model=self.id)
        if request.schema_name == "answer_quote":
            self.requests.append(request)
            return JudgeResponse(text='{"quote": "NONE"}', model=self.id)
        return await super().complete(request, accept=accept)


def _completion(request: JudgeRequest, answer: str, which: str, count: Callable[[str], int]
                ) -> int:
    """The completion tokens of ``answer`` in pass ``which``: a verdict is the word alone
    (low), else with a usual reason; every other answer as the stand-in wrote it."""
    if request.schema_name == "verdict" and which != "low" and request.max_tokens > 2:
        answer = f"{answer}. {REASON}"
    return count(answer)


async def estimate_generate(paths: Sequence[str | Path], *, out: str | Path, n: int = 20,
                            kinds: str | Sequence[str] | None = None, judge: str = "local",
                            seed: int = 0, lang: str = DETECT,
                            max_candidates: int | None = None, tpm: int | None = None,
                            rpm: int | None = None, prices_file: Path | None = None
                            ) -> Estimate:
    """Plan and count the judge requests of ``assay generate`` (see the module); nothing is
    sent. Returns an :class:`~assay.calls.Estimate` (its ``rows``: the rows wanted).

    Raises:
        DataError: a document cannot be read (every problem listed).
        ConfigError: a bad option or price file.
    """
    wanted = check_kinds(kinds)
    cap = max_candidates if max_candidates is not None else 3 * n
    OutputFiles.check(out)
    files = OutputFiles.beside(out)
    docs = read_documents(list(paths), lang=lang, own=files.own())
    plan = indexed_plan(docs.documents, wanted, seed, progress=False, say=lambda _line: None)
    backend = _judge_or_standin(judge)
    writer = DraftWriter(backend.id, backend.capabilities)
    role = RoleCount(judge, local=backend.capabilities.local)
    try:
        chains, short = await _render(plan, writer, cap)
    finally:
        await backend.aclose()
    earlier = _earlier_outcomes(files.summary)
    expected_candidates, reached, twice = _expected(earlier, n, cap)
    for which, count in (("low", min(n, cap)), ("expected", expected_candidates),
                         ("high", cap)):
        for i, chain in enumerate(chains[:math.ceil(count)]):
            share = min(1.0, count - i)  # the last candidate of a fractional count, in part
            for k, (request, answer) in enumerate(chain):
                weight = share * (_asked(reached, twice, k) if which == "expected" else 1.0)
                if weight:
                    role.add(which, request, weight=weight, completion=_completion(
                        request, answer, which, role.counter.count))
    notes = [f"candidates: low {min(n, cap)} (every one kept), expected "
             f"{expected_candidates:,.1f}"
             + (f" (the keep rate and rejections of the run in {files.summary.name})"
                if earlier else " (every one kept: no earlier run beside --out)")
             + f", high {cap} (--max-candidates)",
             ("completion tokens: a draft quoting the document and verdicts of a usual length; "
              "high = each request's max_tokens; retries and near-duplicate embeddings are not "
              "counted")]
    if short:
        notes.append(f"{short} candidate(s) could not be rendered through every check (a "
                     "check without the judge stopped them): their later requests are not "
                     "counted")
    return estimate_of({"judge": role}, rows=n, unit="row", tpm=tpm, rpm=rpm,
                       prices_file=prices_file, notes=notes)


async def _render(plan: Plan, writer: DraftWriter, cap: int
                  ) -> tuple[list[list[tuple[JudgeRequest, str]]], int]:
    """Each of the first ``cap`` candidates' requests and the stand-in's answers, through the
    run's producer; and how many stopped before their chain's end."""
    chains: list[list[tuple[JudgeRequest, str]]] = []
    short = 0
    reasons = not writer.capabilities.local
    for c in plan.candidates(0, cap):
        writer.candidate = c
        start = len(writer.requests)
        outcome = await judge_candidate(c, writer, plan, reasons=reasons, generator={})
        asked = writer.requests[start:]
        chains.append([(r, _answer_of(r, writer)) for r in asked])
        if outcome.reason is not None and outcome.reason != "answered by the documents":
            short += 1
    return chains, short


def _answer_of(request: JudgeRequest, writer: DraftWriter) -> str:
    if request.schema_name in _GENERATION:
        return writer.draft(request)
    if request.schema_name == "answer_quote":
        return '{"quote": "NONE"}'
    return placeholder_answer(request.json_schema)


def _earlier_outcomes(summary: Path) -> dict[str, Any] | None:
    """What an earlier run on the same file made: ``generated``, ``kept`` and
    ``rejected_by_reason`` of its summary, ``None`` without a readable one."""
    try:
        got = json.loads(summary.read_text(encoding="utf-8"))
        generated = int(got["generated"])
        kept = int(got["kept"])
        rejected = {str(k): int(v) for k, v in dict(got.get("rejected_by_reason") or {}).items()}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return ({"generated": generated, "kept": kept, "rejected_by_reason": rejected}
            if generated > 0 else None)


def _expected(earlier: dict[str, Any] | None, n: int, cap: int
              ) -> tuple[float, dict[int, float], float]:
    """The candidates a run is expected to make; the share of them whose chain stops after k
    requests (by :data:`_REACHED`; the rest make every request); the share whose first request
    is asked twice."""
    if earlier is None:
        return float(min(n, cap)), {}, 0.0
    generated, kept = earlier["generated"], earlier["kept"]
    candidates = min(float(cap), n * generated / kept) if kept else float(cap)
    reached: dict[int, float] = {}
    rejected = earlier["rejected_by_reason"]
    for reason, count in rejected.items():
        if reason in _REACHED and reason in REASONS:
            k = _REACHED[reason]
            reached[k] = reached.get(k, 0.0) + count / generated
    return candidates, reached, rejected.get(_ASKED_TWICE, 0) / generated


def _asked(reached: dict[int, float], twice: float, k: int) -> float:
    """How many times a candidate is expected to ask request ``k`` (0-based) of its chain:
    the share that gets that far (the first request: once more for an unreadable draft)."""
    if k == 0:
        return 1.0 + twice
    return max(0.0, 1.0 - sum(share for asked, share in reached.items() if asked <= k))
