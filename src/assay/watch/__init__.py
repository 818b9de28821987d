"""Watching production: evaluate traces as they arrive.

An OTLP/HTTP receiver (``POST /v1/traces``, JSON or protobuf, gzip) and file followers write
every accepted span to a durable spool before answering; each finished trace (its root span
arrived, or no new span for a while) becomes a conversation row (the trace id is the row id),
scored once with the same planner, judge calls, cache, injection defence and records as
``assay run``, and stored in one live run (``kind="watch"``) as it is scored. A restart after
a crash or ``kill -9`` scores every spooled trace exactly once. Rules on rolling means raise
alerts (in the run's summary), and scores go back to the user's tracing backend as
``gen_ai.evaluation.result`` events.

:func:`watch_async` runs a :class:`Watcher` built from :class:`WatchOptions` until stopped and
returns the run's final summary; :func:`protobuf_missing` says why OTLP protobuf bodies
cannot be read here (and what to install), if they cannot.

Example:
    >>> options = WatchOptions(metrics="groundedness")
    >>> options.idle, options.sample, str(options.spool)
    (10.0, 1.0, '.assay/watch')
"""

from ._decode import protobuf_missing
from ._entry import spend_text
from ._options import WatchOptions
from ._serve import watch_async
from ._watch import Watcher

__all__ = ["WatchOptions", "Watcher", "protobuf_missing", "spend_text", "watch_async"]
