"""Custom metrics from a template file: YAML front matter, then the template body.

::

    ---
    name: helpfulness
    kind: pointwise            # or pairwise
    scale: 1-5                 # or a list of labels: [unhelpful, partly, helpful]
    instruction: Rate how well the response helps the user with the question.
    rating_rubric:
      5: answers the question fully and correctly
      1: does not help at all
    calibration:               # optional, written by assay align: judge score -> label
      input: weighted          # the probability-weighted score (the rating without them)
      thresholds: {1: 0, 3: 2.6, 5: 4.1}
    ---
    <question>
    {{ question }}
    </question>
    <answer>
    {{ response }}
    </answer>

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tone.md"
    >>> _ = path.write_text("---\\nname: tone\\nscale: [rude, neutral, warm]\\n---\\n{{ response }}")
    >>> m = load_metric_file(path)
    >>> m.name, m.scale.labels
    ('tone', ['rude', 'neutral', 'warm'])
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ...errors import ConfigError
from ._claims import name_claim_problem
from ._pairwise import DEFAULT_TIE_MARGIN, PairwiseMetric
from ._pointwise import PointwiseMetric

__all__ = ["load_metric_file"]

_KEYS = {"pointwise": {"name", "kind", "scale", "instruction", "rating_rubric", "ordinal",
                       "calibration"},
         "pairwise": {"name", "kind", "instruction", "tie_margin"}}


def load_metric_file(path: str | Path, *, swap: bool = True, tie_margin: float | None = None
                     ) -> PointwiseMetric | PairwiseMetric:
    """Read one metric definition; every problem raises a ConfigError naming the file.

    ``swap`` and ``tie_margin`` apply to a pairwise metric (``tie_margin`` given here
    overrides the file's ``tie_margin`` key)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"Metric file {path}: cannot read it ({e.strerror}).") from None
    head, body = _split(text, path)
    try:
        meta = yaml.safe_load(head)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = f" line {mark.line + 2}" if mark else ""
        raise ConfigError(f"{path}{line}: the front matter is not valid YAML "
                          f"({getattr(e, 'problem', e)}).") from None
    if not isinstance(meta, dict):
        raise ConfigError(f"{path}: the front matter must be YAML keys such as 'name: my_metric'.")
    kind = str(meta.get("kind", "pointwise")).strip().lower()
    if kind not in _KEYS:
        raise ConfigError(f"{path}, key 'kind': got {kind!r}. Must be pointwise or pairwise.")
    problems = [f"unknown key {k!r} (allowed for {kind}: {sorted(_KEYS[kind])})"
                for k in meta if k not in _KEYS[kind]]
    if not isinstance(meta.get("name"), str) or not meta["name"].strip():
        problems.append("key 'name' is missing: give the metric a name, e.g. 'name: helpfulness'")
    elif (claimed := name_claim_problem(meta["name"].strip())) is not None:
        problems.append(claimed)
    if not body.strip():
        problems.append("the template body after the front matter is empty")
    if problems:
        raise ConfigError(f"{path}: " + "; ".join(problems) + ".")
    name = meta["name"].strip()
    instruction = str(meta.get("instruction") or "")
    if kind == "pairwise":
        margin = tie_margin if tie_margin is not None else meta.get("tie_margin",
                                                                        DEFAULT_TIE_MARGIN)
        return PairwiseMetric(name, body, instruction=instruction, swap=swap,
                              tie_margin=margin, where=str(path))
    scale: Any = meta.get("scale", "1-5")
    if isinstance(scale, list):
        scale = [str(x) if not isinstance(x, str) else x for x in scale]
    rubric = meta.get("rating_rubric") or {}
    if not isinstance(rubric, dict):
        raise ConfigError(f"{path}, key 'rating_rubric': expected a mapping of score to "
                          "meaning, e.g. '5: fully helpful'.")
    return PointwiseMetric(name, body, rating_rubric=rubric, scale=scale,
                           instruction=instruction, ordinal=meta.get("ordinal"),
                           where=str(path), calibration=meta.get("calibration"))


def _split(text: str, path: Path) -> tuple[str, str]:
    lines = text.lstrip("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise ConfigError(f"{path}: a metric file starts with a '---' line, then YAML keys "
                          "(name, kind, scale, ...), a closing '---' line, then the template.")
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return "".join(lines[1:i]), "".join(lines[i + 1:])
    raise ConfigError(f"{path}: the front matter has no closing '---' line.")
