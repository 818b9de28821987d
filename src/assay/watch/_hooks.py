"""What a watch does with each scored record besides storing it: alert rules
(:mod:`assay.watch._alerts`: a rolling mean crossing a bar prints an alert line, runs the
alert command and is kept in the run's summary) and the export of each score back to the
user's tracing backend as an OTLP event on its trace (:mod:`assay.watch._export_otlp`).

Example:
    >>> from assay.watch._options import WatchOptions
    >>> hooks = Hooks(WatchOptions(metrics="fluency"))
    >>> hooks.status(), hooks.new_alerts()
    ({'alerts': 0}, None)
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterable, Mapping
from typing import Any

from .._secrets import remember_secret
from ._alerts import AlertWatcher, parse_alert
from ._entry import short_id
from ._export_otlp import ScoreExporter, headers_from_env
from ._options import WatchOptions

__all__ = ["MAX_ALERTS", "Hooks"]

log = logging.getLogger("assay.watch")

#: Alerts kept in the run's summary (the latest).
MAX_ALERTS = 100


class Hooks:
    """The alert watcher and the score exporter of one watch (each only when asked for)."""

    def __init__(self, options: WatchOptions) -> None:
        self.watcher: AlertWatcher | None = None
        self.exporter: ScoreExporter | None = None
        self.alerts: list[dict[str, Any]] = []
        self.alerts_changed = False
        self._tasks: set[asyncio.Future[None]] = set()
        if options.alerts or options.alert_command:
            rules = [parse_alert(spec) for spec in options.alerts]
            self.watcher = AlertWatcher(rules, command=options.alert_command)
        if options.export_otlp:
            headers = headers_from_env(os.environ)  # as the user's OTLP exporters send
            for value in headers.values():
                remember_secret(value)  # an API key in a header is masked wherever it shows
            self.exporter = ScoreExporter(options.export_otlp, headers=headers)

    def resume(self, alerts: Iterable[Mapping[str, Any]],
               records: Iterable[Mapping[str, Any]]) -> None:
        """Carry on a resumed run: its stored ``alerts`` are kept (new ones are added to
        them), and the rules' windows are refilled from its latest ``records`` (oldest first)
        without announcing a rule that was already firing."""
        self.alerts = [dict(a) for a in alerts][-MAX_ALERTS:]
        if self.watcher is not None:
            self.watcher.prime(records)

    def observe(self, record: Mapping[str, Any], *, trace_id: str, span_id: str | None) -> None:
        """Check the alert rules against a scored record, and send its scores (in the
        background). A failing hook is logged; the record is stored all the same."""
        if self.watcher is not None:
            try:
                fired = list(self.watcher.observe(record))
            except Exception:
                log.exception("the alert rules failed on trace %s", short_id(trace_id))
                fired = []
            for alert in fired:
                print(alert.line(), flush=True)
                self.alerts.append(alert.as_dict())
                del self.alerts[:-MAX_ALERTS]
                self.alerts_changed = True
        if self.exporter is not None:
            task = asyncio.ensure_future(self.exporter.send(record, trace_id=trace_id,
                                                            span_id=span_id))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def new_alerts(self) -> list[dict[str, Any]] | None:
        """The latest alerts when some fired since the last call, else ``None``."""
        if not self.alerts_changed:
            return None
        self.alerts_changed = False
        return list(self.alerts)

    def status(self) -> dict[str, Any]:
        """How many alerts fired, and what the exporter did."""
        return {"alerts": len(self.alerts),
                **({"export_otlp": self.exporter.stats()} if self.exporter is not None else {})}

    async def aclose(self) -> None:
        """Wait for the scores being sent, and close the exporter."""
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.exporter is not None:
            await self.exporter.aclose()
        if self.watcher is not None:
            await asyncio.to_thread(self.watcher.close)  # alert commands still running
