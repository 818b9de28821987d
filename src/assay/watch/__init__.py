"""Watching production: evaluate traces as they arrive.

An OTLP/HTTP receiver (``POST /v1/traces``, JSON or protobuf, gzip) and file followers write
every accepted span to a durable spool before answering; each finished trace (its root span
arrived, or no new span for a while) becomes a conversation row (the trace id is the row id),
scored once with the same planner, judge calls, cache, injection defence and records as
``assay run``, and stored in one live run (``kind="watch"``) as it is scored. A restart after
a crash or ``kill -9`` scores every spooled trace exactly once. Rules on rolling means raise
alerts (``parse_alert``, ``AlertWatcher``), and scores go back to the user's tracing backend
as ``gen_ai.evaluation.result`` events (``ScoreExporter``).

Example:
    >>> WatchOptions(metrics="groundedness").idle
    10.0
    >>> parse_filter("service.name=shop").terms[0].value
    'shop'
    >>> watcher = AlertWatcher([parse_alert("groundedness<3.5 over 10")])
    >>> [a.state for i in range(10)
    ...  for a in watcher.observe({"id": str(i), "groundedness": {"value": 2.0}})]
    ['firing']
"""

from ._alerts import Alert, AlertRule, AlertWatcher, parse_alert
from ._decode import protobuf_missing
from ._export_otlp import ScoreExporter, evaluation_request
from ._options import DEFAULT_SPOOL, WatchOptions, check_listen
from ._receiver import RETRY_AFTER_S, receiver_app
from ._select import TraceFilter, parse_filter, sampled
from ._serve import watch_async
from ._spool import Spool
from ._watch import Watcher

__all__ = ["DEFAULT_SPOOL", "RETRY_AFTER_S", "Alert", "AlertRule", "AlertWatcher",
           "ScoreExporter", "Spool", "TraceFilter", "WatchOptions", "Watcher", "check_listen",
           "evaluation_request", "parse_alert", "parse_filter", "protobuf_missing",
           "receiver_app", "sampled", "watch_async"]
