"""RGB benchmark instances and how test inputs are built from them (Chen et al., AAAI 2024).

Example:
    >>> inst = Instance(id="0", query="Q?", answer=[["Paris"]], positive=["Paris is..."],
    ...                 negative=["Lyon is...", "Nice is..."])
    >>> import random
    >>> build_passages(inst, k=2, noise_ratio=0.5, rng=random.Random(0))
    ['Nice is...', 'Paris is...']
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..errors import DataError

__all__ = ["Instance", "build_passages", "load_rgb", "matches_answer"]


class Instance(BaseModel):
    """One RGB item. ``answer`` is a list of required parts, each a list of accepted strings;
    ``positive`` holds passages (or, for integration, one list of passages per sub-question)."""

    id: str
    query: str
    answer: list[list[str]]
    positive: list[Any]
    negative: list[str]
    positive_wrong: list[str] = []
    fakeanswer: list[str] = []


def _parts(value: Any) -> list[list[str]] | None:
    if isinstance(value, str):
        return [[value]]
    if isinstance(value, list) and value:
        parts = []
        for part in value:
            if isinstance(part, str):
                parts.append([part])
            elif isinstance(part, list) and part and all(isinstance(x, str) for x in part):
                parts.append(list(part))
            else:
                return None
        return parts
    return None


def load_rgb(path: str | Path) -> list[Instance]:
    """Read an RGB file (JSON Lines): every problem is reported at once, before any call."""
    path = Path(path)
    if not path.is_file():
        raise DataError([f"{path}: file not found. Fix: check the path."])
    problems: list[str] = []
    out: list[Instance] = []
    # newline="\n": lines end at "\n" only (a trailing "\r" is whitespace to json.loads);
    # universal newlines would also end one at a lone "\r"
    try:
        with path.open(encoding="utf-8-sig", newline="\n") as f:
            lines = list(f)
    except UnicodeDecodeError as e:
        raise DataError([(f"{path}: not UTF-8 text (byte {e.start}: {e.reason}). Fix: save "
                          "the file as UTF-8 (e.g. iconv -f latin1 -t utf-8).")]) from None
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as e:
            why = e.msg if isinstance(e, json.JSONDecodeError) else "nested too deeply"
            problems.append(f"{path} line {lineno}: invalid JSON ({why}). Fix: write one JSON "
                            "object per line.")
            continue
        if not isinstance(rec, dict):
            problems.append(f"{path} line {lineno}: expected a JSON object, got "
                            f"{type(rec).__name__}. Fix: write one object per line.")
            continue
        where = f"{path} line {lineno}"
        before = len(problems)
        answer = _parts(rec.get("answer"))
        if answer is None:
            problems.append(f"{where}, field 'answer': expected text or a list of parts.")
        for field in ("query",):
            if not isinstance(rec.get(field), str):
                problems.append(f"{where}, field {field!r}: missing or not text.")
        for field in ("positive", "negative"):
            if not isinstance(rec.get(field), list):
                problems.append(f"{where}, field {field!r}: expected a list of passages.")
        if answer is None or len(problems) > before:
            continue
        fake = rec.get("fakeanswer")
        out.append(Instance(id=str(rec.get("id", lineno)), query=rec["query"], answer=answer,
                            positive=rec["positive"], negative=rec["negative"],
                            positive_wrong=rec.get("positive_wrong") or [],
                            fakeanswer=[fake] if isinstance(fake, str) else (fake or [])))
    if problems:
        raise DataError(problems, source=str(path))
    return out


def build_passages(inst: Instance, *, k: int, noise_ratio: float, rng: random.Random,
                   source: str = "positive") -> list[str]:
    """``k`` passages: ceil(k x noise_ratio) noise passages, the rest from ``source``
    (noise ratio 1: noise only, however few noise passages there are)
    (``positive``, or ``positive_wrong`` for counterfactuals), shuffled. Integration
    instances (positives grouped per sub-question) draw their positives round-robin."""
    n_noise = min(math.ceil(k * noise_ratio), len(inst.negative))
    noise = rng.sample(inst.negative, n_noise)
    n_good = 0 if noise_ratio >= 1 else k - n_noise  # all-noise means no positive at all
    pool = inst.positive_wrong if source == "positive_wrong" else inst.positive
    if pool and all(isinstance(g, list) for g in pool):
        groups = [list(g) for g in pool]
        good: list[str] = []
        while len(good) < n_good and any(groups):
            for g in groups:
                if g and len(good) < n_good:
                    good.append(g.pop(0))
    else:
        good = list(pool[:n_good])
    passages = noise + good
    rng.shuffle(passages)
    return passages


def matches_answer(response: str, parts: list[list[str]]) -> bool:
    """True when every required part has one accepted string in the response (ignoring case)."""
    text = response.lower()
    return all(any(alt.lower() in text for alt in part) for part in parts)
