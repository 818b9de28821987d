"""Alerts on a watch run: a rule such as ``groundedness<3.5 over 50`` fires once when the
rolling mean of a metric over the last rows crosses its bar, and resolves once when it
crosses back (never one alert per row).

The grammar of a rule is ``METRIC OP NUMBER [over N]``: ``METRIC`` a metric name as the
records name it (``groundedness``, ``answer_relevance``), ``OP`` one of ``<``, ``<=``, ``>``,
``>=``, ``NUMBER`` the bar, and ``N`` the rows of the rolling window (default
``DEFAULT_WINDOW``). Spaces are free. The rule holds (the alert is *firing*) while the mean of
the window's values compares to the bar as ``OP`` says.

Only scored values count: a result left unscored (value ``None``, an error) or a row without
the metric adds nothing to the window, and nothing is made up for it. A rule is judged only
once its window holds ``min(N, MIN_VALUES)`` values, so three bad rows at start-up do not
page anyone; after that the mean of the values held (up to ``N``) decides.

Example:
    >>> rule = parse_alert("groundedness < 3.5 over 4")
    >>> str(rule), rule.window
    ('groundedness<3.5 over 4', 4)
    >>> watcher = AlertWatcher([rule])
    >>> fired = [watcher.observe({"id": str(i), "groundedness": {"value": v}})
    ...          for i, v in enumerate([4, 3, 3, 3, 2, 5, 5, 5])]
    >>> [(k, a.state) for k, found in enumerate(fired) for a in found]
    [(3, 'firing'), (6, 'resolved')]
    >>> fired[3][0].line()
    'ALERT groundedness mean 3.25 over the last 4 rows < 3.5 (firing)'
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import shlex
import subprocess
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .._secrets import mask_secrets
from ..errors import ConfigError, option
from ..records import result_value

__all__ = ["ALERT_COMMAND_TIMEOUT_S", "DEFAULT_WINDOW", "MIN_VALUES", "OPERATORS", "Alert",
           "AlertRule", "AlertWatcher", "parse_alert"]

log = logging.getLogger("assay.watch")

#: Rows in a rule's rolling window when its spec says no ``over N``.
DEFAULT_WINDOW = 50
#: Values a window must hold before its rule is judged (or ``N``, when smaller).
MIN_VALUES = 10
#: The largest window a rule may ask for.
MAX_WINDOW = 100_000
#: Seconds an ``alert_command`` may run before it is stopped.
ALERT_COMMAND_TIMEOUT_S = 10.0
#: The comparisons a rule may use.
OPERATORS = ("<", "<=", ">", ">=")

_EXAMPLE = "'groundedness<3.5 over 50'"
_SPEC = re.compile(r"""\s*(?P<metric>[A-Za-z_][\w.:-]*)\s*(?P<op><=|>=|<|>)\s*
                       (?P<bar>[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*
                       (?:over\s+(?P<window>\S+)\s*)?""", re.VERBOSE)


def _number(value: float) -> str:
    """A mean or bar for a line: up to two decimals, three significant digits below 1.

    Example:
        >>> _number(3.125), _number(3.0), _number(0.04567), _number(120.0)
        ('3.12', '3', '0.0457', '120')
    """
    text = f"{value:.2f}" if abs(value) >= 1 else f"{value:.3g}"
    return text.rstrip("0").rstrip(".") if "." in text and "e" not in text else text


def _problem(spec: str, what: str) -> ConfigError:
    return ConfigError(f"Got {option('alert', spec)}: {what}. An alert rule is METRIC OP NUMBER "
                       f"[over N] with OP one of {', '.join(OPERATORS)} and N the rows of the "
                       f"rolling window (default {DEFAULT_WINDOW}), e.g. {_EXAMPLE}.")


@dataclass(frozen=True)
class AlertRule:
    """A metric's rolling mean compared with a bar: firing while ``mean OP bar`` holds over
    the last ``window`` scored values."""

    metric: str
    op: str
    bar: float
    window: int = DEFAULT_WINDOW

    def __str__(self) -> str:
        return f"{self.metric}{self.op}{_number(self.bar)} over {self.window}"

    def holds(self, mean: float) -> bool:
        """Whether ``mean`` is on the alerting side of the bar.

        Example:
            >>> AlertRule("m", "<=", 3.0).holds(3.0), AlertRule("m", "<", 3.0).holds(3.0)
            (True, False)
        """
        return {"<": mean < self.bar, "<=": mean <= self.bar,
                ">": mean > self.bar, ">=": mean >= self.bar}[self.op]

    @property
    def needed(self) -> int:
        """Values the window must hold before the rule is judged."""
        return min(self.window, MIN_VALUES)


def parse_alert(spec: str) -> AlertRule:
    """The rule a spec such as ``"groundedness<3.5 over 50"`` states (see the module
    docstring for the grammar).

    Raises:
        ConfigError: the spec is not a rule; the message names it, says what is wrong and
            shows a good one.

    Example:
        >>> parse_alert("relevance <= 3 over 20")
        AlertRule(metric='relevance', op='<=', bar=3.0, window=20)
        >>> parse_alert("coherence>=4").window
        50
        >>> try:
        ...     parse_alert("groundedness =< 3")
        ... except ConfigError as e:
        ...     print(str(e)[:70])
        Got alert='groundedness =< 3': no comparison of a metric with a number
    """
    if not isinstance(spec, str) or not spec.strip():
        raise _problem(str(spec), "it is empty")
    found = _SPEC.fullmatch(spec)
    if found is None:
        words = spec.split()
        if not any(op in spec for op in ("<", ">")):
            what = f"no comparison (one of {', '.join(OPERATORS)})"
        elif "over" in words and words[-1] == "over":
            what = "'over' needs a number of rows after it"
        else:
            what = "no comparison of a metric with a number"
        raise _problem(spec, what)
    bar = float(found["bar"])
    if not math.isfinite(bar):
        raise _problem(spec, "the bar must be a finite number")
    window = DEFAULT_WINDOW
    if found["window"] is not None:
        raw = found["window"]
        if not raw.isdigit() or not 1 <= int(raw) <= MAX_WINDOW:
            raise _problem(spec, f"the window must be a whole number of rows from 1 to "
                                 f"{MAX_WINDOW:,}, not {raw!r}")
        window = int(raw)
    return AlertRule(found["metric"], found["op"], bar, window)


@dataclass(frozen=True)
class Alert:
    """A rule's rolling mean crossing its bar (``firing``) or crossing back (``resolved``),
    with the mean and the number of values it was taken over."""

    rule: AlertRule
    mean: float
    n: int
    state: str
    at: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    def line(self) -> str:
        """One human line, as ``assay watch`` prints it."""
        mean = _number(self.mean)
        head = f"{self.rule.metric} mean {mean} over the last {self.n} rows"
        if self.state == "firing":
            return f"ALERT {head} {self.rule.op} {_number(self.rule.bar)} (firing)"
        return f"RESOLVED {head}, no longer {self.rule.op} {_number(self.rule.bar)} (resolved)"

    def as_dict(self) -> dict[str, Any]:
        """The alert as the run summary's ``alerts`` list keeps it (and the command reads)."""
        return {"at": self.at, "rule": str(self.rule), "metric": self.rule.metric,
                "mean": self.mean, "n": self.n, "bar": self.rule.bar, "state": self.state,
                "message": self.line()}


class AlertWatcher:
    """Rolling windows over scored records, one per rule; ``observe`` returns the alerts a
    record causes (at most one per rule: a crossing, never a row that stays on one side).

    With ``command`` (split like a shell would, never run by one), each alert runs it in a
    background thread, in order: the alert as JSON on stdin, and ``ASSAY_ALERT_METRIC``,
    ``ASSAY_ALERT_MEAN``, ``ASSAY_ALERT_RULE`` and ``ASSAY_ALERT_STATE`` in its environment.
    A command that fails, cannot start or outlives ``ALERT_COMMAND_TIMEOUT_S`` is logged
    (warning on the ``assay.watch`` logger), never raised.
    """

    def __init__(self, rules: Sequence[AlertRule], command: str | None = None, *,
                 timeout_s: float = ALERT_COMMAND_TIMEOUT_S) -> None:
        self.rules = list(rules)
        self.argv = shlex.split(command) if command else []
        if command is not None and not self.argv:
            raise ConfigError(f"Got {option('alert_command', command)}: it names no program. "
                              "Fix: give a program and its arguments, e.g. "
                              "'notify-send assay' or 'python page.py'.")
        self.timeout_s = timeout_s
        self._values: list[deque[float]] = [deque(maxlen=r.window) for r in self.rules]
        self._firing = [False] * len(self.rules)
        self._runner: ThreadPoolExecutor | None = None
        self._pending: list[Future[None]] = []

    def observe(self, record: Mapping[str, Any]) -> list[Alert]:
        """Add a scored record's values to the windows; the alerts it causes."""
        alerts = []
        for k, rule in enumerate(self.rules):
            value = result_value(record, rule.metric)
            if value is None:
                continue
            window = self._values[k]
            window.append(value)
            if len(window) < rule.needed:
                continue
            mean = sum(window) / len(window)
            if rule.holds(mean) != self._firing[k]:
                self._firing[k] = not self._firing[k]
                alerts.append(Alert(rule, mean, len(window),
                                    "firing" if self._firing[k] else "resolved"))
        for alert in alerts:
            self._call(alert)
        return alerts

    def prime(self, records: Iterable[Mapping[str, Any]]) -> None:
        """Fill the windows from records scored before (a restarted ``assay watch`` reading
        its run's latest rows), and take the state they give as the current one, silently: a
        rule already firing then is not announced again, and the first crossing after it is.

        Example:
            >>> watcher = AlertWatcher([parse_alert("coherence<3 over 2")])
            >>> watcher.prime([{"coherence": {"value": 1}}, {"coherence": {"value": 2}}])
            >>> watcher.firing(), watcher.observe({"coherence": {"value": 1}})
            ([AlertRule(metric='coherence', op='<', bar=3.0, window=2)], [])
        """
        for record in records:
            for k, rule in enumerate(self.rules):
                value = result_value(record, rule.metric)
                if value is not None:
                    self._values[k].append(value)
        for k, rule in enumerate(self.rules):
            window = self._values[k]
            self._firing[k] = len(window) >= rule.needed and rule.holds(sum(window) / len(window))

    def firing(self) -> list[AlertRule]:
        """The rules firing now."""
        return [r for r, on in zip(self.rules, self._firing, strict=True) if on]

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the commands started so far to end (at shutdown, and in tests)."""
        pending, self._pending = self._pending, []
        for job in pending:
            try:
                job.result(timeout=timeout)
            except Exception as e:  # noqa: BLE001 - _run logs its own failures
                log.warning("alert command did not finish: %s", e)

    def close(self) -> None:
        """Wait for the commands started so far, then release the thread that runs them."""
        self.wait()
        if self._runner is not None:
            self._runner.shutdown(wait=True)
            self._runner = None

    def _call(self, alert: Alert) -> None:
        if not self.argv:
            return
        if self._runner is None:
            self._runner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="assay-alert")
        self._pending = [j for j in self._pending if not j.done()]
        self._pending.append(self._runner.submit(self._run, alert))

    def _run(self, alert: Alert) -> None:
        env = {**os.environ, "ASSAY_ALERT_METRIC": alert.rule.metric,
               "ASSAY_ALERT_MEAN": repr(alert.mean), "ASSAY_ALERT_RULE": str(alert.rule),
               "ASSAY_ALERT_STATE": alert.state}
        name = self.argv[0]
        try:
            done = subprocess.run(self.argv, input=json.dumps(alert.as_dict()), text=True,
                                  env=env, capture_output=True, timeout=self.timeout_s,
                                  check=False)
        except subprocess.TimeoutExpired:
            log.warning("alert command %s was stopped after %g s (alert: %s)", name,
                        self.timeout_s, alert.line())
            return
        except OSError as e:
            log.warning("alert command %s could not start: %s (alert: %s)", name,
                        e.strerror or e, alert.line())
            return
        if done.returncode != 0:
            tail = (done.stderr or "").strip().splitlines()[-1:] or ["no message"]
            log.warning("alert command %s failed with exit code %d: %s (alert: %s)", name,
                        done.returncode, mask_secrets(tail[0][:300]), alert.line())
