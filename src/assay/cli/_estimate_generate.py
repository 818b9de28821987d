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
  its keep rate needs, each counted as that run's candidates went (see
  :mod:`._estimate_outcomes`), at its completion tokens per request; without one, as low with
  verdicts of a usual length;
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

from ..calls import PLACEHOLDER_REASON as REASON
from ..calls import Estimate, PlaceholderJudge, placeholder_answer
from ..generate import (
    DETECT,
    Candidate,
    OutputFiles,
    Passage,
    Plan,
    check_kinds,
    indexed_plan,
    judge_candidate,
    pointing_phrase,
    read_documents,
)
from ..judges import Accept, JudgeRequest, JudgeResponse
from ._estimate_outcomes import earlier_run
from ._estimate_plan import _judge_or_standin
from ._estimate_roles import RoleCount, estimate_of

__all__ = ["DraftWriter", "estimate_generate"]

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*")
_GENERATION = {"generated_qa", "generated_pair", "generated_question",
               "generated_conversation"}
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
    earlier = earlier_run(files)
    expected_candidates = (earlier.candidates(n, cap) if earlier is not None
                           else float(min(n, cap)))
    for which, count in (("low", min(n, cap)), ("expected", expected_candidates),
                         ("high", cap)):
        for i, chain in enumerate(chains[:math.ceil(count)]):
            share = min(1.0, count - i)  # the last candidate of a fractional count, in part
            for k, (request, answer) in enumerate(chain):
                weight = share * (earlier.times_asked(k) if which == "expected"
                                  and earlier is not None else 1.0)
                measured = (earlier.completion_mean if which == "expected"
                            and earlier is not None else None)
                if weight:
                    role.add(which, request, weight=weight, completion=measured if
                             measured is not None else _completion(request, answer, which,
                                                                   role.counter.count))
    notes = [f"candidates: low {min(n, cap)} (every one kept), expected "
             f"{expected_candidates:,.1f}"
             + (f" (the keep rate and rejections of the run in {files.summary.name})"
                if earlier is not None else " (every one kept: no earlier run beside --out)")
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
