"""Reasons written into a stored row after its run: ``assay explain`` asks the judge for the
reason a run left out (``details.no_reason``) and records it here.

A complete run is never changed, with this one exception (as ``Store.update_summary`` adds
figures computed later): a reason fills in what the record said was missing. The score, the
other metrics and the run's status stay as they are; the reason is masked for secrets like
every stored text.

Example:
    >>> from assay.store import open_store
    >>> with open_store(":memory:") as store:
    ...     rid = store.create_run()
    ...     store.add_rows(rid, [{"id": "q1", "fluency": {"value": 5.0, "reason": None,
    ...                           "details": {"no_reason": "no reason asked (reasons=never)"}}}])
    ...     store.finish_run(rid, summary={"rows": 1}, complete=True)
    ...     fill_reasons(store, rid, "q1", {"fluency": "clear and correct"})
    ...     store.row_at(rid, "q1")[1]["fluency"], store.get(rid).status
    ({'value': 5.0, 'reason': 'clear and correct', 'details': {}}, 'complete')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sqlalchemy as sa

from ..errors import ConfigError
from ._engine import transaction
from ._info import dumps
from ._rows import find_row
from ._schema import rows as rows_t
from ._secrets import mask_secrets, sanitize
from ._store import Store

__all__ = ["fill_reasons"]


def fill_reasons(store: Store, run_id: str, row_id: str, reasons: Mapping[str, str], *,
                 notes: Mapping[str, Mapping[str, Any]] | None = None) -> None:
    """Write ``reasons`` (``{metric: reason}``) into the stored record of row ``row_id`` of
    run ``run_id`` (a full id), whatever the run's status: each metric's ``reason`` is set,
    its ``details.no_reason`` dropped, and ``notes[metric]`` added to its ``details`` (say,
    the judge that gave the reason). One transaction.

    Raises:
        ConfigError: no such run or row, a metric the record does not hold, or a read-only
            store.
    """
    store._writable()
    with transaction(store._engine, write=True) as conn:
        store._require(conn, run_id, lock=True)
        found = find_row(conn, run_id, str(row_id))
        if found is None:
            raise ConfigError(f"Run {run_id} in {store.url} has no row {row_id!r}.")
        record = found[1]
        for metric, reason in reasons.items():
            result = record.get(metric)
            if not isinstance(result, dict):
                raise ConfigError(f"Row {row_id!r} of run {run_id} has no result for "
                                  f"{metric!r}.")
            result["reason"] = mask_secrets(str(reason))
            details = result.get("details")
            details = dict(details) if isinstance(details, dict) else {}
            details.pop("no_reason", None)
            details.update(sanitize(dict((notes or {}).get(metric) or {}),
                                    drop_secret_names=False))
            result["details"] = details
        conn.execute(sa.update(rows_t)
                     .where(rows_t.c.run_id == run_id, rows_t.c.row_id == str(row_id))
                     .values(record=dumps(record)))
