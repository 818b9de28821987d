"""Plugins from other distributions, through entry points: find a group's names without
importing anything, refuse names that clash, and load one plugin with an error that names its
distribution and entry point (never a bare traceback).

Metrics (group ``assay.metrics``) and judges (group ``assay.judges``) both come through here.

Example:
    >>> plugins, refused = scan_plugins("assay.no-such-group", taken={"f1_score": "built-in"},
    ...                                 what="metric")
    >>> plugins, refused
    ({}, {})
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points

from .errors import ConfigError

__all__ = ["PLUGIN_FAILURES", "Plugin", "clash_message", "failure_text", "scan_plugins"]

#: What a plugin's own code may raise that must never end assay: any Exception, and SystemExit
#: (a ``sys.exit()`` at import is not an Exception). KeyboardInterrupt still stops assay.
PLUGIN_FAILURES: tuple[type[BaseException], ...] = (Exception, SystemExit)


def failure_text(error: BaseException) -> str:
    """What a plugin's failure was, for a message: the exception and its text, or the
    ``sys.exit()`` it called.

    Example:
        >>> failure_text(ValueError("bad")), failure_text(SystemExit(3))
        ('ValueError: bad', 'it called sys.exit(3)')
    """
    if isinstance(error, SystemExit):
        return f"it called sys.exit({error.code!r})"
    return f"{type(error).__name__}: {error}"


@dataclass(frozen=True)
class Plugin:
    """One entry point of a group: the name it claims, its distribution, and how to load it.

    Example:
        >>> from importlib.metadata import EntryPoint
        >>> ep = EntryPoint("word_count", "assay_words:WordCount", "assay.metrics")
        >>> plugin = Plugin("word_count", "assay.metrics", "assay_words:WordCount",
        ...                 "assay-words 0.1.0", ep)
        >>> plugin.where
        'entry point word_count = assay_words:WordCount in group assay.metrics of assay-words 0.1.0'
    """

    name: str
    group: str
    value: str
    source: str
    entry_point: EntryPoint = field(compare=False, repr=False)

    @property
    def where(self) -> str:
        """The entry point and its distribution, as error messages name them."""
        return f"entry point {self.name} = {self.value} in group {self.group} of {self.source}"

    def load(self) -> object:
        """Import the object the entry point names.

        Raises:
            ConfigError: the import failed (an exception, or ``sys.exit()``); the message
                names the distribution, the entry point and the cause.
        """
        try:
            return self.entry_point.load()
        except PLUGIN_FAILURES as e:  # any import-time failure of someone else's code
            raise self.error(f"cannot be imported ({failure_text(e)})") from None

    def error(self, problem: str) -> ConfigError:
        """A ConfigError saying what is wrong with this plugin, and where it comes from.

        Example:
            >>> from importlib.metadata import EntryPoint
            >>> ep = EntryPoint("wc", "m:f", "assay.metrics")
            >>> print(Plugin("wc", "assay.metrics", "m:f", "pkg 1.0", ep).error("is broken"))
            Plugin 'wc' is broken (entry point wc = m:f in group assay.metrics of pkg 1.0).
            Fix: upgrade or uninstall pkg, or ask its authors.
        """
        dist = self.source.rsplit(" ", 1)[0]
        return ConfigError(f"Plugin {self.name!r} {problem} ({self.where}).\n"
                           f"Fix: upgrade or uninstall {dist}, or ask its authors.")


def _source(ep: EntryPoint) -> str:
    dist = ep.dist
    return f"{dist.name} {dist.version}" if dist is not None else "an unknown distribution"


def clash_message(what: str, name: str, claimants: list[str], group: str, *,
                  plugins: int = 1) -> str:
    """Why a plugin name is refused: every claimant of ``name`` (built-in or distribution);
    ``plugins`` of them are refused plugins.

    Example:
        >>> print(clash_message("metric", "f1_score", ["built-in", "assay-clash 0.1"],
        ...                     "assay.metrics"))
        Metric 'f1_score' is claimed by built-in and by assay-clash 0.1: the plugin is refused (a plugin never replaces another metric).
        Fix: uninstall the plugin's distribution, or rename its entry point in group assay.metrics.
    """
    refused = "the plugin is" if plugins == 1 else f"all {plugins} plugins are"
    return (f"{what.capitalize()} {name!r} is claimed by {' and by '.join(claimants)}: "
            f"{refused} refused (a plugin never replaces another {what}).\nFix: uninstall the "
            f"plugin's distribution, or rename its entry point in group {group}.")


def scan_plugins(group: str, *, taken: Mapping[str, str], what: str
                 ) -> tuple[dict[str, Plugin], dict[str, tuple[str, str]]]:
    """The plugins of ``group`` by name (nothing imported), and the refused names with their
    distributions and why.

    ``taken`` maps the names already in use to their source (``built-in``): a plugin claiming
    one is refused, and so are two plugins claiming the same name (neither wins).
    """
    found: dict[str, list[Plugin]] = {}
    for ep in entry_points(group=group):
        plugin = Plugin(ep.name, group, ep.value, _source(ep), ep)
        claims = found.setdefault(ep.name, [])
        if all((p.source, p.value) != (plugin.source, plugin.value) for p in claims):
            claims.append(plugin)
    plugins: dict[str, Plugin] = {}
    refused: dict[str, tuple[str, str]] = {}
    for name, claims in found.items():
        owners = ([taken[name]] if name in taken else []) + [p.source for p in claims]
        if len(owners) > 1:
            refused[name] = (", ".join(p.source for p in claims),
                             clash_message(what, name, owners, group, plugins=len(claims)))
        else:
            plugins[name] = claims[0]
    return plugins, refused
