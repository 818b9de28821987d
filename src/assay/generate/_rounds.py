"""The rounds of one generation run (see :mod:`._generate`): plan candidates, ask the judge to
write and check each (on the job's loop, :meth:`~assay.records.Job.each`), write each outcome as
it comes, drop near-duplicates in plan order, and plan more while fewer than ``n`` rows are kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..calls import ManagedEmbedder, ManagedJudge
from ..errors import JudgeError
from ..records import Job, ResultsWriter
from ._candidate import Outcome, judge_candidate
from ._duplicates import NearDuplicateIndex
from ._output import OutputFiles
from ._plan import Candidate, Plan

__all__ = ["Rounds"]


class Rounds:
    """The rounds of one run (see the module's docstring)."""

    def __init__(self, job: Job, plan: Plan, judge: ManagedJudge, earlier: dict[str, Outcome],
                 files: OutputFiles, resume: bool, n: int, cap: int, seed: int, *,
                 progress: bool, say: Callable[[str], None], embedder: ManagedEmbedder | None,
                 note: dict[str, Any]) -> None:
        self.job, self.plan, self.judge = job, plan, judge
        self.earlier, self.files = earlier, files
        self.resume, self.n, self.cap, self.progress, self.say = resume, n, cap, progress, say
        self.embedder, self.note = embedder, note
        #: The questions kept so far, and the near-duplicate outcomes found, by id.
        self.dedup = NearDuplicateIndex(embedder)
        self.duplicates: dict[str, Outcome] = {}
        self.generator = {"judge": judge.id, "seed": seed}
        self.reasons = not judge.capabilities.local
        #: Candidates in flight: as many as the judge takes requests (the first that raises,
        #: the judge stopped, a bug, Ctrl-C, cancels the rest: no new one starts).
        self.parallel = max(1, judge.max_in_flight)

    async def run(self) -> tuple[dict[str, Outcome], dict[str, Outcome]]:
        outcomes: dict[str, Outcome] = {}
        duplicates: dict[str, Outcome] = {}
        order: list[str] = []
        planned, round_no = 0, 0
        passed = ResultsWriter(self.files.rows, append=self.resume)
        rejected = ResultsWriter(self.files.rejected, append=self.resume)

        def write(c: Candidate, outcome: Outcome) -> None:
            """Each outcome as it comes: a passed row, or a rejected candidate."""
            outcomes[c.id] = outcome
            if outcome.reason is None:
                passed.write(outcome.row or {})
            else:
                rejected.write(outcome.record())

        try:
            while True:
                kept = sum(1 for o in outcomes.values() if o.reason is None
                           and o.id not in duplicates)
                failed = sum(1 for o in outcomes.values() if o.reason == "judge call failed")
                deficit = self.n - kept - failed
                if deficit <= 0 or planned >= self.cap or not self.plan.kinds:
                    break
                batch = self.plan.candidates(planned, min(self.cap, planned + deficit))
                planned += len(batch)
                round_no += 1
                todo = [c for c in batch if c.id not in self.earlier]
                if round_no > 1:
                    self.say(f"round {round_no}: {len(batch)} more candidates ({kept} of "
                             f"{self.n} rows kept so far)")
                for c in batch:
                    if c.id in self.earlier:
                        outcomes[c.id] = self.earlier[c.id]
                await self.job.each(todo, self._judge, write, parallel=self.parallel,
                                    progress=self.progress, total=len(batch),
                                    description=f"generating (round {round_no})")
                order.extend(c.id for c in batch)  # plan order (a round extends the plan)
                ordered = [outcomes[i] for i in order]
                outcomes.clear()
                outcomes.update((o.id, o) for o in ordered)
                duplicates = await self._duplicates(ordered, [outcomes[c.id] for c in batch])
        finally:
            passed.close()
            rejected.close()
        return outcomes, duplicates

    async def _judge(self, c: Candidate) -> Outcome:
        """Ask for candidate ``c`` and check it."""
        return await judge_candidate(c, self.judge, self.plan, reasons=self.reasons,
                                     generator=self.generator)

    async def _duplicates(self, ordered: list[Outcome],
                          batch: list[Outcome]) -> dict[str, Outcome]:
        """The near-duplicate outcomes so far by id: this round's passed ones (``batch``) are
        compared, in plan order, with the index of those kept before; when the embedder
        fails, all of ``ordered`` is decided again by n-grams."""
        try:
            found = await self.dedup.add(_questions(batch))
        except JudgeError as e:  # the embedder failed: n-grams for the rest of the run
            self.note["method"] = f"character n-grams (the embedder failed: {e})"
            self.embedder = None
            self.dedup, self.duplicates = NearDuplicateIndex(None), {}
            found = await self.dedup.add(_questions(ordered))
        by_id = {o.id: o for o in ordered}
        self.duplicates.update({
            i: Outcome(i, by_id[i].kind, by_id[i].lang, row=by_id[i].row,
                       reason="near-duplicate",
                       detail=f"like {d.of} ({d.method} similarity {d.similarity})",
                       question=by_id[i].question)
            for i, d in found.items()})
        return self.duplicates


def _questions(outcomes: list[Outcome]) -> list[tuple[str, str, str]]:
    """``(id, lang, question)`` of the passed outcomes, in their order."""
    return [(o.id, o.lang, o.question or "") for o in outcomes if o.reason is None]
