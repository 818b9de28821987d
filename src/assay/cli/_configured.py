"""Commands whose option defaults come from a config file (``[tool.assay]`` in
``pyproject.toml``, or ``assay.toml``), through Click's ``default_map``: a flag on the command
line wins, then an environment variable, then the file, then the built-in default.

Every command gets ``--config FILE`` (or ``ASSAY_CONFIG``) to name the file, and
``--no-config`` to read none; without either, the file is searched for from the current
directory up (:func:`~._config_file.find_config`). The file is read only when the command
runs, the first time an option needs its default: ``assay CMD -h`` reads nothing and shows
the built-in defaults. A command that takes a value from the file prints one line on stderr,
``config: PATH (KEY, ...)``, so that a CI log says where its settings came from;
:func:`used_config` gives the path to record in the run.

Example:
    >>> from assay.cli._app import load_command
    >>> command = load_command("compare")
    >>> isinstance(command, ConfiguredCommand), [p.name for p in command.params][-2:]
    (True, ['config', 'no_config'])
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand
from typer.main import get_command_from_info
from typer.models import CommandInfo

from ..errors import ConfigError
from ._config_file import ConfigFile, find_config, read_config

__all__ = ["ConfigDefaults", "ConfiguredCommand", "from_config", "used_config"]

#: The config file the running command took values from, and those values' option names.
_USED: ContextVar[tuple[Path | None, frozenset[str]]] = ContextVar(
    "assay_config_used", default=(None, frozenset()))


def used_config() -> str | None:
    """The path of the config file the running command took a value from, else ``None``."""
    path = _USED.get()[0]
    return str(path) if path is not None else None


def from_config(option: str) -> bool:
    """Whether the running command's ``option`` (its parameter name) came from the file."""
    return option in _USED.get()[1]


class ConfigDefaults(Mapping[str, Any]):
    """A command's ``default_map``, read from the config file on first use: after the eager
    ``--config`` / ``--no-config`` were seen, when the first option needs its default."""

    def __init__(self, command: Any, ctx: Any) -> None:
        self.command, self.ctx = command, ctx
        self.explicit: Path | None = None
        self.ignore = False
        self.config: ConfigFile | None = None
        self.used: dict[str, Any] = {}
        self._values: dict[str, Any] | None = None

    def read(self) -> dict[str, Any]:
        """The defaults from the file (read now if not yet); a bad file exits 2 with every
        problem, each with the file and line."""
        if self._values is None:
            from ._errors import exit_on_errors
            with exit_on_errors("interrupted"):
                self._values = self._read()
        return self._values

    def _read(self) -> dict[str, Any]:
        if self.ignore and self.explicit is not None:
            raise ConfigError(f"Got --config {self.explicit} and --no-config. Must be one of "
                              "them (ASSAY_CONFIG names a file too: unset it).")
        if self.ignore:
            return {}
        self.config = (read_config(self.explicit) if self.explicit is not None
                       else find_config(Path.cwd()))
        if self.config is None:
            return {}
        from ._config_values import command_defaults
        parent = self.ctx.parent  # the root group: every command's name, none imported
        names = (parent.command.list_commands(parent) if parent is not None  # else: alone
                 else [key for key, value in self.config.table.items() if isinstance(value, dict)])
        return command_defaults(self.config, self.command, [*names, self.command.name],
                                self.ctx)

    def __getitem__(self, name: str) -> Any:
        if name in ("help", "config", "no_config"):  # the eager ones: before the file is read
            raise KeyError(name)
        value = self.read()[name]
        self.used[name] = value
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self.read())

    def __len__(self) -> int:
        return len(self.read())


def _set_config(ctx: typer.Context, value: Path | None) -> None:
    if value is not None and isinstance(ctx.default_map, ConfigDefaults):
        ctx.default_map.explicit = value


def _set_no_config(ctx: typer.Context, value: bool) -> None:
    if value and isinstance(ctx.default_map, ConfigDefaults):
        ctx.default_map.ignore = True


def _config_flags(
    config: Annotated[Path | None, typer.Option(
        "--config", envvar="ASSAY_CONFIG", is_eager=True, expose_value=False,
        callback=_set_config, dir_okay=False, exists=True,
        help="Read option defaults from this file (assay.toml, or [tool.assay] of a "
             "pyproject.toml). Default: ASSAY_CONFIG, else the nearest assay.toml or "
             "pyproject.toml with [tool.assay], from here up to the repository's root. "
             "Flags given here win.")] = None,
    no_config: Annotated[bool, typer.Option(
        "--no-config", is_eager=True, expose_value=False, callback=_set_no_config,
        help="Read no config file: the built-in defaults and the flags given only.")
    ] = False,
) -> None:
    """The options every configured command adds (built once by Typer)."""


def _flag_params() -> list[Any]:
    """``--config`` and ``--no-config`` as the Click options Typer makes of them."""
    command = get_command_from_info(CommandInfo(callback=_config_flags),
                                    pretty_exceptions_short=True, rich_markup_mode=None)
    return list(command.params)


class ConfiguredCommand(TyperCommand):
    """A Typer command that takes its option defaults from the config file (see the
    module)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.params.extend(_flag_params())

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        defaults = ConfigDefaults(self, ctx)
        ctx.default_map = defaults
        _USED.set((None, frozenset()))
        rest = super().parse_args(ctx, args)
        if defaults.used and defaults.config is not None:
            _USED.set((defaults.config.path, frozenset(defaults.used)))
            keys = ", ".join(sorted(defaults.used))
            print(f"config: {defaults.config.where()} ({keys})", file=sys.stderr)
        return rest

    def get_help(self, ctx: Any) -> str:
        """The help with the built-in defaults: the config file is not read for it."""
        saved, ctx.default_map = ctx.default_map, None
        try:
            return str(super().get_help(ctx))
        finally:
            ctx.default_map = saved
