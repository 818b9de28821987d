"""The pytest plugin (``assay.pytest_plugin``): real pytest sessions (pytester) on test files
that use the ``assay_eval`` fixture with a scripted judge: bars that pass and fail, the failure
message (value, bar, worst rows with reasons), the terminal summary, ``-k``, ``-x``, ``--lf``,
the session's judge and store, a target answering a test set, bad input, and that the plugin
is declared as an entry point and imports cheaply."""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import assay.compare

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]

#: A test module for the inner sessions: a judge that rates groundedness from the answer
#: (Lyon 1, Marseille 2, anything else 5, each with its reason), a good and a bad test.
SCRIPTED = '''
import pytest
from assay import FakeJudge

def rate(request):
    text = request.messages[-1]["content"]
    if "Lyon" in text:
        return '{"score": 1, "reason": "Lyon is not what the context says"}'
    if "Marseille" in text:
        return '{"score": 2, "reason": "Marseille is not the capital"}'
    return '{"score": 5, "reason": "supported by the context"}'

JUDGE = FakeJudge(rate, id="scripted")

def row(i, answer):
    return {"id": f"q{i}", "question": "What is the capital of France?",
            "context": "Paris is the capital of France.", "answer": answer}

GOOD = [row(1, "Paris."), row(4, "Paris, on the Seine.")]
BAD = [row(1, "Paris."), row(2, "Lyon."), row(3, "Marseille."), row(4, "Paris, on the Seine.")]
'''

TESTS = SCRIPTED + '''
def test_good(assay_eval):
    result = assay_eval(GOOD, metrics="groundedness", judge=JUDGE,
                        fail_under={"groundedness": 4.0}, cache=False)
    assert result.summary["metrics"]["groundedness"]["mean"] == 5.0

def test_bad(assay_eval):
    assay_eval(BAD, metrics="groundedness", judge=JUDGE, fail_under={"groundedness": 4.0},
               cache=False)
'''


@pytest.fixture
def run_session(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    """``run_session(*args)``: pytest run in-process on the files made with ``pytester``, the
    plugin loaded by name (entry points off: the checkout's plugin, whatever is installed)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("ASSAY_JUDGE", raising=False)

    def run(*args: str) -> pytest.RunResult:
        return pytester.runpytest("-p", "assay.pytest_plugin", *args)

    return run


def test_a_passing_and_a_failing_bar(pytester: pytest.Pytester, run_session) -> None:
    pytester.makepyfile(test_bot=TESTS)
    result = run_session()
    result.assert_outcomes(passed=1, failed=1)
    text = result.stdout.str()
    # the failure: the figure, the bar, the (at most three) rows under it with the judge's
    # reasons, worst first; a row that meets the bar is not one to look at
    failure = text[text.index("test_bad"):]
    assert "assay: test_bot.py::test_bad failed 1 of 1 bar on 4 rows" in failure
    assert "FAIL groundedness mean 3.25 is under the bar 4.0" in failure
    assert "q2: 1 - Lyon is not what the context says" in failure
    assert "q3: 2 - Marseille is not the capital" in failure
    assert failure.index("q2: 1") < failure.index("q3: 2") and "q1: 5" not in failure
    assert "Traceback" not in text and "def test_bad" not in failure  # pytest.fail, no trace
    # the terminal summary lists both evaluations with their verdicts and folders
    summary = text[text.index("assay: 2 evaluations"):]
    assert "PASS test_bot.py::test_good: 2 rows; groundedness pass (5, fail_under 4.0); out " \
        in summary
    assert "FAIL test_bot.py::test_bad: 4 rows; groundedness fail (3.25, fail_under 4.0); out " \
        in summary
    out = Path(summary.split("test_bad: ")[1].split("; out ")[1].split()[0])
    assert json.loads((out / "summary.json").read_text())["rows"] == 4
    assert len((out / "results.jsonl").read_text().splitlines()) == 4


def test_k_selects_and_x_stops(pytester: pytest.Pytester, run_session) -> None:
    pytester.makepyfile(test_bot=TESTS + '''
def test_bad_again(assay_eval):
    assay_eval(BAD, metrics="groundedness", judge=JUDGE, fail_under="groundedness=4.5",
               cache=False)
''')
    selected = run_session("-k", "good")
    selected.assert_outcomes(passed=1, deselected=2)
    assert "assay: 1 evaluation" in selected.stdout.str()
    assert "test_bad" not in selected.stdout.str().split("assay: 1 evaluation")[1]

    stopped = run_session("-x")
    stopped.assert_outcomes(passed=1, failed=1)
    tail = stopped.stdout.str().split("assay: 2 evaluations")[1]
    assert "test_bad:" in tail and "test_bad_again" not in tail


def test_lf_reruns_the_failed_evaluation_only(pytester: pytest.Pytester, run_session) -> None:
    pytester.makepyfile(test_bot=TESTS)
    run_session().assert_outcomes(passed=1, failed=1)
    rerun = run_session("--lf")
    rerun.assert_outcomes(failed=1)
    assert "rerun previous 1 failure" in rerun.stdout.str()
    tail = rerun.stdout.str().split("assay: 1 evaluation")[1]
    assert "FAIL test_bot.py::test_bad" in tail and "test_good" not in tail


def test_the_sessions_judge_store_and_folder(pytester: pytest.Pytester, run_session,
                                              tmp_path: Path) -> None:
    """``--assay-judge`` is the judge of an evaluation that names none; ``--assay-store``
    records each evaluation (its run id in the summary line); ``--assay-out`` keeps the
    folders there, one per test and name; a JUnit report carries the evaluation."""
    pytester.makepyfile(test_spec='''
def test_default_judge(assay_eval):
    result = assay_eval([{"id": "r1", "answer": "Paris is lovely."}], metrics="fluency",
                        name="fluent", fail_under={"fluency": 4}, cache=False)
    assert result.summary["judge"]["id"] == "fake"
''')
    store, out = tmp_path / "runs.sqlite", tmp_path / "kept"
    result = run_session("--assay-judge", "fake", "--assay-store", str(store),
                         "--assay-out", str(out), f"--junitxml={tmp_path / 'junit.xml'}")
    result.assert_outcomes(passed=1)
    line = result.stdout.str().split("assay: 1 evaluation")[1]
    assert "PASS test_spec.py::test_default_judge [fluent]: 1 row; fluency pass (5" in line
    folder = out / "test_spec.py_test_default_judge-fluent"
    assert f"out {folder}" in line and (folder / "summary.json").exists()
    from assay.store import open_store
    with open_store(str(store)) as opened:
        [run] = opened.runs()
        assert f"run {run.id}" in line
        assert run.name == "fluent" and "pytest" in run.tags
    assert '<property name="assay"' in (tmp_path / "junit.xml").read_text()


def test_the_judge_from_the_environment(pytester: pytest.Pytester, run_session,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_env='''
def test_env_judge(assay_eval):
    result = assay_eval([{"answer": "Fine."}], metrics="fluency", cache=False)
    assert result.summary["judge"]["id"] == "fake:env"
''')
    monkeypatch.setenv("ASSAY_JUDGE", "fake:env")
    run_session().assert_outcomes(passed=1)


def test_a_target_answers_the_test_set(pytester: pytest.Pytester, run_session) -> None:
    """``target=`` a Python function: it answers each question, then the answers are scored;
    an app that fails on the rows fails the test, saying so."""
    pytester.makepyfile(test_app='''
QUESTIONS = [{"id": "q1", "question": "Capital of France?", "ground_truth": "Paris"},
             {"id": "q2", "question": "Capital of Italy?", "ground_truth": "Rome"}]

def app(messages):
    return "Paris" if "France" in messages[-1]["content"] else "Rome"

def broken(messages):
    raise RuntimeError("the index is down")

def test_app(assay_eval):
    result = assay_eval(QUESTIONS, metrics="f1_score", target=app,
                        fail_under={"f1_score": 1.0})
    assert [r["agent"]["answer"] for r in result.rows] == ["Paris", "Rome"]

def test_broken_app(assay_eval):
    assay_eval(QUESTIONS, metrics="f1_score", target=broken, max_attempts=1)
''')
    result = run_session()
    result.assert_outcomes(passed=1, failed=1)
    text = result.stdout.str()
    assert "target failed: python:test_app:broken could not answer 2 of 2 rows" in text
    assert "FAIL test_app.py::test_broken_app: 2 rows; no bars; target failed" in text
    assert "judge failed" not in text  # the app failed, not the judge


def test_a_failed_judge_fails_the_test_whatever_the_bars(pytester: pytest.Pytester,
                                                         run_session) -> None:
    """A judge whose answers cannot be read leaves every row unscored: the test fails with
    the cause (as ``assay run`` exits 3), even with no bar and with a bar on another metric."""
    pytester.makepyfile(test_judge='''
from assay import FakeJudge

def test_unreadable(assay_eval):
    assay_eval([{"id": "r1", "answer": "Fine.", "ground_truth": "Fine."},
                {"id": "r2", "answer": "Good.", "ground_truth": "Good."}],
               metrics="fluency,f1_score", judge=FakeJudge("I would rate it highly."),
               fail_under={"f1_score": 0.5}, cache=False)
''')
    result = run_session()
    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    assert "judge failed: fluency lost 2 of 2 rows to failed judge calls or unreadable " \
           "answers (over max_failed_share=0.05): 2 x " in text
    assert "pass f1_score mean 1.0 is at or over the bar 0.5" in text
    assert "FAIL test_judge.py::test_unreadable: 2 rows; f1_score pass (1, fail_under 0.5); " \
           "judge failed" in text


def test_bad_input_fails_the_test_with_a_clear_message(pytester: pytest.Pytester,
                                                       run_session) -> None:
    """A misspelt bar, an unknown option, a missing file and half a baseline each fail their
    test with what was wrong and the fix, before any judge call, without a traceback."""
    pytester.makepyfile(test_bad_input=SCRIPTED + '''
def test_misspelt_bar(assay_eval):
    assay_eval(GOOD, metrics="groundedness", judge=JUDGE, fail_under={"groundednes": 4})

def test_unknown_option(assay_eval):
    assay_eval(GOOD, metrics="groundedness", judge=JUDGE, concurency=4)

def test_missing_file(assay_eval):
    assay_eval("no/such/file.jsonl", metrics="groundedness", judge=JUDGE)

def test_not_a_number(assay_eval):
    assay_eval(GOOD, metrics="groundedness", judge=JUDGE, fail_under="groundedness=high")

def test_max_drop_without_baseline(assay_eval):
    assay_eval(GOOD, metrics="groundedness", judge=JUDGE, max_drop={"groundedness": 0.2})
''')
    result = run_session()
    result.assert_outcomes(failed=5)
    text = result.stdout.str()
    assert "no metric 'groundednes' (did you mean groundedness" in text
    assert "assay_eval() got unknown option concurency. Fix:" in text
    assert "no/such/file.jsonl" in text
    assert "fail_under='groundedness=high': 'high' is not a number" in text
    assert "Got max_drop without baseline" in text
    assert "Traceback" not in text and "During handling" not in text
    assert "assay: 5 evaluations" in text and "ERROR test_bad_input.py::test_misspelt_bar" in text


@pytest.mark.skipif(not hasattr(assay.compare, "decide_drops"),
                    reason="assay.compare.decide_drops (issue 46, part 1) is not merged yet")
def test_a_baseline_and_max_drop(pytester: pytest.Pytester, run_session) -> None:
    """The candidate is decided against the baseline on the paired difference: the same
    answers pass the bar; answers that got worse on most rows fail it, with the rows."""
    pytester.makepyfile(test_drop=SCRIPTED + '''
MANY_GOOD = [row(i, "Paris.") for i in range(40)]
MANY_BAD = [row(i, "Lyon." if i % 10 < 6 else "Paris.") for i in range(40)]

def test_same(assay_eval):
    base = assay_eval(MANY_GOOD, metrics="groundedness", judge=JUDGE, name="base", cache=False)
    assay_eval(MANY_GOOD, metrics="groundedness", judge=JUDGE, baseline=base,
               max_drop={"groundedness": 0.5}, cache=False)

def test_worse(assay_eval):
    base = assay_eval(MANY_GOOD, metrics="groundedness", judge=JUDGE, name="base", cache=False)
    assay_eval(MANY_BAD, metrics="groundedness", judge=JUDGE, baseline=base,
               max_drop={"groundedness": 0.5}, cache=False)
''')
    result = run_session()
    result.assert_outcomes(passed=1, failed=1)
    text = result.stdout.str()
    assert "FAIL groundedness" in text and "Lyon is not what the context says" in text
    assert "groundedness fail (" in text.split("assay: 4 evaluations")[1]


@pytest.mark.skipif(hasattr(assay.compare, "decide_drops"),
                    reason="assay.compare.decide_drops exists: the baseline is decided")
def test_a_baseline_without_decide_drops_says_so(pytester: pytest.Pytester,
                                                 run_session) -> None:
    pytester.makepyfile(test_drop=SCRIPTED + '''
def test_drop(assay_eval):
    assay_eval(GOOD, metrics="groundedness", judge=JUDGE, baseline="runs/main",
               max_drop={"groundedness": 0.2})
''')
    result = run_session()
    result.assert_outcomes(failed=1)
    assert "baseline and max_drop are not available in this version of assay" in \
        result.stdout.str()


def test_an_undecided_bar_fails_passes_or_skips_as_asked(pytester: pytest.Pytester,
                                                          run_session) -> None:
    """The plugin's side of a baseline: the comparison it hands to ``decide_drops`` (a
    stand-in here, recording what it got), and what an inconclusive verdict does to the test:
    fails it by default with what would decide it, passes it, or skips it."""
    pytester.makepyfile(test_undecided=SCRIPTED + '''
import pytest
import assay.compare
from assay.gate import BarOutcome, RowNote

@pytest.fixture(autouse=True)
def stand_in(monkeypatch):
    def decide_drops(comparison, max_drop, *, confidence=0.95, lower_is_better=None):
        m = comparison["metrics"]["groundedness"]
        assert (m["paired"], m["mean_a"], m["mean_b"], confidence) == (4, 5.0, 3.25, 0.9)
        return [BarOutcome(name="groundedness", kind="max_drop", bar=max_drop["groundedness"],
                           verdict="inconclusive", value=m["diff"], interval=tuple(m["ci95"]),
                           message=f"groundedness: diff {m['diff']}, undecided",
                           decide="about 40 more shared rows",
                           worst=(RowNote(id="q2", shown="5 -> 1", reason="Lyon"),))]
    monkeypatch.setattr(assay.compare, "decide_drops", decide_drops, raising=False)

@pytest.mark.parametrize("inconclusive", ["fail", "pass", "skip"])
def test_drop(assay_eval, inconclusive):
    base = assay_eval([row(i, "Paris.") for i in (1, 2, 3, 4)], metrics="groundedness",
                      judge=JUDGE, name="base", cache=False)
    assay_eval(BAD, metrics="groundedness", judge=JUDGE, baseline=base, confidence=0.9,
               max_drop={"groundedness": 0.5}, inconclusive=inconclusive, cache=False)
''')
    result = run_session("-rs")
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    text = result.stdout.str()
    assert "left 1 undecided of 1 bar on 4 rows" in text
    assert "UNDECIDED groundedness: diff -1.75, undecided" in text
    assert "to decide: about 40 more shared rows" in text and "q2: 5 -> 1 - Lyon" in text
    assert text.count("INCONCLUSIVE test_undecided.py::test_drop[") == 3
    assert "Traceback" not in text and "During handling" not in text


def test_xdist_workers_evaluations_reach_the_summary(pytester: pytest.Pytester,
                                                     run_session) -> None:
    """With pytest-xdist, each evaluation runs in a worker and comes back with its test's
    report: the controller's summary lists them all."""
    pytest.importorskip("xdist")
    pytester.makepyfile(test_bot=TESTS)
    result = run_session("-p", "xdist.plugin", "-n", "2")
    result.assert_outcomes(passed=1, failed=1)
    tail = result.stdout.str().split("assay: 2 evaluations")[1]
    assert "PASS test_bot.py::test_good: 2 rows" in tail
    assert "FAIL test_bot.py::test_bad: 4 rows" in tail


def test_the_entry_point_is_declared() -> None:
    """pyproject declares the plugin in ``pytest11`` (pytest loads it in every session of an
    install); an installed assay that declares it names this module."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["pytest11"] == {"assay": "assay.pytest_plugin"}
    plugin = importlib.import_module("assay.pytest_plugin")
    assert callable(plugin.pytest_addoption) and hasattr(plugin, "assay_eval")
    installed = {ep.name: ep.value
                 for ep in importlib.metadata.entry_points(group="pytest11")
                 if ep.dist is not None and ep.dist.name == "assay"}
    if not installed:
        pytest.skip("the installed assay predates the plugin: pip install -e . declares it")
    assert installed == {"assay": "assay.pytest_plugin"}


def test_importing_the_plugin_loads_no_runner() -> None:
    """pytest imports the plugin in every session: only the plugin, assay's facade, its
    errors and pytest are loaded, not the runner, metrics, store or numpy."""
    probe = ("import sys, json, assay.pytest_plugin\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.startswith('assay')"
             " or m.split('.')[0] in ('numpy', 'sqlalchemy', 'openai', 'httpx'))))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])])}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env=env, timeout=60, check=True)
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert loaded <= {"assay", "assay.errors", "assay._secrets", "assay._version",
                      "assay._url_userinfo", "assay.pytest_plugin",
                      "assay.pytest_plugin._settings"}, loaded
