"""Stored runs as JSON for ``assay runs --json`` and ``assay show --json``: stable keys, every
value a plain JSON type, and nothing that could be a credential.

Example:
    >>> from assay.store import RunInfo
    >>> info = RunInfo(id="20261121-203638-d436", name="base", kind="run", tags=["nightly"],
    ...     created="2026-11-21T20:36:38Z", status="complete", dataset="qa.jsonl",
    ...     dataset_sha256="ab12", metrics={"f1_score": "1"}, prompt_sha256={},
    ...     judge="openai:gpt-4o-mini", settings={"note": "key sk-abcdefgh1234"}, tokens={},
    ...     timings={}, assay_version="0.1.0", summary={"metrics": {"f1_score": {"mean": 0.5}}},
    ...     rows=4)
    >>> listed = run_listing(info)
    >>> list(listed) == list(LISTING_KEYS), listed["means"]
    (True, {'f1_score': 0.5})
    >>> run_detail(info)["settings"]
    {'note': 'key ***'}
"""

from __future__ import annotations

from typing import Any

from ..store import RunInfo, mask_secrets, sanitize

__all__ = ["DETAIL_KEYS", "LISTING_KEYS", "run_detail", "run_listing"]

#: The keys of each run in ``assay runs --json``, in this order (stable: scripts read them).
LISTING_KEYS = ("id", "name", "kind", "status", "created", "finished", "rows", "dataset",
                "dataset_sha256", "judge", "tags", "metrics", "means", "cost",
                "assay_version")
#: ``assay show --json``: the listing's keys, then the run's full record.
DETAIL_KEYS = (*LISTING_KEYS, "prompt_sha256", "settings", "tokens", "timings", "summary")


def _means(info: RunInfo) -> dict[str, float | None]:
    metrics = (info.summary or {}).get("metrics") or {}
    return {name: (agg.get("mean") if isinstance(agg, dict) else None)
            for name, agg in metrics.items()}


def _cost(info: RunInfo) -> dict[str, Any] | None:
    """The run's cost: ``{"usd", "unknown_reason"}`` (``usd`` null when a price is unknown);
    ``None`` for a run recorded before costs were."""
    cost = (info.summary or {}).get("cost")
    if not isinstance(cost, dict):
        return None
    return {"usd": cost.get("usd"), "unknown_reason": cost.get("unknown_reason")}


def _text(value: str | None) -> str | None:
    return None if value is None else mask_secrets(value)


def run_listing(info: RunInfo) -> dict[str, Any]:
    """One run as ``assay runs --json`` lists it (keys: :data:`LISTING_KEYS`)."""
    return {
        "id": info.id, "name": _text(info.name), "kind": info.kind, "status": info.status,
        "created": info.created, "finished": info.finished, "rows": info.rows,
        "dataset": _text(info.dataset), "dataset_sha256": info.dataset_sha256,
        "judge": _text(info.judge), "tags": [mask_secrets(t) for t in info.tags],
        "metrics": dict(info.metrics or {}), "means": _means(info), "cost": _cost(info),
        "assay_version": info.assay_version,
    }


def run_detail(info: RunInfo) -> dict[str, Any]:
    """One run as ``assay show --json`` prints it (keys: :data:`DETAIL_KEYS`). Settings pass the
    store's sanitizer again, so a record written by an older assay cannot leak a key."""
    return {
        **run_listing(info),
        "prompt_sha256": dict(info.prompt_sha256 or {}),
        "settings": sanitize(dict(info.settings or {})),
        "tokens": sanitize(dict(info.tokens or {}), drop_secret_names=False),
        "timings": sanitize(dict(info.timings or {}), drop_secret_names=False),
        "summary": sanitize(info.summary, drop_secret_names=False),
    }
