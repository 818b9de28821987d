"""The ``assay`` Typer app: registers each command module on it (``main`` imports it only
when a command runs, so ``assay --version`` stays cheap).

Help is rendered as plain text (``rich_markup_mode=None``), so literal brackets such as
``pip install 'assay[ray]'`` survive: Rich markup would read ``[ray]`` as a style tag and drop it.
``-h`` is ``--help`` on every command: subcommands and sub-apps inherit the root's
``help_option_names``.

Example:
    >>> app.info.name, app.rich_markup_mode is None
    ('assay', True)
    >>> app.info.context_settings["help_option_names"]
    ['-h', '--help']
"""

from __future__ import annotations

from typing import Annotated

import typer

from .._version import __version__
from . import align as align_cmd
from . import calibrate as calibrate_cmd
from . import compare as compare_cmd
from . import explain as explain_cmd
from . import generate as generate_cmd
from . import jailbreak as jailbreak_cmd
from . import labels as labels_cmd
from . import metrics as metrics_cmd
from . import report as report_cmd
from . import robustness as robustness_cmd
from . import run as run_cmd
from . import runs as runs_cmd
from . import serve as serve_cmd
from . import simulate as simulate_cmd
from . import watch as watch_cmd
from ._flags import flag_names

__all__ = ["HELP_OPTIONS", "app"]

#: The flags that print a command's help, on every command.
HELP_OPTIONS = ["-h", "--help"]

app = typer.Typer(name="assay", no_args_is_help=True, add_completion=False,
                  rich_markup_mode=None, context_settings={"help_option_names": HELP_OPTIONS},
                  help="Evaluate generative-AI apps: QA, chat and RAG datasets, offline or with "
                       "any OpenAI-compatible judge.")
app.command("run")(run_cmd.run)
app.command("robustness")(robustness_cmd.robustness)
app.command("calibrate")(calibrate_cmd.calibrate)
app.command("align")(align_cmd.align)
app.command("compare")(compare_cmd.compare)
app.command("report")(report_cmd.report)
app.command("explain")(explain_cmd.explain_cmd)
app.command("runs")(runs_cmd.runs_cmd)
app.command("show")(runs_cmd.show_cmd)
app.command("export")(runs_cmd.export_cmd)
app.command("rm")(runs_cmd.rm_cmd)
app.command("serve")(serve_cmd.serve)
app.command("simulate")(simulate_cmd.simulate_cmd)
app.command("jailbreak")(jailbreak_cmd.jailbreak_cmd)
app.command("generate")(generate_cmd.generate_cmd)
app.command("compare-defects")(jailbreak_cmd.compare_defects_cmd)
app.command("metrics")(metrics_cmd.metrics_cmd)
app.command("watch")(watch_cmd.watch_cmd)
app.add_typer(labels_cmd.app, name="labels")


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

