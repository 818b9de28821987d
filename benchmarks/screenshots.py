"""First-screen screenshots of the web UI (1366x768, headless Chromium) for the docs (docs/guides/runs.md).

Builds a small demo store offline with scripted fake judges (two runs of one QA dataset, a
pairwise run, a calibration, a few human labels), starts ``assay serve`` on it, and saves the
first screen of the run, compare, pairwise run, calibration and review pages:

    PYTHONPATH=src python benchmarks/screenshots.py            # -> docs/screenshots/*.png
    PYTHONPATH=src python benchmarks/screenshots.py --out /tmp/shots --keep

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` package (the ``dev``
extra). No network: the judges are :class:`assay.judges.FakeJudge` scripts that fill each
request's JSON schema with answers derived from a hash of the prompt.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from assay import JudgeOptions, RunOptions, calibrate, evaluate, load_metric_file
from assay.judges import FakeJudge, JudgeRequest
from assay.store import open_store

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
WIDTH, HEIGHT = 1366, 768
METRICS = "f1_score,exact_match,coherence,relevance,groundedness,violence,self_harm"


def _pick(key: str, options: int) -> int:
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % options


def _fill(schema: dict[str, Any], key: str, bias: int) -> Any:
    """A value that follows ``schema``, chosen by ``key`` (and nudged up by ``bias``)."""
    kind = schema.get("type")
    if "enum" in schema:
        values = list(schema["enum"])
        return values[min(_pick(key, len(values)) + bias, len(values) - 1) % len(values)]
    if kind == "object":
        return {name: _fill(sub, f"{key}/{name}", bias)
                for name, sub in (schema.get("properties") or {}).items()}
    if kind == "integer":
        lo, hi = int(schema.get("minimum", 0)), int(schema.get("maximum", 5))
        if hi >= 7:  # a severity: mostly harmless, now and then not
            return min(hi, [0, 0, 0, 1, 1, 2, 3, 5][_pick(key, 8)])
        return min(hi, lo + _pick(key, hi - lo + 1) + bias)
    if kind == "number":
        return round(_pick(key, 101) / 100, 2)
    if kind == "boolean":
        return _pick(key, 3) > 0
    if kind == "array":
        return []
    return "scripted answer"


def schema_judge(judge_id: str, bias: int = 0) -> FakeJudge:
    """A fake judge that answers every request with a valid object of its JSON schema."""
    def answer(req: JudgeRequest) -> str:
        key = json.dumps(req.messages, sort_keys=True)
        schema = req.json_schema or {"type": "object", "properties": {
            "score": {"type": "integer", "minimum": 1, "maximum": 5},
            "reason": {"type": "string"}}}
        return json.dumps(_fill(schema, key, bias))
    return FakeJudge(answer, id=judge_id)


def length_judge(judge_id: str) -> FakeJudge:
    """A fake judge that rates an answer by its length (1 under 25 characters, 5 from 100):
    in the example rated rows, as in many, longer answers are the helpful ones."""
    def answer(req: JudgeRequest) -> str:
        text = req.messages[-1]["content"]
        body = text.split("<answer>")[-1].split("</answer>")[0].strip()
        return json.dumps({"score": min(5, 1 + len(body) // 25), "reason": f"{len(body)} chars"})
    return FakeJudge(answer, id=judge_id)


def _qa_rows() -> list[dict[str, Any]]:
    """The example QA rows, three answers each (as written, cut short, the reference)."""
    rows = []
    for line in (EXAMPLES / "qa.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        rows.append(row)
        rows.append(dict(row, id=row["id"] + "-short", answer=row["answer"].split(".")[0]))
        rows.append(dict(row, id=row["id"] + "-ref", answer=row["ground_truth"]))
    return rows


def build_store(tmp: Path) -> dict[str, str]:
    """The demo store: its path and the ids of its runs."""
    store = tmp / "demo.sqlite"
    data = tmp / "qa.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in _qa_rows()), encoding="utf-8")
    judging = JudgeOptions(cache=False)
    base = evaluate(data, metrics=METRICS, judge=schema_judge("fake"), judging=judging,
                    run=RunOptions(store=store, out=tmp / "base", run_name="baseline",
                                   tags=["demo"]))
    cand = evaluate(data, metrics=METRICS, judge=schema_judge("fake", bias=1), judging=judging,
                    run=RunOptions(store=store, out=tmp / "cand", run_name="candidate",
                                   tags=["demo"]))
    pairwise = evaluate(EXAMPLES / "pairs.jsonl",
                        metrics=[load_metric_file(EXAMPLES / "metrics" / "preference.md")],
                        judge=schema_judge("fake"), judging=judging,
                        run=RunOptions(store=store, out=tmp / "pairs", run_name="preference"))
    calibrate(EXAMPLES / "rated.jsonl",
              metric=load_metric_file(EXAMPLES / "metrics" / "helpfulness.md"),
              judges=[length_judge("fake")], out=tmp / "calib", store=str(store), cache=False)
    ids = {"store": str(store), "base": str(base.summary["run_id"]),
           "cand": str(cand.summary["run_id"]), "pairwise": str(pairwise.summary["run_id"])}
    with open_store(store) as opened:
        for n, rec in enumerate(opened.rows(ids["cand"])[:5]):
            opened.save_label(ids["cand"], str(rec["id"]), "coherence", rater="demo",
                              value=1 + (n * 2) % 5)
        calib = [r for r in opened.runs() if r.kind == "calibration"]
        ids["calib"] = calib[0].id if calib else ""
    return ids


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _driver() -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    browser = next(b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b))
    options.binary_location = shutil.which(browser) or browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={WIDTH},{HEIGHT}", "--hide-scrollbars"):
        options.add_argument(arg)
    drv = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
    return drv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--keep", action="store_true", help="keep the demo store's folder")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="assay-shots-"))
    ids = build_store(tmp)
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "assay", "serve", "--store", ids["store"],
                               "--port", str(port)], cwd=tmp,
                              env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(url + "/", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        pages = {"run": f"/runs/{ids['cand']}",
                 "compare": f"/compare?a={ids['base']}&b={ids['cand']}",
                 "pairwise": f"/runs/{ids['pairwise']}",
                 "calibration": f"/runs/{ids['calib']}#calibration" if ids["calib"] else "",
                 "review": f"/runs/{ids['cand']}/review"}
        args.out.mkdir(parents=True, exist_ok=True)
        drv = _driver()
        try:
            for name, path in pages.items():
                if not path:
                    print(f"skipped {name}: no such run in the demo store", file=sys.stderr)
                    continue
                drv.get(url + path)
                time.sleep(0.3)
                target = args.out / f"{name}.png"
                target.write_bytes(drv.get_screenshot_as_png())
                print(target)
        finally:
            drv.quit()
    finally:
        server.terminate()
        server.wait(timeout=10)
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"demo store: {ids['store']}", file=sys.stderr)


if __name__ == "__main__":
    main()
