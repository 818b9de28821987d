"""The files of a generation run beside ``FILE.jsonl``: the kept rows (``FILE.jsonl``), the
rejected candidates (``FILE.rejected.jsonl``), the manifest a resume is checked against
(``FILE.run.json``) and the summary (``FILE.summary.json``).

Example:
    >>> files = OutputFiles.beside("out/qa.jsonl")
    >>> [p.name for p in (files.rows, files.rejected, files.manifest, files.summary)]
    ['qa.jsonl', 'qa.rejected.jsonl', 'qa.run.json', 'qa.summary.json']
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._files import beside
from ..errors import ConfigError, option
from ..records import ResumeWords, load_finished, plain_difference
from ._candidate import REASONS, Outcome
from ._documents import Document

__all__ = ["MANIFEST_KEYS", "OutputFiles", "add_spent", "earlier_outcomes", "manifest_for",
           "new_spent", "resume_rule", "spent_before", "summary_of"]

#: What a resume must share with the run it continues.
MANIFEST_KEYS = ("documents", "n", "kinds", "seed", "judge", "lang")


@dataclass(frozen=True)
class OutputFiles:
    """The paths of one run's files."""

    rows: Path
    rejected: Path
    manifest: Path
    summary: Path

    @classmethod
    def beside(cls, out: str | Path) -> OutputFiles:
        """The files of a run writing ``out`` (``FILE.jsonl``)."""
        return cls(Path(out), beside(out, ".rejected.jsonl"), beside(out, ".run.json"),
                   beside(out, ".summary.json"))

    @staticmethod
    def check(out: str | Path) -> None:
        """Refuse an ``out`` that names a folder (one that exists, or a path ending in
        ``/``): it names the rows' file.

        Raises:
            ConfigError: naming a file in that folder as the fix.
        """
        text = os.fspath(out)
        if Path(text).is_dir() or text.endswith(("/", os.sep)):
            example = (Path(text) / "qa.jsonl").as_posix()
            raise ConfigError(f"Got {option('out', text)}, a folder. It names the rows' JSONL "
                              "file (the rejected candidates, manifest and summary are "
                              f"written beside it). Fix: name a file, e.g. "
                              f"{option('out', example)}.")

    def own(self) -> dict[Path, str]:
        """The run's files by resolved path, with what each is (never read as documents)."""
        what = {self.rows: "this run's output", self.rejected: "this run's rejected file",
                self.manifest: "this run's manifest", self.summary: "this run's summary"}
        return {path.resolve(): name for path, name in what.items()}

    def existing(self) -> list[Path]:
        """The run's files that exist already."""
        return [p for p in (self.rows, self.rejected, self.manifest) if p.exists()]


def manifest_for(documents: Sequence[Document], *, n: int, kinds: Sequence[str], seed: int,
                 judge: str, lang: str) -> dict[str, Any]:
    """The manifest of a run: each document's text hash and the settings a resume must keep.

    Example:
        >>> doc = Document(id="a.txt", text="Hi.", lang="en", format="txt")
        >>> manifest_for([doc], n=5, kinds=["single"], seed=0, judge="fake", lang="auto")["n"]
        5
    """
    return {"command": "generate", "format": 1,
            "documents": {d.id: hashlib.sha256(d.text.encode()).hexdigest() for d in documents},
            "n": n, "kinds": list(kinds), "seed": seed, "judge": judge, "lang": lang}


def resume_rule(files: OutputFiles, *, resume: bool, overwrite: bool) -> dict[str, Any]:
    """What :meth:`assay.records.Job.begin` needs to apply the resume rule to a generation:
    refuse an earlier run's files without ``resume`` or ``overwrite``, and a resume of other
    documents or settings, naming what differs."""
    return {"existing": files.existing(), "keys": MANIFEST_KEYS, "words": _WORDS,
            "resume": resume, "overwrite": overwrite, "difference": _difference}


_WORDS = ResumeWords(holds="a generation run", contents="the run",
                     made="generated with other settings",
                     same="the same documents and settings")


def earlier_outcomes(files: OutputFiles) -> dict[str, Outcome]:
    """The outcomes a resumed run keeps: rejected lines (but failed calls, asked again),
    then passed rows (a row wins over an earlier failed call of the same candidate).
    Near-duplicates are found again, so one rejected as such counts as passed."""
    found: dict[str, Outcome] = {}
    for rec in load_finished(files.rejected).values():
        outcome = Outcome.from_record(rec)
        if outcome.reason == "near-duplicate" and outcome.row is not None:
            outcome = Outcome(outcome.id, outcome.kind, outcome.lang, row=outcome.row,
                              question=outcome.question)
        if outcome.reason != "judge call failed":
            found[outcome.id] = outcome
    for rec in load_finished(files.rows).values():
        found[str(rec["id"])] = Outcome.from_record(rec)
    return found


def _difference(key: str, was: Any, now: Any) -> str:
    if key == "documents" and isinstance(was, dict) and isinstance(now, dict):
        changed = sorted(k for k in set(was) | set(now) if was.get(k) != now.get(k))
        shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5
                                          else "")
        return f"documents changed: {shown}"
    return plain_difference(key, was, now)


def summary_of(outcomes: Sequence[Outcome], kept_ids: set[str], *, wanted: int,
               planned_cap: int, judge: Mapping[str, Any], seconds: float,
               documents: Mapping[str, Any], near_duplicates: Mapping[str, Any],
               impossible: Mapping[str, str]) -> dict[str, Any]:
    """``FILE.summary.json``: generated, kept and rejected per kind and reason, the judge's
    requests and tokens, seconds, documents read and skipped."""
    by_kind: dict[str, dict[str, Any]] = {}
    reasons: Counter[str] = Counter()
    for o in outcomes:
        entry = by_kind.setdefault(o.kind, {"generated": 0, "kept": 0, "rejected": {}})
        entry["generated"] += 1
        if o.id in kept_ids:
            entry["kept"] += 1
        else:
            reason = o.reason or "near-duplicate"
            entry["rejected"][reason] = entry["rejected"].get(reason, 0) + 1
            reasons[reason] += 1
    ordered = {r: reasons[r] for r in (*REASONS, *sorted(set(reasons) - set(REASONS)))
               if reasons[r]}
    return {"wanted": wanted, "generated": len(outcomes), "kept": len(kept_ids),
            "rejected": len(outcomes) - len(kept_ids), "complete": len(kept_ids) >= wanted,
            "candidate_cap": planned_cap, "by_kind": by_kind, "rejected_by_reason": ordered,
            "kinds_not_possible": dict(impossible), "near_duplicates": dict(near_duplicates),
            "judge": dict(judge), "seconds": round(seconds, 2), "documents": dict(documents)}


#: The judge counters added up over the runs on one output file (``--resume`` runs included).
SPENT_COUNTERS = ("requests", "cache_hits", "prompt_tokens", "completion_tokens",
                  "cached_tokens", "reasoning_tokens")


def new_spent() -> dict[str, Any]:
    """What no run has used yet."""
    return {"runs": 0, "seconds": 0.0, **dict.fromkeys(SPENT_COUNTERS, 0)}


def spent_before(files: OutputFiles) -> dict[str, Any]:
    """What the earlier runs on these files used, as their manifest recorded it (nothing, for
    a manifest of a run that was killed before it could record it)."""
    try:
        earlier = json.loads(files.manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        earlier = None
    spent = earlier.get("spent") if isinstance(earlier, dict) else None
    return {**new_spent(), **spent} if isinstance(spent, dict) else new_spent()


def add_spent(spent: Mapping[str, Any], stats: Mapping[str, Any], seconds: float
              ) -> dict[str, Any]:
    """``spent`` with one more run: its judge counters and seconds added.

    Example:
        >>> add_spent(new_spent(), {"requests": 3, "prompt_tokens": 90}, 2.5)["requests"]
        3
    """
    added = {k: int(spent.get(k, 0)) + int(stats.get(k, 0) or 0) for k in SPENT_COUNTERS}
    return {"runs": int(spent.get("runs", 0)) + 1,
            "seconds": round(float(spent.get("seconds", 0.0)) + seconds, 2), **added}
