"""``generate``: test rows from documents, written by a judge and checked before they are kept.

A run plans ``n`` candidates (:class:`~._plan.Plan`), asks the judge to write each and checks
it (:func:`~._candidate.judge_candidate`), then drops near-duplicates in plan order. When fewer
than ``n`` were kept it plans more from the same seeded sequence, round after round, up to
``max_candidates`` (3n by default). Each outcome is appended to ``FILE.jsonl`` (passed) or
``FILE.rejected.jsonl`` as it comes, so Ctrl-C or a crash loses nothing: ``resume`` replays
the rounds with the outcomes written and asks the judge only for the rest (and again for
candidates whose judge call failed). At the end both files are rewritten in plan order, so
the same documents, seed and judge give the same files, byte for byte.

Example:
    >>> import asyncio, pathlib, tempfile
    >>> from assay.judges import FakeJudge
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "faq.md").write_text("# FAQ\\n\\nRefunds are paid within 14 days.\\n")
    >>> judge = FakeJudge(lambda req: "Yes." if req.schema_name == "verdict" else
    ...     '{"question": "How fast are refunds paid by the shop?", "answer": "Within 14 days.",'
    ...     ' "evidence": ["Refunds are paid within 14 days."]}')
    >>> result = generate([folder], out=folder / "qa.jsonl", n=1, kinds="single", judge=judge,
    ...                   embeddings=None, cache=False)
    >>> row = result.rows[0]
    >>> row["question"], row["source"]
    ('How fast are refunds paid by the shop?', [{'doc': 'faq.md', 'start': 7, 'end': 39, 'text': 'Refunds are paid within 14 days.'}])
    >>> result.summary["kept"], result.summary["generated"]
    (1, 1)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..calls import (
    JudgeCallOptions,
    OpenedEmbedder,
    open_embedder,
    open_judge,
)
from ..costs import PriceBook, Usage, model_cost_section
from ..embeddings import Embedder, local_embedder_missing
from ..errors import ConfigError, option
from ..judges import Judge
from ..records import Job, rewrite_in_order
from ..run import run_sync
from ..store import Store
from ._candidate import Outcome
from ._checks import COSINE_THRESHOLD, NGRAM_THRESHOLD
from ._documents import DETECT, read_documents
from ._output import (
    OutputFiles,
    add_spent,
    earlier_outcomes,
    manifest_for,
    new_spent,
    resume_rule,
    spent_before,
    summary_of,
)
from ._plan import check_kinds, indexed_plan
from ._rounds import Rounds

__all__ = ["GenerationResult", "generate", "generate_async"]


@dataclass(frozen=True)
class GenerationResult:
    """The kept rows and the rejected candidates (as written, in plan order), the summary
    (as in ``FILE.summary.json``) and the files written."""

    rows: list[dict[str, Any]]
    rejected: list[dict[str, Any]]
    summary: dict[str, Any]
    files: OutputFiles
    #: The run's id in the run store (None: not recorded).
    run_id: str | None = None

    @property
    def judge_failed(self) -> bool:
        """Every candidate lost to a failed judge call (a run that should exit 3)."""
        return bool(self.summary["judge_failed"])


def generate(paths: str | Path | Sequence[str | Path], **options: Any) -> GenerationResult:
    """:func:`generate_async` run to its end, from code that is not async (in a notebook, whose
    loop is running, on a worker thread: see :func:`assay.run.run_sync`)."""
    return run_sync(lambda: generate_async(paths, **options))


async def generate_async(
    paths: str | Path | Sequence[str | Path], *, out: str | Path, n: int = 20,
    kinds: str | Sequence[str] | None = None, judge: str | Judge = "local", seed: int = 0,
    lang: str = DETECT, resume: bool = False, overwrite: bool = False,
    calls: JudgeCallOptions | None = None,
    concurrency: int | None = None, tpm: int | None = None, rpm: int | None = None,
    cache: str | Path | bool | None = None, timeout: float | None = None,
    embeddings: str | Embedder | None = "local", max_candidates: int | None = None,
    progress: bool = False, on_stage: Callable[[str], None] | None = None,
    max_wait: float | None = None, store: str | Path | Store | bool | None = None,
    name: str | None = None, prices: PriceBook | str | Path | None = None,
) -> GenerationResult:
    """Write up to ``n`` checked test rows from the documents in ``paths`` to ``out``.

    Args:
        paths: a file or folder of documents, or a list of them (see :func:`read_documents`).
        out: the rows' JSONL file; ``FILE.rejected.jsonl``, ``FILE.run.json`` and
            ``FILE.summary.json`` are written beside it.
        n: rows wanted. kinds: some of ``single multi abstract unanswerable conversation``
            (all by default), taken in turn. judge: a judge spec or instance. seed: the plan's.
        lang: ``auto`` (each document's language) or the language to write every row in.
        resume / overwrite: continue the run in ``out``, or replace it (without either, an
            existing run is refused).
        calls: how judge and embedder calls are made
            (:class:`~assay.calls.JudgeCallOptions`). Or, each given at most one way:
            concurrency: judge requests in flight (default: the judge's). tpm / rpm: budget.
            cache: the judge cache (True, the default: the default file; a path; False:
            none). timeout: seconds one call may take. max_wait: below.
        embeddings: the embedder for English near-duplicates (``None``: character n-grams).
        max_candidates: the most candidates planned (default ``3 * n``).
        progress: show progress on stderr. on_stage: called with a line per round, per long
            phase (large documents) and per folder entry skipped for a bad link.
        max_wait: seconds one judge or embedder call may wait on rate limits (429) in all.

        store / name: record the run in the run store (kind ``generate``: the kept rows and
            the summary; as :func:`assay.evaluate` takes ``store``; None: not recorded).
        prices: what the judge's calls are priced with (a price book or a price file over
            genai-prices; default genai-prices alone): the summary's ``cost``, over every
            run on ``out`` (``--resume`` runs included).

    Raises:
        DataError: a document cannot be read (every problem listed).
        ConfigError: a bad option, or ``out`` holds a run that cannot be resumed or replaced,
            or another process is writing it.
        JudgeStoppedError: the judge failed the same hard way three times in a row.
    """
    started = time.monotonic()
    book = prices if isinstance(prices, PriceBook) else PriceBook.load(prices)
    calls = JudgeCallOptions.with_overrides(calls, cache_by_default=True,
                                            concurrency=concurrency, tpm=tpm, rpm=rpm,
                                            cache=cache, timeout=timeout, max_wait=max_wait)
    if not isinstance(n, int) or n < 1:
        raise ConfigError(f"Got {option('n', n)}. Must be a whole number of rows, at least 1.")
    cap = max_candidates if max_candidates is not None else 3 * n
    if not isinstance(cap, int) or cap < n:
        raise ConfigError(f"Got {option('max_candidates', cap)}. Must be at least "
                          f"{option('n', n)}.")
    wanted_kinds = check_kinds(kinds)
    OutputFiles.check(out)
    files = OutputFiles.beside(out)
    with Job(files.rows, kind="generate", store=store, name=name,
             dataset=str(paths) if isinstance(paths, str | Path) else None) as job:
        docs = read_documents([paths] if isinstance(paths, (str, Path)) else list(paths), lang=lang,
                              own=files.own())
        say = on_stage or (lambda _line: None)
        for path, why in docs.skipped:  # another kind of file is expected; a bad link is not
            if not why.startswith(("unsupported suffix", "no suffix", "this run's")):
                say(f"warning: skipped {path}: {why}")
        opened = open_judge(judge, calls)
        managed = opened.judge
        # what the runs before this one used (read before this run's manifest replaces theirs)
        spent = spent_before(files) if resume else None
        try:
            manifest = manifest_for(docs.documents, n=n, kinds=wanted_kinds, seed=seed,
                                    judge=managed.id, lang=lang)
            job.begin(manifest, **resume_rule(files, resume=resume, overwrite=overwrite),
                      settings={k: v for k, v in manifest.items() if k != "documents"},
                      judge=managed.id)
        except BaseException:
            await opened.aclose()
            raise
        earlier = earlier_outcomes(files) if resume else {}
        manifest["spent"] = spent or new_spent()
        job.update_manifest(spent=manifest["spent"])
        plan = indexed_plan(docs.documents, wanted_kinds, seed, progress=progress, say=say)
        try:
            opened_embedder, dedup_note = _embedder(embeddings, calls)
        except BaseException:
            await opened.aclose()
            raise
        embedder = opened_embedder.embedder if opened_embedder is not None else None
        outcomes: dict[str, Outcome] = {}
        try:
            rounds = Rounds(job, plan, managed, earlier, files, resume, n, cap, seed,
                             progress=progress, say=say, embedder=embedder, note=dedup_note)
            outcomes, duplicates = await rounds.run()
        finally:  # this run's share goes into the manifest even on Ctrl-C or an error
            manifest["spent"] = add_spent(manifest["spent"], managed.stats.as_dict(),
                                          time.monotonic() - started)
            job.update_manifest(spent=manifest["spent"])
            if opened_embedder is not None:
                await opened_embedder.aclose()
            await opened.aclose()  # a backend made here from a spec; an instance stays open
        final = [duplicates.get(o.id, o) for o in outcomes.values()]
        rows = [o.row for o in final if o.reason is None and o.row is not None]
        rejected = [o.record() for o in final if o.reason is not None]
        rewrite_in_order(files.rejected, rejected, what="the rejected candidates")
        rewrite_in_order(files.rows, rows, what="the generated rows")
        summary = summary_of(
            final, {str(r["id"]) for r in rows}, wanted=n, planned_cap=cap,
            judge={"id": managed.id, **managed.stats.as_dict()},
            seconds=time.monotonic() - started,
            documents={"read": len(docs.documents), "chunks": len(plan.chunks),
                       "skipped": [{"path": p, "why": w} for p, w in docs.skipped]},
            near_duplicates=dedup_note, impossible=plan.impossible)
        summary["all_runs"] = manifest["spent"]
        spent_all = manifest["spent"]
        summary["cost"] = model_cost_section(managed.id, Usage(
            prompt_tokens=spent_all["prompt_tokens"],
            completion_tokens=spent_all["completion_tokens"],
            cached_tokens=spent_all.get("cached_tokens", 0),
            reasoning_tokens=spent_all.get("reasoning_tokens", 0)),
            spent_all["requests"], book)
        summary["judge_failed"] = bool(final) and all(
            o.reason == "judge call failed" for o in final)
        job.record(rows)
        job.finish(summary, summary_path=files.summary, what="the generation summary")
        return GenerationResult(rows, rejected, summary, files, job.run_id)


def _embedder(spec: str | Embedder | None, calls: JudgeCallOptions
              ) -> tuple[OpenedEmbedder | None, dict[str, Any]]:
    note: dict[str, Any] = {"ngram_threshold": NGRAM_THRESHOLD}
    if spec is None:
        note["method"] = "character n-grams (no embedder was asked for)"
        return None, note
    if spec == "local" and (missing := local_embedder_missing()) is not None:
        note["method"] = f"character n-grams (the local embedder is unavailable: {missing})"
        return None, note
    opened = open_embedder(spec, calls)
    note.update(method="embeddings for English questions, character n-grams for others",
                embedder=opened.embedder.id, cosine_threshold=COSINE_THRESHOLD)
    return opened, note
