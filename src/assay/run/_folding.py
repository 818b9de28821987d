"""The four option objects of one :func:`assay.evaluate` call, folded together: the flat
keywords of earlier releases (``evaluate(lang="zh")``) put into their option objects, with one
DeprecationWarning each, and what a run derives from the options (the scorers' settings, the
settings a stored run records).

Example:
    >>> sorted(group_options(lang="zh", out="runs/a"))
    ['run', 'scoring']
    >>> group_options(lang="zh")["scoring"].lang
    'zh'
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..calls import JudgeCallOptions
from ..metrics import ScoringSettings
from ._options import JudgeOptions, ReadOptions, RunOptions, ScoringOptions
from ._score import ScoreSettings

__all__ = ["EvalOptions", "group_options", "resolve_options"]


#: The parameter of evaluate() that takes each option class.
_GROUPS: dict[str, type[Any]] = {"reading": ReadOptions, "scoring": ScoringOptions,
                                 "judging": JudgeOptions, "run": RunOptions}
#: The keywords evaluate() takes itself, besides the option objects.
_OWN_KEYWORDS = frozenset({"metrics", "judge", "embeddings", "on_plan", "agent"})
#: The group of each flat keyword (a field name is unique across the groups).
_GROUP_OF: dict[str, str] = {f.name: group for group, cls in _GROUPS.items()
                             for f in dataclasses.fields(cls)}


@dataclass(frozen=True)
class EvalOptions:
    """The four option objects of one evaluate() call, after the flat keywords were folded
    in."""

    reading: ReadOptions
    scoring: ScoringOptions
    judging: JudgeOptions
    run: RunOptions

    def score_settings(self, scoring: ScoringSettings) -> ScoreSettings:
        """What the scorers need: the run's ``scoring`` settings (built by
        :meth:`ScoringOptions.settings`), how judge calls are made (sent as they are to
        Ray workers) and how many times each judge metric is asked (``run.repeat``)."""
        return ScoreSettings(scoring=scoring, calls=self.judging.call_options(),
                             repeat=self.run.repeat)

    def recorded_settings(self, scoring: ScoringSettings, *, judge: object, embeddings: object,
                          out_dir: Path | None, ray_workers: int | None) -> dict[str, Any]:
        """The settings a stored run records: the ``scoring`` settings, how judge calls were
        made, ``judge`` and ``embeddings`` as specs or ids."""
        j, engine = self.judging, self.run.engine
        return {
            **scoring.as_dict(), "concurrency": j.concurrency, "tpm": j.tpm, "rpm": j.rpm,
            "engine": engine, "repeat": self.run.repeat,
            **({"ray_workers": ray_workers} if engine == "ray" else {}),
            "judge": ([j if isinstance(j, str) else j.id for j in judge] if isinstance(judge, list)
                      else judge if isinstance(judge, str) else getattr(judge, "id", None)),
            "embeddings": embeddings if isinstance(embeddings, str) else None,
            "mapping": dict(self.reading.mapping or {}),
            "out": str(out_dir) if out_dir else None}


def group_options(**keywords: Any) -> dict[str, Any]:
    """Flat evaluate() keywords as evaluate() takes them now: each option field in its option
    object, by parameter (``lang="zh"`` → ``{"scoring": ScoringOptions(lang="zh")}``); the
    keywords evaluate() takes itself (``metrics``, ``judge``, ``embeddings``, ``on_plan``) as
    they are. For code that passes evaluate() keywords through.

    Example:
        >>> group_options(judge="openai:gpt-4o-mini", concurrency=2)
        {'judge': 'openai:gpt-4o-mini', 'judging': JudgeOptions(concurrency=2, tpm=None, rpm=None, max_attempts=6, max_wait=600.0, timeout=120.0, cache=True, prices=None)}

    Raises:
        TypeError: a keyword that evaluate() does not know.
    """
    grouped: dict[str, Any] = {}
    changes: dict[str, dict[str, Any]] = {}
    for key, value in keywords.items():
        if key in _OWN_KEYWORDS:
            grouped[key] = value
        elif key in _GROUP_OF:
            changes.setdefault(_GROUP_OF[key], {})[key] = value
        else:
            raise TypeError(f"evaluate() got an unexpected keyword argument {key!r}")
    return grouped | {group: _GROUPS[group](**fields) for group, fields in changes.items()}


def resolve_options(*, reading: ReadOptions, scoring: ScoringOptions,
                    judging: JudgeOptions | JudgeCallOptions, run: RunOptions,
                    legacy: Mapping[str, Any], caller: str) -> EvalOptions:
    """The option objects of a call, with its deprecated flat keywords folded in (a keyword
    wins over the same field of an object passed too); one DeprecationWarning per keyword,
    pointing at the caller's caller. ``judging`` may be the
    :class:`~assay.calls.JudgeCallOptions` every other model-calling function takes.

    Raises:
        TypeError: an option object of the wrong class, or an unknown keyword.
    """
    if isinstance(judging, JudgeCallOptions):
        judging = JudgeOptions.from_calls(judging)
    given: dict[str, Any] = {"reading": reading, "scoring": scoring, "judging": judging,
                             "run": run}
    for group, value in given.items():
        if not isinstance(value, _GROUPS[group]):
            raise TypeError(f"{caller}({group}=...) takes a {_GROUPS[group].__name__}; got "
                            f"{type(value).__name__} {value!r}.")
    changes: dict[str, dict[str, Any]] = {}
    for key, value in legacy.items():
        owner = _GROUP_OF.get(key)
        if owner is None:
            raise TypeError(f"{caller}() got an unexpected keyword argument {key!r}")
        warnings.warn(
            f"{caller}({key}=...) is deprecated and will be removed in the next release; "
            f"use {caller}({owner}={_GROUPS[owner].__name__}({key}=...)).",
            DeprecationWarning, stacklevel=3)
        changes.setdefault(owner, {})[key] = value
    return EvalOptions(**{group: dataclasses.replace(opts, **changes[group])
                          if group in changes else opts for group, opts in given.items()})
