"""Write the CI outputs of a gate's bars at once: the JUnit report, the markdown summary, and
the same markdown appended to GitHub's job summary (``$GITHUB_STEP_SUMMARY``) when a GitHub
Actions step runs the command.

Example:
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> publish_ci_outputs([], junit=folder / "assay.xml", markdown=folder / "assay.md",
    ...                    title="assay run qa", environ={})
    >>> sorted(p.name for p in folder.iterdir())
    ['assay.md', 'assay.xml']
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .._files import atomic_write, writing
from ..errors import OutputError
from ._junit import write_junit
from ._markdown import markdown_summary
from ._outcome import BarOutcome

__all__ = ["STEP_SUMMARY_ENV", "publish_ci_outputs"]

#: The variable GitHub Actions sets to the file a step appends its job summary to.
STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"


def publish_ci_outputs(outcomes: Sequence[BarOutcome], *, junit: str | Path | None,
                       markdown: str | Path | None, title: str,
                       defects: Mapping[str, Mapping[str, Any]] | None = None,
                       suite: str | None = None,
                       environ: Mapping[str, str] | None = None) -> None:
    """Write the JUnit report to ``junit`` and the markdown summary to ``markdown`` (each
    when given; whole or not at all), and append the markdown to the file named by
    ``$GITHUB_STEP_SUMMARY`` when it is set (``environ``: default ``os.environ``).

    The JUnit suite is ``suite``, by default ``title``'s last word (``assay run qa`` ->
    ``assay.qa``).

    Raises:
        OutputError: a file could not be written (what, where and the fix in one line); the
            others are written still.

    Example:
        >>> import tempfile, pathlib
        >>> summary_file = pathlib.Path(tempfile.mkdtemp()) / "step_summary.md"
        >>> _ = summary_file.write_text("earlier step\\n")
        >>> publish_ci_outputs([], junit=None, markdown=None, title="assay run qa",
        ...                    environ={"GITHUB_STEP_SUMMARY": str(summary_file)})
        >>> print(summary_file.read_text())  # doctest: +ELLIPSIS
        earlier step
        <BLANKLINE>
        ### assay run qa: PASS
        ...
    """
    environ = os.environ if environ is None else environ
    step_summary = environ.get(STEP_SUMMARY_ENV, "").strip()
    text = markdown_summary(outcomes, title=title, defects=defects)
    errors = []
    if junit is not None:
        errors += _attempt(lambda: write_junit(outcomes, junit, suite=suite or _suite(title)))
    if markdown is not None:
        errors += _attempt(lambda: _write_markdown(text, markdown))
    if step_summary:
        errors += _attempt(lambda: _append_step_summary(text, step_summary))
    if errors:
        raise errors[0]


def _suite(title: str) -> str:
    """The JUnit suite's name: the title's last word, dots and spaces as in a class name."""
    words = title.split()
    return re.sub(r"[^\w.\-]+", "_", words[-1]) if words else "run"


def _attempt(write: Callable[[], None]) -> list[OutputError]:
    """Run ``write``; its OutputError, if any, in a list (so the other files are written)."""
    try:
        write()
    except OutputError as e:
        return [e]
    return []


def _write_markdown(text: str, path: str | Path) -> None:
    with atomic_write(path, what="the markdown summary") as f:
        f.write(text + "\n")


def _append_step_summary(text: str, path: str) -> None:
    """Append ``text`` to GitHub's job summary file, after a blank line (the file may hold
    earlier steps' summaries)."""
    with writing(f"the job summary (${STEP_SUMMARY_ENV})", path), \
            open(path, "a", encoding="utf-8") as f:
        f.write("\n" + text + "\n")
