"""Watching production: traces received as they arrive become rows of a live run, scored like
``assay run``; rules on rolling means raise alerts (``parse_alert``, ``AlertWatcher``), and
scores go back to the user's tracing backend as ``gen_ai.evaluation.result`` events
(``ScoreExporter``).

Example:
    >>> watcher = AlertWatcher([parse_alert("groundedness<3.5 over 10")])
    >>> [a.state for i in range(10)
    ...  for a in watcher.observe({"id": str(i), "groundedness": {"value": 2.0}})]
    ['firing']
"""

from ._alerts import Alert, AlertRule, AlertWatcher, parse_alert
from ._export_otlp import ScoreExporter, evaluation_request

__all__ = ["Alert", "AlertRule", "AlertWatcher", "ScoreExporter", "evaluation_request",
           "parse_alert"]
