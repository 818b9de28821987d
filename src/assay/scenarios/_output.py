"""The files of a simulation beside ``FILE.jsonl``: the conversations (``FILE.jsonl``), the
manifest a resume is checked against (``FILE.run.json``) and the summary
(``FILE.summary.json``); what a resume keeps; the summary itself.

Example:
    >>> files = SimulationFiles.beside("out/sim.jsonl")
    >>> [p.name for p in (files.rows, files.manifest, files.summary)]
    ['sim.jsonl', 'sim.run.json', 'sim.summary.json']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._files import beside
from ..records import ResumeWords, plain_difference
from ._conversation import FINISHED, STOP_REASONS
from ._scenario import Scenario

__all__ = ["MANIFEST_KEYS", "SimulationFiles", "finished", "manifest_for", "resume_rule",
           "summary_of"]

#: What a resume must share with the run it continues.
MANIFEST_KEYS = ("scenarios", "seed", "user_model", "target", "tools", "max_turns", "max_steps")


@dataclass(frozen=True)
class SimulationFiles:
    """The paths of one simulation's files."""

    rows: Path
    manifest: Path
    summary: Path

    @classmethod
    def beside(cls, out: str | Path) -> SimulationFiles:
        """The files of a simulation writing ``out`` (``FILE.jsonl``)."""
        return cls(Path(out), beside(out, ".run.json"), beside(out, ".summary.json"))

    def existing(self) -> list[Path]:
        """The files of an earlier run that exist already."""
        return [p for p in (self.rows, self.manifest) if p.exists()]


def manifest_for(scenarios: Sequence[Scenario], *, seed: int, user_model: str, target: str,
                 tools: str | None, max_turns: int, max_steps: int) -> dict[str, Any]:
    """The manifest of a run: each scenario's fingerprint, in order, and the settings a
    resume must keep.

    Example:
        >>> m = manifest_for([Scenario(id="s1", goal="g")], seed=0, user_model="fake",
        ...                  target="python:m:f", tools=None, max_turns=6, max_steps=8)
        >>> list(m["scenarios"]), m["max_turns"]
        (['s1'], 6)
    """
    return {"command": "simulate", "format": 1,
            "scenarios": {s.id: s.fingerprint() for s in scenarios}, "seed": seed,
            "user_model": user_model, "target": target, "tools": tools, "max_turns": max_turns,
            "max_steps": max_steps}


def resume_rule(files: SimulationFiles, *, resume: bool, overwrite: bool) -> dict[str, Any]:
    """What :meth:`assay.records.Job.begin` needs to apply the resume rule to a simulation:
    refuse an earlier run's files without ``resume`` or ``overwrite``, and a resume of other
    scenarios or settings, naming what differs."""
    return {"existing": files.existing(), "keys": MANIFEST_KEYS, "words": _WORDS,
            "resume": resume, "overwrite": overwrite, "difference": _difference}


_WORDS = ResumeWords(holds="simulated conversations", contents="the conversations",
                     made="simulated with other scenarios or settings",
                     same="the same scenarios and options")


def _difference(key: str, was: Any, now: Any) -> str:
    if key == "scenarios" and isinstance(was, dict) and isinstance(now, dict):
        changed = [k for k in dict.fromkeys([*was, *now]) if was.get(k) != now.get(k)]
        shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5
                                          else "")
        return f"scenarios added, removed or changed: {shown}" if changed else \
            "the scenarios are in another order"
    return plain_difference(key, was, now)


def finished(row: Mapping[str, Any]) -> bool:
    """Whether a resumed run keeps ``row``: a conversation that ran to its end (failed ones
    are run again)."""
    return row.get("stop_reason") in FINISHED and not row.get("error")


def summary_of(rows: Sequence[Mapping[str, Any]], *, seconds: Mapping[str, float],
               user_model: Mapping[str, Any], app: Mapping[str, Any],
               total_seconds: float) -> dict[str, Any]:
    """``FILE.summary.json``: conversations by stop reason, the user model's requests and
    tokens, what the app did, and the seconds of the conversations this run simulated
    (``seconds``, by id; rows kept from an earlier run are not timed again).

    Example:
        >>> s = summary_of([{"id": "a", "stop_reason": "goal_met", "messages": [{}]}],
        ...                seconds={"a": 2.0}, user_model={"id": "fake"}, app={},
        ...                total_seconds=2.5)
        >>> s["stop_reasons"]["goal_met"], s["seconds_per_conversation"]
        (1, 2.0)
    """
    reasons = Counter(str(r.get("stop_reason")) for r in rows)
    per = sorted(seconds.values())
    return {"scenarios": len(rows),
            "stop_reasons": {r: reasons.get(r, 0) for r in STOP_REASONS},
            "failed": reasons.get("app_failed", 0) + reasons.get("user_failed", 0),
            "without_messages": [str(r["id"]) for r in rows if not r.get("messages")],
            "simulated": len(per), "kept_from_earlier_run": len(rows) - len(per),
            "seconds_per_conversation": round(sum(per) / len(per), 2) if per else None,
            "seconds_max": per[-1] if per else None, "seconds": round(total_seconds, 2),
            "conversation_seconds": dict(seconds), "user_model": dict(user_model),
            "app": dict(app)}
