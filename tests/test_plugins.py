"""Plugins through entry points: the example package of ``examples/plugin`` is made visible the
way an install makes it visible (a ``.dist-info`` with its ``entry_points.txt``, written from its
own pyproject.toml, and its ``src`` on ``sys.path``), then used through the CLI and the library.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli.main import app
from assay.data import READERS
from assay.errors import ConfigError
from assay.gate import check_comparison
from assay.judges import check_judge_spec, make_judge
from assay.metrics import REGISTRY, FieldMetric, MetricResult, get_metric, plan_metrics, register

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "plugin"
MODULE = "assay_answer_length"
ROWS = [
    {"id": "short", "question": "How much does the SkyView 2 weigh?",
     "answer": "It weighs 1.3 kg packed.", "ground_truth": "1.3 kg packed."},
    {"id": "long", "question": "Is the TrailMaster X4 good for winter?",
     "answer": " ".join(["very"] * 79) + " good.", "ground_truth": "No."},
]


def _dist_info(site: Path, name: str, version: str,
               groups: dict[str, dict[str, str]]) -> None:
    """What installing a distribution leaves for importlib.metadata: METADATA and its entry
    points, in ``site`` (a directory on sys.path)."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()) + "\n"
        for group, points in groups.items()))


def _forget_example() -> None:
    for name in [m for m in sys.modules if m == MODULE or m.startswith(MODULE + ".")]:
        del sys.modules[name]


@contextmanager
def example_plugin_installed(site: Path) -> Iterator[Path]:
    """The example plugin visible as an install makes it visible: its dist-info (written from
    its pyproject.toml) in ``site`` and its sources, both on sys.path; the registry forgets
    every plugin (metrics and readers) before and after (docs/plugins.md's commands run inside
    this too)."""
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["project"]
    _dist_info(site, project["name"], project["version"], project["entry-points"])
    with pytest.MonkeyPatch.context() as mp:
        mp.syspath_prepend(str(EXAMPLE / "src"))
        mp.syspath_prepend(str(site))
        _forget_example()
        REGISTRY.forget_plugins()
        READERS.forget_plugins()
        try:
            yield site
        finally:
            REGISTRY.forget_plugins()
            READERS.forget_plugins()
            _forget_example()


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory on sys.path holding the example plugin's dist-info; more can be added."""
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")
    with example_plugin_installed(tmp_path / "site") as site:
        yield site


def _data(tmp_path: Path) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def _run(tmp_path: Path, *args: str) -> tuple[int, str, Path]:
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", str(_data(tmp_path)), *args, "--no-cache",
                                      "--no-store", "--out", str(out)])
    return result.exit_code, result.output, out


def test_run_scores_with_the_plugin_metric_without_an_import_by_hand(site: Path,
                                                                      tmp_path: Path) -> None:
    code, output, out = _run(tmp_path, "--metrics", "answer_length,f1_score")
    assert code == 0, output
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["answer_length"]["value"] for r in records] == [1.0, 0.5]
    assert records[1]["answer_length"]["reason"] == "80 words (limit 40)"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["metrics"]["answer_length"]["mean"] == 0.75
    assert "answer_length" in output


def test_run_with_the_plugin_judge_prefix(site: Path, tmp_path: Path) -> None:
    code, output, out = _run(tmp_path, "--metrics", "fluency", "--judge", "constant:4")
    assert code == 0, output
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["fluency"]["value"] for r in records] == [4.0, 4.0]
    assert make_judge("constant:2").id == "constant:2"
    with pytest.raises(ConfigError, match="must be a whole number"):
        make_judge("constant:high")


#: A plugin's smallest metric: the protocol's required members only (no FieldMetric, no
#: ``uses_embedder``, ``family``, ``kind``, ``unavailable_reason``, ``check_rows``).
MINIMAL_PLUGIN = """
from assay.metrics import MetricResult, mean_aggregate


class ShortAnswer:
    name, version = "short_answer", "1"
    required = frozenset({"answer"})
    conversation = needs_citations = uses_judge = False
    higher_is_better = True
    value_range = (0.0, 1.0)

    def applies(self, row):
        return None if row.answer is not None else "row has no answer"

    async def score(self, row, ctx):
        return MetricResult(value=1.0 if len(row.answer.split()) <= 8 else 0.0)

    def aggregate(self, results):
        return mean_aggregate(results)
"""


def test_a_minimal_plugin_metric_runs_with_the_protocols_defaults(site: Path,
                                                                   tmp_path: Path) -> None:
    (site / "assay_short_answer.py").write_text(MINIMAL_PLUGIN)
    _dist_info(site, "assay-short-answer", "0.1", {"assay.metrics": {
        "short_answer": "assay_short_answer:ShortAnswer"}})
    try:
        code, output, out = _run(tmp_path, "--metrics", "short_answer,f1_score")
        assert code == 0, output
        records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
        assert [r["short_answer"]["value"] for r in records] == [1.0, 0.0]
        metric = get_metric("short_answer")
        assert not hasattr(type(metric), "uses_embedder")  # filled on the object when loaded
        assert (metric.uses_embedder, metric.family, metric.kind) == (False, None, None)
        listed = {m["name"]: m for m in json.loads(
            CliRunner().invoke(app, ["metrics", "--json"]).stdout)}
        assert listed["short_answer"]["kind"] == "computed"
    finally:
        sys.modules.pop("assay_short_answer", None)


def test_the_plugin_module_is_imported_only_when_its_metric_is_looked_up(site: Path) -> None:
    assert "answer_length" in REGISTRY  # the name is known from the entry point alone
    assert MODULE not in sys.modules
    assert get_metric("f1_score").name == "f1_score" and "answer_length" in list(REGISTRY)
    assert MODULE not in sys.modules
    metric = get_metric("answer_length")
    assert MODULE in sys.modules
    assert type(metric).__module__ == MODULE
    assert REGISTRY.source("answer_length") == "assay-answer-length 0.1.0"


def test_assay_metrics_json_lists_built_ins_and_the_plugin(site: Path) -> None:
    result = CliRunner().invoke(app, ["metrics", "--json"])
    assert result.exit_code == 0, result.output
    listed = {m["name"]: m for m in json.loads(result.stdout)}
    assert listed["answer_length"] == {
        "name": "answer_length", "source": "assay-answer-length 0.1.0", "kind": "lexical",
        "required": ["answer"], "range": [0.0, 1.0], "version": "1", "error": None}
    assert listed["f1_score"]["source"] == "built-in"
    assert listed["faithfulness"]["kind"] == "rag"
    assert set(REGISTRY) <= set(listed)
    table = CliRunner().invoke(app, ["metrics"])
    assert table.exit_code == 0
    line = next(x for x in table.stdout.splitlines() if "answer_length" in x).split()
    assert line == ["answer_length", "assay-answer-length", "0.1.0", "lexical", "answer", "0-1",
                    "1"]


def test_a_plugin_claiming_a_built_in_name_is_refused_naming_both(site: Path,
                                                                   tmp_path: Path) -> None:
    _dist_info(site, "assay-clash", "1.0", {"assay.metrics": {
        "f1_score": f"{MODULE}:AnswerLength"}})
    with pytest.raises(ConfigError) as exc:
        get_metric("f1_score")
    assert "built-in" in str(exc.value) and "assay-clash 1.0" in str(exc.value)
    code, output, _ = _run(tmp_path, "--metrics", "f1_score")
    assert code == 2
    assert "claimed by built-in and by assay-clash 1.0" in " ".join(output.split())
    assert "Traceback" not in output
    assert get_metric("answer_length").name == "answer_length"  # other plugins still work


def test_a_metric_file_claiming_a_plugin_name_is_refused_naming_the_plugin(
        site: Path, tmp_path: Path) -> None:
    rubric = tmp_path / "length.md"
    rubric.write_text("---\nname: answer_length\nscale: 1-5\n---\n{{ response }}\n")
    code, output, _ = _run(tmp_path, "--metric-file", str(rubric), "--judge", "fake")
    assert code == 2, output
    assert (f"{rubric}: metric 'answer_length' is claimed by assay-answer-length 0.1.0 and by "
            "this file: the file is refused") in " ".join(output.split())
    assert MODULE not in sys.modules  # the plugin's name alone is enough


def test_two_plugins_with_one_name_are_both_refused_naming_both(site: Path) -> None:
    _dist_info(site, "assay-other", "2.0", {"assay.metrics": {
        "answer_length": f"{MODULE}:AnswerLength"}})
    with pytest.raises(ConfigError) as exc:
        plan_metrics([], "answer_length")
    message = str(exc.value)
    assert "assay-answer-length 0.1.0" in message and "assay-other 2.0" in message
    assert MODULE not in sys.modules  # refused before anything is imported
    listed = {m["name"]: m for m in json.loads(
        CliRunner().invoke(app, ["metrics", "--json"]).stdout)}
    assert listed["answer_length"]["kind"] == "broken"
    assert "assay-other 2.0" in listed["answer_length"]["error"]


def test_a_judge_plugin_cannot_claim_a_built_in_prefix(site: Path) -> None:
    _dist_info(site, "assay-fake-openai", "0.2", {"assay.judges": {
        "openai": f"{MODULE}:constant_judge"}})
    with pytest.raises(ConfigError, match="claimed by built-in and by assay-fake-openai 0.2"):
        make_judge("openai:gpt-4o-mini")


def test_a_broken_plugin_is_a_clear_error_only_when_used_or_listed(site: Path,
                                                                    tmp_path: Path) -> None:
    _dist_info(site, "assay-broken", "0.3", {"assay.metrics": {
        "missing_module": "assay_no_such_module:Metric", "not_a_metric": "os:sep"}})
    assert get_metric("f1_score").name == "f1_score"  # nothing else is disturbed
    with pytest.raises(ConfigError) as exc:
        get_metric("missing_module")
    assert str(exc.value).startswith("Plugin 'missing_module' cannot be imported "
                                     "(ModuleNotFoundError: No module named "
                                     "'assay_no_such_module') (entry point missing_module = "
                                     "assay_no_such_module:Metric in group assay.metrics of "
                                     "assay-broken 0.3)")
    code, output, _ = _run(tmp_path, "--metrics", "not_a_metric")
    assert code == 2
    assert "Plugin 'not_a_metric' gives a str, not a metric" in " ".join(output.split())
    assert "Traceback" not in output
    result = CliRunner().invoke(app, ["metrics", "--json"])
    assert result.exit_code == 0
    listed = {m["name"]: m for m in json.loads(result.stdout)}
    assert listed["missing_module"]["source"] == "assay-broken 0.3"
    assert listed["missing_module"]["kind"] == "broken"
    assert listed["answer_length"]["error"] is None and listed["f1_score"]["kind"] == "lexical"


def _exiting_plugins(site: Path) -> None:
    """A distribution whose metric and judge modules call ``sys.exit(0)`` at import (SystemExit
    is no Exception: uncaught, it ends assay with exit 0), and a judge factory that calls
    ``sys.exit(1)`` when called."""
    (site / "assay_bye_import.py").write_text("import sys\nsys.exit(0)\n")
    (site / "assay_bye_factory.py").write_text(
        "import sys\n\ndef make(arg):\n    sys.exit(1)\n")
    _dist_info(site, "assay-bye", "0.5", {
        "assay.metrics": {"bye": "assay_bye_import:Metric"},
        "assay.judges": {"bye": "assay_bye_import:make", "byefactory": "assay_bye_factory:make"}})


def test_a_plugin_calling_sys_exit_at_import_is_named_and_skipped_when_listed(
        site: Path, caplog: pytest.LogCaptureFixture) -> None:
    _exiting_plugins(site)
    result = CliRunner().invoke(app, ["metrics", "--json"])
    assert result.exit_code == 0, result.output
    listed = {m["name"]: m for m in json.loads(result.stdout)}
    assert listed["bye"]["kind"] == "broken" and listed["bye"]["source"] == "assay-bye 0.5"
    assert listed["bye"]["error"].startswith(
        "Plugin 'bye' cannot be imported (it called sys.exit(0)) (entry point bye = "
        "assay_bye_import:Metric in group assay.metrics of assay-bye 0.5)")
    assert listed["answer_length"]["error"] is None and listed["f1_score"]["kind"] == "lexical"
    table = CliRunner().invoke(app, ["metrics"])
    assert table.exit_code == 0
    assert "answer_length" in table.stdout and "sys.exit(0)" in " ".join(table.output.split())
    REGISTRY.forget_plugins()
    with caplog.at_level(logging.WARNING, logger="assay"):  # every metric loaded (the gate)
        failures = check_comparison({"metrics": {"sexual": {"mean_a": 0.0, "mean_b": 2.0}}},
                                    max_drop={"sexual": 0.5})
    assert failures == ["sexual rose 2.0 (0.00 -> 2.00), more than 0.5 (lower is better)"]
    warned = [r.getMessage() for r in caplog.records if "'bye'" in r.getMessage()]
    assert len(warned) == 1 and "Skipped a metric plugin" in warned[0]
    assert "assay-bye 0.5" in warned[0] and "sys.exit(0)" in warned[0]


def test_a_plugin_calling_sys_exit_is_a_clear_error_when_it_is_named(site: Path,
                                                                     tmp_path: Path) -> None:
    _exiting_plugins(site)
    code, output, _ = _run(tmp_path, "--metrics", "bye")
    assert code == 2, output
    text = " ".join(output.split())
    assert "Plugin 'bye' cannot be imported (it called sys.exit(0))" in text
    assert "assay-bye 0.5" in text and "Traceback" not in output
    with pytest.raises(ConfigError, match=r"cannot be imported \(it called sys.exit\(0\)\)"):
        make_judge("bye:model")
    try:
        with pytest.raises(ConfigError, match=r"failed to build a judge for 'x' \(it called "
                                              r"sys.exit\(1\)\).*assay-bye 0.5"):
            make_judge("byefactory:x")
    finally:
        sys.modules.pop("assay_bye_factory", None)
    code, output, _ = _run(tmp_path, "--metrics", "coherence", "--judge", "bye:model")
    assert code == 2, output
    assert "entry point bye = assay_bye_import:make in group assay.judges" in " ".join(
        output.split())
    code, output, _ = _run(tmp_path, "--metrics", "f1_score")  # unnamed: never imported
    assert code == 0, output


def test_register_refuses_a_taken_name_unless_replacing_on_purpose(site: Path) -> None:
    class Shadow(FieldMetric):
        name = "answer_length"

        async def score(self, row: object, ctx: object) -> MetricResult:
            return MetricResult(value=1.0)

    with pytest.raises(ConfigError, match=r"already registered \(assay-answer-length 0.1.0\)"):
        register(Shadow())
    assert MODULE not in sys.modules
    shadow = register(Shadow(), replace=True)
    assert get_metric("answer_length") is shadow
    assert REGISTRY.source("answer_length") == f"registered by {__name__}"
    REGISTRY.forget_plugins()
    assert REGISTRY.source("answer_length") == f"registered by {__name__}"
    REGISTRY.unregister("answer_length")
    assert get_metric("answer_length").name == "answer_length"
    assert REGISTRY.source("answer_length") == "assay-answer-length 0.1.0"


def test_a_run_without_the_plugin_metric_does_not_import_it(site: Path, tmp_path: Path) -> None:
    code, output, _ = _run(tmp_path, "--metrics", "f1_score")
    assert code == 0, output
    assert MODULE not in sys.modules


def test_unregistering_a_code_metric_keeps_imported_plugins(site: Path) -> None:
    class Extra(FieldMetric):
        name = "extra_metric"

        async def score(self, row: object, ctx: object) -> MetricResult:
            return MetricResult(value=1.0)

    plugin_metric = get_metric("answer_length")
    register(Extra())
    REGISTRY.unregister("extra_metric")
    assert "extra_metric" not in REGISTRY
    assert get_metric("answer_length") is plugin_metric  # not refused as its own rival
    assert REGISTRY.refusal("answer_length") is None


def test_a_judge_prefix_is_checked_without_import_and_a_broken_one_names_its_dist(
        site: Path) -> None:
    _dist_info(site, "assay-ghost", "0.4", {"assay.judges": {
        "ghost": "assay_no_such_judge:make", "notcallable": "os:sep"}})
    check_judge_spec("constant:4")  # known from the entry point alone
    assert MODULE not in sys.modules
    with pytest.raises(ConfigError) as exc:
        make_judge("ghost:model-x")
    assert "assay-ghost 0.4" in str(exc.value) and "entry point ghost" in str(exc.value)
    with pytest.raises(ConfigError, match="gives a str, not a judge factory"):
        make_judge("notcallable")
    with pytest.raises(ConfigError, match=r"Must be one of: .*constant:\.\.\."):
        make_judge("nosuch:x")


_COUNT_SCANS = """
import importlib.metadata as metadata
scans = []
real = metadata.entry_points
metadata.entry_points = lambda **kw: (str(kw.get("group")).startswith("assay")
                                      and scans.append(kw["group"])) or real(**kw)
import assay, assay.cli.main
print(scans)
assay.get_metric("f1_score")
assay.get_metric("exact_match")
print(scans)
"""


def test_import_reads_no_entry_points_and_the_first_lookup_reads_them_once() -> None:
    done = subprocess.run([sys.executable, "-c", _COUNT_SCANS], capture_output=True,
                          text=True, timeout=120, check=True,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.stdout.splitlines() == ["[]", "['assay.metrics']"]
