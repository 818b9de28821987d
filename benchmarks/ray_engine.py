"""The Ray engine against the local engine on a judge-bound run.

Scores ``--rows`` rows (qa50 repeated, with unique ids and, unless ``--duplicates``, the copy
number appended to repeated answers so every judge request is distinct) with groundedness and relevance on the
bench's fake OpenAI-compatible judge (``../shared/bench/fake_judge.py``, 300 ms a request by
default), judge ``openai:gpt-4o-mini``, total judge concurrency 16, cache off:

- local: one :class:`Scorer` driven by a pool of ``2 x concurrency`` asyncio workers (how the
  local engine drives it);
- Ray, cold: ``RayEngine(...)`` with Ray not running, so the time includes ``ray.init`` and the
  actors' start-up, as a first run on a laptop pays it;
- Ray, warm: a second engine on the running Ray, its actors up (``await engine.start()``)
  before the clock starts, as on a cluster that is already there.

The target is Ray warm wall / local wall <= 1.3 (the engine must not cost much where one
machine would do); the records of every run must equal the local ones. The judge's request
log gives each run's requests and peak requests in flight (the parallelism the provider saw).

With ``--tpm N`` it runs instead one Ray run of groundedness over the first ``--tpm-rows`` (50)
qa50 rows against a judge limited to N tokens/minute (HTTP 429 over it), with
``RayEngine(tpm=N)``: one budget actor shared by the workers, each of which has its own judge
client. The targets (those of ``peers.py --tpm`` for the local engine): every row scored, zero
429 answers (the workers together keep to the limit), utilisation >= 0.9, computed as
``peers.py`` does (the harness's ``parse_log``: tokens admitted per minute from the first
request received to the last answer sent, over the limit).

    .venv/bin/python benchmarks/ray_engine.py
    .venv/bin/python benchmarks/ray_engine.py --rows 100 --workers 2 --json ray.json
    .venv/bin/python benchmarks/ray_engine.py --tpm 20000            # a minute or two
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _fake_server import BENCH, FakeJudge
from peers import MIN_UTILISATION, parse_log, window_cap  # the TPM suite's figures

from assay.data import Row, rows_from_records
from assay.judges import make_judge
from assay.metrics import Metric, plan_metrics
from assay.run._local import LocalEngine
from assay.run._ray import RayEngine
from assay.run._score import Scorer, ScoreSettings

QA50 = BENCH / "qa50.jsonl"
JUDGE = "openai:gpt-4o-mini"  # a model the fake judge lists
METRICS = "groundedness,relevance"
TARGET_RATIO = 1.3

Records = dict[str, dict[str, Any]]


def load_rows(n: int, *, distinct: bool = True) -> list[Row]:
    """``n`` rows: qa50 repeated, each with its own id. ``distinct`` appends the copy number to
    every repeated answer, so no two judge requests are the same: otherwise identical requests
    of copies that happen to be in flight together in one process are sent once (the managed
    judge shares them), which depends on the scheduling, not on the engine's speed."""
    base = [json.loads(x) for x in QA50.read_text().splitlines() if x.strip()]
    out = []
    for i in range(n):
        rec = {**base[i % len(base)], "id": f"q{i:05d}"}
        if distinct and i >= len(base):
            rec["answer"] = f"{rec['answer']} (copy {i // len(base)})"
        out.append(rec)
    return rows_from_records(out)


async def run_local(rows: list[Row], metrics: list[Metric], settings: ScoreSettings,
                    ) -> tuple[Records, float, dict[str, int]]:
    """The local engine, as ``evaluate`` runs it (``2 x concurrency`` row workers)."""
    engine = LocalEngine(Scorer(metrics, judge=make_judge(JUDGE), embedder=None,
                                settings=settings), workers=2 * settings.concurrency)
    records: Records = {}

    def on_record(record: dict[str, Any]) -> None:
        records[record["id"]] = record

    try:
        t0 = time.perf_counter()
        await engine.run(items(rows), on_record)
        wall = time.perf_counter() - t0
        judge_stats, _ = engine.stats()
        assert judge_stats is not None
        return records, wall, judge_stats
    finally:
        await engine.aclose()


async def items(rows: list[Row]) -> Any:
    for row in rows:
        yield row, {}


async def run_ray(engine: RayEngine, rows: list[Row]) -> tuple[Records, float]:
    records: Records = {}

    def on_record(record: dict[str, Any]) -> None:
        records[record["id"]] = record

    t0 = time.perf_counter()
    await engine.run(items(rows), on_record)
    return records, time.perf_counter() - t0


def server_figures(log: list[dict[str, Any]], t0: float, t1: float) -> dict[str, Any]:
    """Requests the judge received in [t0, t1] (wall clock) and the peak in flight."""
    recs = [r for r in log if t0 <= r["t_recv"] <= t1 and "chat" in r["path"]]
    events = sorted([(r["t_recv"], 1) for r in recs] + [(r["t_done"], -1) for r in recs])
    peak = now = 0
    for _, step in events:
        now += step
        peak = max(peak, now)
    return {"requests": len(recs), "status_200": sum(r.get("status") == 200 for r in recs),
            "peak_inflight": peak}


def diff(a: Records, b: Records) -> str:
    """``yes``, or what differs."""
    if a == b:
        return "yes"
    if a.keys() != b.keys():
        return f"no ({len(a.keys() ^ b.keys())} ids differ)"
    bad = [k for k in a if a[k] != b[k]]
    return f"no ({len(bad)} records differ, e.g. {bad[0]})"


async def bench(args: argparse.Namespace, judge: FakeJudge) -> dict[str, Any]:
    rows = load_rows(args.rows, distinct=not args.duplicates)
    metrics = plan_metrics(rows, METRICS).metrics
    settings = ScoreSettings(concurrency=args.concurrency, cache_path=None)
    options = {"judge": JUDGE, "embedder": None, "settings": settings,
               "workers": args.workers, "batch_size": args.batch_size}
    out: dict[str, Any] = {"settings": {k: v for k, v in vars(args).items() if k != "json"}}

    local_walls, ray_walls = [], []
    local: Records = {}
    local_stats: dict[str, int] = {}
    for _ in range(args.repeat):
        w0 = time.time()
        local, wall, local_stats = await run_local(rows, metrics, settings)
        local_walls.append(wall)
        out["local_server"] = server_figures(judge.records(), w0, time.time())

    # Cold: this engine starts Ray (and shuts it down in aclose).
    w0 = time.time()
    t0 = time.perf_counter()
    cold = RayEngine(metrics, **options)
    t_init = time.perf_counter() - t0
    await cold.start()
    t_start = time.perf_counter() - t0 - t_init
    try:
        cold_records, cold_run = await run_ray(cold, rows)
        cold_wall = time.perf_counter() - t0
        out["cold_server"] = server_figures(judge.records(), w0, time.time())
        # Warm: a second engine on the running Ray, its actors up before the clock starts.
        warm = RayEngine(metrics, **options)
        try:
            await warm.start()
            for _ in range(args.repeat):
                before = warm.stats()[0] or {}
                w0 = time.time()
                warm_records, wall = await run_ray(warm, rows)
                ray_walls.append(wall)
                out["warm_server"] = server_figures(judge.records(), w0, time.time())
                # The engine's stats add up over its runs: this run's share.
                warm_stats = {k: v - before.get(k, 0) for k, v in (warm.stats()[0] or {}).items()}
        finally:
            await warm.aclose()
    finally:
        t1 = time.perf_counter()
        await cold.aclose()
        t_close = time.perf_counter() - t1

    local_wall, warm_wall = statistics.median(local_walls), statistics.median(ray_walls)
    out.update(
        rows=len(rows), metrics=METRICS, judge=JUDGE, workers=cold.workers,
        local={"wall_s": round(local_wall, 3), "walls_s": [round(w, 3) for w in local_walls],
               "rows_per_s": round(len(rows) / local_wall, 1), "judge": local_stats},
        ray_warm={"wall_s": round(warm_wall, 3), "walls_s": [round(w, 3) for w in ray_walls],
                  "rows_per_s": round(len(rows) / warm_wall, 1), "judge": warm_stats,
                  "ratio": round(warm_wall / local_wall, 3)},
        ray_cold={"wall_s": round(cold_wall, 3), "rows_per_s": round(len(rows) / cold_wall, 1),
                  "ray_init_s": round(t_init, 3), "actors_start_s": round(t_start, 3),
                  "run_s": round(cold_run, 3), "close_and_shutdown_s": round(t_close, 3),
                  "ratio": round(cold_wall / local_wall, 3)},
        records_equal={"cold": diff(cold_records, local), "warm": diff(warm_records, local)},
        target={"ratio_max": TARGET_RATIO, "ok": warm_wall / local_wall <= TARGET_RATIO})
    return out


async def bench_tpm(args: argparse.Namespace) -> dict[str, Any]:
    """One Ray run of groundedness under the judge's token limit, with the same client budget."""
    rows = load_rows(args.tpm_rows)
    metrics = plan_metrics(rows, "groundedness").metrics
    settings = ScoreSettings(concurrency=args.concurrency, cache_path=None)
    engine = RayEngine(metrics, judge=JUDGE, embedder=None, settings=settings, tpm=args.tpm,
                       workers=args.workers, batch_size=args.batch_size)
    try:
        await engine.start()  # Ray and the actors up before the clock starts
        records, wall = await run_ray(engine, rows)
        # Per worker, to show that every worker sent requests (the engine sums them in stats()).
        per_worker = [dict(judge or {}) for judge, _ in engine._stats]
        judge_stats = engine.stats()[0] or {}
    finally:
        await engine.aclose()
    scored = sum(r.get("groundedness", {}).get("value") is not None for r in records.values())
    return {"rows": len(rows), "scored": scored, "wall_s": round(wall, 3),
            "workers": engine.workers, "judge": judge_stats,
            "judge_per_worker": per_worker}


def print_tpm(args: argparse.Namespace, out: dict[str, Any]) -> None:
    s = out["server"]
    n, scored = out["rows"], out["scored"]
    served = (s.get("prompt_tokens_ok", 0) + s.get("completion_tokens_ok", 0)
              + s.get("embedding_tokens_ok", 0))
    r429 = s.get("status_counts", {}).get("429", 0)
    util = s.get("tpm_utilisation")
    judge = out["judge"]
    print(f"Ray engine under --tpm {args.tpm} (server limit and RayEngine(tpm=...), one budget "
          f"actor for all workers): groundedness on the first {n} qa50 rows, {JUDGE} on the fake "
          f"judge at {args.latency_ms:g} ms, concurrency {args.concurrency} in total, "
          f"{out['workers']} Ray workers, batches of {args.batch_size}, cache off, "
          f"{os.cpu_count()} CPUs")
    print(f"  rows scored            {scored}/{n}")
    print(f"  judge requests         {s.get('chat_requests', 0)} at the server "
          f"({s.get('chat_ok', 0)} answered 200), {judge.get('requests', 0)} sent by the workers "
          f"({', '.join(str(w.get('requests', 0)) for w in out['judge_per_worker'])} per worker)")
    print(f"  429s at the server     {r429}")
    print(f"  client retries         {judge.get('retries', 0)}, rate_limited "
          f"{judge.get('rate_limited', 0)}, failed {judge.get('failed', 0)}")
    print(f"  wall time              {out['wall_s']:.2f} s (the run, actors already up)")
    print(f"  tokens admitted        {served} over {fmt(s.get('server_span_s'))} s "
          f"({fmt(s.get('served_tokens_per_min'))} tokens/min), peak in flight "
          f"{s.get('peak_inflight')}")
    print(f"  utilisation            {fmt(util, 3)} (tokens admitted per minute, first request "
          f"received to last answer sent, / {args.tpm}; peers.py's); vs window cap "
          f"{fmt(window_cap(served, s.get('server_span_s'), args.tpm), 3)}")
    binds = served > args.tpm
    targets = [
        {"target": f"all rows scored ({n})", "value": scored, "ok": scored == n},
        {"target": "zero 429 answers", "value": r429, "ok": r429 == 0},
        {"target": f"utilisation >= {MIN_UTILISATION:g}", "value": util,
         "ok": (util is not None and util >= MIN_UTILISATION) if binds else None,
         **({} if binds else
            {"note": f"{served} tokens fit in one minute's limit: the limit never bound"})}]
    for t in targets:
        verdict = "n/a " if t["ok"] is None else ("PASS" if t["ok"] else "MISS")
        note = f"  [{t['note']}]" if t.get("note") else ""
        print(f"  {verdict}  {t['target']}: {fmt(t['value'], 3)}{note}")
    out["targets"] = targets


def fmt(x: Any, nd: int = 1) -> str:
    if x is None:
        return "-"
    return f"{x:.{nd}f}" if isinstance(x, float) else str(x)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=200)
    ap.add_argument("--latency-ms", type=float, default=300.0)
    ap.add_argument("--concurrency", type=int, default=16, help="total judge concurrency")
    ap.add_argument("--workers", type=int, default=2, help="Ray worker actors")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--duplicates", action="store_true",
                    help="keep repeated rows identical (see load_rows; default: made distinct)")
    ap.add_argument("--repeat", type=int, default=1, help="local and warm Ray runs; medians")
    ap.add_argument("--json", type=Path, default=None, help="write every figure here")
    ap.add_argument("--tpm", type=int, default=0,
                    help="instead: one Ray run under this tokens/minute limit (see above)")
    ap.add_argument("--tpm-rows", type=int, default=50, help="rows of the --tpm run")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="assay-ray-bench-"))
    if args.tpm:
        log = tmp / "requests.jsonl"
        with FakeJudge("--latency-ms", str(args.latency_ms), "--tpm", str(args.tpm),
                       log=log) as judge:
            os.environ.update(OPENAI_BASE_URL=judge.base_url, OPENAI_API_KEY="sk-bench",
                              NO_PROXY="127.0.0.1,localhost")
            out = asyncio.run(bench_tpm(args))
        out["server"] = parse_log(str(log), args.tpm)
        out["settings"] = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
        print_tpm(args, out)
        if args.json:
            args.json.write_text(json.dumps(out, indent=2))
            print(f"figures written to {args.json}")
        return
    with FakeJudge("--latency-ms", str(args.latency_ms), log=tmp / "requests.jsonl") as judge:
        # Set before Ray starts: a local Ray's workers inherit the driver's environment.
        os.environ.update(OPENAI_BASE_URL=judge.base_url, OPENAI_API_KEY="sk-bench",
                          NO_PROXY="127.0.0.1,localhost")
        out = asyncio.run(bench(args, judge))

    local, warm, cold = out["local"], out["ray_warm"], out["ray_cold"]
    kind = "identical copies" if args.duplicates else "copies made distinct"
    print(f"Ray engine vs local: {out['rows']} rows (qa50 repeated, {kind}), {METRICS}, {JUDGE} on the "
          f"fake judge at {args.latency_ms:g} ms, concurrency {args.concurrency} in total, "
          f"{out['workers']} Ray workers, batches of {args.batch_size}, cache off, "
          f"{os.cpu_count()} CPUs")
    print(f"  {'':<34}{'wall s':>8}{'rows/s':>8}{'requests':>10}{'peak in flight':>16}"
          f"{'ratio':>7}")
    for name, fig, server in (("local engine", local, out["local_server"]),
                              ("Ray, warm (excl. start-up)", warm, out["warm_server"]),
                              ("Ray, cold (incl. start-up)", cold, out["cold_server"])):
        ratio = f"{fig['ratio']:.2f}" if "ratio" in fig else "-"
        print(f"  {name:<34}{fig['wall_s']:>8.2f}{fig['rows_per_s']:>8.1f}"
              f"{server['requests']:>10}{server['peak_inflight']:>16}{ratio:>7}")
    print(f"  cold start-up: ray.init {cold['ray_init_s']:.2f} s, actors {cold['actors_start_s']:.2f}"
          f" s, run {cold['run_s']:.2f} s; aclose + ray.shutdown {cold['close_and_shutdown_s']:.2f} s")
    print(f"  judge stats, local: {local['judge']}")
    print(f"  judge stats, Ray:   {warm['judge']}")
    print(f"  records equal: {out['records_equal']['warm']} (warm), "
          f"{out['records_equal']['cold']} (cold)")
    verdict = "PASS" if out["target"]["ok"] else "MISS"
    print(f"  {verdict}  Ray warm wall / local wall <= {TARGET_RATIO:g}: {warm['ratio']:.2f}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
        print(f"figures written to {args.json}")


if __name__ == "__main__":
    main()
