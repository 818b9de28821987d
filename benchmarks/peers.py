"""assay beside ragas, azure-ai-evaluation and deepeval, through the peers' own harness.

Runs assay the way ``../shared/bench/run_bench.py`` runs each peer: one child process per run
(process wall time and peak RSS are the child's own, from ``wait4``, the figures ``time -v``
gives the harness), timed around ``assay.evaluate()`` inside the child (the harness's "eval
wall"), against a fresh ``fake_judge.py`` (300 ms per request by default) whose request log
gives requests, prompt / completion tokens, 429 answers and peak in-flight requests, summed by
the harness's own ``parse_log``. Harness metrics: ``grounded`` = groundedness, ``relevance`` =
relevance, ``f1`` = f1_score (token F1), ``llm`` = groundedness + relevance in one run.

Then, unless skipped:

- ``--tpm``: groundedness on the rows against a judge limited to 20,000 tokens/minute, with
  assay's client budget set to the same limit (the harness's tpm suite ran the peers on
  ``grounded``). Utilisation = tokens the server admitted (prompt + completion of answered
  requests) per minute over the run (first request received to last answer sent) / the limit,
  the harness's ``tpm_utilisation``.
- token F1 on the qa50 rows expanded to ``--f1-rows`` (10,000) rows with the harness's
  ``expand_rows``, in-process: rows/s of ``assay.evaluate(rows, metrics="f1_score")`` (the
  target; the modules ``evaluate`` needs are imported before the clock starts, as the harness
  imports a peer's ``evaluate`` and evaluator before its own), the same with that import
  timed too, a second call in the same process, and the metric's per-row ``score`` call.
  Only this part: ``--metrics "" --skip-tpm`` (``--repeat 5`` for medians of 5 processes).

The peers' figures are read from ``../shared/bench/results/results.jsonl`` (medians over their
repeats, as ``report.py`` computes them) and printed beside assay's, with the targets of the
"Scale and speed" issue marked PASS or MISS. Wall-time targets are compared only when the run
matches the peers' (50 rows, 300 ms); otherwise they print n/a.

    .venv/bin/python benchmarks/peers.py                       # everything, a few minutes
    .venv/bin/python benchmarks/peers.py --rows 10 --skip-tpm --skip-f1
    .venv/bin/python benchmarks/peers.py --repeat 3 --json peers.json
    .venv/bin/python benchmarks/peers.py --concurrency 16     # fixed, instead of adaptive

``--warm-imports`` does before the eval timer starts what the peers' scripts do before theirs:
it imports assay's run machinery and ``openai`` (assay's ``import assay`` is lazy, so without
it the eval wall also holds those imports, ~0.7 s) and builds the judge client
(``assay.make_judge``; the peers build their ``AsyncOpenAI`` client and LLM wrapper before
the clock, ~0.12 s with the HTTP transport's imports). The process wall holds everything.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from _fake_server import BENCH, FakeJudge

sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH / "peers"))
from common import expand_rows, load_rows  # the harness's row helpers
from run_bench import parse_log  # the harness's request-log summary

QA50 = BENCH / "qa50.jsonl"
RESULTS = BENCH / "results" / "results.jsonl"
JUDGE = "openai:gpt-4o-mini"
METRICS = {"grounded": ["groundedness"], "relevance": ["relevance"], "f1": ["f1_score"],
           "llm": ["groundedness", "relevance"]}
PEER_ROWS, PEER_LATENCY_MS = 50, 300.0

# The targets.
MAX_REQUESTS_PER_ROW = 1.0
PROMPT_TOKENS_SHARE = 0.7
WALL_SHARE = 0.5
MIN_UTILISATION = 0.9
F1_FACTOR = 5.0


# ------------------------------------------------------------------ child (one measured run)

def child(args: argparse.Namespace) -> None:
    """Inside the measured process: import assay, score, write the result JSON."""
    t0 = time.perf_counter()
    import assay
    if args.warm_imports and args.child != "f1loop":
        # what assay.evaluate would import lazily, and openai, which the peers import first
        import openai  # noqa: F401

        import assay.run
    t_import = time.perf_counter() - t0
    out: dict[str, Any] = {"import_s": round(t_import, 3)}
    if args.child == "f1loop":
        big = expand_rows(load_rows(str(QA50)), args.f1_rows)
        # The harness times a peer's imports apart from its calls (run_azure.py imports
        # azure.ai.evaluation's evaluate and F1ScoreEvaluator before its clock starts).
        # ``import assay`` is lazy: the same names load on first use, so load them here.
        t0 = time.perf_counter()
        evaluate, judge_options = assay.evaluate, assay.JudgeOptions
        t_names = time.perf_counter() - t0
        out["evaluate_import_s"] = round(t_names, 3)
        t0, cpu0 = time.perf_counter(), time.process_time()
        res = evaluate(big, metrics="f1_score", judging=judge_options(cache=False))
        t_eval, cpu_eval = time.perf_counter() - t0, time.process_time() - cpu0
        t0 = time.perf_counter()  # again in the same process: no first-call costs
        evaluate(big, metrics="f1_score", judging=judge_options(cache=False))
        t_again = time.perf_counter() - t0
        scored = res.summary["metrics"]["f1_score"]["scored"]
        metric = assay.get_metric("f1_score")
        rows = [assay.Row(id=str(i), line=i, answer=r["answer"], ground_truth=r["ground_truth"])
                for i, r in enumerate(big)]

        async def per_row() -> float:
            t = time.perf_counter()
            for row in rows:
                await metric.score(row, None)
            return time.perf_counter() - t

        t_row = asyncio.run(per_row())
        out.update(rows=len(big), scored=scored, eval_wall_s=round(t_eval, 4),
                   rows_per_s=round(len(big) / t_eval, 1),
                   with_import_rows_per_s=round(len(big) / (t_names + t_eval), 1),
                   second_call_rows_per_s=round(len(big) / t_again, 1),
                   rows_per_cpu_s=round(len(big) / cpu_eval, 1),
                   per_row_call_rows_per_s=round(len(big) / t_row, 1))
    else:
        names = args.child.split(",")
        data = load_rows(str(QA50), args.rows)
        judge = assay.make_judge(JUDGE) if args.warm_imports else JUDGE
        t0 = time.perf_counter()
        res = assay.evaluate(data, judge=judge, metrics=names,
                             judging=assay.JudgeOptions(cache=False, concurrency=args.concurrency,
                                                        tpm=args.child_tpm or None))
        t_eval = time.perf_counter() - t0
        per = res.summary["metrics"]
        out.update(rows=len(data), eval_wall_s=round(t_eval, 3),
                   scored=min(per[n]["scored"] for n in names),
                   scored_per_metric={n: per[n]["scored"] for n in names},
                   judge_stats=res.summary.get("judge"))
    Path(args.child_out).write_text(json.dumps(out))


def measure(mode: str, work: Path, base_url: str | None, args: argparse.Namespace,
            tpm: int = 0) -> dict[str, Any]:
    """Run ``child`` in its own process; its result plus process wall time and peak RSS."""
    work.mkdir(parents=True, exist_ok=True)
    out = work / "result.json"
    env = {**os.environ, "OPENAI_API_KEY": "sk-bench", "NO_PROXY": "127.0.0.1,localhost",
           "OPENAI_BASE_URL": base_url or "http://127.0.0.1:9/v1"}  # port 9: never called
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", mode, "--child-out", str(out),
           "--rows", str(args.rows), "--f1-rows", str(args.f1_rows),
           "--child-tpm", str(tpm),
           *(["--concurrency", str(args.concurrency)] if args.concurrency else []),
           *(["--warm-imports"] if args.warm_imports else [])]
    with open(work / "stderr.txt", "w") as err:
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=err)
        deadline = t0 + args.timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if deadline and time.monotonic() > deadline:
                proc.send_signal(signal.SIGKILL)
                deadline = 0.0
            time.sleep(0.005)
        wall = time.monotonic() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    rec: dict[str, Any] = json.loads(out.read_text()) if out.exists() else {}
    rec.update(rc=proc.returncode, process_wall_s=round(wall, 2),
               peak_rss_mb=round(usage.ru_maxrss / 1024, 1),
               cpu_s=round(usage.ru_utime + usage.ru_stime, 2))
    if proc.returncode != 0:
        rec["stderr_tail"] = (work / "stderr.txt").read_text()[-1500:]
    return rec


def run_llm(metric: str, work: Path, args: argparse.Namespace, tpm: int = 0) -> dict[str, Any]:
    """One measured run of an LLM metric against a fresh fake judge."""
    log = work / "requests.jsonl"
    work.mkdir(parents=True, exist_ok=True)
    extra = ("--tpm", str(tpm)) if tpm else ()
    with FakeJudge("--latency-ms", str(args.latency_ms), *extra, log=log) as judge:
        rec = measure(",".join(METRICS[metric]), work, judge.base_url, args, tpm)
    rec["server"] = parse_log(str(log), tpm)
    return rec


# ------------------------------------------------------------------ the peers' recorded figures

def med(xs: list[Any]) -> float | None:
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def run_figures(recs: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over repeats of one setup, per row where it is a per-row figure (report.py's)."""
    n = recs[0]["result"].get("rows") or recs[0].get("rows_requested") or PEER_ROWS
    sv = [r.get("server") or {} for r in recs]
    chat = med([s.get("chat_requests", 0) / n for s in sv])
    emb = med([s.get("embedding_requests", 0) / n for s in sv])
    return {
        "runs": len(recs), "rows": n,
        "scored": min((r["result"].get("scored") or 0) for r in recs),
        "eval_wall_s": med([r["result"].get("eval_wall_s") for r in recs]),
        "process_wall_s": med([r["time_v"].get("process_wall_s") for r in recs]),
        "peak_rss_mb": med([r["time_v"].get("peak_rss_mb") for r in recs]),
        "requests_per_row": (chat or 0.0) + (emb or 0.0), "chat_per_row": chat, "emb_per_row": emb,
        "prompt_tokens_per_row": med([s.get("prompt_tokens_ok", 0) / n for s in sv]),
        "completion_tokens_per_row": med([s.get("completion_tokens_ok", 0) / n for s in sv]),
        "embedding_tokens_per_row": med([s.get("embedding_tokens_ok", 0) / n for s in sv]),
        "status_429": med([s.get("status_counts", {}).get("429", 0) for s in sv]),
        "peak_inflight": med([s.get("peak_inflight") for s in sv]),
    }


def peer_figures(path: Path) -> dict[str, Any]:
    """The peers' recorded runs: main suite per (metric, setup), tpm runs, F1 loops."""
    recs = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    main: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    f1: dict[str, list] = defaultdict(list)
    tpm = []
    for r in recs:
        tag = r["suite_tag"]
        if tag.startswith("main"):
            main[r["metric"]][r["peer"]].append(r)
        elif tag.startswith("tpm"):
            s = r.get("server") or {}
            tpm.append({"peer": " ".join([r["peer"], *r.get("extra_args", [])]),
                        "metric": r["metric"], "tpm": r["tpm"], "rows": r["result"].get("rows"),
                        "scored": r["result"].get("scored") or 0,
                        "eval_wall_s": r["result"].get("eval_wall_s"),
                        "status_200": s.get("status_counts", {}).get("200", 0),
                        "status_429": s.get("status_counts", {}).get("429", 0),
                        "tpm_utilisation": s.get("tpm_utilisation"),
                        "served": s.get("prompt_tokens_ok", 0) + s.get("completion_tokens_ok", 0)
                        + s.get("embedding_tokens_ok", 0),
                        "span_s": s.get("server_span_s")})
        elif tag.startswith("f1loop"):
            f1[f"{r['peer']}: {r['result'].get('api')}"].append(r["result"].get("rows_per_s"))
    return {"main": {m: {p: run_figures(rs) for p, rs in ps.items()} for m, ps in main.items()},
            "tpm": tpm,
            "f1": {k: {"runs": len(v), "rows_per_s": med(v)} for k, v in f1.items()}}


# ------------------------------------------------------------------ printing and targets

def window_cap(served: int, span_s: float | None, tpm: int) -> float | None:
    """Tokens served / (limit x started minutes): report.py's "vs window cap", at most ~1."""
    return served / (tpm * max(1, math.ceil(span_s / 60))) if span_s else None


def fmt(x: Any, nd: int = 1) -> str:
    if x is None:
        return "-"
    return f"{x:.{nd}f}" if isinstance(x, float) else str(x)


def verdict(ok: bool | None) -> str:
    return "n/a " if ok is None else ("PASS" if ok else "MISS")


def table(metric: str, assay: dict[str, Any] | None, peers: dict[str, dict[str, Any]]) -> None:
    head = (f"  {'':<19}{'runs':>5}{'scored':>9}{'eval s':>8}{'proc s':>8}{'RSS MB':>8}"
            f"{'req/row (chat+emb)':>20}{'prompt tok/row':>16}{'compl tok/row':>15}"
            f"{'429s':>6}{'in-flight':>11}")
    print(head)
    rows = ([("assay", assay)] if assay else []) + sorted(peers.items())
    for name, f in rows:
        req = (f"{fmt(f['requests_per_row'], 2)} ({fmt(f['chat_per_row'], 2)}"
               f"+{fmt(f['emb_per_row'], 2)})")
        print(f"  {name:<19}{f['runs']:>5}{str(f['scored']) + '/' + str(f['rows']):>9}"
              f"{fmt(f['eval_wall_s'], 2):>8}{fmt(f['process_wall_s'], 2):>8}"
              f"{fmt(f['peak_rss_mb'], 0):>8}{req:>20}{fmt(f['prompt_tokens_per_row'], 0):>16}"
              f"{fmt(f['completion_tokens_per_row'], 0):>15}{fmt(f['status_429'], 0):>6}"
              f"{fmt(f['peak_inflight'], 0):>11}")


def assay_figures(runs: list[dict[str, Any]], rows: int) -> dict[str, Any]:
    """The same medians as ``run_figures``, over assay's runs."""
    as_records = [{"result": {"rows": r.get("rows") or rows, "scored": r.get("scored"),
                              "eval_wall_s": r.get("eval_wall_s")},
                   "time_v": {"process_wall_s": r["process_wall_s"],
                              "peak_rss_mb": r["peak_rss_mb"]},
                   "server": r.get("server")} for r in runs]
    return run_figures(as_records)


def full(f: dict[str, Any]) -> bool:
    return f["scored"] == f["rows"]


def llm_targets(metric: str, a: dict[str, Any], peers: dict[str, dict[str, Any]],
                comparable: bool) -> list[dict[str, Any]]:
    """The issue's per-metric targets: requests, prompt tokens, wall time."""
    out = []
    ok_peers = {p: f for p, f in peers.items() if full(f)}
    if metric in ("grounded", "relevance"):
        out.append({"metric": metric, "target": f"requests/row <= {MAX_REQUESTS_PER_ROW:g}",
                    "assay": a["requests_per_row"], "reference": None,
                    "ok": a["requests_per_row"] <= MAX_REQUESTS_PER_ROW})
        single = {p: f for p, f in ok_peers.items() if f["requests_per_row"] <= 1.0}
        if single:
            lean = min(single, key=lambda p: single[p]["prompt_tokens_per_row"])
            ref = single[lean]["prompt_tokens_per_row"]
            out.append({"metric": metric,
                        "target": f"prompt tok/row <= {PROMPT_TOKENS_SHARE:g} x leanest peer at "
                                  f"1 request/row ({lean}: {ref:.0f})",
                        "assay": a["prompt_tokens_per_row"], "reference": ref,
                        "ratio": a["prompt_tokens_per_row"] / ref,
                        "ok": a["prompt_tokens_per_row"] <= PROMPT_TOKENS_SHARE * ref})
    if metric in ("grounded", "relevance", "llm") and ok_peers:
        for key, label in (("eval_wall_s", "eval"), ("process_wall_s", "process")):
            fast = min(ok_peers, key=lambda p: ok_peers[p][key])
            ref = ok_peers[fast][key]
            out.append({"metric": metric,
                        "target": f"{label} wall <= {WALL_SHARE:g} x fastest peer "
                                  f"({fast}: {ref:.2f} s)",
                        "assay": a[key], "reference": ref, "ratio": a[key] / ref,
                        "ok": (a[key] <= WALL_SHARE * ref) if comparable and full(a) else None,
                        **({} if comparable else
                           {"note": f"peers ran {PEER_ROWS} rows at {PEER_LATENCY_MS:g} ms"})})
    return out


def print_targets(targets: list[dict[str, Any]]) -> None:
    for t in targets:
        ratio = f"  ({t['ratio']:.2f}x)" if t.get("ratio") is not None else ""
        note = f"  [{t['note']}]" if t.get("note") else ""
        val = t["assay"]
        shown = f"{val:.2f}" if isinstance(val, float) else str(val)
        print(f"  {verdict(t['ok'])}  {t['metric']:<10} {t['target']}: assay {shown}{ratio}{note}")


# ------------------------------------------------------------------ main

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=PEER_ROWS, help="first N qa50 rows (default 50)")
    ap.add_argument("--latency-ms", type=float, default=PEER_LATENCY_MS)
    ap.add_argument("--metrics", default="grounded,relevance,f1,llm",
                    help="harness metrics: grounded, relevance, f1, llm (both LLM metrics)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per metric (peers: 3); medians")
    ap.add_argument("--concurrency", type=int, default=None,
                    help="judge requests in flight, fixed (default: assay's adaptive pacing; "
                         "ragas.evaluate's default is 16 workers, azure used 10, deepeval 20, "
                         "ragas collections unbounded)")
    ap.add_argument("--warm-imports", action="store_true",
                    help="import assay.run and openai before the eval timer, like the peers")
    ap.add_argument("--tpm", type=int, default=20000, help="limit of the TPM run")
    ap.add_argument("--skip-tpm", action="store_true")
    ap.add_argument("--skip-f1", action="store_true", help="skip the 10,000-row token-F1 run")
    ap.add_argument("--f1-rows", type=int, default=10000)
    ap.add_argument("--timeout", type=float, default=900, help="per run, seconds")
    ap.add_argument("--results", type=Path, default=RESULTS, help="the peers' recorded runs")
    ap.add_argument("--json", type=Path, default=None, help="write every figure here")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--child-out", help=argparse.SUPPRESS)
    ap.add_argument("--child-tpm", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args)

    peers = peer_figures(args.results)
    tmp = Path(tempfile.mkdtemp(prefix="assay-peers-"))
    comparable = args.rows == PEER_ROWS and args.latency_ms == PEER_LATENCY_MS
    report: dict[str, Any] = {"settings": {k: (str(v) if isinstance(v, Path) else v)
                                           for k, v in vars(args).items()
                                           if not k.startswith("child")},
                              "peers": peers, "assay": {}, "targets": []}
    print(f"assay vs peers: qa50 first {args.rows} rows, fake judge at {args.latency_ms:g} ms, "
          f"judge {JUDGE}, concurrency {args.concurrency or 'adaptive'}"
          f"{', imports warmed' if args.warm_imports else ''}, {args.repeat} run(s) per metric; "
          f"peers: {args.results} (medians over their repeats, {PEER_ROWS} rows, "
          f"{PEER_LATENCY_MS:g} ms)")
    print("per-row figures are from the judge's request log (tokens ~ chars/4, the same count "
          "for every library); eval s = around evaluate(), proc s = whole process")
    for metric in [m for m in args.metrics.split(",") if m]:
        if metric not in METRICS:
            raise SystemExit(f"unknown harness metric {metric!r}; one of {sorted(METRICS)}")
        runs = []
        for i in range(max(1, args.repeat)):
            work = tmp / f"{metric}-{i}"
            if metric == "f1":
                with FakeJudge("--latency-ms", str(args.latency_ms),
                               log=work / "requests.jsonl") as judge:
                    work.mkdir(parents=True, exist_ok=True)
                    rec = measure("f1_score", work, judge.base_url, args)
                rec["server"] = parse_log(str(work / "requests.jsonl"), 0)
            else:
                rec = run_llm(metric, work, args)
            if rec["rc"] != 0:
                print(f"assay run failed (rc {rec['rc']}):\n{rec.get('stderr_tail', '')}")
            runs.append(rec)
        a = assay_figures(runs, args.rows)
        report["assay"][metric] = {"figures": a, "runs": runs}
        print(f"\n{metric} ({', '.join(METRICS[metric])} in assay)")
        table(metric, a, peers["main"].get(metric, {}))
        targets = llm_targets(metric, a, peers["main"].get(metric, {}), comparable)
        print_targets(targets)
        report["targets"] += targets

    if not args.skip_tpm:
        rec = run_llm("grounded", tmp / "tpm", args, tpm=args.tpm)
        s = rec["server"]
        n = rec.get("rows") or args.rows
        served = (s.get("prompt_tokens_ok", 0) + s.get("completion_tokens_ok", 0)
                  + s.get("embedding_tokens_ok", 0))
        r429 = s.get("status_counts", {}).get("429", 0)
        report["assay"]["tpm"] = rec
        print(f"\n--tpm {args.tpm} (server limit and assay's client budget), grounded; "
              f"utilisation = tokens admitted per minute over the run (first request received "
              f"to last answer sent) / {args.tpm}")
        print(f"  {'':<40}{'scored':>9}{'eval s':>9}{'200 / 429':>12}{'utilisation':>13}"
              f"{'vs window cap':>15}")
        print(f"  {'assay':<40}{str(rec.get('scored')) + '/' + str(n):>9}"
              f"{fmt(rec.get('eval_wall_s')):>9}"
              f"{str(s.get('status_counts', {}).get('200', 0)) + ' / ' + str(r429):>12}"
              f"{fmt(s.get('tpm_utilisation'), 2):>13}"
              f"{fmt(window_cap(served, s.get('server_span_s'), args.tpm), 2):>15}")
        for p in sorted(peers["tpm"], key=lambda p: p["peer"]):
            print(f"  {p['peer']:<40}{str(p['scored']) + '/' + str(p['rows']):>9}"
                  f"{fmt(p['eval_wall_s']):>9}"
                  f"{str(p['status_200']) + ' / ' + str(p['status_429']):>12}"
                  f"{fmt(p['tpm_utilisation'], 2):>13}"
                  f"{fmt(window_cap(p['served'], p['span_s'], p['tpm']), 2):>15}")
        print("  (utilisation can exceed 1: a sliding 60 s window admits a full minute's tokens "
              "at the start and again a minute later; vs window cap = tokens / (limit x minutes "
              "started), report.py's stricter figure)")
        print(f"  tokens admitted {served} over {fmt(s.get('server_span_s'))} s "
              f"({fmt(s.get('served_tokens_per_min'))} tokens/min)")
        util = s.get("tpm_utilisation")
        targets = [
            {"metric": "tpm", "target": f"all rows scored ({n})", "assay": rec.get("scored"),
             "ok": rec.get("scored") == n},
            {"metric": "tpm", "target": "zero 429 answers", "assay": r429, "ok": r429 == 0},
            {"metric": "tpm", "target": f"utilisation >= {MIN_UTILISATION:g}", "assay": util,
             "ok": (util is not None and util >= MIN_UTILISATION) if served > args.tpm else None,
             **({} if served > args.tpm else
                {"note": f"{served} tokens fit in one minute's limit: the limit never bound"})}]
        print_targets(targets)
        report["targets"] += targets

    if not args.skip_f1:
        runs = [measure("f1loop", tmp / f"f1loop-{i}", None, args) for i in range(max(1, args.repeat))]
        rps = med([r.get("rows_per_s") for r in runs])
        per_row = med([r.get("per_row_call_rows_per_s") for r in runs])
        cold = med([r.get("with_import_rows_per_s") for r in runs])
        again = med([r.get("second_call_rows_per_s") for r in runs])
        per_cpu = med([r.get("rows_per_cpu_s") for r in runs])
        report["assay"]["f1loop"] = {"rows_per_s": rps, "per_row_call_rows_per_s": per_row,
                                     "with_import_rows_per_s": cold,
                                     "second_call_rows_per_s": again,
                                     "rows_per_cpu_s": per_cpu, "runs": runs}
        print(f"\ntoken F1 on {args.f1_rows} rows (qa50 expanded by the harness's expand_rows), "
              f"in-process, medians of {len(runs)} process(es); load average "
              f"{os.getloadavg()[0]:.2f}")
        print(f"  {'':<52}{'rows/s':>10}{'RSS MB':>9}")
        print(f"  {'assay: evaluate(metrics=f1_score)':<52}{fmt(rps, 0):>10}"
              f"{fmt(med([r['peak_rss_mb'] for r in runs]), 0):>9}")
        print(f"  {'  the same, timing the import of evaluate too':<52}{fmt(cold, 0):>10}"
              f"   (import {fmt(med([r.get('evaluate_import_s') for r in runs]), 3)} s)")
        print(f"  {'  a second call in the same process':<52}{fmt(again, 0):>10}")
        print(f"  {'  per CPU second of the process (steadier under load)':<52}"
              f"{fmt(per_cpu, 0):>10}")
        print(f"  {'assay: F1Score.score per row':<52}{fmt(per_row, 0):>10}")
        for k, v in sorted(peers["f1"].items()):
            print(f"  {k:<52}{fmt(v['rows_per_s'], 0):>10}")
        if peers["f1"]:
            fast = max(peers["f1"], key=lambda k: peers["f1"][k]["rows_per_s"] or 0)
            ref = peers["f1"][fast]["rows_per_s"]
            ok = rps is not None and rps >= F1_FACTOR * ref
            if args.f1_rows != 10000 or any(r.get("scored") != args.f1_rows for r in runs):
                ok = None
            targets = [{"metric": "f1", "target": f"rows/s >= {F1_FACTOR:g} x fastest peer "
                                                  f"({fast}: {ref:.0f})",
                        "assay": rps, "reference": ref, "ratio": (rps or 0) / ref, "ok": ok}]
            print_targets(targets)
            report["targets"] += targets

    t = report["targets"]
    print(f"\ntargets: {sum(x['ok'] is True for x in t)} PASS, {sum(x['ok'] is False for x in t)} "
          f"MISS, {sum(x['ok'] is None for x in t)} n/a")
    shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
        print(f"figures written to {args.json}")


if __name__ == "__main__":
    main()
