"""Watching production: evaluate traces as they arrive.

An OTLP/HTTP receiver (``POST /v1/traces``, JSON or protobuf, gzip) and file followers write
every accepted span to a durable spool before answering; each finished trace (its root span
arrived, or no new span for a while) becomes a conversation row (the trace id is the row id),
scored once with the same planner, judge calls, cache, injection defence and records as
``assay run``, and stored in one live run (``kind="watch"``) as it is scored. A restart after
a crash or ``kill -9`` scores every spooled trace exactly once.

Example:
    >>> WatchOptions(metrics="groundedness").idle
    10.0
    >>> parse_filter("service.name=shop").terms[0].value
    'shop'
"""

from ._decode import protobuf_missing
from ._options import DEFAULT_SPOOL, WatchOptions, check_listen
from ._receiver import RETRY_AFTER_S, receiver_app
from ._select import TraceFilter, parse_filter, sampled
from ._serve import watch_async
from ._spool import Spool
from ._watch import Watcher

__all__ = ["DEFAULT_SPOOL", "RETRY_AFTER_S", "Spool", "TraceFilter", "WatchOptions", "Watcher",
           "check_listen", "parse_filter", "protobuf_missing", "receiver_app", "sampled",
           "watch_async"]
