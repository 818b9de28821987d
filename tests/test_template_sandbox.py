"""``--metric-file`` templates in the bounded sandbox (issue 32): a template the sandbox refuses,
or that passes a bound whatever the row, is refused before the first row (exit 2, file, line and
expression); a row on which it passes a bound or fails is unscored (marked unreadable) and
counts against ``--max-failed-share``, never a hang or a traceback per row.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import test_unreadable_answers
from test_unreadable_answers import AnswerServer, _data, _run

judge = test_unreadable_answers.judge  # the same fixture: the scripted judge server


def _metric_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "tone.md"
    path.write_text(f"---\nname: tone\nscale: 1-5\n---\n{body}\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("body", "named"), [
    ("<a>{{ response }}</a>\n{{ ''.__class__.__mro__ }}", ["line 2", "'__class__'", "'__mro__'"]),
    ("{{ response|attr('__globals__') }}", ["line 1", "'__globals__'"]),
    ("{{ response }}{% if response == 'x' %}{{ cycler.__init__() }}{% endif %}",
     ["line 1", "'__init__'"]),
    ("{{ response }}\n{% for i in range(10**9) %}x{% endfor %}", ["line 2", "1000000000"]),
    ("{{ response }}{{ 'x' * 10**9 }}", ["line 1", "characters"]),
])
def test_a_template_the_sandbox_refuses_is_refused_before_the_first_row(
        judge: AnswerServer, tmp_path: Path, body: str, named: list[str]) -> None:
    data = _data(tmp_path / "d.jsonl", ["A 1.", "A 2."])
    metric = _metric_file(tmp_path, body)
    code, output, _ = _run(data, tmp_path / "out", "--metric-file", str(metric))
    assert code == 2, output
    assert output.startswith("error:") and str(metric) in output
    for piece in named:
        assert piece in output, (piece, output)
    assert output.count("error:") == 1  # one message, not one per row
    assert judge.requests == 0
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_a_row_whose_template_passes_a_bound_is_unscored_never_a_hang(
        tmp_path: Path) -> None:
    """Nested loops over the answer's characters: a few steps on a short answer, 300**4 on a
    long one (hours, unbounded). In a subprocess with a timeout, so that a hang fails."""
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": "long", "question": "Q?", "answer": "x" * 300}) + "\n"
                    + json.dumps({"id": "short", "question": "Q?", "answer": "ok"}) + "\n")
    loops = "".join(f"{{% for c{i} in response %}}" for i in range(4)) + "{% endfor %}" * 4
    metric = _metric_file(tmp_path, loops + "{{ response }}")
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "assay.cli", "run", str(data), "--metric-file", str(metric),
         "--judge", "fake", "--out", str(out), "--no-store", "--no-cache", "--quiet",
         "--max-failed-share", "1"],
        capture_output=True, text=True, timeout=60, check=False, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    records = {r["id"]: r["tone"] for r in map(json.loads, (out / "results.jsonl").open())}
    assert records["short"]["value"] == 5.0
    long = records["long"]
    assert long["value"] is None and long["details"]["unreadable"] == "template"
    assert long["error"].startswith("the template could not render: template line 1: more "
                                    "than 1,000,000 loop steps")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["failures"]["by_metric"]["tone"]["unreadable"] == 1


def test_a_template_that_fails_on_every_row_exits_3_without_a_traceback(
        judge: AnswerServer, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    data = _data(tmp_path / "d.jsonl", ["A 1.", "A 2.", "A 3."])
    metric = _metric_file(tmp_path, "{{ response.no_such_attribute }}")
    code, output, summary = _run(data, tmp_path / "out", "--metric-file", str(metric))
    assert code == 3, output
    assert "tone: 3 of 3 rows" in output and "the template could not render" in output
    assert summary["metrics"]["tone"]["unreadable"] == 3
    assert judge.requests == 0
    assert "internal error" not in output
    assert not [r for r in caplog.records if r.exc_info]  # no traceback logged per row
