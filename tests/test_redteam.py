"""Red-teaming: seed and template files, ``simulate`` against toy chat apps (examples/apps.py),
``compare_defects``, and ``assay jailbreak`` / ``compare-defects`` end to end with a scripted
judge whose severities follow the app's reply."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from examples.apps import TOY_COMPLIES, TOY_REFUSES
from typer.testing import CliRunner

import assay.redteam._jailbreak as jb
from assay.cli.main import app
from assay.errors import DataError
from assay.judges import FakeJudge, JudgeRequest
from assay.metrics.safety import CATEGORIES
from assay.redteam import (
    compare_defects,
    injected_attacks,
    load_seeds,
    load_templates,
    pick_seeds,
    plain_attacks,
    simulate,
)
from assay.redteam._sources import FOLLOW_UPS
from assay.targets import make_target
from conftest import section, user_of

#: Which category a complying reply harms, by words of the request (else hate_unfairness).
_CATEGORY_WORDS = {"violence": r"kill|hurt|attack|poison|weapon|tortur|behead|threat|shoot|beat",
                   "sexual": r"explicit|erotic|sex|porn|fetish|bed\b",
                   "self_harm": r"myself|suicide|pills|cut|starv|bridge|not eating|miss me"}


def harm_of(question: str) -> str:
    for category, words in _CATEGORY_WORDS.items():
        if re.search(words, question, re.IGNORECASE):
            return category
    return "hate_unfairness"


def _script(req: JudgeRequest) -> str:
    """Severity 6 in the request's category when the reply complies, else 0; refusal Yes when
    the reply is the toy refusal."""
    text = user_of(req)
    answer, question = section(text, "answer") or "", section(text, "question") or ""
    if req.schema_name == "verdict":
        return "Yes. It declines." if answer == TOY_REFUSES else "No. It answers."
    harmed = harm_of(question) if answer == TOY_COMPLIES else None
    assert req.schema_name == "safety", req.schema_name
    return json.dumps({c: {"severity": 6 if c == harmed else 0, "reason": "scripted"}
                       for c in CATEGORIES})


@pytest.fixture
def judge(monkeypatch: pytest.MonkeyPatch) -> FakeJudge:
    fake = FakeJudge(_script)
    monkeypatch.setattr(jb, "make_judge", lambda spec, **kw: fake)
    return fake


@pytest.fixture(autouse=True)
def _plain_console(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")


def _invoke(*args: str | Path) -> Any:
    result = CliRunner().invoke(app, list(map(str, args)))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def _flat(text: str) -> str:
    """The output on one line, table borders dropped."""
    return " ".join(re.sub(r"[│┃]", " ", text).split())


# --- seeds and templates -------------------------------------------------------------------

def test_the_shipped_seed_list_has_ten_requests_per_category_with_unique_ids() -> None:
    seeds = load_seeds()
    assert len({s.id for s in seeds}) == 40
    assert {c: sum(s.category == c for s in seeds) for c in CATEGORIES} == dict.fromkeys(
        CATEGORIES, 10)


def test_pick_seeds_takes_categories_in_turn_and_filters() -> None:
    seeds = load_seeds()
    assert [s.category for s in pick_seeds(seeds, 6)] == [
        "hate_unfairness", "sexual", "violence", "self_harm", "hate_unfairness", "sexual"]
    only = pick_seeds(seeds, None, ["self_harm"])
    assert len(only) == 10 and {s.category for s in only} == {"self_harm"}
    with pytest.raises(DataError, match=r"no seed is in categories \['weapons'\].*choose from"):
        pick_seeds(seeds, 3, ["weapons"])


def test_seed_files_in_the_advbench_csv_and_plain_text_shapes_load(tmp_path: Path) -> None:
    csv_file = tmp_path / "behaviors.csv"
    csv_file.write_text('goal,target\n"Do a bad thing",Sure\n"Do another, worse thing",Sure\n')
    seeds = load_seeds(csv_file)
    assert [(s.id, s.category, s.prompt) for s in seeds] == [
        ("seed-2", "unspecified", "Do a bad thing"), ("seed-3", "unspecified",
                                                      "Do another, worse thing")]
    txt = tmp_path / "seeds.txt"
    txt.write_text("first request\n\nsecond request\n")
    assert [s.prompt for s in load_seeds(txt)] == ["first request", "second request"]


def test_a_bad_seed_file_lists_every_problem_with_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "seeds.jsonl"
    bad.write_text('{"id": "a", "prompt": "x"}\n{"id": "b"}\nnot json\n{"id": "a", "goal": "y"}\n')
    with pytest.raises(DataError) as e:
        load_seeds(bad)
    text = str(e.value)
    assert f"{bad} line 2: no request text" in text
    assert f"{bad} line 3: invalid JSON" in text
    with pytest.raises(DataError, match="file not found"):
        load_seeds(tmp_path / "missing.jsonl")
    dup = tmp_path / "dup.jsonl"
    dup.write_text('{"id": "a", "prompt": "x"}\n{"id": "a", "goal": "y"}\n')
    with pytest.raises(DataError, match=r"line 2, field 'id': 'a' is already used on line 1"):
        load_seeds(dup)


def test_templates_take_either_placeholder_or_append_the_request(tmp_path: Path) -> None:
    shipped = load_templates()
    assert len(shipped) == 6 and all("{prompt}" in t.text for t in shipped)
    csv_file = tmp_path / "jb.csv"
    csv_file.write_text(',name,prompt\n0,wrap,"Pretend. [INSERT PROMPT HERE] Now."\n'
                        '1,lead,"You are free."\n')
    wrap, lead = load_templates([csv_file])
    assert (wrap.id, wrap.inject("REQ")) == ("wrap", "Pretend. REQ Now.")
    assert lead.inject("REQ") == "You are free.\n\nREQ"
    both = load_templates(["builtin", csv_file])
    assert [t.id for t in both][-2:] == ["wrap", "lead"] and len(both) == 8


def test_a_directory_gives_all_its_seed_files_and_its_templates_with_a_placeholder(
        tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("goal\nfirst\n")
    (tmp_path / "b.jsonl").write_text('{"prompt": "second", "category": "violence"}\n')
    (tmp_path / "LICENSE.txt").write_text("not a seed\n")
    seeds = load_seeds(tmp_path)
    assert [(s.id, s.category, s.prompt) for s in seeds] == [
        ("a:seed-2", "unspecified", "first"), ("b:seed-1", "violence", "second")]
    (tmp_path / "t.csv").write_text('name,prompt\nx,"Act free. [INSERT PROMPT HERE]"\n')
    # a.csv has a goal column only; b.jsonl's prompt has no placeholder: neither is a template
    assert [t.id for t in load_templates([tmp_path])] == ["x"]
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(DataError, match="no .jsonl, .json or .csv file"):
        load_seeds(empty)


def test_injected_attacks_pair_with_plain_ones_by_seed_id() -> None:
    seeds = pick_seeds(load_seeds(), 8)
    templates = load_templates()
    plain, injected = plain_attacks(seeds), injected_attacks(seeds, templates)
    assert [a.id for a in plain] == [a.id for a in injected] == [s.id for s in seeds]
    assert [a.template for a in injected] == [t.id for t in templates] + [templates[0].id,
                                                                         templates[1].id]
    assert all(s.prompt in a.first_turn and a.first_turn != s.prompt
               for s, a in zip(seeds, injected))


# --- simulate ------------------------------------------------------------------------------

def test_simulate_writes_one_conversation_per_seed(tmp_path: Path) -> None:
    seeds = pick_seeds(load_seeds(), 8)
    out = tmp_path / "conv.jsonl"
    rows = asyncio.run(simulate(plain_attacks(seeds), make_target("python:examples.apps:toy_app"),
                                out))
    stored = [json.loads(line) for line in out.read_text().splitlines()]
    assert stored == rows and [r["id"] for r in rows] == [s.id for s in seeds]
    assert all(r["messages"][0] == {"role": "user", "content": s.prompt}
               for r, s in zip(rows, seeds))
    assert {r["messages"][1]["content"] for r in rows} <= {TOY_COMPLIES, TOY_REFUSES}
    assert all(r["error"] is None and r["template"] is None for r in rows)


def test_a_second_turn_pushes_back_after_a_refusal_and_asks_for_more_after_an_answer(
        tmp_path: Path) -> None:
    seeds = pick_seeds(load_seeds(), 8)
    rows = asyncio.run(simulate(plain_attacks(seeds), make_target("python:examples.apps:toy_app"),
                                tmp_path / "c.jsonl", turns=2))
    for r in rows:
        roles = [m["role"] for m in r["messages"]]
        assert roles == ["user", "assistant", "user", "assistant"]
        first, follow, second = (r["messages"][i]["content"] for i in (1, 2, 3))
        kind = "after_refusal" if first == TOY_REFUSES else "after_answer"
        assert follow == FOLLOW_UPS[kind][0]
        # the toy app gives in to the push-back
        assert second == TOY_COMPLIES
    assert any(r["messages"][1]["content"] == TOY_REFUSES for r in rows)


def test_an_app_failure_keeps_the_row_and_resume_asks_only_what_is_missing(
        tmp_path: Path) -> None:
    seeds = pick_seeds(load_seeds(), None, ["violence"])
    out = tmp_path / "c.jsonl"
    rows = asyncio.run(simulate(plain_attacks(seeds), make_target(
        "python:examples.apps:broken_chat_app"), out))
    failed = [r for r in rows if r["error"]]
    assert [r["id"] for r in failed] == ["violence-09"]
    assert failed[0]["error"] == "app call failed on turn 1: RuntimeError: toy app crashed"
    assert failed[0]["messages"] == [{"role": "user", "content": seeds[8].prompt}]
    asked: list[str] = []

    class Counting:
        id = "counting"

        async def reply(self, messages: list[dict[str, str]]) -> str:
            asked.append(messages[0]["content"])
            return TOY_REFUSES

    # keep only three finished rows, as after a Ctrl-C, plus the failed one
    out.write_text("".join(json.dumps(r) + "\n" for r in rows[:3] + failed))
    again = asyncio.run(simulate(plain_attacks(seeds), Counting(), out, resume=True))
    assert len(asked) == len(seeds) - 3
    assert seeds[8].prompt in asked
    assert [r["id"] for r in again] == [s.id for s in seeds]
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == [
        s.id for s in seeds]
    assert not any(r["error"] for r in again)


# --- compare_defects -----------------------------------------------------------------------

def _rec(row_id: str, refusal: float | None = None, **severity: float | None) -> dict[str, Any]:
    rec: dict[str, Any] = {"id": row_id}
    for c in CATEGORIES:
        value = severity.get(c, 0.0)
        rec[c] = {"value": value, "error": None if value is not None else "judge answer is "
                  "not valid"}
    if refusal is not None:
        rec["refusal"] = {"value": refusal}
    return rec


def test_compare_defects_pairs_rows_excuses_refusals_and_counts_unscored() -> None:
    base = [_rec("a"), _rec("b", sexual=4.0, refusal=1.0), _rec("c", violence=3.0),
            _rec("d", violence=7.0), _rec("only-base")]
    injected = [_rec("a", violence=6.0, sexual=5.0), _rec("b", sexual=4.0, refusal=0.0),
                _rec("c", violence=None), _rec("d", violence=7.0), _rec("only-injected")]
    report = compare_defects(base, injected, threshold="medium", top=5)
    assert report["paired"] == 4
    assert (report["only_base"], report["only_injected"]) == (["only-base"], ["only-injected"])
    violence = report["categories"]["violence"]
    assert (violence["base"]["defect_rate"], violence["injected"]["defect_rate"]) == (0.25, 0.6667)
    assert violence["injected"]["unscored"] == 1 and violence["difference"] == 0.4167
    sexual = report["categories"]["sexual"]
    # b is a refusal in the plain run: never a defect there
    assert (sexual["base"]["defects"], sexual["base"]["refused"]) == (0, 1)
    assert (sexual["injected"]["defects"], sexual["difference"]) == (2, 0.5)
    anyc = report["categories"]["any"]
    assert (anyc["base"]["defects"], anyc["injected"]["defects"]) == (1, 3)
    assert anyc["injected"]["unscored"] == 1
    assert [(r["id"], r["category"], r["rise"]) for r in report["top_rises"]] == [
        ("a", "violence", 6.0)]
    assert report["top_rises"][0]["refused"] is None  # no refusal verdict on that row
    low = compare_defects(base, injected, threshold="low")
    assert low["categories"]["violence"]["base"]["defect_rate"] == 0.5


# --- the commands --------------------------------------------------------------------------

def test_jailbreak_on_the_toy_app_reports_both_rates_and_the_difference(
        judge: FakeJudge, tmp_path: Path) -> None:
    out = tmp_path / "jb"
    result = _invoke("jailbreak", "--target", "python:examples.apps:toy_app", "--n", "20",
                     "--judge", "fake", "--out", out)
    assert result.exit_code == 0, result.output
    report = json.loads((out / "jailbreak.json").read_text())
    anyc = report["categories"]["any"]
    assert (anyc["base"]["defect_rate"], anyc["injected"]["defect_rate"]) == (0.2, 0.8)
    assert anyc["difference"] == 0.6 and report["paired"] == 20
    assert sum(e["injected"]["defects"] for c, e in report["categories"].items()
               if c != "any") == 16
    assert report["app_failures"] == {"plain": 0, "injected": 0}
    assert len(report["templates"]) == 6 and report["seeds"] == 20
    # one combined safety request and one refusal verdict per reply
    assert report["judge_requests"] == {"plain": 40, "injected": 40}
    text = _flat(result.output)
    assert "any category 20.0% (4) 80.0% (16) +60.0%" in text
    assert "largest severity rises" in text
    assert all(r["refused"] is False for r in report["top_rises"])  # toy compliance, not refused
    # ids and numbers only: no request or reply text reaches the terminal
    assert TOY_COMPLIES not in text and TOY_REFUSES not in text
    assert not any(s.prompt in text for s in load_seeds())
    for side in ("plain", "injected"):
        assert len((out / f"{side}.jsonl").read_text().splitlines()) == 20
        assert json.loads((out / side / "summary.json").read_text())["rows_done"] == 20


def test_show_text_prints_the_rows_that_rose(judge: FakeJudge, tmp_path: Path) -> None:
    result = _invoke("jailbreak", "--target", "python:examples.apps:toy_app", "--n", "8",
                     "--judge", "fake", "--out", tmp_path / "jb", "--show-text", "--top", "2")
    assert result.exit_code == 0, result.output
    assert TOY_COMPLIES in _flat(result.output)


def test_compare_defects_command_agrees_with_jailbreak(judge: FakeJudge, tmp_path: Path) -> None:
    out = tmp_path / "jb"
    assert _invoke("jailbreak", "--target", "python:examples.apps:toy_app", "--n", "12",
                   "--judge", "fake", "--out", out).exit_code == 0
    report = json.loads((out / "jailbreak.json").read_text())
    result = _invoke("compare-defects", out / "plain", out / "injected" / "results.jsonl",
                     "--json", tmp_path / "cmp.json")
    assert result.exit_code == 0, result.output
    again = json.loads((tmp_path / "cmp.json").read_text())
    assert again["categories"] == report["categories"]
    assert again["top_rises"] == report["top_rises"]
    shown = _invoke("compare-defects", out / "plain", out / "injected", "--show-text")
    assert TOY_COMPLIES in _flat(shown.output)
    missing = _invoke("compare-defects", tmp_path / "nope", out / "injected")
    assert missing.exit_code == 2
    assert "no results file" in _flat(missing.output)


def test_simulate_command_writes_the_dataset_and_hides_the_text(tmp_path: Path) -> None:
    path = tmp_path / "conv.jsonl"
    result = _invoke("simulate", "--target", "python:examples.apps:toy_app", "--n", "4",
                     "--inject", "--turns", "2", "--out", path)
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(rows) == 4 and all(len(r["messages"]) == 4 and r["template"] for r in rows)
    assert TOY_REFUSES not in _flat(result.output) and TOY_COMPLIES not in _flat(result.output)
    assert "assay run" in _flat(result.output)
    bad = _invoke("simulate", "--target", "python:examples.apps:toy_app", "--templates", "x.csv")
    assert bad.exit_code == 2 and "--templates needs --inject" in _flat(bad.output)
    none = _invoke("simulate")
    assert none.exit_code == 2 and "--target is required" in _flat(none.output)


def test_an_http_target_gets_the_conversation_and_its_reply_field_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    bodies: list[Any] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            bodies.append(body)
            turns = len(body["input"]["conversation"])
            reply = json.dumps({"output": {"text": f"reply to {turns} turns"}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args: Any) -> None:
            return None

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("ASSAY_TARGET_TEMPLATE", '{"input": {"conversation": "{messages}"}}')
    monkeypatch.setenv("ASSAY_TARGET_FIELD", "output.text")
    try:
        target = make_target(f"http://127.0.0.1:{server.server_port}/chat")
        rows = asyncio.run(simulate(plain_attacks(load_seeds()[:2]), target,
                                    tmp_path / "c.jsonl", turns=2))
    finally:
        server.shutdown()
    assert [m["content"] for m in rows[0]["messages"][1::2]] == ["reply to 1 turns",
                                                                 "reply to 3 turns"]
    assert bodies[0] == {"input": {"conversation": [{"role": "user",
                                                     "content": load_seeds()[0].prompt}]}}


def test_jailbreak_resume_asks_and_rates_again_only_the_failed_conversations(
        judge: FakeJudge, tmp_path: Path) -> None:
    out = tmp_path / "jb"
    first = _invoke("jailbreak", "--target", "python:examples.apps:broken_chat_app", "--category",
                    "violence", "--n", "10", "--judge", "fake", "--out", out)
    # 2 of 20 rows unscored (10% > 5%): the report is written, and exit 3 names the cause
    assert first.exit_code == 3, first.output
    assert "2 of 20 rows (10.0%) could not be scored" in first.output
    assert "1  plain: app call failed on turn 1: RuntimeError: toy app crashed" in first.output
    report = json.loads((out / "jailbreak.json").read_text())
    assert report["app_failures"] == {"plain": 1, "injected": 1}
    assert report["failures"]["failed"] == 2 and report["failures"]["rows"] == 20
    rated = {json.loads(x)["id"]: json.loads(x)
             for x in (out / "plain" / "results.jsonl").read_text().splitlines()}
    assert rated["violence-09"]["violence"]["error"] == "conversation has no assistant turn to rate"
    asked_before = len(judge.requests)
    again = _invoke("jailbreak", "--target", "python:examples.apps:toy_app", "--category",
                    "violence", "--n", "10", "--judge", "fake", "--out", out, "--resume")
    assert again.exit_code == 0, again.output
    report = json.loads((out / "jailbreak.json").read_text())
    assert report["app_failures"] == {"plain": 0, "injected": 0}
    for side in ("plain", "injected"):
        rated = {json.loads(x)["id"]: json.loads(x)
                 for x in (out / side / "results.jsonl").read_text().splitlines()}
        assert rated["violence-09"]["violence"]["value"] is not None
    # one conversation per side asked and rated again: a safety request and a refusal verdict
    assert len(judge.requests) - asked_before == 4
