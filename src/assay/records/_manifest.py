"""A run folder's manifest (``run.json``): which run the folder holds (dataset and its sha256,
metrics and versions, judge, status), so that ``--resume`` continues only that run.

Example:
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> read_manifest(folder) is None
    True
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import option

__all__ = ["MANIFEST_NAME", "RunManifest", "read_manifest", "stored_run_of"]

MANIFEST_NAME = "run.json"


@dataclass
class RunManifest:
    """What run a folder holds (``run.json``)."""

    dataset: str | None
    dataset_sha256: str | None
    metrics: dict[str, str]
    judge: str | None
    status: str = "running"
    run_id: str | None = None
    created: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    owner: dict[str, Any] = field(default_factory=dict)
    #: How the judge reads the rows: ``{"fence": ..., "on_injection": ...}`` (None in a
    #: folder written before it was recorded: not compared).
    judging: dict[str, str | int] | None = None

    def differences(self, other: RunManifest) -> list[str]:
        """What differs between the run in a folder (``self``) and a resume (``other``).

        Example:
            >>> a = RunManifest("a.jsonl", "11", {"f1_score": "1"}, "openai:m")
            >>> b = RunManifest("b.jsonl", "22", {"f1_score": "2", "bleu_score": "1"}, "local")
            >>> for line in a.differences(b): print(line)
            dataset: the folder's run scored a.jsonl (sha256 11), this one b.jsonl (sha256 22)
            metrics: this run adds bleu_score
            metrics: f1_score is version 1 in the folder's run, 2 in this one
            judge: the folder's run used openai:m, this one local
            >>> c = RunManifest("a.jsonl", "11", {}, None, judging={"on_injection": "flag"})
            >>> c.differences(RunManifest("a.jsonl", "11", {}, None,
            ...                           judging={"on_injection": "mask"}))
            ["on_injection: the folder's run used flag, this one mask"]
            >>> c.differences(RunManifest("a.jsonl", "11", {}, None,
            ...                           judging={"on_injection": "flag", "repeat": 3}))
            ["repeat: the folder's run used 1, this one 3"]
        """
        out = []
        if self.dataset_sha256 != other.dataset_sha256:
            out.append(f"dataset: the folder's run scored {self.dataset} (sha256 "
                       f"{(self.dataset_sha256 or '-')[:12]}), this one {other.dataset} "
                       f"(sha256 {(other.dataset_sha256 or '-')[:12]})")
        added = sorted(set(other.metrics) - set(self.metrics))
        dropped = sorted(set(self.metrics) - set(other.metrics))
        if added:
            out.append(f"metrics: this run adds {', '.join(added)}")
        if dropped:
            out.append(f"metrics: this run leaves out {', '.join(dropped)}")
        for name in sorted(set(self.metrics) & set(other.metrics)):
            if self.metrics[name] != other.metrics[name]:
                out.append(f"metrics: {name} is version {self.metrics[name]} in the folder's "
                           f"run, {other.metrics[name]} in this one")
        if self.judge != other.judge:
            out.append(f"judge: the folder's run used {self.judge or 'no judge'}, this one "
                       f"{other.judge or 'no judge'}")
        if self.judging is not None and other.judging is not None:
            # a folder written before --repeat was recorded asked each judge metric once
            was_judging, now_judging = {"repeat": 1, **self.judging}, {"repeat": 1, **other.judging}
            for key in sorted(set(was_judging) & set(now_judging)):
                was, now = was_judging.get(key), now_judging.get(key)
                if was != now:
                    out.append(f"{option(key)}: the folder's run used {was}, "
                               f"this one {now}")
        return out


def read_manifest(folder: Path) -> RunManifest | None:
    """The manifest of the run in ``folder``, or None when there is none (or it is unreadable).
    """
    path = folder / MANIFEST_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return RunManifest(**{k: data[k] for k in RunManifest.__dataclass_fields__ if k in data})
    except (OSError, ValueError, TypeError, KeyError):
        return None


def stored_run_of(manifest_path: Path) -> str | None:
    """The stored run an earlier job's manifest (a JSON object with ``run_id``) names; None: none,
    or no readable manifest."""
    try:
        run_id = json.loads(manifest_path.read_text(encoding="utf-8")).get("run_id")
    except (OSError, ValueError, AttributeError):
        return None
    return run_id if isinstance(run_id, str) else None
