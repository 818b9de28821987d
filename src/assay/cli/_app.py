"""The ``assay`` Typer app: a group whose commands are imported only when one is used.

``assay --help`` lists every command with its one-line help from :data:`COMMANDS`, without
importing a command's module (and so the runner, metrics, store, numpy, ...); ``assay CMD``
imports that command's module alone (``main`` imports this module only when a command runs,
so ``assay --version`` stays cheaper still). This is Click's "lazy loading of subcommands".

Help is rendered as plain text (``rich_markup_mode=None``), so literal brackets such as
``pip install 'assay[ray]'`` survive: Rich markup would read ``[ray]`` as a style tag and drop it.
``-h`` is ``--help`` on every command: subcommands and sub-apps inherit the root's
``help_option_names``.

Example:
    >>> app.info.name, app.rich_markup_mode is None
    ('assay', True)
    >>> app.info.context_settings["help_option_names"]
    ['-h', '--help']
    >>> group = typer.main.get_command(app)
    >>> list(group.commands)[:3], group.commands["runs"].name  # "runs" imported here
    (['run', 'robustness', 'calibrate'], 'runs')
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module
from typing import Annotated, Any, cast

import typer
from typer.core import TyperCommand, TyperGroup
from typer.main import get_command_from_info, get_group_from_info
from typer.models import CommandInfo, TyperInfo

from .._version import __version__
from ._flags import flag_names

__all__ = ["COMMANDS", "HELP_OPTIONS", "app"]

#: The flags that print a command's help, on every command.
HELP_OPTIONS = ["-h", "--help"]

#: Every command, in the order ``assay --help`` lists them: its module under ``assay.cli``,
#: the Typer function (or sub-app) there, and its one-line help (what Click would take from
#: the function's docstring; ``tests/test_cli_lazy.py`` checks the two agree).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "run": ("run", "run", ("Score every row of DATA with the metrics its fields allow; write "
            "results as rows finish.")),
    "robustness": ("robustness", "robustness", ("Build RGB test inputs from DATA, ask the app "
                   "under test, and print a table per ability.")),
    "calibrate": ("calibrate", "calibrate", ("Run the metric on every rated row with each judge "
                  "and print the agreement figures.")),
    "align": ("align", "align", ("Try few-shot examples, a score map and wording variants on "
              "train rows; measure the best against the metric as given on held-out rows; "
              "write the aligned metric file.")),
    "compare": ("compare", "compare", ("Compare two runs row by row: means, paired difference "
                "with a 95% bootstrap interval (beyond noise when it excludes 0), defect "
                "rates, and the rows whose scores changed most.")),
    "arena": ("arena", "arena_cmd", ("Judge every pair of systems on each row they share, in "
              "both orders, and print their Bradley-Terry ratings with 95% intervals and "
              "ranks.")),
    "report": ("report", "report", ("Write an HTML report of RUN (no network needed to view "
               "it) and print its path.")),
    "explain": ("explain", "explain_cmd", ("Print the judge's reason for a stored row, asking "
                "the judge where the run left it out.")),
    "runs": ("runs", "runs_cmd", ("List stored runs, newest first: evaluations and every other "
             "job (generate, simulate, attack, robustness, watch, calibration), each with its "
             "kind.")),
    "show": ("runs", "show_cmd", "Print one stored run: its settings and its summary table."),
    "export": ("runs", "export_cmd", ("Write a stored run's per-row results to JSON Lines, CSV "
               "or Parquet.")),
    "rm": ("runs", "rm_cmd", "Delete a stored run with its rows."),
    "serve": ("serve", "serve", ("Serve a local web UI over the run store: runs, reports, "
              "rows, comparisons, review.")),
    "simulate": ("simulate", "simulate_cmd", ("Ask the app under test harmful seed requests, "
                 "or (--scenarios) let simulated users talk to it, and save the conversations "
                 "as a dataset.")),
    "jailbreak": ("jailbreak", "jailbreak_cmd", ("Ask the app the same seeds plain and with a "
                  "jailbreak injection, rate both, and report the defect rates and their "
                  "difference (the jailbreak defect rate); or attack each seed over several "
                  "turns (crescendo, pair) and report the attack success rate beside the "
                  "plain one.")),
    "generate": ("generate", "generate_cmd", ("Write test rows (questions, ground truths, "
                 "evidence spans) from your documents; each is checked before it is kept: its "
                 "evidence is found in the document, its answer is supported, its question "
                 "stands alone, is in the document's language and is no near-duplicate.")),
    "compare-defects": ("jailbreak", "compare_defects_cmd", ("Compare the defect rates of two "
                        "runs on their paired rows (same ids): the jailbreak defect rate when "
                        "INJECTED is BASE's dataset with jailbreak injections.")),
    "metrics": ("metrics", "metrics_cmd", ("List every metric: built-ins and those of installed "
                "plugins (entry-point group assay.metrics), with source, kind, required "
                "fields, range and version.")),
    "watch": ("watch", "watch_cmd", ("Receive OpenTelemetry traces (OTLP/HTTP) and/or follow "
              "trace files; score each finished trace once, as it arrives, into one live run "
              "in the store (assay serve shows it).")),
    "labels": ("labels", "app", ("People's labels on a run's rows (given on assay serve's "
               "review page).")),
}


def load_command(name: str) -> TyperCommand | TyperGroup:
    """Import command ``name``'s module and build its Click command (a group for a sub-app),
    as ``app.command(name)`` or ``app.add_typer(sub_app, name=name)`` would.

    Example:
        >>> load_command("runs").name, load_command("labels").name
        ('runs', 'labels')
    """
    module, attribute, _ = COMMANDS[name]
    target = getattr(import_module(f"{__package__}.{module}"), attribute)
    if isinstance(target, typer.Typer):
        return get_group_from_info(
            TyperInfo(target, name=name), pretty_exceptions_short=app.pretty_exceptions_short,
            suggest_commands=app.suggest_commands, rich_markup_mode=app.rich_markup_mode)
    from ._configured import ConfiguredCommand  # option defaults from [tool.assay]
    return cast(TyperCommand, get_command_from_info(
        CommandInfo(name=name, callback=target, cls=ConfiguredCommand),
        pretty_exceptions_short=app.pretty_exceptions_short,
        rich_markup_mode=app.rich_markup_mode))


class _LazyCommands(Mapping[str, TyperCommand | TyperGroup]):
    """The root's commands by name: each built (its module imported) on first access."""

    def __init__(self) -> None:
        self._loaded: dict[str, TyperCommand | TyperGroup] = {}

    def __getitem__(self, name: str) -> TyperCommand | TyperGroup:
        if name not in self._loaded:
            if name not in COMMANDS:
                raise KeyError(name)
            self._loaded[name] = load_command(name)
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS)


class LazyGroup(TyperGroup):
    """The root group: lists :data:`COMMANDS` from the table, imports one when it runs."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = _LazyCommands()  # type: ignore[assignment]

    # ``Any``: the Click classes are Typer's own copy in recent Typer, click's in older ones.
    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """The commands and their one-line help, from :data:`COMMANDS` (nothing imported)."""
        limit = formatter.width - 6 - max(map(len, COMMANDS))
        rows = [(name, TyperCommand(name=name, help=short).get_short_help_str(limit))
                for name, (_, _, short) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


app = typer.Typer(name="assay", cls=LazyGroup, no_args_is_help=True, add_completion=False,
                  rich_markup_mode=None, context_settings={"help_option_names": HELP_OPTIONS},
                  help="Evaluate generative-AI apps: QA, chat and RAG datasets, offline or with "
                       "any OpenAI-compatible judge.")


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"assay {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print assay's version and exit.")] = False,
) -> None:
    """Evaluate generative-AI apps: QA, chat and RAG datasets."""
    # The library's error messages name options as Python keywords; a command names its flags.
    ctx.with_resource(flag_names())
