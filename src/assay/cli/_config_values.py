"""A command's defaults from a config file: the shared keys at the top level that the command
has as options, then its own table (``[tool.assay.run]``), each key an option of the command
(with ``-`` or ``_``), each value checked against the option's type. What comes out is
Click's ``default_map`` for the command: flags given on the command line win over it.

Values as the file holds them become what the flag would give: a table of bars
(``fail_under = {groundedness = 4.0}``) the option's list ``["groundedness=4.0"]``; one value
for a repeatable option a list of one; a list of names for ``metrics`` the comma-separated
``"a,b"``.

Example:
    >>> from pathlib import Path
    >>> from assay.cli._config_file import ConfigFile
    >>> from assay.cli._app import load_command
    >>> table = {"judge": "openai:gpt-4o", "run": {"fail-under": {"groundedness": 4}}}
    >>> config = ConfigFile(Path("pyproject.toml"), table, ("tool", "assay"), "")
    >>> command_defaults(config, load_command("run"), ["run", "compare"])
    {'judge': ['openai:gpt-4o'], 'fail_under': ['groundedness=4']}
    >>> command_defaults(config, load_command("compare"), ["run", "compare"])
    {}
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Collection
from typing import Any, get_args

import typer

from ..errors import ConfigError
from ._config_file import ConfigFile

__all__ = ["BAR_KEYS", "SHARED_KEYS", "command_defaults"]

#: The top level's keys: each applies to every command that has the option (issue 46's names).
SHARED_KEYS = ("judge", "metrics", "fail_under", "fail_over", "max_drop", "baseline",
               "confidence", "inconclusive", "repeat")
#: Options of ``NAME=NUMBER`` bars: a table ``{name = number}`` in the file.
BAR_KEYS = frozenset({"fail_under", "fail_over", "max_drop"})
#: Options that take a comma-separated list: an array of names in the file.
COMMA_KEYS = frozenset({"metrics"})
#: Parameters a config file does not set.
NOT_CONFIGURED = frozenset({"help", "config", "no_config"})


class _Wrong(Exception):
    """A value that does not fit its option: what was expected (the message)."""


def command_defaults(config: ConfigFile, command: Any, commands: Collection[str],
                     ctx: Any = None) -> dict[str, Any]:
    """The ``default_map`` of ``command`` (a Typer command) from ``config``; ``commands``:
    every command's name (the tables the file may have); ``ctx``: the command's context,
    to check each value as the flag's would be (its range, its allowed values).

    Raises:
        ConfigError: every problem at once, each with the file, line and key: an unknown key
            (with the nearest known one), a value of the wrong type (with the type
            expected), a bar that is not a number.
    """
    problems: list[str] = []
    options = _options_by_key(command)
    given: dict[str, tuple[tuple[str, ...], Any]] = {}
    for key, value in config.table.items():
        if key in commands and key not in SHARED_KEYS:  # `assay metrics` has no table
            if not isinstance(value, dict):
                problems.append(f"{config.where(key)}: {config.key(key)} must be a table of "
                                f"`assay {key}` options, e.g. [{config.key(key)}].")
            continue
        if key not in SHARED_KEYS and isinstance(value, dict):
            problems.append(
                f"{config.where(key)}: unknown table [{config.key(key)}]."
                f"{_nearest(key, commands, table=config.key())} Tables are named after "
                f"commands, e.g. [{config.key('run')}], [{config.key('compare')}].")
        elif key not in SHARED_KEYS:
            tables = ", ".join(f"[{config.key(name)}]" for name in ("run", "compare"))
            problems.append(
                f"{config.where(key)}: unknown key {config.key(key)}.{_nearest(key, SHARED_KEYS)}"
                f" The top level holds {', '.join(SHARED_KEYS)}; any other option goes in the "
                f"table of its command ({tables}, or any command's name).")
        elif key in options:
            given[options[key].name] = ((key,), value)
    name = command.name
    own = config.table.get(name) if name not in SHARED_KEYS else None
    for key, value in (own.items() if isinstance(own, dict) else ()):
        param = options.get(key.replace("-", "_"))
        if param is None:
            problems.append(_unknown_option(config, name, key, options, command))
        else:  # the command's table wins over the top level
            given[param.name] = ((name, key), value)
    defaults: dict[str, Any] = {}
    for param_name, (keys, value) in given.items():
        param = next(p for p in command.params if p.name == param_name)
        try:
            defaults[param_name] = _option_value(param, value)
            if ctx is not None:
                _as_flag_would(param, defaults[param_name], ctx)
        except _Wrong as wrong:
            problems.append(f"{config.where(*keys)}: {config.key(*keys)}: {wrong}")
    if problems:
        raise ConfigError("\n".join(sorted(problems, key=_line_number)))
    return defaults


def _options_by_key(command: Any) -> dict[str, Any]:
    """The command's options by the keys that name them in a file: the parameter's name and
    each long flag without ``--``, ``-`` as ``_`` (``--map`` → ``map``)."""
    keys: dict[str, Any] = {}
    for param in command.params:
        if param.param_type_name != "option" or param.name in NOT_CONFIGURED:
            continue
        for flag in [f"--{param.name}", *param.opts]:
            if flag.startswith("--"):
                keys.setdefault(flag[2:].replace("-", "_").strip("_"), param)
    return keys


def _unknown_option(config: ConfigFile, name: str, key: str, options: dict[str, Any],
                    command: Any) -> str:
    """The message for a key of ``[tool.assay.NAME]`` that is no option of the command."""
    argument = next((p for p in command.params if p.param_type_name == "argument"
                     and p.name == key.replace("-", "_")), None)
    if argument is not None:
        return (f"{config.where(name, key)}: {config.key(name, key)}: {key.upper()} is an "
                f"argument of `assay {name}`; give it on the command line.")
    return (f"{config.where(name, key)}: unknown key {config.key(name, key)}."
            f"{_nearest(key.replace('-', '_'), options)} Its keys are the options of "
            f"`assay {name}` (see assay {name} -h), with - or _.")


def _nearest(key: str, known: Collection[str], *, table: str = "") -> str:
    """`` Did you mean X?`` when a known key is close (``[TABLE.X]`` for a table), else
    nothing."""
    close = difflib.get_close_matches(key, list(known), n=1)
    if not close:
        return ""
    return f" Did you mean [{table}.{close[0]}]?" if table else f" Did you mean {close[0]}?"


def _line_number(problem: str) -> int:
    """The line a problem names (``PATH:LINE: ...``), to list problems in the file's order."""
    head = problem.split(": ", 1)[0].rsplit(":", 1)
    return int(head[1]) if len(head) == 2 and head[1].isdigit() else 0


def _as_flag_would(param: Any, value: Any, ctx: Any) -> None:
    """Check ``value`` as the option checks a flag's value: its range, its allowed values,
    its callback's rule.

    Raises:
        _Wrong: what the option says of the value.
    """
    try:
        checked = param.get_runtime_param().coerce(value, param=param, ctx=ctx)
        if param.callback is not None:
            param.callback(ctx, param, checked)
    except typer.BadParameter as e:
        message = e.message
        raise _Wrong(message if message.startswith("Got ")
                     else f"got {_shown(value)}: {message}") from None


def _option_value(param: Any, value: Any) -> Any:
    """``value`` from the file as the option takes it (see the module's doc).

    Raises:
        _Wrong: a value of the wrong type; the message says the type expected.
    """
    if param.name in BAR_KEYS:
        return _bars(param.name, value)
    annotation = param.type_descriptor.annotation
    if param.multiple:
        item_type = (get_args(_base(annotation)) or (str,))[0]
        items = value if isinstance(value, list) else [value]
        for item in items:
            _check(item, item_type, param, plural=True)
        return items
    if param.name in COMMA_KEYS and isinstance(value, list):
        for item in value:
            _check(item, str, param, plural=True)
        return ",".join(value)
    _check(value, annotation, param)
    return value


def _bars(name: str, value: Any) -> list[str]:
    """A table of bars (``{groundedness = 4.0}``) as the flag's specs; specs as they are."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    if not isinstance(value, dict):
        raise _Wrong(f"got {_shown(value)}; must be a table of numbers by metric, e.g. "
                     f"{name} = {{groundedness = 4.0}}.")
    wrong = [f"{metric} = {_shown(limit)}" for metric, limit in value.items()
             if isinstance(limit, bool) or not isinstance(limit, (int, float))
             or not math.isfinite(limit)]
    if wrong:
        raise _Wrong(f"got {', '.join(wrong)}; each bar must be a number, e.g. "
                     f"{name} = {{groundedness = 4.0}}.")
    return [f"{metric}={limit}" for metric, limit in value.items()]


def _check(value: Any, annotation: Any, param: Any, *, plural: bool = False) -> None:
    """Raise :class:`_Wrong` unless ``value`` has the TOML type of ``annotation``."""
    base = _base(annotation)
    if base is bool or param.is_flag:
        fits, expected = isinstance(value, bool), ("true or false", "trues or falses")
    elif base is int:
        fits = isinstance(value, int) and not isinstance(value, bool)
        expected = ("a whole number", "whole numbers")
    elif base is float:
        fits = isinstance(value, (int, float)) and not isinstance(value, bool)
        expected = ("a number", "numbers")
    else:
        fits, expected = isinstance(value, str), ("a string (in quotes)", "strings")
    if not fits:
        what = f"a list of {expected[1]} (or one of them)" if plural else expected[0]
        raise _Wrong(f"got {_shown(value)}; must be {what}.")


def _base(annotation: Any) -> Any:
    """``X`` of ``X | None``."""
    return next((a for a in get_args(annotation) if a is not type(None)), annotation) \
        if type(None) in get_args(annotation) else annotation


def _shown(value: Any) -> str:
    """A value as TOML would write it, with its type, e.g. ``"high" (a string)``."""
    kinds = {bool: "true or false", int: "a whole number", float: "a number", str: "a string",
             list: "a list", dict: "a table"}
    kind = next((k for t, k in kinds.items() if isinstance(value, t)), type(value).__name__)
    shown = ("true" if value else "false") if isinstance(value, bool) else (
        f'"{value}"' if isinstance(value, str) else repr(value))
    return f"{shown} ({kind})"
