"""The scoring settings of a run: one declaration each, and the one typed object built from them.

A :class:`Setting` declares one setting: its name (the field of ``ScoringOptions`` and the
``assay run`` flag), its default, its allowed values and one line of doc. The core settings,
which change how every metric asks, are declared here (:data:`CORE_SETTINGS`); a metric family
declares its own in its ``options`` (the safety family declares ``safety_threshold`` and
``safety_mode``), the way a plugin's family would. :class:`ScoringSettings` is the one typed,
checked, frozen object a run builds from its options, once; every ScoreContext carries it
(``ctx.settings``), and the Ray engine sends it to its workers as it is (it pickles).

Example:
    >>> settings = ScoringSettings.build({"lang": "zh", "safety_mode": "separate"})
    >>> settings.lang, settings.reasons, settings.family("safety_mode")
    ('zh', 'auto', 'separate')
    >>> settings.replace(reasons="never").reasons
    'never'
    >>> ScoringSettings.build({"reasons": "sometimes"})
    Traceback (most recent call last):
    ...
    assay.errors.ConfigError: Got reasons='sometimes'. Must be one of ['auto', 'always', 'never'].
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar, get_args

from ..asking import Fence, Lang
from ..errors import ConfigError, option

__all__ = ["CORE_SETTINGS", "Fence", "InjectionDetector", "InjectionMode", "JudgeStyle", "Lang",
           "Reasons", "ScoringSettings", "Setting", "declare_family_settings",
           "declared_settings", "family_settings"]

#: How rubric metrics ask: ``auto`` (verdicts on a local judge, where they rank better),
#: ``rating`` (a 1-5 number) or ``verdict`` (Yes/No, P(yes) mapped onto the scale).
JudgeStyle = Literal["auto", "rating", "verdict"]
#: What a run does with a row whose texts address the evaluator (``assay.run`` explains each).
InjectionMode = Literal["mask", "flag", "unscored", "fail"]
#: What finds such rows: the patterns and the learned detector, or the patterns alone.
InjectionDetector = Literal["learned", "patterns"]
#: Which rows get the judge's reason: every row, none, or (``auto``) on a local judge the rows
#: that fail the metric plus a small sample, on a remote one every row.
Reasons = Literal["auto", "always", "never"]

T = TypeVar("T", bound=str)


@dataclass(frozen=True)
class Setting(Generic[T]):
    """One scoring setting: its name, its default, its allowed values and one line of doc.

    Example:
        >>> tone = Setting("tone", "plain", ("plain", "formal"), "How answers are phrased.")
        >>> tone.check("formal")
        'formal'
        >>> tone.check("rude")
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: Got tone='rude'. Must be one of ['plain', 'formal'].
    """

    name: str
    default: T
    choices: tuple[T, ...]
    doc: str

    def __post_init__(self) -> None:
        if self.default not in self.choices:  # a declaration's own mistake, not the user's
            raise ValueError(f"Setting {self.name!r}: default {self.default!r} is not one of "
                             f"{list(self.choices)}.")

    def check(self, value: object) -> T:
        """``value`` when it is one of the allowed values, else a ConfigError naming the
        setting (as the caller knows it: ``reasons='x'``, or ``--reasons x`` in the CLI)."""
        for choice in self.choices:
            if value == choice:
                return choice
        raise ConfigError(f"Got {option(self.name, value)}. Must be one of "
                          f"{list(self.choices)}.")


#: ``Lang`` (the languages of the prompt files) and ``Fence`` (how rubrics fence the texts under
#: evaluation: escaped tags; also between boundary lines, ``spotlight``; and every space of each
#: text written as a mark, ``datamark``) come from :mod:`assay.asking`, which reads the prompts.
LANG: Setting[Lang] = Setting("lang", "en", get_args(Lang), "The rubrics' language.")
STYLE: Setting[JudgeStyle] = Setting(
    "style", "auto", get_args(JudgeStyle),
    "How judge metrics ask: a 1-5 rating, a Yes/No verdict, or the judge's better one.")
ON_INJECTION: Setting[InjectionMode] = Setting(
    "on_injection", "mask", get_args(InjectionMode),
    "What a row whose texts address the evaluator gets besides its flag.")
FENCE: Setting[Fence] = Setting(
    "fence", "tags", get_args(Fence), "How rubrics fence the texts under evaluation.")
INJECTION_DETECTOR: Setting[InjectionDetector] = Setting(
    "injection_detector", "learned", get_args(InjectionDetector),
    "What finds text addressed to the evaluator: patterns and a learned classifier, or "
    "patterns only.")
REASONS: Setting[Reasons] = Setting(
    "reasons", "auto", get_args(Reasons), "Which rows get the judge's reason.")

#: The settings every run has, in ``ScoringOptions``' order (a metric family's own come from its
#: ``options``: see :func:`family_settings`).
CORE_SETTINGS: tuple[Setting[Any], ...] = (LANG, STYLE, ON_INJECTION, FENCE, INJECTION_DETECTOR,
                                           REASONS)


#: The settings each registered metric family declares, by family name, in registration order
#: (:func:`~assay.metrics.register_family` declares them through
#: :func:`declare_family_settings`): what the settings check reads, never the families.
_FAMILY_SETTINGS: dict[str, tuple[Setting[Any], ...]] = {}


def declare_family_settings(family: str, settings: Sequence[object]) -> None:
    """Declare ``settings`` as the scoring settings of the metric family named ``family``
    (replacing what it declared before); :func:`~assay.metrics.register_family` calls it.

    Example:
        >>> declare_family_settings("safety", ("safety_mode",))
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: The safety family's options must be Setting declarations (name, default, allowed values, doc), e.g. options = (Setting('tone', 'plain', ('plain', 'formal'), 'How answers sound.'),); got ('safety_mode',).

    Raises:
        ConfigError: ``settings`` are not :class:`Setting` declarations, or one has the name of
            a core setting or of another family's.
    """
    declared = tuple(s for s in settings if isinstance(s, Setting))
    if len(declared) != len(settings):
        raise ConfigError(f"The {family} family's options must be Setting declarations "
                          "(name, default, allowed values, doc), e.g. options = "
                          "(Setting('tone', 'plain', ('plain', 'formal'), 'How answers sound.'),)"
                          f"; got {settings!r}.")
    taken = {s.name: "assay (a core setting)" for s in CORE_SETTINGS}
    taken.update({s.name: f"the {other} family" for other, theirs in _FAMILY_SETTINGS.items()
                  if other != family for s in theirs})
    for setting in declared:
        if setting.name in taken:
            raise ConfigError(f"The {family} family declares the setting "
                              f"{setting.name!r}, which {taken[setting.name]} declares already.")
    _FAMILY_SETTINGS[family] = declared


def family_settings() -> dict[str, Setting[Any]]:
    """Every setting a registered metric family declares in its ``options``, by name.

    Example:
        >>> s = family_settings()["safety_threshold"]
        >>> s.default, s.choices
        ('medium', ('low', 'medium', 'high'))
    """
    return {setting.name: setting for settings in _FAMILY_SETTINGS.values()
            for setting in settings}


def declared_settings() -> dict[str, Setting[Any]]:
    """Every scoring setting by name: the core ones, then the families'.

    Example:
        >>> list(declared_settings())  # doctest: +NORMALIZE_WHITESPACE
        ['lang', 'style', 'on_injection', 'fence', 'injection_detector', 'reasons',
         'safety_threshold', 'safety_mode']
    """
    return {**{s.name: s for s in CORE_SETTINGS}, **family_settings()}


@dataclass(frozen=True)
class ScoringSettings:
    """A run's scoring settings, each checked against its declaration when the object is made:
    the core ones as typed attributes, a metric family's through :meth:`family`.

    Every value left out is its declaration's default. Build it from ``{name: value}`` with
    :meth:`build`, change some with :meth:`replace`.

    Example:
        >>> ScoringSettings().family("safety_threshold")
        'medium'
        >>> ScoringSettings.build({"safety_mode": "both"})
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: Got safety_mode='both'. Must be one of ['combined', 'separate'].
    """

    lang: Lang = LANG.default
    style: JudgeStyle = STYLE.default
    on_injection: InjectionMode = ON_INJECTION.default
    fence: Fence = FENCE.default
    injection_detector: InjectionDetector = INJECTION_DETECTOR.default
    reasons: Reasons = REASONS.default
    #: The metric families' settings, ``{name: value}`` (read them with :meth:`family`).
    family_values: Mapping[str, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        for setting in CORE_SETTINGS:
            setting.check(getattr(self, setting.name))
        declared = family_settings()
        for name, value in self.family_values.items():
            if name not in declared:
                raise ConfigError(f"Got {option(name, value)}: no such scoring setting. The "
                                  f"settings: {', '.join(declared_settings())}.")
        object.__setattr__(self, "family_values", {
            name: setting.check(self.family_values.get(name, setting.default))
            for name, setting in declared.items()})

    @classmethod
    def build(cls, values: Mapping[str, object]) -> ScoringSettings:
        """The settings of ``values`` (``{name: value}``, core and family settings alike;
        those left out are their defaults), each checked.

        Raises:
            ConfigError: a value outside its setting's choices, or a name no one declares.
        """
        core = {s.name for s in CORE_SETTINGS}
        given: dict[str, Any] = {k: v for k, v in values.items() if k in core}
        others: dict[str, Any] = {k: v for k, v in values.items() if k not in core}
        return cls(**given, family_values=others)

    def replace(self, **changes: object) -> ScoringSettings:
        """These settings with ``changes`` (``{name: value}``), checked.

        Example:
            >>> ScoringSettings().replace(lang="zh", safety_mode="separate").as_dict()["lang"]
            'zh'
        """
        return ScoringSettings.build({**self.as_dict(), **changes})

    def family(self, name: str) -> str:
        """The value of the metric-family setting ``name`` (a KeyError when no registered
        family declares it)."""
        try:
            return self.family_values[name]
        except KeyError:
            raise KeyError(f"no registered metric family declares a setting {name!r}") from None

    def as_dict(self) -> dict[str, str]:
        """``{name: value}`` of every setting: the core ones, then the families'.

        Example:
            >>> list(ScoringSettings().as_dict().items())[-1]
            ('safety_mode', 'combined')
        """
        return {**{s.name: getattr(self, s.name) for s in CORE_SETTINGS},
                **self.family_values}
