"""assay's pytest plugin: the ``assay_eval`` fixture, and a terminal summary of every evaluation
the test session ran.

pytest loads it in every session once assay is installed (entry point group ``pytest11``, name
``assay``), so importing it costs almost nothing: the runner, the metrics and the store are
imported the first time a test calls ``assay_eval``. See docs/pytest.md.

.. code-block:: python

    def test_answers_stay_grounded(assay_eval):
        assay_eval("tests/qa.jsonl", metrics="groundedness,relevance",
                   fail_under={"groundedness": 4.0})

Options (command line, then environment, then ``[tool.pytest.ini_options]``):

- ``--assay-judge SPEC`` / ``ASSAY_JUDGE`` / ``assay_judge``: the judge of every evaluation
  that names none (default ``local``, the embedded offline judge);
- ``--assay-store PATH_OR_URL`` / ``ASSAY_STORE`` / ``assay_store``: record each evaluation in
  that run store (none configured: nothing is stored);
- ``--assay-out DIR`` / ``assay_out``: keep each evaluation's folder (``results.jsonl``,
  ``summary.json``) under DIR, one folder per test (default: under pytest's temporary
  directory, which keeps the last three sessions).

Example:
    >>> settings = PluginSettings(judge="fake", store=None, out=None)
    >>> settings.judge
    'fake'
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ._settings import PluginSettings

if TYPE_CHECKING:
    from ._evaluate import AssayEval

__all__ = ["EvaluationTally", "PluginSettings", "assay_eval", "pytest_addoption",
           "pytest_configure"]

#: The ``user_properties`` key an evaluation's record travels under (to the terminal summary,
#: through pytest-xdist, and into ``--junitxml`` as a property).
PROPERTY = "assay"
_OPTIONS = (("judge", ("the judge of every assay_eval that names none: local (default), "
                      "openai:MODEL, openai:MODEL@URL, azure:DEPLOYMENT, ... "
                      "(env ASSAY_JUDGE)")),
            ("store", ("record every assay_eval in this run store, a path or postgresql:// URL "
                      "(env ASSAY_STORE; default: none)")),
            ("out", ("keep each assay_eval's results.jsonl and summary.json under this folder, "
                    "one per test (default: pytest's temporary directory)")))


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--assay-judge``, ``--assay-store``, ``--assay-out`` and their ini keys."""
    group = parser.getgroup("assay", "assay evaluations (the assay_eval fixture)")
    for name, help_text in _OPTIONS:
        group.addoption(f"--assay-{name}", dest=f"assay_{name}", default=None, help=help_text)
        parser.addini(f"assay_{name}", help=help_text, default="")


def pytest_configure(config: pytest.Config) -> None:
    """Start the session's tally of evaluations (what the terminal summary lists)."""
    config.pluginmanager.register(EvaluationTally(), "assay-evaluations")


class EvaluationTally:
    """Every evaluation of the session, read from the tests' reports (so those that ran in a
    pytest-xdist worker are listed too), and the terminal summary that lists them."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self._seen: dict[str, int] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep the evaluations a test added since its previous report."""
        mine = [value for key, value in report.user_properties if key == PROPERTY]
        seen = self._seen.get(report.nodeid, 0)
        self.entries += [json.loads(str(value)) for value in mine[seen:]]
        self._seen[report.nodeid] = max(seen, len(mine))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """One line per evaluation: verdict, test, rows, each bar, run id and folder."""
        if not self.entries:
            return
        from ._report import summary_line
        n = len(self.entries)
        terminalreporter.write_sep("=", f"assay: {n} evaluation{'s' if n != 1 else ''}")
        for entry in self.entries:
            verdict = entry.get("verdict")
            terminalreporter.write_line(summary_line(entry), green=verdict == "pass",
                                        red=verdict in ("fail", "error"),
                                        yellow=verdict == "inconclusive")


@pytest.fixture
def assay_eval(request: pytest.FixtureRequest,
               tmp_path_factory: pytest.TempPathFactory) -> AssayEval:
    """Evaluate inside a test: ``assay_eval(data, *, metrics="auto", judge=None,
    fail_under=None, fail_over=None, baseline=None, max_drop=None, name=None, target=None,
    **options)`` returns the :class:`~assay.EvalResult` and fails the test, with every bar,
    its figure and its worst rows, when a bar fails (see :class:`AssayEval`)."""
    from ._evaluate import AssayEval

    settings = PluginSettings.of(request.config)
    node = request.node

    def out_root() -> Path:
        return Path(settings.out) if settings.out else tmp_path_factory.getbasetemp() / "assay"

    def record(entry: dict[str, Any]) -> None:
        node.user_properties.append((PROPERTY, json.dumps(entry)))

    return AssayEval(nodeid=node.nodeid, settings=settings, out_root=out_root, record=record)
