"""The scoring settings: one declaration each (the core ones in ``assay.metrics``, a family's by
the family), one typed object that a run builds once from ``ScoringOptions`` and that every
ScoreContext carries, so each setting has one default and one check; and the Metric protocol's
optional members, filled with their defaults for a plugin's minimal metric."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import pickle
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import assay.cli.run as cli_run
import assay.metrics._family as family_module
import assay.metrics._settings as settings_module
from assay import JudgeOptions, ScoringOptions, evaluate
from assay.calls import JudgeCallOptions
from assay.cli.main import app
from assay.data import Row
from assay.errors import ConfigError
from assay.judges import FakeJudge, JudgeRequest
from assay.metrics import (
    CORE_SETTINGS,
    REGISTRY,
    BaseFamily,
    Metric,
    MetricResult,
    ScoreContext,
    ScoringSettings,
    Setting,
    declared_settings,
    family_settings,
    get_metric,
    mean_aggregate,
    register,
    register_family,
    with_defaults,
)
from assay.metrics.safety import SAFETY_FAMILY
from assay.run._score import Scorer, ScoreSettings

SRC = Path(__file__).resolve().parents[1] / "src" / "assay"
ROWS = [{"id": "q1", "question": "Capital of France?", "answer": "Paris.",
         "ground_truth": "Paris"}]


def _script(request: JudgeRequest) -> str:
    """A 1-5 rating, or a 0-7 severity for a safety request."""
    return ('{"severity": 1}' if request.schema_name.startswith("severity")
            else '{"score": 5}')


# ------------------------------------------------------------------ one default per setting


def test_every_default_is_its_declarations() -> None:
    declared = declared_settings()
    defaults = {name: setting.default for name, setting in declared.items()}
    assert {f.name for f in dataclasses.fields(ScoringOptions)} == set(declared)
    assert dataclasses.asdict(ScoringOptions()) == defaults
    assert ScoringSettings().as_dict() == defaults
    assert ScoringOptions().settings() == ScoringSettings()
    assert ScoreContext().settings == ScoringSettings() == ScoreSettings().scoring
    assert {s.name: getattr(ScoreContext(), s.name) for s in CORE_SETTINGS} == {
        s.name: s.default for s in CORE_SETTINGS}
    flags = inspect.signature(cli_run.run).parameters  # assay run's flags
    assert {name: flags[name].default for name in declared} == defaults
    assert defaults["reasons"] == "auto"  # ScoreContext's own default was "always" before


def _is_str(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _default_literals(node: ast.AST, name: str) -> int:
    """How many defaults of ``name`` ``node`` writes as a literal: ``name="x"`` as a parameter
    default, ``name: str = "x"``, or ``x.get("name") or "x"``."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        args = node.args
        positional = args.posonlyargs + args.args
        pairs = [*zip(positional[len(positional) - len(args.defaults):], args.defaults),
                 *zip(args.kwonlyargs, args.kw_defaults)]
        return sum(arg.arg == name and _is_str(default) for arg, default in pairs)
    if isinstance(node, ast.AnnAssign):
        return int(getattr(node.target, "id", None) == name and _is_str(node.value))
    if isinstance(node, ast.BoolOp) and isinstance(node.values[0], ast.Call):
        call = node.values[0]
        return int(getattr(call.func, "attr", None) == "get" and bool(call.args)
                   and getattr(call.args[0], "value", None) == name and _is_str(node.values[-1]))
    return 0


def _choice_literals(node: ast.AST, choices: set[str]) -> int:
    """1 when ``node`` is a tuple, list or ``Literal[...]`` of exactly ``choices``."""
    if isinstance(node, ast.Subscript):
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    elif isinstance(node, (ast.Tuple, ast.List)):
        elts = node.elts
    else:
        return 0
    values = [e.value for e in elts if _is_str(e)]  # type: ignore[attr-defined]
    return int(len(values) == len(elts) == len(choices) and set(values) == choices)


def _written_literals(name: str, choices: set[str]) -> list[str]:
    """``file:line`` of each place in src/ that writes ``name``'s default or its ``choices``
    as literals (a ``Setting(...)`` declaration's default is not counted: it is the one)."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "_progress.py":  # its ``style`` is the progress display's (bar, lines)
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        inner = {id(n.slice) for n in ast.walk(tree) if isinstance(n, ast.Subscript)}
        for node in ast.walk(tree):
            count = _default_literals(node, name) + (
                0 if id(node) in inner else _choice_literals(node, choices))
            found += [f"{path.relative_to(SRC)}:{getattr(node, 'lineno', 0)}"] * count
    return found


@pytest.mark.parametrize("name", list(declared_settings()))
def test_a_settings_default_and_choices_are_written_once(name: str) -> None:
    """Only the declaration writes them (its choices once, as a Literal or a tuple); every
    other default (ScoringOptions, the CLI flags, helpers) reads the declaration."""
    places = _written_literals(name, set(declared_settings()[name].choices))
    assert len(places) == 1, places
    assert places[0].split(":")[0] in {"metrics/_settings.py", "metrics/safety/_settings.py",
                                       "metrics/safety/_defects.py",
                                       # the languages and fence styles of prompts: asking/'s
                                       "asking/_template.py", "asking/_spotlight.py"}


def test_the_scan_finds_a_second_default_and_a_second_list(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "m.py").write_text('def f(reasons="auto"): ...\n'
                                   'REASONS = ("auto", "always", "never")\n')
    monkeypatch.setitem(globals(), "SRC", tmp_path)
    assert _written_literals("reasons", {"auto", "always", "never"}) == ["m.py:1", "m.py:2"]


# ---------------------------------------------------------------- one check, one ConfigError


def test_a_run_builds_and_checks_its_settings_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """One ScoringSettings per run (each setting checked there); every context of the run,
    the panel's too, carries that object as it is."""
    built: list[ScoringSettings] = []
    checked: list[str] = []
    post_init, check = ScoringSettings.__post_init__, Setting.check

    def building(self: ScoringSettings) -> None:
        built.append(self)
        post_init(self)

    def checking(self: Setting[Any], value: object) -> Any:
        checked.append(self.name)
        return check(self, value)

    monkeypatch.setattr(ScoringSettings, "__post_init__", building)
    monkeypatch.setattr(Setting, "check", checking)
    result = evaluate(ROWS, metrics="f1_score,fluency,violence",
                      judge=[FakeJudge(_script, id="fake:a"), FakeJudge(_script, id="fake:b")],
                      scoring=ScoringOptions(reasons="never", safety_mode="separate"),
                      judging=JudgeOptions(cache=None))
    assert len(built) == 1
    assert sorted(checked[:len(declared_settings())]) == sorted(declared_settings())
    assert set(checked[len(declared_settings()):]) <= {"lang"}  # load_template's argument
    assert result.rows[0]["fluency"]["details"]["no_reason"] == "no reason asked (reasons=never)"
    assert result.rows[0]["violence"]["details"]["mode"] == "separate"
    assert result.rows[0]["violence"]["details"]["panel_answered"] == 2  # both judges' contexts
    assert result.summary["safety"] == {"threshold": "medium", "mode": "separate"}


@pytest.mark.parametrize("name", list(declared_settings()))
def test_a_bad_value_is_one_config_error_naming_it_before_any_judge_call(name: str) -> None:
    judge = FakeJudge()
    allowed = list(declared_settings()[name].choices)
    with pytest.raises(ConfigError) as raised:
        evaluate(ROWS, metrics="fluency", judge=judge,
                 scoring=ScoringOptions(**{name: "sometimes"}), judging=JudgeOptions(cache=None))
    assert str(raised.value) == f"Got {name}='sometimes'. Must be one of {allowed}."
    assert judge.requests == []


def test_assay_run_with_a_bad_reasons_exits_2_with_the_allowed_values(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    judge = FakeJudge()
    monkeypatch.setattr("assay.calls._open.make_judge", lambda spec, **kw: judge)
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "q1", "question": "Capital of France?", "answer": "Paris."}\n')
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", str(data), "--metrics", "fluency", "--judge", "fake",
                                      "--no-cache", "--out", str(out), "--reasons", "sometimes"])
    assert result.exit_code == 2, result.output
    message = " ".join(result.stderr.split())
    assert "Got --reasons sometimes. Must be one of ['auto', 'always', 'never']." in message
    assert message.count("Got --reasons") == 1 and "Traceback" not in result.output
    assert judge.requests == [] and not (out / "results.jsonl").exists()


def test_a_context_is_made_with_settings_changed_by_name() -> None:
    ctx = ScoreContext(judge=FakeJudge(), lang="zh", reasons="never", safety_mode="separate")
    assert (ctx.lang, ctx.reasons, ctx.style) == ("zh", "never", "auto")
    assert ctx.settings.family("safety_mode") == "separate"
    same = ScoreContext(settings=ctx.settings)
    assert same.settings is ctx.settings  # carried as it is: no copy, no second check
    with pytest.raises(ConfigError, match=r"Got tone='plain': no such scoring setting"):
        ScoreContext(tone="plain")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.settings.lang = "en"  # type: ignore[misc]


# ---------------------------------------------------------------- settings a family declares


def test_the_safety_settings_are_declared_by_the_safety_family() -> None:
    core = {s.name for s in CORE_SETTINGS}
    assert {s.name for s in SAFETY_FAMILY.options} == {"safety_threshold", "safety_mode"}
    assert not core & {"safety_threshold", "safety_mode"}
    assert family_settings()["safety_mode"] is SAFETY_FAMILY.options[1]
    assert declared_settings()["safety_threshold"].choices == ("low", "medium", "high")
    with pytest.raises(ConfigError, match=r"^Got safety_threshold='severe'. Must be one of "
                                          r"\['low', 'medium', 'high'\].$"):
        ScoringOptions(safety_threshold="severe").settings()


class _Tally:
    def __init__(self) -> None:
        self.rows = 0

    def add(self, record: Mapping[str, Any]) -> None:
        self.rows += 1

    def metric_sections(self, options: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        return {}

    def summary_section(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return {"tone_check": {"rows": self.rows, "tone": options["tone"]}}


TONE = Setting("tone", "plain", ("plain", "formal"), "How the answers should sound.")


class ToneFamily(BaseFamily):
    """A plugin's family that declares a setting of its own."""

    name = "tone_check"
    options = (TONE,)

    def covers(self, metric: Metric) -> bool:
        return metric.name == "exact_match"

    def tally(self, metrics: Sequence[Metric]) -> _Tally:
        return _Tally()


@pytest.fixture
def tone_family(monkeypatch: pytest.MonkeyPatch) -> Iterator[ToneFamily]:
    monkeypatch.setattr(family_module, "_FAMILIES", list(family_module._FAMILIES))
    monkeypatch.setattr(settings_module, "_FAMILY_SETTINGS", dict(settings_module._FAMILY_SETTINGS))
    yield register_family(ToneFamily())


def test_a_plugin_familys_setting_is_declared_defaulted_and_checked(
        tone_family: ToneFamily) -> None:
    assert declared_settings()["tone"] is TONE
    assert ScoringSettings().family("tone") == "plain"
    assert ScoringSettings.build({"tone": "formal"}).family("tone") == "formal"
    with pytest.raises(ConfigError, match=r"^Got tone='rude'. Must be one of "
                                          r"\['plain', 'formal'\].$"):
        ScoringSettings.build({"tone": "rude"})
    result = evaluate(ROWS, metrics="exact_match", judging=JudgeOptions(cache=None))
    assert result.summary["tone_check"] == {"rows": 1, "tone": "plain"}


def test_a_family_cannot_declare_a_setting_declared_already(tone_family: ToneFamily) -> None:
    class Clash(BaseFamily):
        name = "clash"
        options = (Setting("reasons", "never", ("never",), "Never."),)

    with pytest.raises(ConfigError, match="declares the setting 'reasons', which assay"):
        register_family(Clash())
    Clash.options = (Setting("tone", "plain", ("plain",), "Plain."),)
    with pytest.raises(ConfigError, match="which the tone_check family declares already"):
        register_family(Clash())
    assert register_family(ToneFamily()).options == (TONE,)  # the same family, again: fine
    Clash.options = {"tone": ("plain", "formal")}  # type: ignore[assignment]  # choices only
    with pytest.raises(ConfigError, match="options must be Setting declarations"):
        register_family(Clash())


def test_the_docs_example_of_a_family_setting_declares_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    doc = (SRC.parents[1] / "docs" / "metric-families.md").read_text()
    snippet = re.findall(r"```python\n(.*?)```", doc, re.DOTALL)[1]
    monkeypatch.setattr(family_module, "_FAMILIES", list(family_module._FAMILIES))
    monkeypatch.setattr(settings_module, "_FAMILY_SETTINGS", dict(settings_module._FAMILY_SETTINGS))
    scope: dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(snippet, "metric-families.md", "exec"), scope)  # noqa: S102 - the docs snippet
    register_family(scope["ToneCheck"]())
    assert declared_settings()["tone"] is scope["TONE"]
    assert ScoreContext().settings.family("tone") == "plain"


def test_the_settings_check_gives_the_same_answer_whichever_module_is_imported_first() -> None:
    """A fresh process that imports the settings check before anything else, and one that
    imports every metric family first (custom's too), declare the same settings and accept and
    refuse the same values (a guard: the check must never be reachable before the built-in
    families have declared their settings)."""
    code = ("import sys\n"
            "FIRST\n"
            "from assay.errors import ConfigError\n"
            "from assay.metrics._settings import ScoringSettings, declared_settings\n"
            "def ok(values):\n"
            "    try:\n"
            "        return ScoringSettings.build(values).as_dict()\n"
            "    except ConfigError as e:\n"
            "        return str(e)\n"
            "print(list(declared_settings()), ok({'safety_mode': 'separate'}),\n"
            "      ok({'safety_mode': 'both'}), ok({'tone': 'plain'}))\n")
    answers = [subprocess.run([sys.executable, "-c", code.replace("FIRST", first)],
                              capture_output=True, text=True, timeout=120, check=True).stdout
               for first in ("", "import assay.metrics.custom, assay.run, assay")]
    assert answers[0] == answers[1]
    assert "'safety_mode': 'separate'" in answers[0] and "no such scoring setting" in answers[0]


# ---------------------------------------------------------------------- the Ray path


def test_the_settings_object_pickles_for_ray_workers_as_it_is() -> None:
    settings = ScoreSettings(scoring=ScoringSettings.build(
        {"lang": "zh", "reasons": "never", "safety_mode": "separate"}),
        calls=JudgeCallOptions(concurrency=2, cache=Path("c.sqlite")))
    sent = pickle.loads(pickle.dumps(settings))
    assert sent == settings and sent.scoring.family("safety_mode") == "separate"


# ---------------------------------------------------- the Metric protocol's optional members


class MinimalMetric:
    """A plugin's smallest metric: the protocol's required members, nothing else."""

    name, version = "minimal_words", "1"
    required = frozenset({"answer"})
    conversation = needs_citations = uses_judge = False
    higher_is_better = True
    value_range = (0.0, 1.0)

    def applies(self, row: Row) -> str | None:
        return None if row.answer is not None else "row has no answer"

    async def score(self, row: Row, ctx: ScoreContext) -> MetricResult:
        return MetricResult(value=1.0 if len((row.answer or "").split()) <= 3 else 0.0,
                            reason=f"lang {ctx.lang}")

    def aggregate(self, results: Sequence[MetricResult]) -> dict[str, Any]:
        return mean_aggregate(results)


@pytest.fixture
def minimal() -> Iterator[Metric]:
    metric = register(MinimalMetric())  # type: ignore[arg-type]
    yield metric
    REGISTRY.unregister("minimal_words")


def test_a_minimal_plugin_metric_gets_the_protocols_defaults(minimal: Metric) -> None:
    assert not hasattr(MinimalMetric, "uses_embedder")  # the class declares none of them
    assert get_metric("minimal_words") is minimal
    assert (minimal.uses_embedder, minimal.embedder_optional, minimal.family, minimal.source,
            minimal.kind) == (False, False, None, "", None)
    assert minimal.unavailable_reason() is None and minimal.check_rows([], "data") == []
    assert isinstance(minimal, Metric)
    copy = pickle.loads(pickle.dumps(minimal))  # as a Ray worker gets it
    assert copy.unavailable_reason() is None and copy.check_rows([]) == []


def test_a_minimal_plugin_metric_runs_end_to_end(minimal: Metric, tmp_path: Path) -> None:
    rows = [{"id": "a", "answer": "Paris."}, {"id": "b", "answer": "It is Paris, I think."}]
    result = evaluate(rows, metrics="minimal_words,f1_score",
                      scoring=ScoringOptions(lang="zh"), judging=JudgeOptions(cache=None))
    assert [r["minimal_words"]["value"] for r in result.rows] == [1.0, 0.0]
    assert result.rows[0]["minimal_words"]["reason"] == "lang zh"
    assert result.summary["metrics"]["minimal_words"]["mean"] == 0.5
    # and passed as an instance, never registered
    direct = evaluate(rows, metrics=[MinimalMetric()],  # type: ignore[list-item]
                      judging=JudgeOptions(cache=None))
    assert direct.summary["metrics"]["minimal_words"]["mean"] == 0.5


def test_a_metric_that_takes_no_new_attribute_is_told_what_to_declare() -> None:
    class Slotted(MinimalMetric):
        __slots__ = ()

    class Fixed:
        __slots__ = ("name",)

        def __init__(self) -> None:
            self.name = "fixed"

    assert with_defaults(Slotted()).uses_embedder is False  # its base class has a __dict__
    with pytest.raises(ConfigError, match=r"Metric 'fixed' lacks uses_embedder, .*__slots__"):
        with_defaults(Fixed())


def test_the_scorer_fills_a_bare_metric_it_is_given() -> None:
    scorer = Scorer([MinimalMetric()], judge=None, embedder=None)  # type: ignore[list-item]
    assert scorer.metrics[0].uses_embedder is False and scorer.waits is False
