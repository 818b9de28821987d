"""Alert rules of ``assay watch``: the grammar, one alert per crossing (never one per row),
unscored results left out, and the alert command (JSON on stdin, environment, failures logged)."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

import pytest

from assay.errors import ConfigError
from assay.watch._alerts import Alert, AlertRule, AlertWatcher, parse_alert


def _row(i: int, value: float | None, metric: str = "groundedness") -> dict[str, Any]:
    return {"id": f"t{i}", metric: {"value": value, "reason": "r"}}


@pytest.mark.parametrize(("spec", "rule"), [
    ("groundedness<3.5 over 50", AlertRule("groundedness", "<", 3.5, 50)),
    ("relevance <= 3 over 20", AlertRule("relevance", "<=", 3.0, 20)),
    ("  toxicity_rate>0.1  ", AlertRule("toxicity_rate", ">", 0.1, 50)),
    ("coherence >= 4.25 over 1", AlertRule("coherence", ">=", 4.25, 1)),
])
def test_specs_parse_and_print_back(spec: str, rule: AlertRule) -> None:
    parsed = parse_alert(spec)
    assert parsed == rule
    assert parse_alert(str(parsed)) == parsed


@pytest.mark.parametrize(("spec", "says"), [
    ("", "it is empty"),
    ("groundedness 3.5", "no comparison"),
    ("groundedness =< 3", "no comparison of a metric with a number"),
    ("groundedness < high", "no comparison of a metric with a number"),
    ("groundedness < 3 over", "'over' needs a number"),
    ("groundedness < 3 over 0", "from 1 to 100,000, not '0'"),
    ("groundedness < 3 over 2.5", "not '2.5'"),
    ("< 3 over 5", "no comparison of a metric with a number"),
])
def test_bad_specs_say_what_is_wrong_and_show_a_good_one(spec: str, says: str) -> None:
    with pytest.raises(ConfigError) as failed:
        parse_alert(spec)
    message = str(failed.value)
    assert says in message
    assert repr(spec) in message and "'groundedness<3.5 over 50'" in message
    assert "--" not in message  # a library error names the option, not a CLI flag


def test_one_alert_per_crossing_not_per_row() -> None:
    watcher = AlertWatcher([parse_alert("groundedness<3.5 over 10")])
    states = []
    for i in range(40):  # 10 good rows, 20 bad rows, 10 good rows
        value = 2.0 if 10 <= i < 30 else 5.0
        states += [(i, a.state) for a in watcher.observe(_row(i, value))]
    # the mean of the last 10 drops below 3.5 at the 6th bad row (4 x 5 + 6 x 2 = 3.2; with 5
    # bad rows it is 3.5, not below), and is no longer below it at the 5th good row (3.5)
    assert states == [(15, "firing"), (34, "resolved")]
    assert watcher.firing() == []


def test_no_alert_before_the_window_holds_enough_values() -> None:
    watcher = AlertWatcher([parse_alert("groundedness<3.5 over 50")])
    early = [watcher.observe(_row(i, 1.0)) for i in range(9)]
    assert early == [[]] * 9  # min(50, 10) = 10 values are needed
    [alert] = watcher.observe(_row(9, 1.0))
    assert (alert.state, alert.n, alert.mean) == ("firing", 10, 1.0)


def test_unscored_results_do_not_count_and_are_not_invented() -> None:
    watcher = AlertWatcher([parse_alert("groundedness<3.5 over 3")])
    rows: list[dict[str, Any]] = [_row(0, 1.0), _row(1, None), {"id": "t2", "groundedness": {"error": "judge down"}},
            {"id": "t3"}, _row(4, float("nan")), {"id": "t5", "groundedness": {"value": True}},
            _row(6, 1.0, metric="relevance"), _row(7, 2.0)]
    assert [watcher.observe(r) for r in rows] == [[]] * 8
    [alert] = watcher.observe(_row(8, 3.0))  # 1.0, 2.0 (from rows 0 and 7) were held before
    assert (alert.n, alert.mean) == (3, 2.0)


def test_each_rule_has_its_own_window() -> None:
    watcher = AlertWatcher([parse_alert("groundedness<3 over 1"),
                            parse_alert("relevance>=4 over 1")])
    alerts = watcher.observe({"id": "a", "groundedness": {"value": 2}, "relevance": {"value": 5}})
    assert [(a.rule.metric, a.state) for a in alerts] == [("groundedness", "firing"),
                                                          ("relevance", "firing")]
    assert watcher.firing() == watcher.rules


def test_the_alert_as_a_line_and_a_dict() -> None:
    alert = Alert(parse_alert("groundedness<3.5 over 50"), 3.1234, 50, "firing",
                  at="2026-11-28T07:00:00+00:00")
    assert alert.line() == "ALERT groundedness mean 3.12 over the last 50 rows < 3.5 (firing)"
    assert alert.as_dict() == {
        "at": "2026-11-28T07:00:00+00:00", "rule": "groundedness<3.5 over 50",
        "metric": "groundedness", "mean": 3.1234, "n": 50, "bar": 3.5, "state": "firing",
        "message": alert.line()}
    back = Alert(alert.rule, 3.61, 50, "resolved")
    assert back.line() == ("RESOLVED groundedness mean 3.61 over the last 50 rows, "
                           "no longer < 3.5 (resolved)")
    assert json.loads(json.dumps(back.as_dict()))["state"] == "resolved"


def test_the_command_gets_the_alert_on_stdin_and_in_its_environment(tmp_path: Path) -> None:
    out = tmp_path / "got.json"
    script = tmp_path / "hook.py"
    script.write_text(
        "import json, os, sys\n"
        "alert = json.load(sys.stdin)\n"
        "env = {k: v for k, v in os.environ.items() if k.startswith('ASSAY_ALERT_')}\n"
        f"open({str(out)!r}, 'a').write(json.dumps([alert, env]) + '\\n')\n")
    watcher = AlertWatcher([parse_alert("groundedness<3.5 over 1")],
                           command=f"{sys.executable} '{script}'")
    watcher.observe(_row(0, 2.0))
    watcher.observe(_row(1, 4.0))
    watcher.close()
    got = [json.loads(line) for line in out.read_text().splitlines()]
    assert [a["state"] for a, _ in got] == ["firing", "resolved"]
    alert, env = got[0]
    assert alert["rule"] == "groundedness<3.5 over 1" and alert["mean"] == 2.0
    assert env == {"ASSAY_ALERT_METRIC": "groundedness", "ASSAY_ALERT_MEAN": "2.0",
                   "ASSAY_ALERT_RULE": "groundedness<3.5 over 1", "ASSAY_ALERT_STATE": "firing"}


@pytest.mark.parametrize(("command", "logged"), [
    (f"{sys.executable} -c 'import sys; sys.exit(\"pager down, key sk-abcdefghijklmnop1234\")'",
     "failed with exit code 1: pager down"),
    ("/nonexistent/assay-pager", "could not start"),
    (f"{sys.executable} -c 'import time; time.sleep(30)'", "was stopped after 0.5 s"),
])
def test_a_failing_command_is_logged_never_raised(command: str, logged: str,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    watcher = AlertWatcher([parse_alert("groundedness<3.5 over 1")], command=command,
                           timeout_s=0.5)
    with caplog.at_level(logging.WARNING, logger="assay.watch"):
        [alert] = watcher.observe(_row(0, 1.0))
        watcher.close()
    assert alert.state == "firing"
    text = caplog.text
    assert logged in text and "ALERT groundedness" in text
    assert "sk-abcdefghijklmnop1234" not in text


def test_an_empty_command_is_refused() -> None:
    with pytest.raises(ConfigError, match="names no program"):
        AlertWatcher([], command="   ")


def test_priming_from_stored_rows_does_not_announce_a_firing_rule_again() -> None:
    rule = parse_alert("groundedness<3.5 over 3")
    watcher = AlertWatcher([rule])
    watcher.prime([_row(i, 1.0) for i in range(5)])
    assert watcher.firing() == [rule]
    assert watcher.observe(_row(5, 1.0)) == []
    [back] = [a for i in range(6, 9) for a in watcher.observe(_row(i, 5.0))]
    assert back.state == "resolved"
    fresh = AlertWatcher([rule])
    fresh.prime([_row(0, 1.0)])  # fewer values than a judgement needs: not firing
    assert fresh.firing() == []
