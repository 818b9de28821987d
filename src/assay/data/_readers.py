"""The reader registry: a data format is one module plus one registration, as a metric is.

A reader has a ``name``, the file name ``suffixes`` it reads and ``read(source, problems)``,
which yields ``(line, record)`` for each record of an opened :class:`~assay.data.Source` and
adds every problem to ``problems`` (file, line, field and fix) instead of raising. assay's own
formats are registered with :func:`register_reader`, the call a plugin's code uses; readers of
other distributions join through the entry-point group ``assay.readers``, imported only when a
file's suffix is none of the registered ones. A ``.gz`` after any suffix is read as gzip.

Example:
    >>> reader_for(".ndjson").name, reader_for(".CSV").name, reader_for(".nope") is None
    ('jsonl', 'csv', True)
    >>> READERS.source("tsv")
    'built-in'
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Iterator, Mapping

from .._entry_points import PLUGIN_FAILURES, Plugin, failure_text, scan_plugins
from ..errors import ConfigError
from ._reader import SUFFIX, Reader, reader_gaps

__all__ = ["FORMATS", "READERS", "READERS_GROUP", "ReaderRegistry", "reader_for",
           "register_reader", "registered_readers"]

log = logging.getLogger("assay")

#: The entry-point group other distributions register their data formats in.
READERS_GROUP = "assay.readers"


class ReaderRegistry:
    """Every reader by name and by suffix: built-ins, readers registered in code, and the
    plugins of ``group`` (imported the first time a suffix is not found, or all are listed).

    A name or suffix is never taken over by surprise: registering one already taken is a
    ConfigError unless ``replace``; a plugin claiming one is refused, with a warning naming
    both claimants, and the others are used.

    Example:
        >>> registry = ReaderRegistry(group="assay.no-such-group")
        >>> registry.register(reader_for(".csv")).name, registry.suffixes()
        ('csv', ['.csv'])
        >>> try:
        ...     registry.register(reader_for(".csv"))
        ... except ConfigError as e:
        ...     print(e)
        Reader 'csv' is already registered (built-in). Pass replace=True to replace it on purpose.
    """

    def __init__(self, *, group: str = READERS_GROUP) -> None:
        self.group = group
        self._readers: dict[str, Reader] = {}
        self._owners: dict[str, str] = {}  # suffix -> reader name
        self._sources: dict[str, str] = {}
        self._plugins_loaded = False
        self._from_plugins: set[str] = set()
        #: Plugins that could not be used (refused or broken): name -> why.
        self.refused: dict[str, str] = {}

    def register(self, reader: Reader, *, source: str | None = None,
                 replace: bool = False) -> Reader:
        """Add ``reader`` under its name and suffixes; one already taken is refused unless
        ``replace`` (then the old reader of that name goes, and the suffixes move).

        ``source`` defaults to ``built-in`` for assay's own readers and to the defining
        module otherwise.
        """
        gaps = reader_gaps(reader)
        if gaps:
            raise ConfigError(f"Got a {type(reader).__name__}, not a reader: it needs "
                              f"{'; '.join(gaps)} (see assay.data.Reader).")
        if source is None:
            module = type(reader).__module__
            source = "built-in" if module.startswith("assay.") else f"registered by {module}"
        clash = self._clash(reader)
        if clash and not replace:
            raise ConfigError(f"{clash}. Pass replace=True to replace it on purpose.")
        if reader.name in self._readers:
            self.unregister(reader.name)
        for suffix in reader.suffixes:
            self._owners[suffix.lower()] = reader.name
        self._readers[reader.name] = reader
        self._sources[reader.name] = source
        return reader

    def _clash(self, reader: Reader) -> str | None:
        """What already holds ``reader``'s name or one of its suffixes, or None."""
        if reader.name in self._readers:
            return f"Reader {reader.name!r} is already registered ({self._sources[reader.name]})"
        for suffix in reader.suffixes:
            owner = self._owners.get(suffix.lower())
            if owner is not None:
                return (f"Suffix {suffix.lower()!r} is already read by reader {owner!r} "
                        f"({self._sources[owner]})")
        return None

    def unregister(self, name: str) -> None:
        """Remove the reader called ``name`` and free its suffixes; a KeyError if there is none."""
        del self._readers[name], self._sources[name]
        self._owners = {s: n for s, n in self._owners.items() if n != name}
        self._from_plugins.discard(name)

    def for_suffix(self, suffix: str) -> Reader | None:
        """The reader of ``suffix`` (``.csv``, any case), or None. Plugins are imported only
        when no built-in or registered reader has it."""
        suffix = suffix.lower()
        if suffix not in self._owners and SUFFIX.fullmatch(suffix):
            self.load_plugins()
        name = self._owners.get(suffix)
        return self._readers[name] if name is not None else None

    def sniff(self, text: str) -> Reader | None:
        """The first reader (in registration order) whose ``sniff`` claims ``text``, the
        start of a file with no known suffix; None when none does."""
        for reader in self._readers.values():
            sniff = getattr(reader, "sniff", None)
            if callable(sniff) and sniff(text):
                return reader
        return None

    def suffixes(self) -> list[str]:
        """Every suffix read, plugins imported, in registration order."""
        self.load_plugins()
        return list(self._owners)

    def readers(self) -> dict[str, Reader]:
        """Every reader by suffix, plugins imported."""
        self.load_plugins()
        return {suffix: self._readers[name] for suffix, name in self._owners.items()}

    def source(self, name: str) -> str:
        """Where the reader ``name`` comes from: ``built-in``, ``registered by MODULE`` or a
        plugin's ``DISTRIBUTION VERSION``; a KeyError if there is none."""
        return self._sources[name]

    def load_plugins(self) -> None:
        """Import the plugins of the group (once); a refused or broken one is set aside with
        its error, named in a warning (logger ``assay``), and never ends the process."""
        if self._plugins_loaded:
            return
        self._plugins_loaded = True
        plugins, refused = scan_plugins(self.group, taken=dict(self._sources), what="reader")
        skipped = {name: why for name, (_, why) in refused.items()}
        loaded: list[tuple[Plugin, Reader]] = []
        for plugin in plugins.values():
            try:
                loaded.append((plugin, _as_reader(plugin.load(), plugin)))
            except ConfigError as e:
                skipped[plugin.name] = str(e)
        claims: dict[str, list[str]] = {}
        for plugin, reader in loaded:
            for suffix in {s.lower() for s in reader.suffixes}:
                claims.setdefault(suffix, []).append(plugin.source)
        for plugin, reader in loaded:
            why = self._suffix_clash(plugin, reader, claims)
            if why is not None:
                skipped[plugin.name] = why
                continue
            self.register(reader, source=plugin.source)
            self._from_plugins.add(reader.name)
        self.refused.update(skipped)
        for why in skipped.values():
            log.warning("Skipped a reader plugin: %s", why)

    def _suffix_clash(self, plugin: Plugin, reader: Reader,
                      claims: dict[str, list[str]]) -> str | None:
        for suffix in sorted({s.lower() for s in reader.suffixes}):
            owner = self._owners.get(suffix)
            owners = ([self._sources[owner]] if owner is not None else []) + claims[suffix]
            if len(owners) > 1:
                return (f"Suffix {suffix!r} is claimed by {' and by '.join(owners)}: the "
                        f"plugin {plugin.name!r} is refused (a plugin never replaces another "
                        f"reader) ({plugin.where}).\nFix: uninstall one of the distributions, "
                        "or ask its authors for another suffix.")
        return None

    def forget_plugins(self) -> None:
        """Drop every plugin reader, so that the next lookup reads the entry points again
        (after installing a distribution into a running interpreter, or in tests)."""
        for name in list(self._from_plugins):
            self.unregister(name)
        self._plugins_loaded, self.refused = False, {}


def _as_reader(obj: object, plugin: Plugin) -> Reader:
    """The reader an entry point names: the object itself, or what its class or
    zero-argument factory returns; a ConfigError naming the plugin otherwise."""
    if inspect.isclass(obj) or (callable(obj) and not hasattr(obj, "read")):
        try:
            obj = obj()
        except PLUGIN_FAILURES as e:  # the plugin's own code failed (or called sys.exit)
            raise plugin.error(f"failed to build its reader ({failure_text(e)})") from None
    gaps = reader_gaps(obj)
    if gaps:
        raise plugin.error(f"gives a {type(obj).__name__}, not a reader (it needs "
                           f"{'; '.join(gaps)})")
    reader: Reader = obj  # type: ignore[assignment]
    if reader.name != plugin.name:
        raise plugin.error(f"gives a reader named {reader.name!r}: the entry point's name and "
                           "the reader's name must be the same")
    return reader


#: Every data format: assay's own (registered in ``_formats``), code's and plugins'.
READERS = ReaderRegistry()


def register_reader(reader: Reader, *, replace: bool = False) -> Reader:
    """Add a data format: ``reader`` reads the files whose name ends with one of its
    ``suffixes`` (and ``.gz`` after it). assay's own formats are registered this way.

    A name or suffix already taken is a ConfigError, unless ``replace`` says it is on purpose.

    Example:
        >>> try:
        ...     register_reader(reader_for(".tsv"))
        ... except ConfigError as e:
        ...     str(e).split(". ")[0]
        "Reader 'tsv' is already registered (built-in)"
    """
    return READERS.register(reader, replace=replace)


def registered_readers() -> dict[str, Reader]:
    """Every data format by suffix, plugins included, in registration order.

    Example:
        >>> {suffix: reader.name for suffix, reader in registered_readers().items()
        ...  if reader.name in ("jsonl", "json", "csv", "tsv")}
        {'.jsonl': 'jsonl', '.ndjson': 'jsonl', '.json': 'json', '.csv': 'csv', '.tsv': 'tsv'}
    """
    return READERS.readers()


def reader_for(suffix: str) -> Reader | None:
    """The reader of files ending with ``suffix`` (``.csv``; any case), or None."""
    return READERS.for_suffix(suffix)


class _Formats(Mapping[str, str]):
    """The suffixes read, each with its reader's name: a live view of :data:`READERS`."""

    def __getitem__(self, suffix: str) -> str:
        reader = READERS.for_suffix(suffix)
        if reader is None:
            raise KeyError(suffix)
        return reader.name

    def __iter__(self) -> Iterator[str]:
        return iter(READERS.suffixes())

    def __len__(self) -> int:
        return len(READERS.suffixes())

    def __repr__(self) -> str:
        return repr(dict(self))


#: File name endings read, and the reader each means (``.gz`` after any of them is read too):
#: a read-only view of the registry, plugins included.
FORMATS: Mapping[str, str] = _Formats()
