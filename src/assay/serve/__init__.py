"""``assay serve``: a local web UI over the run store: the runs list with filters, each run's
report, a page per row, comparisons, a review queue where people label rows (the only thing
that writes to the store), and a JSON API.

It needs ``starlette`` (and ``uvicorn`` to serve it from the command line). Pages load nothing
from the network; the review page's one script comes from this server; reports keep their
pinned Content-Security-Policy.

Example:
    >>> from starlette.testclient import TestClient
    >>> from assay.store import open_store
    >>> with open_store(":memory:") as store:
    ...     _ = store.create_run(name="smoke")
    ...     page = TestClient(create_app(store)).get("/")
    >>> page.status_code, "smoke" in page.text
    (200, True)
"""

from ._app import DEFAULT_LIMIT, create_app

__all__ = ["DEFAULT_LIMIT", "create_app"]
