"""Whether two runs can be compared fairly: the judge, the dataset (its sha256) and each
compared metric's version and prompt sha256, and a warning naming each that differs.

A run's provenance comes from ``RunData.meta`` (a stored run's record) and then its summary;
a fact that either run did not record is not compared (a lexical-only run has no judge).

Example:
    >>> a = {"judge": "openai:gpt-4o-mini", "dataset_sha256": "ab12", "metrics": {"f1_score": "1"}}
    >>> b = {"judge": "local", "dataset_sha256": "ab12", "metrics": {"f1_score": "2"}}
    >>> [w["field"] for w in provenance_warnings(a, b, ["f1_score"])]
    ['judge', 'metric_version']
    >>> provenance_warnings(a, a, ["f1_score"])
    []
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any

from ..records import RunData

__all__ = ["NO_SHARED_ROWS", "PROVENANCE_KEYS", "comparison_warnings", "provenance_of",
           "provenance_warnings"]

#: What a run's provenance holds: the judge id, the dataset path and sha256, metric name to
#: version, and prompt template to sha256.
PROVENANCE_KEYS = ("judge", "dataset", "dataset_sha256", "metrics", "prompt_sha256")
#: The warning when the two runs pair no row by id.
NO_SHARED_ROWS = "no row id is in both runs: were they run on the same dataset?"


def _judge_id(value: Any) -> str | None:
    if isinstance(value, Mapping):  # summary.json keeps the judge's counters under its id
        value = value.get("id")
    return str(value) if value else None


def provenance_of(run: RunData) -> dict[str, Any]:
    """The run's provenance (keys :data:`PROVENANCE_KEYS`; ``None`` or ``{}`` where unknown):
    from ``meta`` (a stored run: ``metrics`` there maps name to version), else the summary
    (``metric_versions``), and prompt hashes from the records when neither has them.

    Example:
        >>> rec = {"id": "q1", "relevance": {"value": 4, "details": {"prompt_sha256": "ab12"}}}
        >>> run = RunData("r", {"judge": {"id": "local"}, "dataset": "qa.jsonl"}, [rec])
        >>> p = provenance_of(run)
        >>> p["judge"], p["metrics"], p["prompt_sha256"]
        ('local', {}, {'relevance': 'ab12'})
    """
    meta, summary = run.meta or {}, run.summary or {}

    def pick(key: str) -> Any:
        value = meta.get(key)
        return value if value not in (None, "", {}) else summary.get(key)

    versions = meta.get("metrics") or summary.get("metric_versions") or {}
    prompts = pick("prompt_sha256") or _record_prompts(run.records)
    return {
        "judge": _judge_id(pick("judge")),
        "dataset": pick("dataset") or None,
        "dataset_sha256": pick("dataset_sha256") or None,
        "metrics": {str(k): str(v) for k, v in versions.items()},
        "prompt_sha256": {str(k): str(v) for k, v in prompts.items()},
    }


def _record_prompts(records: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Each metric's prompt sha256 as its first result that has one recorded it (in
    ``details.prompt_sha256``): what a run directory tells when no store record is at hand."""
    found: dict[str, str] = {}
    for record in records:
        for name, result in record.items():
            if name in found or not isinstance(result, Mapping):
                continue
            sha = (result.get("details") or {}).get("prompt_sha256")
            if isinstance(sha, str) and sha:
                found[name] = sha
    return found


def _short(sha: str) -> str:
    return sha[:12]


def provenance_warnings(a: Mapping[str, Any], b: Mapping[str, Any],
                        metrics: Sequence[str]) -> list[dict[str, Any]]:
    """One warning per fact that differs between baseline ``a`` and candidate ``b``, each
    ``{"field", "name", "a", "b", "message"}`` (``name``: the metric or prompt, else None).

    Compared: the judge; the dataset by sha256 (by file name when either run has no sha256);
    the version of each metric in ``metrics``; the sha256 of each prompt whose template both
    runs used and that belongs to one of ``metrics``.
    """
    out: list[dict[str, Any]] = []

    def warn(field: str, name: str | None, va: Any, vb: Any, message: str) -> None:
        out.append({"field": field, "name": name, "a": va, "b": vb, "message": message})

    ja, jb = a.get("judge"), b.get("judge")
    if ja and jb and ja != jb:
        warn("judge", None, ja, jb, f"the runs used different judges: A {ja}, B {jb}. A "
             "difference in scores may come from the judge, not from the app.")
    sa, sb = a.get("dataset_sha256"), b.get("dataset_sha256")
    if sa and sb:
        if sa != sb:
            warn("dataset_sha256", None, sa, sb,
                 f"the runs scored different datasets: sha256 A {_short(sa)}…, B "
                 f"{_short(sb)}… ({a.get('dataset') or '?'} vs {b.get('dataset') or '?'}).")
    else:
        da, db = a.get("dataset"), b.get("dataset")
        if da and db and PurePath(str(da)).name != PurePath(str(db)).name:
            warn("dataset", None, da, db, f"the runs may have scored different datasets: A "
                 f"{da}, B {db} (no sha256 recorded to check).")
    ma, mb = a.get("metrics") or {}, b.get("metrics") or {}
    for name in metrics:
        if name in ma and name in mb and ma[name] != mb[name]:
            warn("metric_version", name, ma[name], mb[name],
                 f"{name}: different metric versions, A v{ma[name]}, B v{mb[name]}.")
    pa, pb = a.get("prompt_sha256") or {}, b.get("prompt_sha256") or {}
    for key in sorted(set(pa) & set(pb)):
        owner = key.split("/")[0]
        if pa[key] != pb[key] and (owner in metrics or key in metrics):
            warn("prompt_sha256", key, pa[key], pb[key],
                 f"{key}: different prompts, sha256 A {_short(pa[key])}…, B {_short(pb[key])}….")
    return out


def comparison_warnings(a: RunData, b: RunData, metrics: Sequence[str], *,
                        shared_rows: int) -> list[dict[str, Any]]:
    """Every warning of comparing baseline ``a`` with candidate ``b`` (the one list that
    ``assay compare`` prints and the comparison report and web UI show first): each
    :func:`provenance_warnings` of the two runs, then ``shared_rows`` when no row id is in
    both runs.

    Example:
        >>> a = RunData("a", {"judge": "fake"}, [{"id": "q1"}])
        >>> b = RunData("b", {"judge": "local"}, [{"id": "q2"}])
        >>> [w["field"] for w in comparison_warnings(a, b, [], shared_rows=0)]
        ['judge', 'shared_rows']
    """
    out = provenance_warnings(provenance_of(a), provenance_of(b), metrics)
    if shared_rows == 0:
        out.append({"field": "shared_rows", "name": None, "a": len(a.records),
                    "b": len(b.records), "message": NO_SHARED_ROWS})
    return out
