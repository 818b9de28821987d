"""The CLI's names for the library's options: error messages from the library name Python
keywords (``mapping={'answer': 'COLUMN'}``); inside a command they name the flags instead
(``--map answer=COLUMN``).

Example:
    >>> cli_option("mapping", {"answer": "COLUMN"}), cli_option("cache", False)
    ('--map answer=COLUMN', '--no-cache')
    >>> cli_option("max_field_chars"), cli_option("resume", True)
    ('--max-field-chars', '--resume')
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import OPTION_NAMER

__all__ = ["FLAGS", "cli_option", "flag_names"]

#: Keywords whose flag is not ``--`` + the keyword with dashes.
FLAGS = {"mapping": "--map", "embeddings": "--embeddings", "store": "--store",
         "attempts": "--max-attempts",
         "alerts": "--alert", "names": "--name"}


def cli_option(keyword: str, value: object = None) -> str:
    """The flag for ``keyword`` (``--no-X`` for a False switch), with ``value`` after it."""
    flag = FLAGS.get(keyword, "--" + keyword.replace("_", "-"))
    if value is True or value is None:
        return flag
    if value is False:
        return "--no-" + flag.removeprefix("--")
    if isinstance(value, dict):
        return " ".join(f"{flag} {k}={v}" for k, v in value.items())
    return f"{flag} {value}"


@contextmanager
def flag_names() -> Iterator[None]:
    """Within the block, the library's messages name CLI flags."""
    token = OPTION_NAMER.set(cli_option)
    try:
        yield
    finally:
        OPTION_NAMER.reset(token)
