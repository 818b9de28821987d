"""The kinds of a ``PREFIX:REST`` spec (``--judge openai:MODEL``, ``--target http:URL``): one
table per option, filled by each kind's own module with :meth:`SpecKinds.register`, plugins of
an entry-point group joining it by prefix.

A built-in kind registers where it is defined, with a factory ``factory(rest, *, timeout)``
and the specs that error messages list. A plugin's entry point named ``PREFIX`` is a factory
called with ``REST`` alone; it cannot claim a registered prefix (see
:func:`~assay._entry_points.scan_plugins`). Entry points are read when a spec is looked up,
never at import, and a plugin's module is imported only when its prefix is used.

Example:
    >>> kinds = SpecKinds("greeter", option="greeter", group=None, gaps=lambda made: [])
    >>> kinds.register("hello", lambda rest, *, timeout: f"hello {rest}", specs=("hello:NAME",))
    >>> kinds.make("hello:ada", timeout=1.0)
    'hello ada'
    >>> try:
    ...     kinds.make("hi", timeout=1.0)
    ... except ConfigError as e:
    ...     print(e)
    Got greeter='hi'. Must be one of: hello:NAME.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from ._entry_points import PLUGIN_FAILURES, Plugin, failure_text, scan_plugins
from .errors import AssayError, ConfigError, option

__all__ = ["KindFactory", "SpecKind", "SpecKinds"]

Made = TypeVar("Made")
Made_co = TypeVar("Made_co", covariant=True)


class KindFactory(Protocol[Made_co]):
    """What a built-in kind's factory is: the rest of the spec (``""`` for a bare prefix) and
    the deadline of one call, in seconds."""

    def __call__(self, rest: str, /, *, timeout: float) -> Made_co: ...


@dataclass(frozen=True)
class SpecKind(Generic[Made]):
    """One registered kind: its prefix, its factory, the specs error messages list for it
    (none: a kind left out of them, such as the scripted test judge) and whether a bare
    ``PREFIX`` (no ``:REST``) is refused."""

    prefix: str
    factory: KindFactory[Made]
    specs: tuple[str, ...]
    needs_rest: bool


class SpecKinds(Generic[Made]):
    """The kinds of one option's spec by prefix: registered ones (assay's own, or code's) and
    the plugins of ``group`` (None: no plugins).

    ``what`` names a thing made (``judge``) in messages; ``gaps(made)`` lists what a plugin's
    product lacks (empty: it will do), and ``protocol`` is where the docs describe one.
    """

    def __init__(self, what: str, *, option: str, group: str | None,
                 gaps: Callable[[object], list[str]], protocol: str = "") -> None:
        self.what = what
        self.option = option
        self.group = group
        self.gaps = gaps
        self.protocol = protocol
        self._kinds: dict[str, SpecKind[Made]] = {}

    def register(self, prefix: str, factory: KindFactory[Made], *, specs: tuple[str, ...],
                 needs_rest: bool = True) -> None:
        """Add the kind ``prefix``: ``PREFIX:REST`` specs are made by ``factory(REST,
        timeout=...)``. A prefix already registered is a ConfigError (never replaced)."""
        if not prefix.isidentifier():
            raise ConfigError(f"Got {self.what} prefix {prefix!r}. Must be a Python identifier.")
        if prefix in self._kinds:
            raise ConfigError(f"The {self.what} prefix {prefix!r} is already registered.")
        self._kinds[prefix] = SpecKind(prefix, factory, tuple(specs), needs_rest)

    def registered(self) -> dict[str, SpecKind[Made]]:
        """The registered kinds by prefix, in the order they were registered."""
        return dict(self._kinds)

    def builtin_specs(self) -> tuple[str, ...]:
        """The specs of the registered kinds, as error messages list them (no plugin)."""
        return tuple(spec for kind in self._kinds.values() for spec in kind.specs)

    def specs(self) -> tuple[str, ...]:
        """Every valid spec form: the registered kinds', then ``NAME:...`` for each plugin."""
        return self.builtin_specs() + tuple(f"{name}:..." for name in sorted(self._plugins()[0]))

    def check(self, spec: str) -> None:
        """Raise ConfigError unless ``spec`` names a known kind (builds nothing, imports no
        plugin)."""
        if self._plugin(spec.partition(":")[0]) is None:
            self._registered_kind(spec)

    def make(self, spec: str, *, timeout: float) -> Made:
        """What the kind of ``spec`` makes of its rest; a ConfigError listing every valid spec
        when no kind has its prefix (or its kind needs a rest and there is none)."""
        prefix, _, rest = spec.partition(":")
        if (plugin := self._plugin(prefix)) is not None:
            return self._from_plugin(plugin, rest)
        return self._registered_kind(spec).factory(rest, timeout=timeout)

    def _registered_kind(self, spec: str) -> SpecKind[Made]:
        prefix, _, rest = spec.partition(":")
        kind = self._kinds.get(prefix)
        if kind is None or (kind.needs_rest and not rest):
            raise self.unknown(spec)
        return kind

    def unknown(self, spec: str) -> ConfigError:
        """The error for a spec no kind takes, listing :meth:`specs` (credentials masked)."""
        from ._secrets import mask_secrets
        return ConfigError(f"Got {option(self.option, mask_secrets(spec))}. Must be one of: "
                           f"{', '.join(self.specs())}.")

    def _plugins(self) -> tuple[dict[str, Plugin], dict[str, tuple[str, str]]]:
        """The plugins by prefix (nothing imported), and the refused prefixes: one claiming a
        registered prefix, or two claiming the same one."""
        if self.group is None:
            return {}, {}
        return scan_plugins(self.group, what=self.what,
                            taken=dict.fromkeys(self._kinds, "built-in"))

    def _plugin(self, prefix: str) -> Plugin | None:
        """The plugin for ``prefix``, None if there is none; a ConfigError naming every
        claimant when the prefix is refused (a clash)."""
        plugins, refused = self._plugins()
        if prefix in refused:
            raise ConfigError(refused[prefix][1])
        return plugins.get(prefix)

    def _from_plugin(self, plugin: Plugin, rest: str) -> Made:
        """What the plugin's factory makes of the rest, checked with :attr:`gaps`."""
        factory = plugin.load()
        if not callable(factory):
            raise plugin.error(f"gives a {type(factory).__name__}, not a {self.what} factory")
        try:
            made: Any = factory(rest)
        except AssayError:
            raise
        except PLUGIN_FAILURES as e:  # the plugin's own code failed (or called sys.exit)
            raise plugin.error(f"failed to build a {self.what} for {rest!r} "
                               f"({failure_text(e)})") from None
        missing = self.gaps(made)
        if missing:
            see = f" (see {self.protocol})" if self.protocol else ""
            raise plugin.error(f"gives a {type(made).__name__}, not a {self.what}: it lacks "
                               f"{', '.join(missing)}{see}")
        return made  # checked above: it has what a Made has
