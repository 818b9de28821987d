"""The metric registry: built-ins, metrics registered in code, and plugins from entry points.

Plugins of the ``assay.metrics`` group are found on the first lookup (their names only) and
imported when their name is needed, or when every metric is listed. A name is never replaced
by surprise: a plugin that claims a name already taken is refused, naming both sources.

Example:
    >>> from assay.metrics import REGISTRY
    >>> REGISTRY.source("f1_score"), metric_kind(REGISTRY["f1_score"])
    ('built-in', 'lexical')
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import ItemsView, Iterator, Mapping, ValuesView
from dataclasses import dataclass
from typing import Any

from .._entry_points import PLUGIN_FAILURES, Plugin, failure_text, scan_plugins
from ..errors import ConfigError
from ._base import Metric
from ._defaults import REQUIRED_MEMBERS, with_defaults

__all__ = ["METRICS_GROUP", "MetricInfo", "MetricRegistry", "metric_kind"]

log = logging.getLogger("assay")

#: The entry-point group other distributions register their metrics in.
METRICS_GROUP = "assay.metrics"


def metric_kind(metric: Metric) -> str:
    """What a metric is made of: its ``kind`` attribute, else its built-in family (``judge``,
    ``rag``, ``safety``, ``embedding``, ``lexical``), else ``judge`` / ``embedding`` from what
    it uses, else ``computed``.

    Example:
        >>> from assay.metrics import get_metric
        >>> [metric_kind(get_metric(n)) for n in ("coherence", "faithfulness", "sexual")]
        ['judge', 'rag', 'safety']
    """
    if metric.kind:
        return metric.kind
    parts = type(metric).__module__.split(".")
    if parts[:2] == ["assay", "metrics"] and len(parts) > 3:
        return parts[2]
    if metric.uses_judge:
        return "judge"
    return "embedding" if metric.uses_embedder else "computed"


@dataclass(frozen=True)
class MetricInfo:
    """One line of ``assay metrics``: a metric's name, source, kind, fields, range and version;
    a plugin that cannot be used has ``error`` set (and ``kind`` ``broken``)."""

    name: str
    source: str
    kind: str
    required: tuple[str, ...] = ()
    value_range: tuple[float, float] | None = None
    version: str = ""
    error: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The keys of ``assay metrics --json``.

        Example:
            >>> MetricInfo("m", "built-in", "lexical", ("answer",), (0.0, 1.0), "1").as_json()
            {'name': 'm', 'source': 'built-in', 'kind': 'lexical', 'required': ['answer'], 'range': [0.0, 1.0], 'version': '1', 'error': None}
        """
        return {"name": self.name, "source": self.source, "kind": self.kind,
                "required": list(self.required),
                "range": list(self.value_range) if self.value_range else None,
                "version": self.version, "error": self.error}


def _as_metric(obj: object, plugin: Plugin) -> Metric:
    """The Metric an entry point names: the object itself, or what its class or zero-argument
    factory returns; a ConfigError naming the plugin otherwise."""
    if inspect.isclass(obj) or (callable(obj) and not isinstance(obj, Metric)):
        try:
            obj = obj()
        except PLUGIN_FAILURES as e:  # the plugin's own code failed (or called sys.exit)
            raise plugin.error(f"failed to build its metric ({failure_text(e)})") from None
    missing = [m for m in REQUIRED_MEMBERS if not hasattr(obj, m)]
    if missing:
        raise plugin.error(f"gives a {type(obj).__name__}, not a metric (it lacks "
                           f"{', '.join(missing)})")
    metric = with_defaults(obj)  # the optional members it leaves out
    if metric.name != plugin.name:
        raise plugin.error(f"gives a metric named {metric.name!r}: the entry point's name and "
                           "the metric's name must be the same")
    return metric


class MetricRegistry(Mapping[str, Metric]):
    """Every metric by name: a mapping that finds entry-point plugins on first use.

    Keys are built-in names, names registered in code, and plugin names (not yet imported).
    ``registry[name]`` imports a plugin when first asked for it; a refused or broken plugin
    raises a ConfigError that names its distribution. ``values()`` and ``items()`` leave out
    broken plugins; :meth:`infos` lists them with their error.

    Example:
        >>> registry = MetricRegistry(group="assay.no-such-group")
        >>> from assay.metrics.lexical import F1Score
        >>> registry.register(F1Score()).name, list(registry), registry.source("f1_score")
        ('f1_score', ['f1_score'], 'built-in')
        >>> try:
        ...     registry.register(F1Score())
        ... except ConfigError as e:
        ...     print(e)
        Metric 'f1_score' is already registered (built-in). Pass replace=True to replace it on purpose.
    """

    def __init__(self, *, group: str = METRICS_GROUP) -> None:
        self.group = group
        self._metrics: dict[str, Metric] = {}
        self._sources: dict[str, str] = {}
        self._plugins: dict[str, Plugin] | None = None
        self._loaded: set[str] = set()
        #: Plugin names refused (a clash) or broken (import or type error): source, why.
        self._refused: dict[str, tuple[str, str]] = {}

    def register(self, metric: Metric, *, source: str | None = None,
                 replace: bool = False) -> Metric:
        """Add ``metric`` under its name; a name already taken is refused unless ``replace``.
        The optional members of :class:`Metric` it leaves out get their defaults
        (:func:`~assay.metrics.with_defaults`).

        ``source`` defaults to ``built-in`` for assay's own metrics and to the defining module
        otherwise.
        """
        name = metric.name
        if not isinstance(name, str) or not name.isidentifier():
            raise ConfigError(f"Got metric name {name!r}. Must be a Python identifier.")
        if source is None:
            module = type(metric).__module__
            source = "built-in" if module.startswith("assay.") else f"registered by {module}"
        if source != "built-in":  # assay's own metrics register at import: no scan then
            self._discover()
        taken = self._sources.get(name) or (self._plugins or {}).get(name, None)
        if taken is None and name in self._refused:
            taken = self._refused[name][0]
        if taken is not None and not replace:
            owner = taken.source if isinstance(taken, Plugin) else taken
            raise ConfigError(f"Metric {name!r} is already registered ({owner}). Pass "
                              "replace=True to replace it on purpose.")
        if self._plugins is not None:
            self._plugins.pop(name, None)
        self._refused.pop(name, None)
        self._loaded.discard(name)
        self._metrics[name] = metric = with_defaults(metric)
        self._sources[name] = source
        return metric

    def unregister(self, name: str) -> None:
        """Remove the metric registered as ``name`` (a plugin of that name, if installed, is
        found again on the next lookup); a KeyError if there is none."""
        del self._metrics[name], self._sources[name]
        if name not in self._loaded and self._plugins is not None:
            self._plugins = None
        self._loaded.discard(name)

    def _discover(self) -> dict[str, Plugin]:
        if self._plugins is None:
            # a plugin imported before a new scan (see unregister) is not its own rival
            taken = {n: s for n, s in self._sources.items() if n not in self._loaded}
            plugins, refused = scan_plugins(self.group, taken=taken, what="metric")
            self._plugins = {n: p for n, p in plugins.items() if n not in self._loaded}
            self._refused.update(refused)
        return self._plugins

    def forget_plugins(self) -> None:
        """Drop every plugin found or loaded, so that the next lookup scans the entry points
        again (after installing a distribution into a running interpreter, or in tests)."""
        for name in self._loaded:
            del self._metrics[name], self._sources[name]
        self._plugins, self._refused, self._loaded = None, {}, set()

    def refusal(self, name: str) -> ConfigError | None:
        """The error for a plugin name that was refused (a clash) or failed to load, else None.

        Example:
            >>> MetricRegistry(group="assay.no-such-group").refusal("f1_score") is None
            True
        """
        self._discover()
        refused = self._refused.get(name)
        return ConfigError(refused[1]) if refused is not None else None

    def source(self, name: str) -> str:
        """Where the metric ``name`` comes from: ``built-in``, or ``DISTRIBUTION VERSION``."""
        if name in self._sources:
            return self._sources[name]
        plugin = self._discover().get(name)
        if plugin is None:
            raise KeyError(name)
        return plugin.source

    def claimant(self, name: str) -> str | None:
        """Who already has the name ``name`` (``built-in``, ``registered by MODULE``, or a
        plugin's ``DISTRIBUTION VERSION``, a refused plugin too), or None when it is free.
        Nothing is imported.

        Example:
            >>> from assay.metrics import REGISTRY
            >>> REGISTRY.claimant("groundedness"), REGISTRY.claimant("my_tone")
            ('built-in', None)
        """
        if name in self._sources:
            return self._sources[name]
        plugin = self._discover().get(name)
        if plugin is not None:
            return plugin.source
        refused = self._refused.get(name)
        return refused[0] if refused is not None else None

    def _load(self, plugin: Plugin) -> Metric:
        try:
            metric = _as_metric(plugin.load(), plugin)
        except ConfigError as e:
            self._refused[plugin.name] = (plugin.source, str(e))
            del self._discover()[plugin.name]
            raise
        del self._discover()[plugin.name]
        self._loaded.add(plugin.name)
        self._metrics[plugin.name] = metric
        self._sources[plugin.name] = plugin.source
        return metric

    def __getitem__(self, name: str) -> Metric:
        if name in self._metrics:
            return self._metrics[name]
        plugin = self._discover().get(name)
        if plugin is not None:
            return self._load(plugin)
        if name in self._refused:
            raise ConfigError(self._refused[name][1])
        raise KeyError(name)

    def get(self, name: str, default: Any = None) -> Any:
        try:
            return self[name]
        except (KeyError, ConfigError):
            return default

    def __contains__(self, name: object) -> bool:
        return name in self._metrics or name in self._discover()

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._metrics) + list(self._discover()))

    def __len__(self) -> int:
        return len(self._metrics) + len(self._discover())

    def load_all(self, *, warn: bool = True) -> None:
        """Import every plugin not imported yet; a broken one (its import raised or called
        ``sys.exit()``) is set aside with its error and, with ``warn``, named in a warning
        (logger ``assay``): it is skipped, never the end of the process."""
        for plugin in list(self._discover().values()):
            try:
                self._load(plugin)
            except ConfigError as e:
                if warn:
                    log.warning("Skipped a metric plugin: %s", e)

    def values(self) -> ValuesView[Metric]:
        self.load_all()
        return self._metrics.values()

    def items(self) -> ItemsView[str, Metric]:
        self.load_all()
        return self._metrics.items()

    def infos(self) -> list[MetricInfo]:
        """Every metric, plugins imported, in registration order; then the refused names
        (with their errors, which the caller shows: no warning here)."""
        self.load_all(warn=False)
        out = [MetricInfo(name, self._sources[name], metric_kind(m), tuple(sorted(m.required)),
                          (m.value_range[0], m.value_range[1]), str(m.version))
               for name, m in self._metrics.items()]
        out += [MetricInfo(name, source, "broken", error=why)
                for name, (source, why) in self._refused.items()]
        return out
