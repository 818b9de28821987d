"""The run store: every evaluation run recorded, to list, show, export, delete and compare.

Runs live in SQLite (``runs.sqlite`` in the user data directory by default) or PostgreSQL,
through SQLAlchemy Core, with a versioned schema and forward-only migrations. Settings, tags
and row inputs pass a sanitizer first, so API keys and passwords are never written. A running
run whose process is gone (no heartbeat for ``STALE_AFTER_S`` seconds, or a dead PID on this
host) reads as ``interrupted``. People's labels on a run's rows (``Store.save_label``) are
kept beside the run, and ``rated_rows`` turns them into the rated dataset ``calibrate`` reads.

Example:
    >>> from assay.store import open_store
    >>> with open_store(":memory:") as store:
    ...     run_id = store.create_run(name="smoke", tags=["ci"])
    ...     store.add_rows(run_id, [{"id": "q1", "exact_match": {"value": 1.0}}])
    ...     store.finish_run(run_id, summary={"metrics": {"exact_match": {"mean": 1.0}}},
    ...                      complete=True)
    ...     [(r.name, r.status, r.rows) for r in store.runs(tag="ci")]
    [('smoke', 'complete', 1)]
"""

from ._amend import fill_reasons
from ._export import FORMATS
from ._labels import MAX_NAME as MAX_LABEL_NAME
from ._labels import Label
from ._migrations import MIGRATIONS
from ._open import open_store
from ._owner import HEARTBEAT_S, STALE_AFTER_S
from ._rated import PAIRWISE_CHOICES, RatedRows, combine_labels, human_column, rated_rows
from ._schema import SCHEMA_VERSION
from ._secrets import mask_secrets, sanitize
from ._store import JOB_KINDS, KINDS, STATUSES, RunInfo, Store
from ._url import DEFAULT_STORE, ENV_VAR, resolve_url

__all__ = ["DEFAULT_STORE", "ENV_VAR", "FORMATS", "HEARTBEAT_S", "JOB_KINDS", "KINDS", "MAX_LABEL_NAME",
           "MIGRATIONS", "PAIRWISE_CHOICES", "SCHEMA_VERSION", "STALE_AFTER_S", "STATUSES", "Label",
           "RatedRows", "RunInfo", "Store", "combine_labels", "fill_reasons", "human_column",
           "mask_secrets", "open_store", "rated_rows", "resolve_url", "sanitize"]
