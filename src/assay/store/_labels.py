"""People's labels on a run's rows: a rating (1-5, or a label of a custom scale) or a pairwise
choice (BASELINE, CANDIDATE or TIE) per row, metric and rater, with a comment and the time.

Labels are notes about a run, not part of it: they can be added to a complete run, and saving
again for the same (run, row, metric, rater) replaces the label. Deleting the run deletes them.

Example:
    >>> from assay.store import open_store
    >>> with open_store(":memory:") as store:
    ...     rid = store.create_run()
    ...     store.add_rows(rid, [{"id": "q1"}, {"id": "q2"}])
    ...     store.finish_run(rid, summary={}, complete=True)
    ...     _ = store.save_label(rid, "q2", "coherence", rater="ann", value=2)
    ...     _ = store.save_label(rid, "q2", "coherence", rater="ann", value=4, comment="fine")
    ...     _ = store.save_label(rid, "q1", "preference", rater="bob", value="TIE")
    ...     [(lb.row_id, lb.metric, lb.rater, lb.value, lb.comment) for lb in store.labels(rid)]
    ...     store.label_count(rid)
    [('q1', 'preference', 'bob', 'TIE', None), ('q2', 'coherence', 'ann', 4, 'fine')]
    2
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from ..errors import ConfigError
from ._engine import transaction
from ._meta import now_iso
from ._reader import RunReader
from ._rows import find_row, unstorable_key
from ._schema import labels as labels_t
from ._schema import rows as rows_t
from ._secrets import mask_secrets

__all__ = ["MAX_NAME", "Label", "LabelStore", "check_value", "storable_comment"]

#: The longest rater or metric name, and the longest text label, in characters.
MAX_NAME = 200
#: What a name or a text label may not hold: control characters (NUL among them, which
#: PostgreSQL cannot store) and lone surrogates (which no encoding can).
_NOT_IN_NAMES = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_NAME_RULE = (f"a non-empty text of at most {MAX_NAME} characters, without control characters "
              "(such as NUL)")


def storable_comment(text: str) -> str:
    """A comment as both backends store it alike: NUL removed (PostgreSQL text cannot hold
    it), a lone surrogate (no encoding can) replaced by U+FFFD, surrounding space stripped.

    Example:
        >>> storable_comment(" too\\x00 long\\ud800 ")
        'too long\ufffd'
    """
    return re.sub(r"[\ud800-\udfff]", "\ufffd", text.replace("\x00", "")).strip()


@dataclass(frozen=True)
class Label:
    """One person's label on one metric of one row of a run.

    ``value`` is an integer rating, a label of a custom scale, or a pairwise choice
    (``BASELINE``, ``CANDIDATE``, ``TIE``); ``labelled`` is when it was saved (UTC, ISO 8601).
    """

    run_id: str
    row_id: str
    metric: str
    rater: str
    value: int | str
    comment: str | None
    labelled: str


def check_value(value: Any) -> int | str:
    """``value`` as stored: an integer (``4``, ``4.0`` or ``"4"`` give ``4``) or a non-empty
    text (stripped); a ``ConfigError`` saying what is allowed for anything else.

    Example:
        >>> check_value(" 4 "), check_value(5.0), check_value("TIE")
        (4, 5, 'TIE')
    """
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if (isinstance(value, str) and value.strip() and len(value.strip()) <= MAX_NAME
            and not _NOT_IN_NAMES.search(value.strip())):
        return value.strip()
    raise ConfigError(f"Got value={value!r:.80}. Must be a whole-number rating (e.g. 4), a label "
                      f"of the metric's scale, or a pairwise choice (BASELINE, CANDIDATE, TIE): "
                      f"{_NAME_RULE}.")


def _name(what: str, value: Any) -> str:
    """``value`` stripped, when it is a name a label may have; a ConfigError otherwise.

    Example:
        >>> _name("rater", " ann ")
        'ann'
        >>> try:
        ...     _name("rater", "a\\x00n")
        ... except ConfigError as e:
        ...     print(e)
        Got rater='a\\x00n'. Must be a non-empty text of at most 200 characters, without control characters (such as NUL).
    """
    text = value.strip() if isinstance(value, str) else ""
    if not text or len(text) > MAX_NAME or _NOT_IN_NAMES.search(text):
        raise ConfigError(f"Got {what}={value!r:.80}. Must be {_NAME_RULE}.")
    return text


def _key(run_id: str, row_id: str, metric: str, rater: str) -> tuple[Any, ...]:
    """The conditions that pick one label: its run, row, metric and rater."""
    return (labels_t.c.run_id == run_id, labels_t.c.row_id == row_id,
            labels_t.c.metric == metric, labels_t.c.rater == rater)


class LabelStore(RunReader):
    """The label methods of ``Store``: save, delete and read people's labels on a run's rows."""

    def _writable(self) -> None:  # pragma: no cover - Store defines it
        raise NotImplementedError

    def save_label(self, run_id: str, row_id: str, metric: str, *, rater: str, value: Any,
                   comment: str | None = None) -> Label:
        """Save ``rater``'s label ``value`` on ``metric`` for row ``row_id`` of run ``run_id``
        (a full id), replacing the one they saved before; return it as stored (the comment
        masked for secrets like every stored text, NUL removed: see :func:`storable_comment`;
        both backends store the same). Raises ``ConfigError`` for an unknown run
        or row, an empty rater or metric (or one with control characters such as NUL), or a
        value that is neither a whole number nor such a text.
        """
        rater, metric = _name("rater", rater), _name("metric", metric)
        stored = check_value(value)
        text = storable_comment(comment) if isinstance(comment, str) else ""
        note = mask_secrets(text) if text else None
        label = Label(run_id=run_id, row_id=str(row_id), metric=metric, rater=rater,
                      value=stored, comment=note, labelled=now_iso())
        self._writable()
        with transaction(self._engine, write=True) as conn:
            self._require(conn, run_id, lock=True)
            if find_row(conn, run_id, label.row_id) is None:
                raise ConfigError(f"Run {run_id} has no row {label.row_id!r} to label. Fix: "
                                  "label one of the run's rows (assay serve lists them).")
            conn.execute(sa.delete(labels_t).where(*_key(run_id, label.row_id, metric, rater)))
            conn.execute(sa.insert(labels_t).values(
                run_id=run_id, row_id=label.row_id, metric=metric, rater=rater,
                value=json.dumps(stored), comment=note, labelled=label.labelled))
        return label

    def delete_label(self, run_id: str, row_id: str, metric: str, *, rater: str) -> bool:
        """Remove ``rater``'s label on ``metric`` for row ``row_id``; whether there was one.

        Example:
            >>> from assay.store import open_store
            >>> with open_store(":memory:") as store:
            ...     rid = store.create_run()
            ...     store.add_rows(rid, [{"id": "q1"}])
            ...     _ = store.save_label(rid, "q1", "coherence", rater="ann", value=3)
            ...     store.delete_label(rid, "q1", "coherence", rater="ann"), store.labels(rid)
            (True, [])
        """
        self._writable()
        with transaction(self._engine, write=True) as conn:
            self._require(conn, run_id, lock=True)
            if any(unstorable_key(conn, str(k)) for k in (row_id, metric, rater)):
                return False  # no label has it
            done = conn.execute(sa.delete(labels_t).where(
                *_key(run_id, str(row_id), str(metric), str(rater))))
            return bool(done.rowcount)

    def label_count(self, run_id: str) -> int:
        """How many labels the run has (every rater's). Raises ``ConfigError`` for an unknown
        run."""
        with transaction(self._engine, write=False) as conn:
            self._require(conn, run_id)
            return int(conn.execute(sa.select(sa.func.count()).select_from(labels_t)
                                    .where(labels_t.c.run_id == run_id)).scalar() or 0)

    def last_rater(self) -> str | None:
        """The rater of the label saved last in this store (any run), ``None`` when the store
        has no label: the name a review page offers to a person it does not know yet.

        Example:
            >>> from assay.store import open_store
            >>> with open_store(":memory:") as store:
            ...     rid = store.create_run()
            ...     store.add_rows(rid, [{"id": "q1"}])
            ...     before = store.last_rater()
            ...     _ = store.save_label(rid, "q1", "coherence", rater="ann", value=3)
            ...     _ = store.save_label(rid, "q1", "relevance", rater="bob", value=4)
            ...     before, store.last_rater()
            (None, 'bob')
        """
        query = (sa.select(labels_t.c.rater)
                 .order_by(labels_t.c.labelled.desc(), labels_t.c.rater).limit(1))
        with transaction(self._engine, write=False) as conn:
            found = conn.execute(query).scalar()
        return None if found is None else str(found)

    def labels(self, run_id: str, *, rater: str | None = None,
               row_id: str | None = None) -> list[Label]:
        """The run's labels (of one ``rater``, of one ``row_id``, when given), in the run's row
        order, then by metric and rater. Raises ``ConfigError`` for an unknown run."""
        query = (sa.select(labels_t).join(rows_t, sa.and_(rows_t.c.run_id == labels_t.c.run_id,
                                                          rows_t.c.row_id == labels_t.c.row_id))
                 .where(labels_t.c.run_id == run_id)
                 .order_by(rows_t.c.position, labels_t.c.metric, labels_t.c.rater))
        if rater is not None:
            query = query.where(labels_t.c.rater == rater)
        if row_id is not None:
            query = query.where(labels_t.c.row_id == str(row_id))
        with transaction(self._engine, write=False) as conn:
            self._require(conn, run_id)
            if any(unstorable_key(conn, str(k)) for k in (rater, row_id) if k is not None):
                return []  # no label has it
            found = conn.execute(query).mappings().all()
        return [Label(run_id=m["run_id"], row_id=m["row_id"], metric=m["metric"],
                      rater=m["rater"], value=json.loads(m["value"]), comment=m["comment"],
                      labelled=m["labelled"]) for m in found]
