"""What a stored run looks like: ``RunInfo``, the JSON codecs of its columns, and reading runs
back (with their tags and row counts) from a query.

A ``running`` run whose writing process is gone reads as ``interrupted`` (see ``_owner``).

Example:
    >>> clean_tags(["nightly", " ci ", "nightly", "key=sk-proj-a1b2c3d4e5"])
    ['ci', 'key=***', 'nightly']
    >>> loads(dumps({"f1_score": "1"}))
    {'f1_score': '1'}
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from ..errors import ConfigError
from ._owner import effective_status
from ._schema import rows as rows_t
from ._schema import runs as runs_t
from ._schema import tags as tags_t
from ._secrets import mask_secrets

__all__ = ["IN_CHUNK", "JOB_KINDS", "KINDS", "STATUSES", "RunInfo", "clean_tags", "dumps", "loads", "read_infos",
           "select_runs", "str_map"]

#: What kind of run a record is.
KINDS = ("run", "robustness", "jailbreak", "calibration", "watch", "generate", "simulate", "attack",
         "arena")
#: The kinds whose rows are what a producer wrote (a test row, a conversation, an attack
#: transcript), not scores: they have their own summary, and only an attack run compares.
JOB_KINDS = ("generate", "simulate", "attack")
#: A run's life: ``running`` until ``finish_run`` (``complete``) or an interruption.
STATUSES = ("running", "complete", "interrupted")

IN_CHUNK = 500  # ids per IN (...) query: well under SQLite's bound-parameter limit


@dataclass
class RunInfo:
    """One stored run's metadata (its per-row records come from ``Store.rows``).

    ``created`` and ``finished`` are ISO-8601 UTC; ``metrics`` maps metric name to version and
    ``prompt_sha256`` template name to sha256; ``settings`` is as sanitized when stored;
    ``rows`` counts the stored per-row records; ``finished`` is when the run was last finished
    (``None`` while running). ``status`` is ``interrupted`` for a run left ``running`` by a
    process that is gone; ``owner`` (``host:pid``) is the process that last wrote the run and
    ``heartbeat`` when it last did (``None`` for runs from before they were recorded).
    """

    id: str
    name: str | None
    kind: str
    tags: list[str]
    created: str
    status: str
    dataset: str | None
    dataset_sha256: str | None
    metrics: dict[str, str]
    prompt_sha256: dict[str, str]
    judge: str | None
    settings: dict[str, Any]
    tokens: dict[str, Any]
    timings: dict[str, Any]
    assay_version: str
    summary: dict[str, Any] | None
    rows: int
    finished: str | None = None
    owner: str | None = None
    heartbeat: str | None = None


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def str_map(value: Mapping[str, Any] | None, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"Got {what}={value!r}. Must be a mapping of name to string.")
    return {str(k): mask_secrets(str(v)) for k, v in value.items()}


def clean_tags(tags: Iterable[str] | str) -> list[str]:
    """Tags stripped, masked for secrets (like every stored text), deduplicated and sorted."""
    if isinstance(tags, str):
        tags = [tags]
    out: set[str] = set()
    for tag in tags:
        if not isinstance(tag, str) or not tag.strip() or len(tag.strip()) > 200:
            raise ConfigError(f"Got tag {tag!r}. Tags must be non-empty strings of at most 200 "
                              "characters.")
        out.add(mask_secrets(tag.strip()))
    return sorted(out)


def select_runs() -> sa.Select[Any]:
    """Every run with its stored row count, newest first (add ``where`` clauses to narrow)."""
    row_count = (sa.select(sa.func.count()).where(rows_t.c.run_id == runs_t.c.id)
                 .scalar_subquery().label("row_count"))
    return (sa.select(runs_t, row_count)
            .order_by(runs_t.c.created.desc(), runs_t.c.id.desc()))

def read_infos(conn: sa.Connection, query: sa.Select[Any]) -> list[RunInfo]:
    """The runs a ``select_runs()`` query finds, each with its tags."""
    found = conn.execute(query).mappings().all()
    tag_map: dict[str, list[str]] = {r["id"]: [] for r in found}
    ids = list(tag_map)
    for start in range(0, len(ids), IN_CHUNK):
        for run_id, tag in conn.execute(
                sa.select(tags_t.c.run_id, tags_t.c.tag)
                .where(tags_t.c.run_id.in_(ids[start:start + IN_CHUNK]))
                .order_by(tags_t.c.tag)):
            tag_map[run_id].append(tag)
    return [RunInfo(
        id=r["id"], name=r["name"], kind=r["kind"], tags=tag_map[r["id"]],
        created=r["created"],
        status=effective_status(r["status"], r["owner_host"], r["owner_pid"], r["owner_start"],
                                r["heartbeat"] or r["created"]),
        dataset=r["dataset"],
        dataset_sha256=r["dataset_sha256"], metrics=loads(r["metrics"]),
        prompt_sha256=loads(r["prompt_sha256"]), judge=r["judge"],
        settings=loads(r["settings"]), tokens=loads(r["tokens"]),
        timings=loads(r["timings"]), assay_version=r["assay_version"],
        summary=loads(r["summary"]), rows=int(r["row_count"]), finished=r["finished"],
        owner=f"{r['owner_host']}:{r['owner_pid']}" if r["owner_host"] else None,
        heartbeat=r["heartbeat"],
    ) for r in found]
