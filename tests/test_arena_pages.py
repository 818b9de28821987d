"""An arena run's pages (issue 48 part 6): the HTML report's leaderboard and win matrix, the web
UI's arena page (over Starlette's test client; the Chromium tests are in
``test_arena_pages_browser``), ``assay show`` and ``assay export``, on a scripted arena whose
win matrix is known: ``best`` > ``good`` > ``worst`` except on row r0, where the judge calls
every pair a tie, and ``good`` lacks row r3."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from assay.arena import arena
from assay.cli.main import app
from assay.judges import FakeJudge
from assay.run import JudgeOptions, RunOptions
from assay.serve import create_app
from test_arena import _shown, _systems

SYSTEMS = ("best", "good", "worst")
#: (row system, column system): (pairs won, ties half; decided pairs), as the script decides.
EXPECTED = {("best", "good"): (2.5, 3), ("best", "worst"): (3.5, 4),
            ("good", "best"): (0.5, 3), ("good", "worst"): (2.5, 3),
            ("worst", "best"): (0.5, 4), ("worst", "good"): (0.5, 3)}


def scripted_judge(req: Any) -> str:
    """Prefers the higher quality in either order, except that row r0 is always a tie; its
    reason names the order it read (``A 3 / B 0``)."""
    text = req.messages[-1]["content"]
    a, b = _shown(text, "response_a"), _shown(text, "response_b")
    row = text.split("<response_a>")[1].split("</response_a>")[0].split()[-1]
    choice = "TIE" if row == "0" else "A" if a > b else "B" if b > a else "TIE"
    return json.dumps({"choice": choice, "reason": f"A {a} / B {b}"})


def make_arena(folder: Path) -> tuple[Path, str]:
    """The scripted arena stored in ``folder/runs.sqlite``: (the store, the run id)."""
    store = folder / "runs.sqlite"
    result = arena(_systems(folder, names=SYSTEMS, rows=4, skip={"good": {3}}),
                   judge=FakeJudge(scripted_judge, id="scripted"),
                   judging=JudgeOptions(cache=None),
                   run=RunOptions(store=store, out=folder / "out"), bootstrap=100)
    return store, str(result.summary["run_id"])


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    return make_arena(tmp_path_factory.mktemp("arena-pages"))


def _cells(html: str) -> dict[tuple[str, str], tuple[float, int]]:
    return {(row, col): (float(won), int(n)) for row, col, won, n in re.findall(
        r'<g class="cell" data-row="([^"]+)" data-col="([^"]+)" data-won="([^"]+)" '
        r'data-n="(\d+)">', html)}


def test_the_report_opens_with_the_board_and_the_win_matrix(stored: tuple[Path, str],
                                                            tmp_path: Path) -> None:
    store, run_id = stored
    out = tmp_path / "report.html"
    done = CliRunner().invoke(app, ["report", run_id, "--store", str(store), "-o", str(out)])
    assert done.exit_code == 0, done.output
    page = out.read_text(encoding="utf-8")
    board = page.index('<section id="arena"')
    assert board < page.index('<section id="summary"')  # the board comes first
    systems = re.findall(r'<tr data-system="([^"]+)"><td class="num rank">([^<]+)</td>', page)
    assert systems == [("best", "1"), ("good", "2"), ("worst", "3")]
    assert _cells(page) == EXPECTED
    assert ">83%</text>" in page and ">n=3</text>" in page  # best vs good: 2.5 of 3
    assert "good lacks 1 shared row(s) (left out of its pairs): r3" in page
    assert "judge position: names the first-shown answer in" in page
    assert "http://" not in page and "https://" not in page  # self-contained


def test_the_ui_page_shows_the_board_matrix_and_both_answers(stored: tuple[Path, str]) -> None:
    store, run_id = stored
    client = TestClient(create_app(store))
    page = client.get(f"/runs/{run_id}")
    assert page.status_code == 200
    assert "script" not in page.headers["content-security-policy"]  # none needed: <details>
    assert _cells(page.text) == EXPECTED
    pairs = re.findall(r'<details class="arena-pair" id="pair-\d+" data-id="([^"]+)">', page.text)
    assert len(pairs) == 3 * 3 + 1 * 1  # rows r0-r2 pair all three; r3 only best and worst
    listed = client.get("/").text
    assert "top best (" in listed


def test_show_prints_the_leaderboard(stored: tuple[Path, str]) -> None:
    store, run_id = stored
    done = CliRunner().invoke(app, ["show", run_id, "--store", str(store)])
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    title = next(i for i, line in enumerate(lines) if "assay arena: 3 systems" in line)
    assert "4 rows, 10 pairs judged by scripted" in lines[title]
    ranked = [line.split("│")[1:3] for line in lines[title:] if line.startswith("│")]
    assert [(r.strip(), s.strip()) for r, s in ranked] == [("1", "best"), ("2", "good"),
                                                           ("3", "worst")]
    assert "good lacks 1 shared row(s)" in done.stderr


def test_export_jsonl_gives_every_comparison(stored: tuple[Path, str], tmp_path: Path) -> None:
    store, run_id = stored
    out = tmp_path / "pairs.jsonl"
    done = CliRunner().invoke(app, ["export", run_id, "--store", str(store), "--format",
                                    "jsonl", "-o", str(out)])
    assert done.exit_code == 0, done.output
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 10
    orders = records[0]["preference"]["details"]["orders"]
    assert [o["order"] for o in orders] == ["candidate_first", "baseline_first"]


def test_an_arena_run_without_a_board_is_shown_as_its_report(tmp_path: Path) -> None:
    from assay.store import open_store

    with open_store(tmp_path / "runs.sqlite") as store:  # e.g. stopped before its board
        rid = store.create_run(kind="arena", name="stopped arena")
        store.add_rows(rid, [{"id": "r0 | a vs b", "preference": {"value": 1.0}}])
        store.finish_run(rid, summary={"metrics": {"preference": {"mean": 1.0}}},
                         complete=False)
        page = TestClient(create_app(store)).get(f"/runs/{rid}")
    assert page.status_code == 200 and 'id="rowtable"' in page.text
    assert 'id="arena"' not in page.text


def test_an_unscored_pair_says_so_and_why() -> None:
    from assay.serve._arena_page import pair_view

    pair = pair_view({"id": "q1 | v1 vs v2", "preference": {
        "value": None, "error": "judge failed: 429 after 3 attempts"}}, None, "preference")
    assert (pair["outcome"], pair["css"]) == ("unscored", "unscored")
    assert pair["error"] == "judge failed: 429 after 3 attempts"
    assert pair["answers"] == [("v1", None), ("v2", None)] and pair["orders"] == []
