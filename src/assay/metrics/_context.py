"""The score context: what a metric may use while scoring a row.

Example:
    >>> ctx = ScoreContext(lang="zh")
    >>> ctx.lang, ctx.settings.lang, ctx.judge is None
    ('zh', 'zh', True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._settings import (
    Fence,
    InjectionDetector,
    InjectionMode,
    JudgeStyle,
    Lang,
    Reasons,
    ScoringSettings,
)

if TYPE_CHECKING:
    from ..embeddings import Embedder
    from ..judges import Judge

__all__ = ["ScoreContext"]


@dataclass(frozen=True, init=False)
class ScoreContext:
    """What a metric may use while scoring: the (managed) judge and embedder, and the run's
    scoring settings (``settings``: a :class:`ScoringSettings`, checked when it was made).

    Made with ``settings``, or with a few of them changed from the defaults by name
    (``ScoreContext(judge=judge, lang="zh")``); the core settings read as attributes too
    (``ctx.lang`` is ``ctx.settings.lang``).

    Example:
        >>> ctx = ScoreContext(style="verdict")
        >>> ctx.style, ctx.settings.reasons, ctx.settings.family("safety_mode")
        ('verdict', 'auto', 'combined')
        >>> ScoreContext(style="both")
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: Got style='both'. Must be one of ['auto', 'rating', 'verdict'].
    """

    judge: Judge | None
    embedder: Embedder | None
    settings: ScoringSettings

    def __init__(self, judge: Judge | None = None, embedder: Embedder | None = None,
                 settings: ScoringSettings | None = None, **changes: object) -> None:
        base = settings if settings is not None else ScoringSettings()
        object.__setattr__(self, "judge", judge)
        object.__setattr__(self, "embedder", embedder)
        object.__setattr__(self, "settings", base.replace(**changes) if changes else base)

    @property
    def lang(self) -> Lang:
        """The rubrics' language (``settings.lang``)."""
        return self.settings.lang

    @property
    def style(self) -> JudgeStyle:
        """How judge metrics ask (``settings.style``)."""
        return self.settings.style

    @property
    def on_injection(self) -> InjectionMode:
        """What a row that addresses the evaluator gets (``settings.on_injection``)."""
        return self.settings.on_injection

    @property
    def fence(self) -> Fence:
        """How rubrics fence the texts under evaluation (``settings.fence``)."""
        return self.settings.fence

    @property
    def injection_detector(self) -> InjectionDetector:
        """What finds text addressed to the evaluator (``settings.injection_detector``)."""
        return self.settings.injection_detector

    @property
    def reasons(self) -> Reasons:
        """Which rows get the judge's reason (``settings.reasons``)."""
        return self.settings.reasons
