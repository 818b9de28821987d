"""``--junit FILE`` and ``--markdown FILE`` (``assay run``, ``assay compare``): the gate's bars
for CI servers and pull requests, also appended to ``$GITHUB_STEP_SUMMARY`` when it is set.

The files are written whatever the verdict (a failed bar is what they are for); a file that
cannot be written is one line and exit 3, never a traceback.

Example:
    >>> JunitOption.__metadata__[0].help.startswith("Write the quality bars as JUnit XML")
    True
    >>> check_output_file(None) is None
    True
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from ..gate import BarOutcome, publish_ci_outputs
from ._errors import exit_on_errors
from ._format import printable

__all__ = ["JunitOption", "MarkdownOption", "check_output_file", "read_results",
           "write_ci_outputs"]

err = Console(stderr=True)


def check_output_file(path: Path | None) -> Path | None:
    """A ``--junit`` / ``--markdown`` path as given, unless it is a folder (a usage error, exit
    2, before any work is done).

    Example:
        >>> import tempfile
        >>> try:
        ...     check_output_file(Path(tempfile.mkdtemp()))
        ... except typer.BadParameter as e:
        ...     print("which is a folder" in e.message)
        True
    """
    if path is not None and path.is_dir():
        raise typer.BadParameter(f"Got {printable(path)}, which is a folder. Fix: name a file "
                                 f"in it, e.g. {printable(path / 'assay.xml')}.")
    return path


#: ``--junit FILE``.
JunitOption = Annotated[Path | None, typer.Option(
    "--junit", callback=check_output_file, metavar="FILE",
    help="Write the quality bars as JUnit XML to FILE (one test case per bar, a failed bar "
         "with its message and worst rows), for GitHub, GitLab or Jenkins; written whatever "
         "the verdict.")]
#: ``--markdown FILE``.
MarkdownOption = Annotated[Path | None, typer.Option(
    "--markdown", callback=check_output_file, metavar="FILE",
    help="Write a markdown summary to FILE (verdict, each bar with its value and interval, "
         "defect rates, worst rows), to post on a pull request. When GITHUB_STEP_SUMMARY is "
         "set, the same markdown is appended there, with or without this option.")]


def write_ci_outputs(outcomes: Sequence[BarOutcome], *, junit: Path | None,
                     markdown: Path | None, title: str, suite: str,
                     defects: Mapping[str, Mapping[str, Any]] | None = None) -> None:
    """:func:`~assay.gate.publish_ci_outputs` for a command: a file that cannot be written is
    one red line and exit 3; each file written is named on stderr."""
    with exit_on_errors("interrupted"):
        publish_ci_outputs(outcomes, junit=junit, markdown=markdown, title=title, suite=suite,
                           defects=defects)
    for what, path in (("junit", junit), ("markdown", markdown)):
        if path is not None:
            err.print(f"{what}: {printable(path)}", highlight=False, markup=False)


def read_results(out_dir: Path) -> Iterator[dict[str, Any]]:
    """The records of a run's ``results.jsonl``, read as they are needed (the file is opened
    on the first one); none when it is missing; a line that is no record is passed over.

    Example:
        >>> list(read_results(Path("no-such-run")))
        []
    """
    path = out_dir / "results.jsonl"
    if not path.is_file():
        return
    with open(path, encoding="utf-8", newline="\n") as f:
        for line in f:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                yield record
