"""Quality bars as JUnit XML, the test report GitHub (through a JUnit report action), GitLab
(``artifacts:reports:junit``) and Jenkins (the JUnit plugin) read.

One ``<testcase>`` per bar, named by the bar (``groundedness >= 4.0``, ``groundedness max drop
0.2``), in one ``<testsuite>`` named ``assay.<suite>`` (also each case's ``classname``):

- a passed bar is a plain test case, its message in ``<system-out>``;
- a failed bar has ``<failure message=...>``: the message, then the rows that weigh most
  against it (id, score, reason) in the body;
- an inconclusive bar (the rows cannot decide it yet) is ``<skipped message=...>``, with what
  would decide it. A failure would make Jenkins mark the build unstable and GitLab and GitHub
  list it with the regressions, though nothing was shown to be worse; an error would say the
  tool broke. Skipped is what all three show apart, with its message, as "not decided"; whether
  it stops the pipeline is the exit code's job (``--inconclusive``).

Every text is masked for credentials and freed of the characters XML 1.0 cannot hold.

Example:
    >>> from assay.gate import BarOutcome
    >>> xml = junit_xml([BarOutcome(name="f1_score", kind="fail_under", bar=0.5,
    ...                             verdict="pass", value=0.9, message="f1_score mean 0.9 is at "
    ...                             "or over the bar 0.5")], suite="qa")
    >>> print(xml.splitlines()[1])
    <testsuites name="assay" tests="1" failures="0" errors="0" skipped="0" time="0.000">
"""

from __future__ import annotations

import re
import socket
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from .._files import atomic_write
from ._bar_text import VERDICT_MARK, bar_label, figure, shown_text
from ._outcome import BarOutcome

__all__ = ["junit_xml", "write_junit"]

#: The longest reason a failure's body quotes per row.
REASON_CHARS = 300
# What XML 1.0 cannot hold: C0 controls but tab, newline and return; surrogates; U+FFFE/F.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def write_junit(outcomes: Sequence[BarOutcome], path: str | Path, *, suite: str) -> None:
    """Write :func:`junit_xml` to ``path`` (its folder made; whole or not at all).

    Raises:
        OutputError: the file could not be written (what, where and the fix in one line).

    Example:
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "ci" / "assay.xml"
        >>> write_junit([], path, suite="qa")
        >>> path.read_text().startswith("<?xml")
        True
    """
    with atomic_write(path, what="the JUnit report", mode="wb") as f:
        f.write((junit_xml(outcomes, suite=suite) + "\n").encode("utf-8"))


def junit_xml(outcomes: Sequence[BarOutcome], *, suite: str) -> str:
    """The JUnit XML document of ``outcomes`` (see the module's docstring for its shape).

    Example:
        >>> from assay.gate import BarOutcome, RowNote
        >>> fail = BarOutcome(name="groundedness", kind="fail_under", bar=4.0, verdict="fail",
        ...                   value=3.5, message="groundedness mean 3.5 is under the bar 4.0",
        ...                   worst=(RowNote(id="q7", shown="1", reason="not in the context"),))
        >>> print(junit_xml([fail], suite="qa"))  # doctest: +ELLIPSIS
        <?xml version="1.0" encoding="utf-8"?>
        <testsuites name="assay" tests="1" failures="1" errors="0" skipped="0" time="0.000">
          <testsuite name="assay.qa" tests="1" failures="1" errors="0" skipped="0" time="0.000" timestamp="..." hostname="...">
            <testcase classname="assay.qa" name="groundedness &gt;= 4.0" time="0.000">
              <failure message="groundedness mean 3.5 is under the bar 4.0" type="fail_under">FAIL groundedness &gt;= 4.0: groundedness mean 3.5 is under the bar 4.0
        value: 3.5
        rows that weigh most against the bar:
          q7: 1 (not in the context)</failure>
            </testcase>
          </testsuite>
        </testsuites>
    """
    name = f"assay.{_xml_text(shown_text(suite))}"
    counts = {"tests": str(len(outcomes)),
              "failures": str(sum(o.verdict == "fail" for o in outcomes)), "errors": "0",
              "skipped": str(sum(o.verdict == "inconclusive" for o in outcomes)),
              "time": "0.000"}
    root = ET.Element("testsuites", {"name": "assay", **counts})
    stamp = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "")
    testsuite = ET.SubElement(root, "testsuite", {"name": name, **counts, "timestamp": stamp,
                                                  "hostname": _xml_text(socket.gethostname())})
    for outcome in outcomes:
        case = ET.SubElement(testsuite, "testcase", {
            "classname": name, "name": _xml_text(bar_label(outcome)), "time": "0.000"})
        message = _xml_text(shown_text(outcome.message or VERDICT_MARK[outcome.verdict]))
        if outcome.verdict == "fail":
            failure = ET.SubElement(case, "failure", {"message": message, "type": outcome.kind})
            failure.text = _body(outcome)
        elif outcome.verdict == "inconclusive":
            decide = f" To decide: {shown_text(outcome.decide)}" if outcome.decide else ""
            skipped = ET.SubElement(case, "skipped", {
                "message": f"inconclusive: {message}{_xml_text(decide)}"})
            skipped.text = _body(outcome)
        else:
            ET.SubElement(case, "system-out").text = _body(outcome)
    ET.indent(root)
    return ('<?xml version="1.0" encoding="utf-8"?>\n'
            + ET.tostring(root, encoding="unicode"))


def _body(outcome: BarOutcome) -> str:
    """The text of a case: verdict, bar and message, the figure, what would decide it, and
    the rows that weigh most against the bar."""
    lines = [(f"{VERDICT_MARK[outcome.verdict]} {bar_label(outcome)}: "
              f"{shown_text(outcome.message)}"),
             f"{'difference' if outcome.kind == 'max_drop' else 'value'}: {figure(outcome)}"]
    if outcome.decide:
        lines.append(f"to decide: {shown_text(outcome.decide)}")
    if outcome.worst:
        lines.append("rows that weigh most against the bar:")
        for row in outcome.worst:
            reason = f" ({shown_text(row.reason, REASON_CHARS)})" if row.reason else ""
            lines.append(f"  {shown_text(row.id)}: {shown_text(row.shown)}{reason}")
    return _xml_text("\n".join(lines))


def _xml_text(text: str) -> str:
    """``text`` without the characters XML 1.0 cannot hold (each becomes U+FFFD)."""
    return _NOT_XML.sub("\ufffd", text)
