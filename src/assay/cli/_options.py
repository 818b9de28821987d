"""Options that several commands share: where the run store is, and turning recording off.

Example:
    >>> StoreOption.__metadata__[0].help.startswith("Run store")
    True
"""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["NoStoreOption", "StoreOption", "store_arg"]

#: ``--store``: the run store to record in or to read from.
StoreOption = Annotated[str | None, typer.Option(
    help="Run store: a path or postgresql:// URL. Default: ASSAY_STORE or runs.sqlite in the "
         "user data dir.")]
#: ``--no-store``: record nothing.
NoStoreOption = Annotated[bool, typer.Option("--no-store", help="Do not record in the run store.")]


def store_arg(store: str | None, no_store: bool = False) -> str | bool:
    """What ``evaluate(store=...)`` gets from the two options: False, the path/URL, or True
    (the default store).

    Example:
        >>> store_arg(None), store_arg("runs.sqlite"), store_arg(None, no_store=True)
        (True, 'runs.sqlite', False)
    """
    return False if no_store else (store or True)
